/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of tests/unit/tracefs-events.c: two systems. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tfs_test

#if !defined(TRACEFS_EVENTS_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRACEFS_EVENTS_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(tfs_req,
	TP_PROTO(int id, const char *path),
	TP_ARGS(id, path),
	TP_STRUCT__entry(
		__field(int, id)
		__string(path, path)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(path);
	),
	TP_printk("id=%d path=%s", __entry->id, __get_str(path))
);

TRACE_EVENT(tfs_tick,
	TP_PROTO(unsigned int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(unsigned int, n)
	),
	TP_fast_assign(
		__entry->n = n;
	),
	TP_printk("n=%u", __entry->n)
);

#undef TRACE_SYSTEM
#define TRACE_SYSTEM tfs_other

TRACE_EVENT(tfs_misc,
	TP_PROTO(int x),
	TP_ARGS(x),
	TP_STRUCT__entry(
		__field(int, x)
	),
	TP_fast_assign(
		__entry->x = x;
	),
	TP_printk("x=%d", __entry->x)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracefs-events-tp
#include <evtrace/define_trace.h>
