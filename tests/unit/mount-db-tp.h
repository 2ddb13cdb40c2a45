/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of the cmd-mount tests: system "db", the one 'app:*' leaves alone. */
/* TRACE_EVENT() layout and file names: */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM db

#if !defined(MOUNT_DB_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define MOUNT_DB_TP_H

#include <evtrace/trace_event.h>

TRACE_EVENT(query,
	TP_PROTO(int rows),
	TP_ARGS(rows),
	TP_STRUCT__entry(
		__field(int, rows)
	),
	TP_fast_assign(
		__entry->rows = rows;
	),
	TP_printk("rows=%d", __entry->rows)
);

#endif /* MOUNT_DB_TP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mount-db-tp
#include <evtrace/define_trace.h>
/* clang-format on */
