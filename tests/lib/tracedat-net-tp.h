/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A second system, with a record over 112 bytes (type_len 0 entries). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tdnet

#if !defined(TRACEDAT_TP2_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRACEDAT_TP2_H
#include <stdint.h>
#include <string.h>

#include <evtrace/trace_event.h>

TRACE_EVENT(td_big,
	TP_PROTO(int worker, uint32_t seq, const char *payload),
	TP_ARGS(worker, seq, payload),
	TP_STRUCT__entry(
		__field(uint32_t, seq)
		__array(char, blob, 120)
		__string(payload, payload)
		__field(int, worker)
	),
	TP_fast_assign(
		__entry->seq = seq;
		memset(__entry->blob, 0, sizeof(__entry->blob));
		strncpy(__entry->blob, "big-record", sizeof(__entry->blob) - 1);
		__assign_str(payload);
		__entry->worker = worker;
	),
	TP_printk("seq=%u blob=%s payload=%s worker=%d", __entry->seq, __entry->blob,
		  __get_str(payload), __entry->worker)
);

#endif /* TRACEDAT_TP2_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/lib
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracedat-net-tp
#include <evtrace/define_trace.h>
