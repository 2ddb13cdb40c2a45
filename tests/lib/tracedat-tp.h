/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of the tracedat-* tests: two systems, every kind of field. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tdapp

#if !defined(TRACEDAT_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRACEDAT_TP_H
#include <stdint.h>
#include <string.h>

#include <evtrace/trace_event.h>

TRACE_EVENT(td_ints,
	TP_PROTO(int worker, int64_t v),
	TP_ARGS(worker, v),
	TP_STRUCT__entry(
		__field(int, worker)
		__field(int8_t, s8)
		__field(uint16_t, u16)
		__field(int32_t, s32)
		__field(uint64_t, u64)
		__field(long, l)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__entry->s8 = (int8_t)-v;
		__entry->u16 = (uint16_t)(v * 3);
		__entry->s32 = (int32_t)(-v * 1000);
		__entry->u64 = (uint64_t)v << 33;
		__entry->l = (long)v - 7;
	),
	TP_printk("worker=%d s8=%d u16=%u s32=%d u64=%llu l=%ld hex=0x%x", __entry->worker,
		  __entry->s8, __entry->u16, __entry->s32, __entry->u64, __entry->l, __entry->u16)
);

TRACE_EVENT(td_strings,
	TP_PROTO(int worker, const char *msg),
	TP_ARGS(worker, msg),
	TP_STRUCT__entry(
		__array(char, tag, 16)
		__string(msg, msg)
		__field(int, worker)
	),
	TP_fast_assign(
		strncpy(__entry->tag, "tag-td", sizeof(__entry->tag));
		__assign_str(msg);
		__entry->worker = worker;
	),
	TP_printk("tag=%s msg=%s worker=%d", __entry->tag, __get_str(msg), __entry->worker)
);

TRACE_EVENT(td_arrays,
	TP_PROTO(int worker, const uint8_t *bytes, int nb),
	TP_ARGS(worker, bytes, nb),
	TP_STRUCT__entry(
		__array(int, vals, 4)
		__dynamic_array(uint8_t, bytes, nb)
		__field(int, worker)
	),
	TP_fast_assign(
		for (int i = 0; i < 4; i++)
			__entry->vals[i] = worker * 10 + i;
		memcpy(__get_dynamic_array(bytes), bytes, __get_dynamic_array_len(bytes));
		__entry->worker = worker;
	),
	TP_printk("worker=%d v0=%d v3=%d nbytes=%u", __entry->worker, __entry->vals[0],
		  __entry->vals[3], __get_dynamic_array_len(bytes))
);

#endif /* TRACEDAT_TP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/lib
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracedat-tp
#include <evtrace/define_trace.h>

