/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/dso/events-nest-tp.h - an event whose assignment calls a hook, so a
 * test can fire another event from a signal handler in the middle of it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM evnest

#if !defined(EVENTS_NEST_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVENTS_NEST_TP_H

#include <evtrace/trace_event.h>

void evnest_hook(void);

TRACE_EVENT(evnest_outer,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(int, n)
	),
	TP_fast_assign(
		__entry->n = n;
		evnest_hook();
	),
	TP_printk("n=%d", __entry->n)
);

TRACE_EVENT(evnest_inner,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(int, n)
	),
	TP_fast_assign(
		__entry->n = n;
	),
	TP_printk("n=%d", __entry->n)
);

#endif

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE events-nest-tp
#include <evtrace/define_trace.h>
