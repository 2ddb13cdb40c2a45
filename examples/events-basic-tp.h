/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/events-basic-tp.h - the events of examples/events-basic.c.
 *
 * An event header: included by every file that fires these events; the
 * one file that defines CREATE_TRACE_POINTS first gets the definitions.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM basic

#if !defined(EVENTS_BASIC_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVENTS_BASIC_TP_H

#include <evtrace/trace_event.h>

#define BASIC_REQ_READ		0x1
#define BASIC_REQ_WRITE		0x2
#define BASIC_REQ_SYNC		0x4

TRACE_EVENT(basic_request,
	TP_PROTO(int worker, unsigned long long seq, const char *path, unsigned int flags),
	TP_ARGS(worker, seq, path, flags),
	TP_STRUCT__entry(
		__field(int, worker)
		__field(unsigned long long, seq)
		__field(unsigned int, flags)
		__string(path, path)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__entry->seq = seq;
		__entry->flags = flags;
		__assign_str(path);
	),
	TP_printk("worker=%d seq=%llu path=%s flags=%s", __entry->worker, __entry->seq,
		  __get_str(path),
		  __print_flags(__entry->flags, "|", { BASIC_REQ_READ, "READ" },
				{ BASIC_REQ_WRITE, "WRITE" }, { BASIC_REQ_SYNC, "SYNC" }))
);

TRACE_EVENT(basic_state,
	TP_PROTO(int worker, int state),
	TP_ARGS(worker, state),
	TP_STRUCT__entry(
		__field(int, worker)
		__field(int, state)
		__array(char, label, 8)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__entry->state = state;
		snprintf(__entry->label, sizeof(__entry->label), "w%d", worker);
	),
	TP_printk("%s state=%s", __entry->label,
		  __print_symbolic(__entry->state, { 0, "IDLE" }, { 1, "BUSY" }, { 2, "DONE" }))
);

#endif /* EVENTS_BASIC_TP_H */

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE events-basic-tp
#include <evtrace/define_trace.h>
