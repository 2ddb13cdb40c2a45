/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/unit/tracefs-sweep-diff.c: events shaped as the uprobe events it puts on its own functions
 * (p:tfsweep/ev_a ... a=%di:s64 b=%si:s64, ev_b c=%di:s64). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tfsweep

#if !defined(TRACEFS_SWEEP_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRACEFS_SWEEP_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(ev_a,
	TP_PROTO(long a, long b),
	TP_ARGS(a, b),
	TP_STRUCT__entry(
		__field(long, a)
		__field(long, b)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
	),
	TP_printk("a=%ld b=%ld", __entry->a, __entry->b)
);

TRACE_EVENT(ev_b,
	TP_PROTO(long c),
	TP_ARGS(c),
	TP_STRUCT__entry(
		__field(long, c)
	),
	TP_fast_assign(
		__entry->c = c;
	),
	TP_printk("c=%ld", __entry->c)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracefs-sweep-tp
#include <evtrace/define_trace.h>
