/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of tests/unit/hist-*.c: stand-ins for histogram.rst's kernel events. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hist_test

#if !defined(HIST_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define HIST_TP_H
#include <evtrace/trace_event.h>

/* kmem:kmalloc */
TRACE_EVENT(kmalloc,
	TP_PROTO(unsigned long call_site, unsigned long ptr, unsigned long bytes_req,
		 unsigned long bytes_alloc, unsigned int gfp_flags),
	TP_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags),
	TP_STRUCT__entry(
		__field(unsigned long, call_site)
		__field(unsigned long, ptr)
		__field(unsigned long, bytes_req)
		__field(unsigned long, bytes_alloc)
		__field(unsigned int, gfp_flags)
	),
	TP_fast_assign(
		__entry->call_site = call_site;
		__entry->ptr = ptr;
		__entry->bytes_req = bytes_req;
		__entry->bytes_alloc = bytes_alloc;
		__entry->gfp_flags = gfp_flags;
	),
	TP_printk("call_site=%lx bytes_req=%lu", __entry->call_site, __entry->bytes_req)
);

/* raw_syscalls:sys_enter */
TRACE_EVENT(sys_enter,
	TP_PROTO(long id, int size),
	TP_ARGS(id, size),
	TP_STRUCT__entry(
		__field(long, id)
		__field(int, size)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->size = size;
	),
	TP_printk("NR %ld size %d", __entry->id, __entry->size)
);

/* sched:sched_process_fork */
TRACE_EVENT(process_fork,
	TP_PROTO(const char *comm, int pid),
	TP_ARGS(comm, pid),
	TP_STRUCT__entry(
		__array(char, child_comm, 16)
		__field(int, child_pid)
	),
	TP_fast_assign(
		memset(__entry->child_comm, 0, 16);
		memcpy(__entry->child_comm, comm, strnlen(comm, 15));
		__entry->child_pid = pid;
	),
	TP_printk("comm=%s pid=%d", __entry->child_comm, __entry->child_pid)
);

/* net:netif_receive_skb and net:netif_rx */
TRACE_EVENT(netif_receive_skb,
	TP_PROTO(unsigned long skbaddr, unsigned int len, const char *dev),
	TP_ARGS(skbaddr, len, dev),
	TP_STRUCT__entry(
		__field(unsigned long, skbaddr)
		__field(unsigned int, len)
		__string(name, dev)
	),
	TP_fast_assign(
		__entry->skbaddr = skbaddr;
		__entry->len = len;
		__assign_str(name);
	),
	TP_printk("dev=%s skbaddr=%lx len=%u", __get_str(name), __entry->skbaddr, __entry->len)
);

TRACE_EVENT(netif_rx,
	TP_PROTO(unsigned long skbaddr, unsigned int len),
	TP_ARGS(skbaddr, len),
	TP_STRUCT__entry(
		__field(unsigned long, skbaddr)
		__field(unsigned int, len)
	),
	TP_fast_assign(
		__entry->skbaddr = skbaddr;
		__entry->len = len;
	),
	TP_printk("skbaddr=%lx len=%u", __entry->skbaddr, __entry->len)
);

/* sched:sched_waking and sched:sched_switch, with the time stamp as a field the test sets */
TRACE_EVENT(sched_waking,
	TP_PROTO(int pid, int prio, unsigned long ts),
	TP_ARGS(pid, prio, ts),
	TP_STRUCT__entry(
		__field(int, pid)
		__field(int, prio)
		__field(unsigned long, ts)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->prio = prio;
		__entry->ts = ts;
	),
	TP_printk("pid=%d prio=%d ts=%lu", __entry->pid, __entry->prio, __entry->ts)
);

/* sched:sched_wakeup, with its comm (a char[16] for string variables) and the time stamp field */
TRACE_EVENT(sched_wakeup,
	TP_PROTO(const char *comm, int pid, int prio, unsigned long ts),
	TP_ARGS(comm, pid, prio, ts),
	TP_STRUCT__entry(
		__array(char, comm, 16)
		__field(int, pid)
		__field(int, prio)
		__field(unsigned long, ts)
	),
	TP_fast_assign(
		memset(__entry->comm, 0, 16);
		memcpy(__entry->comm, comm, strnlen(comm, 15));
		__entry->pid = pid;
		__entry->prio = prio;
		__entry->ts = ts;
	),
	TP_printk("comm=%s pid=%d prio=%d ts=%lu", __entry->comm, __entry->pid, __entry->prio,
		  __entry->ts)
);

TRACE_EVENT(sched_switch,
	TP_PROTO(const char *prev, int prev_pid, const char *next, int next_pid, int next_prio,
		 unsigned long ts),
	TP_ARGS(prev, prev_pid, next, next_pid, next_prio, ts),
	TP_STRUCT__entry(
		__array(char, prev_comm, 16)
		__field(int, prev_pid)
		__array(char, next_comm, 16)
		__field(int, next_pid)
		__field(int, next_prio)
		__field(unsigned long, ts)
	),
	TP_fast_assign(
		memset(__entry->prev_comm, 0, 16);
		memcpy(__entry->prev_comm, prev, strnlen(prev, 15));
		__entry->prev_pid = prev_pid;
		memset(__entry->next_comm, 0, 16);
		memcpy(__entry->next_comm, next, strnlen(next, 15));
		__entry->next_pid = next_pid;
		__entry->next_prio = next_prio;
		__entry->ts = ts;
	),
	TP_printk("prev=%s next=%s next_pid=%d", __entry->prev_comm, __entry->next_comm,
		  __entry->next_pid)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hist-tp
#include <evtrace/define_trace.h>
