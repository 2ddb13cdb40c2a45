/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The events of events-bitmask, events-vstring and events-fn: __bitmask,
 * __vstring, __string_len, the hex/array printers, TRACE_EVENT_FN.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM evgaps

#if !defined(EVENTS_GAPS_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVENTS_GAPS_TP_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include <evtrace/trace_event.h>

/* The callbacks of gaps_fn (events-fn.c defines them). */
int gaps_fn_reg(void);
void gaps_fn_unreg(void);

TRACE_EVENT(gaps_bitmask,
	TP_PROTO(int id, const unsigned long *mask, unsigned int nr_bits),
	TP_ARGS(id, mask, nr_bits),
	TP_STRUCT__entry(
		__field(int, id)
		__bitmask(mask, nr_bits)
		__bitmask(small, 8)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_bitmask(mask, mask, nr_bits);
		__assign_bitmask(small, mask, 8);
	),
	TP_printk("id=%d mask=%s small=%s", __entry->id, __get_bitmask(mask), __get_bitmask(small))
);

/* As the kernel's ipi:ipi_send_cpumask, whose format line events-bitmask compares. */
TRACE_EVENT(gaps_cpumask,
	TP_PROTO(const void *set, int id),
	TP_ARGS(set, id),
	TP_STRUCT__entry(
		__cpumask(cpumask)
		__field(int, id)
	),
	TP_fast_assign(
		__assign_cpumask(cpumask, set);
		__entry->id = id;
	),
	TP_printk("cpumask=%s id=%d", __get_cpumask(cpumask), __entry->id)
);

TRACE_EVENT(gaps_hex,
	TP_PROTO(const uint8_t *buf, int len, const uint32_t *words, int nw),
	TP_ARGS(buf, len, words, nw),
	TP_STRUCT__entry(
		__dynamic_array(uint8_t, buf, len)
		__dynamic_array(uint32_t, words, nw)
		__array(uint16_t, fixed, 3)
	),
	TP_fast_assign(
		memcpy(__get_dynamic_array(buf), buf, __get_dynamic_array_len(buf));
		memcpy(__get_dynamic_array(words), words, __get_dynamic_array_len(words));
		__entry->fixed[0] = 1;
		__entry->fixed[1] = 0x20;
		__entry->fixed[2] = 0xffff;
	),
	TP_printk("hex=%s hexstr=%s words=%s fixed=%s",
		  __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)),
		  __print_hex_str(__get_dynamic_array(buf), __get_dynamic_array_len(buf)),
		  __print_array(__get_dynamic_array(words), __get_dynamic_array_len(words) / 4, 4),
		  __print_array(__entry->fixed, 3, 2))
);

TRACE_EVENT(gaps_vstr,
	TP_PROTO(int id, const char *name, size_t nlen, const char *fmt, va_list *va),
	TP_ARGS(id, name, nlen, fmt, va),
	TP_STRUCT__entry(
		__field(int, id)
		__string_len(name, name, nlen)
		__vstring(msg, fmt, va)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str_len(name, name, nlen);
		__assign_vstr(msg, fmt, va);
	),
	TP_printk("id=%d name=%s msg=%s", __entry->id, __get_str(name), __get_str(msg))
);

TRACE_EVENT_FN(gaps_fn,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=%d", __entry->v),
	gaps_fn_reg, gaps_fn_unreg
);

TRACE_EVENT_FN_COND(gaps_fn_cond,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_CONDITION(v > 0),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=%d", __entry->v),
	gaps_fn_reg, gaps_fn_unreg
);

DECLARE_EVENT_CLASS(gaps_cls,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=%d", __entry->v)
);

DEFINE_EVENT_FN(gaps_cls, gaps_fn2,
	TP_PROTO(int v),
	TP_ARGS(v),
	gaps_fn_reg, NULL
);

DEFINE_EVENT(gaps_cls, gaps_plain,
	TP_PROTO(int v),
	TP_ARGS(v)
);

#endif /* EVENTS_GAPS_TP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/lib
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE events-gaps-tp
#include <evtrace/define_trace.h>
