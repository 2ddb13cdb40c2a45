/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BENCH_EVENT16(name): the TRACE_EVENT() of a benchmark's event, 16 bytes of fields as
 * bench/events.c's evtest_bench, for the event headers of bench/triggers.c and bench/probes.c
 * (each its own TRACE_SYSTEM). Expanded in those headers, under whatever TRACE_EVENT() means
 * in the pass of define_trace.h that reads them.
 */
#ifndef BENCH_EVENT16_H
#define BENCH_EVENT16_H

#define BENCH_EVENT16(name)								\
	TRACE_EVENT(name,								\
		TP_PROTO(uint32_t a, uint32_t b, uint64_t c),				\
		TP_ARGS(a, b, c),							\
		TP_STRUCT__entry(							\
			__field(uint32_t, a)						\
			__field(uint32_t, b)						\
			__field(uint64_t, c)						\
		),									\
		TP_fast_assign(								\
			__entry->a = a;							\
			__entry->b = b;							\
			__entry->c = c;							\
		),									\
		TP_printk("a=%u b=%u c=%llu", __entry->a, __entry->b,			\
			  (unsigned long long)__entry->c)				\
	)

#endif /* BENCH_EVENT16_H */
