/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of the cmd-export test: strings to escape, and a begin/end pair. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM exapp

#if !defined(CMD_EXPORT_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define CMD_EXPORT_TP_H
#include <stdint.h>
#include <string.h>

#include <evtrace/trace_event.h>

TRACE_EVENT(ex_weird,
	TP_PROTO(const char *s, const char *raw),
	TP_ARGS(s, raw),
	TP_STRUCT__entry(
		__string(s, s)
		__array(char, raw, 8)
		__field(int64_t, neg)
		__field(uint64_t, big)
	),
	TP_fast_assign(
		__assign_str(s);
		memcpy(__entry->raw, raw, 8);
		__entry->neg = INT64_MIN;
		__entry->big = UINT64_MAX;
	),
	TP_printk("s=%s", __get_str(s))
);

TRACE_EVENT(ex_req_begin,
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

TRACE_EVENT(ex_req_end,
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

/* an "_exit" without an "_enter": stays an instant event with --durations */
TRACE_EVENT(ex_proc_exit,
	TP_PROTO(int code),
	TP_ARGS(code),
	TP_STRUCT__entry(
		__field(int, code)
	),
	TP_fast_assign(
		__entry->code = code;
	),
	TP_printk("code=%d", __entry->code)
);

#endif /* CMD_EXPORT_TP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cmd-export-tp
#include <evtrace/define_trace.h>
