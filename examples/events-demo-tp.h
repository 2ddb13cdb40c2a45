/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of examples/events-demo.c: three subsystems. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM demo_net

#if !defined(EVENTS_DEMO_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVENTS_DEMO_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(net_rx,
	TP_PROTO(int queue, unsigned int len),
	TP_ARGS(queue, len),
	TP_STRUCT__entry(
		__field(int, queue)
		__field(unsigned int, len)
	),
	TP_fast_assign(
		__entry->queue = queue;
		__entry->len = len;
	),
	TP_printk("queue=%d len=%u", __entry->queue, __entry->len)
);

TRACE_EVENT(net_tx,
	TP_PROTO(int queue, unsigned int len),
	TP_ARGS(queue, len),
	TP_STRUCT__entry(
		__field(int, queue)
		__field(unsigned int, len)
	),
	TP_fast_assign(
		__entry->queue = queue;
		__entry->len = len;
	),
	TP_printk("queue=%d len=%u", __entry->queue, __entry->len)
);

#undef TRACE_SYSTEM
#define TRACE_SYSTEM demo_disk

TRACE_EVENT(disk_io,
	TP_PROTO(unsigned long long sector, int write),
	TP_ARGS(sector, write),
	TP_STRUCT__entry(
		__field(unsigned long long, sector)
		__field(int, write)
	),
	TP_fast_assign(
		__entry->sector = sector;
		__entry->write = write;
	),
	TP_printk("sector=%llu %s", __entry->sector, __entry->write ? "write" : "read")
);

#undef TRACE_SYSTEM
#define TRACE_SYSTEM demo_app

TRACE_EVENT(app_req,
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
#endif

/* define_trace.h includes this header again from include/evtrace/: the path is from there */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../examples
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE events-demo-tp
#include <evtrace/define_trace.h>
