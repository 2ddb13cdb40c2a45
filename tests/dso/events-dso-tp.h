/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/dso/events-dso-tp.h - the events of the dlopen()ed module (tests/dso/events-dso.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM evdso

#if !defined(EVENTS_DSO_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVENTS_DSO_TP_H

#include <evtrace/trace_event.h>

TRACE_EVENT(evdso_hello,
	TP_PROTO(int n, const char *who),
	TP_ARGS(n, who),
	TP_STRUCT__entry(
		__field(int, n)
		__string(who, who)
	),
	TP_fast_assign(
		__entry->n = n;
		__assign_str(who);
	),
	TP_printk("n=%d who=%s", __entry->n, __get_str(who))
);

TRACE_EVENT(evdso_bye,
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
#define TRACE_INCLUDE_FILE events-dso-tp
#include <evtrace/define_trace.h>
