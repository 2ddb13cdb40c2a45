/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event of stress/soak: each record says who wrote it (writer, seq) and
 * carries what the checker recomputes from those two (cls, chk, tag), so a
 * torn or mixed-up record cannot pass for a good one.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM soak

#if !defined(SOAK_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define SOAK_TP_H
#include <string.h>

#include <evtrace/trace_event.h>

TRACE_EVENT(soak_ev,
	TP_PROTO(int writer, unsigned long long seq, int cls, unsigned long long chk,
		 const char *tag),
	TP_ARGS(writer, seq, cls, chk, tag),
	TP_STRUCT__entry(
		__field(int, writer)
		__field(int, cls)
		__field(unsigned long long, seq)
		__field(unsigned long long, chk)
		__string(tag, tag)
	),
	TP_fast_assign(
		__entry->writer = writer;
		__entry->cls = cls;
		__entry->seq = seq;
		__entry->chk = chk;
		__assign_str(tag);
	),
	TP_printk("writer=%d seq=%llu cls=%d chk=%llx tag=%s", __entry->writer, __entry->seq,
		  __entry->cls, __entry->chk, __get_str(tag))
);

#endif /* SOAK_TP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/stress
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE soak-tp
#include <evtrace/define_trace.h>
