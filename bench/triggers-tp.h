/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The event of bench/triggers.c: 16 bytes of fields, as bench/events.c's evtest_bench. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench_trig

#if !defined(BENCH_TRIGGERS_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define BENCH_TRIGGERS_TP_H
#include <evtrace/trace_event.h>
#include "bench-event16.h"

BENCH_EVENT16(trig_bench);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../bench
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE triggers-tp
#include <evtrace/define_trace.h>
