/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of the control-* and cmd-record tests. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ctltest

#if !defined(CONTROL_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define CONTROL_TP_H
#include <string.h>

#include <evtrace/trace_event.h>

TRACE_EVENT(ctl_tick,
	TP_PROTO(int worker, unsigned long long seq),
	TP_ARGS(worker, seq),
	TP_STRUCT__entry(
		__field(int, worker)
		__field(unsigned long long, seq)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__entry->seq = seq;
	),
	TP_printk("worker=%d seq=%llu", __entry->worker, __entry->seq)
);

TRACE_EVENT(ctl_msg,
	TP_PROTO(int worker, const char *msg),
	TP_ARGS(worker, msg),
	TP_STRUCT__entry(
		__field(int, worker)
		__string(msg, msg)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__assign_str(msg);
	),
	TP_printk("worker=%d msg=%s", __entry->worker, __get_str(msg))
);

#endif /* CONTROL_TP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/lib
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE control-tp
#include <evtrace/define_trace.h>
