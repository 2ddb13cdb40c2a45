/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/lttng-tp.h - the LTTng-UST peer of evtest_bench for bench/lttng.c: the
 * same 16 bytes of fields (u32, u32, u64), as an LTTng-UST 2.13 tracepoint
 * provider. Included only when liblttng-ust-dev is installed.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER evtbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng-tp.h"

#if !defined(EVT_BENCH_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define EVT_BENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>

/* LTTng's macro layout, not clang-format's */
/* clang-format off */
LTTNG_UST_TRACEPOINT_EVENT(evtbench, ev16,
	LTTNG_UST_TP_ARGS(uint32_t, a, uint32_t, b, uint64_t, c),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, a, a)
		lttng_ust_field_integer(uint32_t, b, b)
		lttng_ust_field_integer(uint64_t, c, c)
	)
)
/* clang-format on */

#endif /* EVT_BENCH_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
