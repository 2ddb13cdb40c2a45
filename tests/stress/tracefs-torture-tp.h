/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of tests/stress/tracefs-torture.c. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tort

#if !defined(TRACEFS_TORTURE_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRACEFS_TORTURE_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(tort_always,
	TP_PROTO(int w, unsigned int seq),
	TP_ARGS(w, seq),
	TP_STRUCT__entry(
		__field(int, w)
		__field(unsigned int, seq)
	),
	TP_fast_assign(
		__entry->w = w;
		__entry->seq = seq;
	),
	TP_printk("w=%d seq=%u", __entry->w, __entry->seq)
);

TRACE_EVENT(tort_noise,
	TP_PROTO(int w, unsigned int seq, int value),
	TP_ARGS(w, seq, value),
	TP_STRUCT__entry(
		__field(int, w)
		__field(unsigned int, seq)
		__field(int, value)
	),
	TP_fast_assign(
		__entry->w = w;
		__entry->seq = seq;
		__entry->value = value;
	),
	TP_printk("w=%d seq=%u value=%d", __entry->w, __entry->seq, __entry->value)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/stress
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracefs-torture-tp
#include <evtrace/define_trace.h>
