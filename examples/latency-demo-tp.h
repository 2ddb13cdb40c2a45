/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of examples/latency-demo.c: a request's start and end. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM demo_lat

#if !defined(LATENCY_DEMO_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define LATENCY_DEMO_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(req_start,
	TP_PROTO(unsigned int id, unsigned int kind),
	TP_ARGS(id, kind),
	TP_STRUCT__entry(
		__field(unsigned int, id)
		__field(unsigned int, kind)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->kind = kind;
	),
	TP_printk("id=%u kind=%u", __entry->id, __entry->kind)
);

TRACE_EVENT(req_end,
	TP_PROTO(unsigned int id, int status),
	TP_ARGS(id, status),
	TP_STRUCT__entry(
		__field(unsigned int, id)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->status = status;
	),
	TP_printk("id=%u status=%d", __entry->id, __entry->status)
);
#endif

/* define_trace.h includes this header again from include/evtrace/: the path is from there */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../examples
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE latency-demo-tp
#include <evtrace/define_trace.h>
