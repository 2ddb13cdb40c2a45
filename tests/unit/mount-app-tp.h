/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of the cmd-mount tests: system "app" (the seeds' gestures on app:req, app:resp). */
/* TRACE_EVENT() layout and file names: */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM app

#if !defined(MOUNT_APP_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define MOUNT_APP_TP_H

#include <evtrace/trace_event.h>

TRACE_EVENT(req,
	TP_PROTO(int id),
	TP_ARGS(id),
	TP_STRUCT__entry(
		__field(int, id)
	),
	TP_fast_assign(
		__entry->id = id;
	),
	TP_printk("id=%d", __entry->id)
);

TRACE_EVENT(resp,
	TP_PROTO(int id, int status),
	TP_ARGS(id, status),
	TP_STRUCT__entry(
		__field(int, id)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->status = status;
	),
	TP_printk("id=%d status=%d", __entry->id, __entry->status)
);

#endif /* MOUNT_APP_TP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mount-app-tp
#include <evtrace/define_trace.h>
/* clang-format on */
