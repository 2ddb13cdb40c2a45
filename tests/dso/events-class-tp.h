/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/dso/events-class-tp.h - an event class and events with conditions (events-macros).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM evclass

#if !defined(EVENTS_CLASS_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVENTS_CLASS_TP_H

#include <evtrace/trace_event.h>

DECLARE_EVENT_CLASS(evclass_io,
	TP_PROTO(int fd, unsigned long len, const char *what),
	TP_ARGS(fd, len, what),
	TP_STRUCT__entry(
		__field(int, fd)
		__field(unsigned long, len)
		__string(what, what)
	),
	TP_fast_assign(
		__entry->fd = fd;
		__entry->len = len;
		__assign_str(what);
	),
	TP_printk("fd=%d len=%lu what=%s", __entry->fd, __entry->len, __get_str(what))
);

DEFINE_EVENT(evclass_io, evclass_read,
	TP_PROTO(int fd, unsigned long len, const char *what),
	TP_ARGS(fd, len, what));

DEFINE_EVENT(evclass_io, evclass_write,
	TP_PROTO(int fd, unsigned long len, const char *what),
	TP_ARGS(fd, len, what));

DEFINE_EVENT_PRINT(evclass_io, evclass_sync,
	TP_PROTO(int fd, unsigned long len, const char *what),
	TP_ARGS(fd, len, what),
	TP_printk("sync fd=%d", __entry->fd));

DEFINE_EVENT_CONDITION(evclass_io, evclass_big_read,
	TP_PROTO(int fd, unsigned long len, const char *what),
	TP_ARGS(fd, len, what),
	TP_CONDITION(len >= 4096));

TRACE_EVENT_CONDITION(evclass_odd,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_CONDITION(n & 1),
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
#define TRACE_INCLUDE_FILE events-class-tp
#include <evtrace/define_trace.h>
