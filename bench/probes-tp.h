/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The static tracepoint of bench/probes.c: 16 bytes of fields, as bench/events.c's evtest_bench. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench_probe

#if !defined(BENCH_PROBES_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define BENCH_PROBES_TP_H
#include <evtrace/trace_event.h>
#include "bench-event16.h"

BENCH_EVENT16(probe_bench);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../bench
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE probes-tp
#include <evtrace/define_trace.h>
