/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The static tracepoint of bench/probes.c: 16 bytes of fields, as bench/events.c's evtest_bench. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench_probe

#if !defined(BENCH_PROBES_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define BENCH_PROBES_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(probe_bench,
	TP_PROTO(uint32_t a, uint32_t b, uint64_t c),
	TP_ARGS(a, b, c),
	TP_STRUCT__entry(
		__field(uint32_t, a)
		__field(uint32_t, b)
		__field(uint64_t, c)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),
	TP_printk("a=%u b=%u c=%llu", __entry->a, __entry->b, (unsigned long long)__entry->c)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../bench
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE probes-tp
#include <evtrace/define_trace.h>
