/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/unit/trigger-nest.c: an event whose assignment raises a signal whose handler fires it. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trg_nest

#if !defined(TRIGGER_NEST_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRIGGER_NEST_TP_H
#include <signal.h>

#include <evtrace/trace_event.h>

TRACE_EVENT(nest_ev,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(int, n)
	),
	TP_fast_assign(
		__entry->n = n;
		/* the handler's write runs between this record's fill and its triggers */
		if (n == 1)
			raise(SIGUSR1);
	),
	TP_printk("n=%d", __entry->n)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trigger-nest-tp
#include <evtrace/define_trace.h>
