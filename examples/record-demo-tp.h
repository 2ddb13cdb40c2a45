/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of examples/record-demo.c: a worker pool taking requests. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM recdemo

#if !defined(RECORD_DEMO_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define RECORD_DEMO_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(req_start,
	TP_PROTO(int worker, unsigned long long req, const char *path),
	TP_ARGS(worker, req, path),
	TP_STRUCT__entry(
		__field(int, worker)
		__field(unsigned long long, req)
		__string(path, path)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__entry->req = req;
		__assign_str(path);
	),
	TP_printk("worker=%d req=%llu path=%s", __entry->worker, __entry->req, __get_str(path))
);

TRACE_EVENT(req_done,
	TP_PROTO(int worker, unsigned long long req, unsigned int usecs),
	TP_ARGS(worker, req, usecs),
	TP_STRUCT__entry(
		__field(int, worker)
		__field(unsigned long long, req)
		__field(unsigned int, usecs)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__entry->req = req;
		__entry->usecs = usecs;
	),
	TP_printk("worker=%d req=%llu usecs=%u", __entry->worker, __entry->req, __entry->usecs)
);
#endif

/* define_trace.h includes this header again from include/evtrace/: the path is from there */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../examples
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE record-demo-tp
#include <evtrace/define_trace.h>
