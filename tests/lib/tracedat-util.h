/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/tracedat-util.h - what the tracedat-* tests share: record a multi-threaded run
 * of the tracedat-tp.h events into a fresh instance, snapshot its records without
 * consuming them, its `trace` lines. Defined in tracedat-util.c of the test library, which
 * also defines the events: include tracedat-tp.h and tracedat-net-tp.h without
 * CREATE_TRACE_POINTS. Names td_*.
 */
#ifndef EVT_TESTS_TRACEDAT_UTIL_H
#define EVT_TESTS_TRACEDAT_UTIL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

#include "helpers.h"

#define TD_THREADS	4
#define TD_PER_THREAD	150

struct td_rec {
	int cpu;
	uint64_t ts;
	unsigned int len;
	unsigned char data[512];
};

/*
 * A fresh instance with the run recorded in it (buffer large enough to keep all);
 * @clock: its trace clock (NULL: the default); workers pinned round-robin, or all to
 * @one_cpu (>= 0).
 */
struct evt_instance *td_record_on(const char *what, const char *clock, int one_cpu);

/* td_record_on(@what, @clock, -1) */
struct evt_instance *td_record(const char *what, const char *clock);

/* Every record of @inst, per CPU in order, without consuming (*@out malloc'd): the count. */
int td_snapshot(struct evt_instance *inst, struct td_rec **out);

/* The `trace` text of @inst without its header: one malloc'd string per line; the count. */
int td_trace_lines(struct evt_instance *inst, char ***linesp);

/* Free what td_trace_lines() gave. */
void td_free_lines(char **lines, int n);

/* qsort() comparisons: of char * (strcmp), of unsigned long long. */
int td_strcmp(const void *a, const void *b);
int td_u64cmp(const void *a, const void *b);

/* Write @inst to a temporary file; return its malloc'd path. */
char *td_write_tmp(struct evt_instance *inst, const char *what);

#endif /* EVT_TESTS_TRACEDAT_UTIL_H */
