/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/trace_event.h - TRACE_EVENT(): static tracepoints for C programs.
 *
 * As in the kernel (samples/trace_events), an event header looks like:
 *
 *	#undef TRACE_SYSTEM
 *	#define TRACE_SYSTEM myapp
 *
 *	#if !defined(MYAPP_TP_H) || defined(TRACE_HEADER_MULTI_READ)
 *	#define MYAPP_TP_H
 *	#include <evtrace/trace_event.h>
 *
 *	TRACE_EVENT(myapp_req,
 *		TP_PROTO(int id, const char *path),
 *		TP_ARGS(id, path),
 *		TP_STRUCT__entry(
 *			__field(int, id)
 *			__string(path, path)
 *		),
 *		TP_fast_assign(
 *			__entry->id = id;
 *			__assign_str(path);
 *		),
 *		TP_printk("id=%d path=%s", __entry->id, __get_str(path))
 *	);
 *	#endif
 *
 *	#undef TRACE_INCLUDE_FILE
 *	#define TRACE_INCLUDE_FILE myapp-tp		(the header's name without .h)
 *	#include <evtrace/define_trace.h>
 *
 * Every file that traces includes the header and calls trace_myapp_req(3,
 * "/x"); exactly one .c file of the program (or of each shared library)
 * does `#define CREATE_TRACE_POINTS` before including it: there
 * define_trace.h includes the header again, several times, to generate
 * the record struct, the field descriptors, the print format, the
 * writer and a constructor/destructor pair that registers the event
 * when the object loads and unregisters it when it is unloaded. The
 * header must then be reachable as "TRACE_INCLUDE_FILE.h" from the
 * include path, or as TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h.
 *
 * Events that share a layout share a class, as in the kernel:
 * DECLARE_EVENT_CLASS(class, proto, args, tstruct, assign, print) once, then
 * DEFINE_EVENT(class, name, proto, args) per event, or
 * DEFINE_EVENT_PRINT(class, name, proto, args, print) for one with its own
 * print format. TRACE_EVENT(name, ...) is a class and one event named alike.
 * TRACE_EVENT_CONDITION(name, proto, args, TP_CONDITION(cond), ...) and
 * DEFINE_EVENT_CONDITION(class, name, proto, args, TP_CONDITION(cond)) give
 * call sites that also test cond (on the arguments) before writing.
 *
 * Fields (inside TP_STRUCT__entry):
 *	__field(type, item)			integer of any width/signedness, bool,
 *						enum, or pointer
 *	__array(type, item, len)		fixed array; char arrays are strings
 *	__dynamic_array(type, item, len)	len elements, __data_loc
 *	__string(item, src)			a copy of the string src (NULL gives
 *						"(null)"), __data_loc char[]
 *	__string_len(item, src, len)		at most len bytes of src
 *	__bitmask(item, nr_bits)		a bitmask of nr_bits bits, as unsigned
 *						longs: __data_loc unsigned long[]
 *	__cpumask(item)				a CPU set (cpu_set_t * in assign):
 *						a bitmask of the configured CPUs,
 *						__data_loc cpumask_t
 *	__vstring(item, fmt, va)		vsnprintf(fmt, *va) at record time
 *						(va is a va_list *), __data_loc char[]
 * In TP_fast_assign: __entry->item, __assign_str(item), __assign_str_len(item),
 * __assign_bitmask(item, src, nr_bits), __assign_cpumask(item, src),
 * __assign_vstr(item, fmt, va), __get_str(item), __get_bitmask(item),
 * __get_cpumask(item), __get_dynamic_array(item),
 * __get_dynamic_array_len(item).
 * In TP_printk: printf conversions, __get_str, __get_dynamic_array,
 * __get_bitmask, __get_cpumask, __print_flags, __print_symbolic, __print_hex (docs/events.md).
 *
 * TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg) and
 * DEFINE_EVENT_FN(class, name, proto, args, reg, unreg) (TRACE_EVENT_FN_COND(name,
 * proto, args, cond, tstruct, assign, print, reg, unreg) with a condition too):
 * int reg(void) runs
 * when the event starts being recorded by some instance, void unreg(void)
 * when no instance records it any more (either may be NULL), under the
 * library's event mutex: they must not enable or disable events. A negative
 * return of reg fails the enabling with that error.
 *
 * Record layout: struct evt_trace_entry (12 bytes), then the fields in
 * order with their natural alignment capped at 4 bytes (ring buffer
 * records are 4-byte aligned), then the dynamic data.
 *
 * A disabled call site costs one load of a byte and a branch predicted
 * not taken. As in the kernel, trace_<name>() is an inline function: its
 * arguments are evaluated (the compiler drops what has no side effect);
 * guard costly ones with `if (trace_<name>_enabled())`.
 */
#ifndef EVTRACE_TRACE_EVENT_H
#define EVTRACE_TRACE_EVENT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <evtrace/events.h>

#define __evt_str(...)		#__VA_ARGS__
#define __evt_xstr(...)		__evt_str(__VA_ARGS__)
#define __evt_cat(a, b)		a##b
#define __evt_xcat(a, b)	__evt_cat(a, b)

#define TP_PROTO(...)		__VA_ARGS__
#define TP_ARGS(...)		__VA_ARGS__
#define TP_STRUCT__entry(...)	__VA_ARGS__
#define TP_fast_assign(...)	__VA_ARGS__
#define TP_printk(...)		__VA_ARGS__
#define TP_CONDITION(...)	__VA_ARGS__
#define PARAMS(...)		__VA_ARGS__

/* Call sites may be in C++; the definitions (CREATE_TRACE_POINTS) are C. */
#ifdef __cplusplus
#define __evt_extern		extern "C"
#else
#define __evt_extern		extern
#endif

/* Hidden: a call site in a shared library reaches its own event without the GOT. */
#define __evt_hidden		__attribute__((visibility("hidden")))

/* The call site's test: a relaxed load of the key byte (a plain load on x86/arm). */
#define __evt_key_on(key)	__builtin_expect(__atomic_load_n(&(key), __ATOMIC_RELAXED) != 0, 0)

/* Longest copy of a __string() argument (NUL included) and longest
 * __dynamic_array(), so that a record always fits a ring buffer page. */
#define EVT_STRING_MAX		1024u
#define EVT_DYN_ARRAY_MAX	2048u

/* Bytes of a __bitmask() of @nr_bits bits: whole unsigned longs, as the kernel's. */
#define __evt_bitmask_bytes(nr_bits)							\
	(((uint64_t)(nr_bits) + 8 * sizeof(unsigned long) - 1) / (8 * sizeof(unsigned long)) * \
	 sizeof(unsigned long))

/* The kind of an array field: arrays of a char type are strings, as for the kernel. */
static inline uint8_t __evt_array_kind(const char *type, size_t elem_size, bool dynamic)
{
	bool str = elem_size == 1 && strstr(type, "char") != NULL;

	if (dynamic)
		return (uint8_t)(str ? EVT_FIELD_DYN_STRING : EVT_FIELD_DYN_ARRAY);
	return (uint8_t)(str ? EVT_FIELD_STRING : EVT_FIELD_ARRAY);
}

/* __assign_str(): @len bytes were reserved (string and NUL, as measured). */
static inline void __evt_assign_str(char *dst, const char *src, size_t len)
{
	if (len == 0)
		return;
	memcpy(dst, src, len - 1);
	dst[len - 1] = '\0';
}

/* __assign_bitmask(): @len bytes were reserved; copy what @nr_bits needs, zero the rest. */
static inline void __evt_assign_bitmask(void *dst, size_t len, const void *src, uint64_t nr_bits)
{
	uint64_t n = __evt_bitmask_bytes(nr_bits);

	if (n > len)
		n = len;
	if (src)
		memcpy(dst, src, (size_t)n);
	else
		n = 0;
	memset((char *)dst + n, 0, len - (size_t)n);
}

/* __vstring(): the bytes vsnprintf(fmt, *va) needs, NUL included, at most EVT_STRING_MAX. */
static inline uint32_t __evt_vstr_len(const char *fmt, va_list *va)
{
	va_list aq;
	int n;

	if (!fmt || !va)
		return 1;
	va_copy(aq, *va);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		n = 0;
	if ((unsigned int)n > EVT_STRING_MAX - 1)
		n = EVT_STRING_MAX - 1;
	return (uint32_t)n + 1;
}

/* __assign_vstr(): format into the @len bytes reserved (a va_copy: *va stays usable). */
static inline void __evt_assign_vstr(char *dst, size_t len, const char *fmt, va_list *va)
{
	va_list aq;

	if (len == 0)
		return;
	dst[0] = '\0';
	if (!fmt || !va)
		return;
	va_copy(aq, *va);
	vsnprintf(dst, len, fmt, aq);
	va_end(aq);
}

#endif /* EVTRACE_TRACE_EVENT_H */

/*
 * TRACE_EVENT() is an event class with one event of the same name, as in the
 * kernel: DECLARE_EVENT_CLASS() gives the record, the assignments and the print
 * format; DEFINE_EVENT() an event of that class (its own name, ID and call
 * site); DEFINE_EVENT_PRINT() one with its own print format.
 */
#undef TRACE_EVENT
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)				\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),		\
			    PARAMS(assign), PARAMS(print))				\
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
/* An event whose call site also tests @cond (TP_CONDITION(...)) on its arguments. */
#undef TRACE_EVENT_CONDITION
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)		\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),		\
			    PARAMS(assign), PARAMS(print))				\
	DEFINE_EVENT_CONDITION(name, name, PARAMS(proto), PARAMS(args), PARAMS(cond))

/* An event whose reg()/unreg() run when it starts/stops being recorded (any instance). */
#undef TRACE_EVENT_FN
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg)		\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),		\
			    PARAMS(assign), PARAMS(print))				\
	DEFINE_EVENT_FN(name, name, PARAMS(proto), PARAMS(args), reg, unreg)
/* Both: a condition at the call site and reg/unreg callbacks. */
#undef TRACE_EVENT_FN_COND
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg)	\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),		\
			    PARAMS(assign), PARAMS(print))				\
	__EVT_DEFINE_EVENT_FN_COND(name, name, PARAMS(proto), PARAMS(args), PARAMS(cond),	\
				   reg, unreg)

/*
 * The declarations: every inclusion of an event header outside the passes
 * of define_trace.h (which define EVT_TRACE_PASS) gets them.
 */
#ifndef EVT_TRACE_PASS
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_CONDITION
#undef DEFINE_EVENT_FN
#undef __EVT_DEFINE_EVENT_FN_COND
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)			\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#define __EVT_DEFINE_EVENT_FN_COND(template, name, proto, args, cond, reg, unreg)	\
	DEFINE_EVENT_CONDITION(template, name, PARAMS(proto), PARAMS(args), PARAMS(cond))
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)			\
	__evt_extern uint8_t __evt_key_##name __evt_hidden;				\
	__evt_extern void __evt_do_trace_##name(proto) __evt_hidden;			\
	static inline __attribute__((always_inline, unused)) void trace_##name(proto)	\
	{										\
		if (__evt_key_on(__evt_key_##name) && (cond))				\
			__evt_do_trace_##name(args);					\
	}										\
	static inline __attribute__((unused)) bool trace_##name##_enabled(void)	\
	{										\
		return __evt_key_on(__evt_key_##name);					\
	}
#define DEFINE_EVENT(template, name, proto, args)					\
	__evt_extern uint8_t __evt_key_##name __evt_hidden;				\
	__evt_extern void __evt_do_trace_##name(proto) __evt_hidden;			\
	static inline __attribute__((always_inline, unused)) void trace_##name(proto)	\
	{										\
		if (__evt_key_on(__evt_key_##name))					\
			__evt_do_trace_##name(args);					\
	}										\
	static inline __attribute__((unused)) bool trace_##name##_enabled(void)	\
	{										\
		return __evt_key_on(__evt_key_##name);					\
	}
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)				\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#endif
