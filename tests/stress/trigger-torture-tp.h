/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of tests/stress/trigger-torture.c. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tt

#if !defined(TRIGGER_TORTURE_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRIGGER_TORTURE_TP_H
#include <stdint.h>

#include <evtrace/trace_event.h>

TRACE_EVENT(tt_a,
	TP_PROTO(unsigned int writer, uint64_t seq),
	TP_ARGS(writer, seq),
	TP_STRUCT__entry(
		__field(unsigned int, writer)
		__field(uint64_t, seq)
	),
	TP_fast_assign(
		__entry->writer = writer;
		__entry->seq = seq;
	),
	TP_printk("writer=%u seq=%llu", __entry->writer, (unsigned long long)__entry->seq)
);

TRACE_EVENT(tt_b,
	TP_PROTO(unsigned int writer, uint64_t seq),
	TP_ARGS(writer, seq),
	TP_STRUCT__entry(
		__field(unsigned int, writer)
		__field(uint64_t, seq)
	),
	TP_fast_assign(
		__entry->writer = writer;
		__entry->seq = seq;
	),
	TP_printk("writer=%u seq=%llu", __entry->writer, (unsigned long long)__entry->seq)
);

/* enable_event's target: never fired, only switched */
TRACE_EVENT(tt_c,
	TP_PROTO(int x),
	TP_ARGS(x),
	TP_STRUCT__entry(
		__field(int, x)
	),
	TP_fast_assign(
		__entry->x = x;
	),
	TP_printk("x=%d", __entry->x)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/stress
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trigger-torture-tp
#include <evtrace/define_trace.h>
