/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/define_trace.h - expand the TRACE_EVENT()s of an event header.
 *
 * Included at the end of an event header (see evtrace/trace_event.h). Does
 * nothing unless CREATE_TRACE_POINTS is defined, which one .c file per
 * program or shared library does before including the header. It then
 * includes the header again once per pass, each pass giving TRACE_EVENT()
 * and the field macros another meaning:
 *
 *   1 struct evt_raw_<name>: the record
 *   2 struct evt_data_offsets_<name>: where the dynamic fields go; the key byte
 *   3 the number of fields
 *   4 __evt_init_<name>(): the field descriptors
 *   5 __evt_get_offsets_<name>(): the sizes of the dynamic fields
 *   6 __evt_class_trace_<class>(): the writer (reserve, assign, commit per
 *     instance); __evt_do_trace_<name>() per event calls it
 *   7 the class's print format text; per event the struct evt_event_def and
 *     the constructor/destructor that register and unregister it
 *
 * Passes 1-5 work on classes (DECLARE_EVENT_CLASS; TRACE_EVENT is a class and
 * one event), 6 and 7 on both.
 */
#ifdef CREATE_TRACE_POINTS

#undef CREATE_TRACE_POINTS
#include <evtrace/trace_event.h>

#ifndef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE TRACE_SYSTEM
#define __EVT_UNDEF_TRACE_INCLUDE_FILE
#endif
#ifdef TRACE_INCLUDE_PATH
#define __EVT_TRACE_INCLUDE(file)	__evt_xstr(TRACE_INCLUDE_PATH/file.h)
#else
#define __EVT_TRACE_INCLUDE(file)	__evt_xstr(file.h)
#endif
#define __EVT_TRACE_HEADER		__EVT_TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#define TRACE_HEADER_MULTI_READ
#define EVT_TRACE_PASS

/* In every pass an event with a condition is an event (the condition is the call site's). */
#undef DEFINE_EVENT_CONDITION
#define DEFINE_EVENT_CONDITION(template, call, proto, args, cond)			\
	DEFINE_EVENT(template, call, PARAMS(proto), PARAMS(args))
/* And one with reg/unreg callbacks is an event but in pass 7 (its definition). */
#undef DEFINE_EVENT_FN
#define DEFINE_EVENT_FN(template, call, proto, args, reg, unreg)			\
	DEFINE_EVENT(template, call, PARAMS(proto), PARAMS(args))
#undef __EVT_DEFINE_EVENT_FN_COND
#define __EVT_DEFINE_EVENT_FN_COND(template, call, proto, args, cond, reg, unreg)	\
	DEFINE_EVENT_FN(template, call, PARAMS(proto), PARAMS(args), reg, unreg)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wattributes"

#undef __field
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT

/*
 * __cpumask(): the kernel's nr_cpumask_bits is the number of possible CPUs; here the
 * configured ones (at most CPU_SETSIZE, 1024), asked once per object file.
 */
#ifndef __EVT_NR_CPUMASK_BITS_DEFINED
#define __EVT_NR_CPUMASK_BITS_DEFINED
#include <unistd.h>
static inline __attribute__((unused)) unsigned int __evt_nr_cpumask_bits(void)
{
	static unsigned int bits;
	/* Relaxed: a plain cache of a value that never changes; racing threads store the same. */
	unsigned int b = __atomic_load_n(&bits, __ATOMIC_RELAXED);

	if (!b) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		b = n > 0 && n <= 1024 ? (unsigned int)n : 1024;
		__atomic_store_n(&bits, b, __ATOMIC_RELAXED);
	}
	return b;
}
#endif

/* Natural alignment, at most 4: records are 4-byte aligned in the ring buffer. */
#define __evt_falign(type)	\
	__attribute__((packed, aligned(__alignof__(type) < 4 ? __alignof__(type) : 4)))

/* ---- pass 1: the record ------------------------------------------------------------ */
#define __field(type, item)			type item __evt_falign(type);
#define __array(type, item, len)		type item[len] __evt_falign(type);
#define __dynamic_array(type, item, len)	uint32_t __data_loc_##item;
#define __string(item, src)			uint32_t __data_loc_##item;
#define __string_len(item, src, len)		uint32_t __data_loc_##item;
#define __bitmask(item, nr_bits)		uint32_t __data_loc_##item;
#define __cpumask(item)				uint32_t __data_loc_##item;
#define __vstring(item, fmt, va)		uint32_t __data_loc_##item;
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	struct evt_raw_##call {								\
		struct evt_trace_entry ent;						\
		tstruct									\
		char __data[];								\
	};
#define DEFINE_EVENT(template, call, proto, args)
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)
#include __EVT_TRACE_HEADER

/* ---- pass 2: dynamic data offsets, the key, the definition's declaration ------------ */
#undef __field
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#define __field(type, item)
#define __array(type, item, len)
#define __dynamic_array(type, item, len)	uint32_t item; const void *item##_ptr_;
#define __string(item, src)			uint32_t item; const void *item##_ptr_;
#define __string_len(item, src, len)		uint32_t item; const void *item##_ptr_;
#define __bitmask(item, nr_bits)		uint32_t item; const void *item##_ptr_;
#define __cpumask(item)				uint32_t item; const void *item##_ptr_;
#define __vstring(item, fmt, va)		uint32_t item; const void *item##_ptr_;
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	struct evt_data_offsets_##call {						\
		int __evt_unused;							\
		tstruct									\
	};
#define DEFINE_EVENT(template, call, proto, args)					\
	uint8_t __evt_key_##call;							\
	static struct evt_event_def __evt_def_##call;
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)				\
	DEFINE_EVENT(template, call, PARAMS(proto), PARAMS(args))
#include __EVT_TRACE_HEADER

/* ---- pass 3: how many fields ------------------------------------------------------- */
#undef __field
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#define __field(type, item)			+ 1
#define __array(type, item, len)		+ 1
#define __dynamic_array(type, item, len)	+ 1
#define __string(item, src)			+ 1
#define __string_len(item, src, len)		+ 1
#define __bitmask(item, nr_bits)		+ 1
#define __cpumask(item)				+ 1
#define __vstring(item, fmt, va)		+ 1
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	enum { __evt_nr_fields_##call = 0 tstruct };					\
	static struct evt_field __evt_fields_##call[__evt_nr_fields_##call + 1];
#define DEFINE_EVENT(template, call, proto, args)
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)
#include __EVT_TRACE_HEADER

/* ---- pass 4: the field descriptors --------------------------------------------------- */
#undef __field
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#define __evt_is_ptr(type)	(__builtin_classify_type((type)0) == 5)
#define __evt_is_signed(type)	\
	__builtin_choose_expr(__builtin_classify_type((type)0) == 5, 0, ((type)-1 < (type)1))
#define __evt_off(item)		((uint16_t)__builtin_offsetof(__typeof__(*__evt_rec), item))
#define __evt_sz(item)		((uint16_t)sizeof(__evt_rec->item))
/* Positional: struct evt_field is { type, name, offset, size, elem_size, kind, is_signed }. */
#define __field(type, item)								\
	__f[__n++] = (struct evt_field){ #type, #item, __evt_off(item), __evt_sz(item),	\
		__evt_sz(item), __evt_is_ptr(type) ? EVT_FIELD_PTR : EVT_FIELD_INT,	\
		__evt_is_signed(type) };
#define __array(type, item, len)							\
	__f[__n++] = (struct evt_field){ #type "[" __evt_xstr(len) "]", #item,		\
		__evt_off(item), __evt_sz(item), (uint16_t)sizeof(type),		\
		__evt_array_kind(#type, sizeof(type), false), __evt_is_signed(type) };
#define __dynamic_array(type, item, len)						\
	__f[__n++] = (struct evt_field){ "__data_loc " #type "[]", #item,		\
		__evt_off(__data_loc_##item), 4, (uint16_t)sizeof(type),		\
		__evt_array_kind(#type, sizeof(type), true), __evt_is_signed(type) };
#define __string(item, src)								\
	__f[__n++] = (struct evt_field){ "__data_loc char[]", #item,			\
		__evt_off(__data_loc_##item), 4, 1, EVT_FIELD_DYN_STRING, 0 };
#define __string_len(item, src, len)	__string(item, src)
#define __vstring(item, fmt, va)	__string(item, fmt)
/* As the kernel's: an array of unsigned long (its printer reads them as host words). */
#define __bitmask(item, nr_bits)							\
	__f[__n++] = (struct evt_field){ "__data_loc unsigned long[]", #item,		\
		__evt_off(__data_loc_##item), 4, (uint16_t)sizeof(unsigned long),	\
		EVT_FIELD_DYN_ARRAY, 0 };
#define __cpumask(item)									\
	__f[__n++] = (struct evt_field){ "__data_loc cpumask_t", #item,			\
		__evt_off(__data_loc_##item), 4, (uint16_t)sizeof(unsigned long),	\
		EVT_FIELD_DYN_ARRAY, 0 };
#define DEFINE_EVENT(template, call, proto, args)
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	static void __evt_init_##call(struct evt_event_def *__def)			\
	{										\
		struct evt_raw_##call *__evt_rec = NULL;				\
		struct evt_field *__f = __evt_fields_##call;				\
		unsigned int __n = 0;							\
											\
		(void)__evt_rec;							\
		tstruct									\
		__def->fields = __f;							\
		__def->nr_fields = __n;							\
	}
#include __EVT_TRACE_HEADER

/* ---- pass 5: the sizes of the dynamic fields ---------------------------------------- */
#undef __field
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#define __field(type, item)
#define __array(type, item, len)
#define __dynamic_array(type, item, len)						\
	{										\
		uint64_t __nb = (uint64_t)(len) * sizeof(type);				\
											\
		if (__nb > EVT_DYN_ARRAY_MAX)						\
			__nb = EVT_DYN_ARRAY_MAX / sizeof(type) * sizeof(type);		\
		__item_length = (uint32_t)__nb;						\
		__data_offsets->item##_ptr_ = NULL;					\
		__data_offsets->item = evt_data_loc_make(				\
			(uint16_t)(__data_offset + __data_size), (uint16_t)__item_length); \
		__data_size += __item_length;						\
	}
#define __string_len(item, src, len)							\
	{										\
		const char *__s = (src) ? (const char *)(src) : "(null)";		\
		size_t __max = (size_t)(len) < EVT_STRING_MAX - 1 ?			\
			       (size_t)(len) : EVT_STRING_MAX - 1;			\
											\
		__item_length = (uint32_t)strnlen(__s, __max) + 1;			\
		__data_offsets->item##_ptr_ = __s;					\
		__data_offsets->item = evt_data_loc_make(				\
			(uint16_t)(__data_offset + __data_size), (uint16_t)__item_length); \
		__data_size += __item_length;						\
	}
#define __string(item, src)	__string_len(item, src, EVT_STRING_MAX)
#define __bitmask(item, nr_bits)							\
	{										\
		uint64_t __nb = __evt_bitmask_bytes(nr_bits);				\
											\
		if (__nb > EVT_DYN_ARRAY_MAX)						\
			__nb = EVT_DYN_ARRAY_MAX;					\
		__item_length = (uint32_t)__nb;						\
		__data_offsets->item##_ptr_ = NULL;					\
		__data_offsets->item = evt_data_loc_make(				\
			(uint16_t)(__data_offset + __data_size), (uint16_t)__item_length); \
		__data_size += __item_length;						\
	}
#define __cpumask(item)		__bitmask(item, __evt_nr_cpumask_bits())
/* Measured on a va_copy (kernel's __trace_event_vstr_len): *va is formatted again below. */
#define __vstring(item, fmt, va)							\
	{										\
		__item_length = __evt_vstr_len(fmt, va);				\
		__data_offsets->item##_ptr_ = NULL;					\
		__data_offsets->item = evt_data_loc_make(				\
			(uint16_t)(__data_offset + __data_size), (uint16_t)__item_length); \
		__data_size += __item_length;						\
	}
#define DEFINE_EVENT(template, call, proto, args)
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	static inline uint32_t __evt_get_offsets_##call(				\
		struct evt_data_offsets_##call *__data_offsets, proto)			\
	{										\
		const uint32_t __data_offset = sizeof(struct evt_raw_##call);		\
		uint32_t __data_size = 0, __item_length = 0;				\
											\
		(void)__data_offsets;							\
		(void)__data_offset;							\
		(void)__item_length;							\
		tstruct									\
		return __data_size;							\
	}
#include __EVT_TRACE_HEADER

/* ---- pass 6: the writer ------------------------------------------------------------ */
#undef __field
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#define __field(type, item)
#define __array(type, item, len)
#define __dynamic_array(type, item, len)	__entry->__data_loc_##item = __data_offsets.item;
#define __string(item, src)			__entry->__data_loc_##item = __data_offsets.item;
#define __string_len(item, src, len)		__entry->__data_loc_##item = __data_offsets.item;
#define __bitmask(item, nr_bits)		__entry->__data_loc_##item = __data_offsets.item;
#define __cpumask(item)				__entry->__data_loc_##item = __data_offsets.item;
#define __vstring(item, fmt, va)		__entry->__data_loc_##item = __data_offsets.item;
#define __get_dynamic_array(item)							\
	((void *)((char *)__entry + evt_data_loc_offset(__entry->__data_loc_##item)))
#define __get_dynamic_array_len(item)	evt_data_loc_len(__entry->__data_loc_##item)
#define __get_str(item)			((char *)__get_dynamic_array(item))
#define __assign_str(item, ...)								\
	__evt_assign_str(__get_str(item), (const char *)__data_offsets.item##_ptr_,	\
		       __get_dynamic_array_len(item))
/* The kernel's older form: the length was given to __string_len() already. */
#define __assign_str_len(item, ...)	__assign_str(item)
#define __get_bitmask(item)		((char *)__get_dynamic_array(item))
#define __assign_bitmask(item, src, nr_bits)						\
	__evt_assign_bitmask(__get_dynamic_array(item), __get_dynamic_array_len(item),	\
			     (src), (nr_bits))
#define __get_cpumask(item)		__get_bitmask(item)
#define __assign_cpumask(item, src)							\
	__evt_assign_bitmask(__get_dynamic_array(item), __get_dynamic_array_len(item),	\
			     (src), __evt_nr_cpumask_bits())
#define __assign_vstr(item, fmt, va)							\
	__evt_assign_vstr(__get_str(item), __get_dynamic_array_len(item), (fmt), (va))
/* Inlined into each event's __evt_do_trace_<name>: a stacktrace trigger's record starts
 * above that frame (the writer knows its return address, not this one's). */
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	static inline __attribute__((always_inline, unused)) void			\
	__evt_class_trace_##call(struct evt_event_def *__def, proto)			\
	{										\
		struct evt_trace_event_buffer __fb; /* evt_trace_event_reserve() sets it */ \
		struct evt_data_offsets_##call __data_offsets;				\
		struct evt_raw_##call *__entry;						\
		uint32_t __data_size;							\
											\
		__data_size = __evt_get_offsets_##call(&__data_offsets, args);		\
		for (__entry = (struct evt_raw_##call *)evt_trace_event_reserve(	\
			     &__fb, __def, sizeof(*__entry) + __data_size);		\
		     __entry != NULL;							\
		     __entry = (struct evt_raw_##call *)evt_trace_event_commit(&__fb)) {	\
			tstruct								\
			{ assign }							\
		}									\
	}
#define DEFINE_EVENT(template, call, proto, args)					\
	__attribute__((noinline)) void __evt_do_trace_##call(proto)			\
	{										\
		__evt_class_trace_##template(&__evt_def_##call, args);			\
	}
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)				\
	DEFINE_EVENT(template, call, PARAMS(proto), PARAMS(args))
#include __EVT_TRACE_HEADER
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#undef __get_str
#undef __assign_str
#undef __assign_str_len
#undef __get_bitmask
#undef __assign_bitmask
#undef __get_cpumask
#undef __assign_cpumask
#undef __assign_vstr

/* ---- pass 7: the definition, its print format, registration ------------------------ */
#undef __field
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#define __field(type, item)
#define __array(type, item, len)
#define __dynamic_array(type, item, len)
#define __string(item, src)
#define __string_len(item, src, len)
#define __bitmask(item, nr_bits)
#define __cpumask(item)
#define __vstring(item, fmt, va)
#define __entry REC
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	static const char __evt_print_##call[] = __evt_xstr(print);
#define __EVT_DEFINE_EVENT(template, call, print_text, regfn, unregfn)			\
	static struct evt_event_def __evt_def_##call = {				\
		.abi = EVT_EVENT_DEF_ABI,						\
		.size = sizeof(struct evt_raw_##template),				\
		.system = __evt_xstr(TRACE_SYSTEM),					\
		.name = #call,								\
		.fields = NULL,								\
		.nr_fields = 0,								\
		.print_fmt = print_text,						\
		.key = &__evt_key_##call,						\
		.init = __evt_init_##template,						\
		.event = NULL,								\
		.reg = regfn,								\
		.unreg = unregfn,							\
	};										\
	static void __attribute__((constructor)) __evt_ctor_##call(void)		\
	{										\
		evt_event_register(&__evt_def_##call);					\
	}										\
	static void __attribute__((destructor)) __evt_dtor_##call(void)		\
	{										\
		evt_event_unregister(&__evt_def_##call);				\
	}
#define DEFINE_EVENT(template, call, proto, args)					\
	__EVT_DEFINE_EVENT(template, call, __evt_print_##template, NULL, NULL)
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)				\
	__EVT_DEFINE_EVENT(template, call, __evt_xstr(print), NULL, NULL)
#undef DEFINE_EVENT_FN
#define DEFINE_EVENT_FN(template, call, proto, args, regfn, unregfn)			\
	__EVT_DEFINE_EVENT(template, call, __evt_print_##template, regfn, unregfn)
#include __EVT_TRACE_HEADER
#undef __entry

#pragma GCC diagnostic pop

/* ---- back to declarations, for the next event header of this file ------------------ */
#undef __field
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef __evt_falign
#undef __evt_is_ptr
#undef __evt_is_signed
#undef __evt_off
#undef __evt_sz
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef EVT_TRACE_PASS
#undef TRACE_HEADER_MULTI_READ
#undef DEFINE_EVENT_CONDITION
#undef DEFINE_EVENT_FN
#undef __EVT_DEFINE_EVENT_FN_COND
#undef __EVT_DEFINE_EVENT
#undef __EVT_TRACE_HEADER
#undef __EVT_TRACE_INCLUDE
#undef __EVT_UNDEF_TRACE_INCLUDE_FILE
#undef TRACE_INCLUDE_FILE
#undef TRACE_INCLUDE_PATH
#include <evtrace/trace_event.h>
#define CREATE_TRACE_POINTS

#endif /* CREATE_TRACE_POINTS */
