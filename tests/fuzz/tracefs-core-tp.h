/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The events of tests/fuzz/tracefs-core.c: the names and fields of the fake
 * backend's (tests/lib/tracefs-fake.h), so that both targets share paths
 * and seeds.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched

#if !defined(TRACEFS_CORE_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRACEFS_CORE_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(sched_switch,
	TP_PROTO(const char *comm, int prev, int next),
	TP_ARGS(comm, prev, next),
	TP_STRUCT__entry(
		__array(char, prev_comm, 16)
		__field(int, prev_pid)
		__field(int, next_pid)
	),
	TP_fast_assign(
		snprintf(__entry->prev_comm, 16, "%s", comm);
		__entry->prev_pid = prev;
		__entry->next_pid = next;
	),
	TP_printk("prev_comm=%s prev_pid=%d next_pid=%d", __entry->prev_comm, __entry->prev_pid,
		  __entry->next_pid)
);

TRACE_EVENT(sched_wakeup,
	TP_PROTO(const char *comm, int pid),
	TP_ARGS(comm, pid),
	TP_STRUCT__entry(
		__array(char, comm, 16)
		__field(int, pid)
	),
	TP_fast_assign(
		snprintf(__entry->comm, 16, "%s", comm);
		__entry->pid = pid;
	),
	TP_printk("comm=%s pid=%d", __entry->comm, __entry->pid)
);

#undef TRACE_SYSTEM
#define TRACE_SYSTEM irq

TRACE_EVENT(irq_handler_entry,
	TP_PROTO(int irq, const char *name),
	TP_ARGS(irq, name),
	TP_STRUCT__entry(
		__field(int, irq)
		__string(name, name)
	),
	TP_fast_assign(
		__entry->irq = irq;
		__assign_str(name);
	),
	TP_printk("irq=%d name=%s", __entry->irq, __get_str(name))
);

TRACE_EVENT(softirq_entry,
	TP_PROTO(unsigned int vec),
	TP_ARGS(vec),
	TP_STRUCT__entry(
		__field(unsigned int, vec)
	),
	TP_fast_assign(
		__entry->vec = vec;
	),
	TP_printk("vec=%u", __entry->vec)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/fuzz
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracefs-core-tp
#include <evtrace/define_trace.h>
