// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/triggers.c - the cost of a hist trigger per event, next to the plain
 * enabled event in the same run.
 *
 * One thread pinned to CPU 0, the event trig_bench (u32 a, u32 b, u64 c: a
 * 28-byte record) in a dedicated instance with a 256 KiB overwrite buffer
 * per CPU. Each figure is the median of 9 rounds of 2M calls, in ns per
 * call; each round measures every configuration in turn:
 *
 *   enabled       the event on, no trigger (the floor of the trigger figures)
 *   clock floor   one tclock_read(EVT_CLOCK_LOCAL) and the stores of a header
 *                 and the record into a thread-local page (the floor of any
 *                 enabled event, as in bench/events)
 *   hist_1key     on, and hist:keys=a:vals=c (256 distinct keys)
 *   hist_2keys    on, and hist:keys=a,b:vals=c (compound key, 1024 keys)
 *   hist_1key_soft the event off, only the hist trigger (soft mode: the
 *                 record is built in the thread's scratch area, not committed)
 *
 * Output: a table, then "BENCH triggers_<figure> <ns> ns" and
 * "BENCH triggers_<figure>_ratio <x> x" lines (figure / enabled), and
 * triggers_floor_clock_store_28B with triggers_enabled_ratio (enabled / it).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/instance.h>
#include <evtrace/tracefs.h>

#define CREATE_TRACE_POINTS
#include "triggers-tp.h"

#include "bench.h"

#include "compat/compiler.h"
#include "clock/clock_internal.h"	/* the clock floor reads the clock the buffer reads */

#define ROUNDS 9
#define CALLS  2000000u
#define BUF_KB 256
#define TRIG   "events/bench_trig/trig_bench/trigger"
#define ENABLE "events/bench_trig/trig_bench/enable"

static struct evt_instance *inst;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static __attribute__((noinline)) void loop_trace(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		trace_trig_bench(i & 255, (i >> 8) & 3, (uint64_t)i << 3);
}

/* The clock floor: a clock read and the stores of a 28-byte record behind a header. */
static __thread unsigned char floor_page[4096] __attribute__((aligned(64)));

static __attribute__((noinline)) void loop_floor(uint32_t n)
{
	uint32_t off = 0, rec[7] = { 0 };
	uint64_t last = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t now = tclock_read(EVT_CLOCK_LOCAL);
		uint32_t hdr = (uint32_t)((now - last) << 5) | 7;

		last = now;
		rec[3] = i & 255;
		rec[4] = (i >> 8) & 3;
		rec[5] = i << 3;
		if (off + 32 > sizeof(floor_page))
			off = 0;
		memcpy(floor_page + off, &hdr, 4);
		memcpy(floor_page + off + 4, rec, sizeof(rec));
		off += 32;
		barrier();
	}
}

static double time_fn(void (*fn)(uint32_t))
{
	double t0 = now_ns();

	fn(CALLS);
	return (now_ns() - t0) / CALLS;
}

static double time_one(void)
{
	return time_fn(loop_trace);
}

static double median(double *r)
{
	qsort(r, ROUNDS, sizeof(r[0]), cmp_double);
	return r[ROUNDS / 2];
}

static void w(const char *path, const char *text)
{
	if (evt_tracefs_write(inst, path, text, strlen(text), EVT_TRACEFS_APPEND) !=
	    (ssize_t)strlen(text)) {
		fprintf(stderr, "triggers: '%s' > %s failed\n", text, path);
		exit(1);
	}
}

static void report(const char *name, double v, double floor)
{
	printf("  %-16s %8.2f ns   x %.2f of enabled (%.2f ns more)\n", name, v,
	       floor > 0 ? v / floor : 0, v - floor);
}

int main(void)
{
	double r_en[ROUNDS], r_h1[ROUNDS], r_h2[ROUNDS], r_soft[ROUNDS], en, h1, h2, soft;
	double r_fl[ROUNDS], fl;
	char model[128], name[64];
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	bench_cpu_model(model, sizeof(model));
	snprintf(name, sizeof(name), "bench-triggers-%d", (int)getpid());
	if (evt_instance_create(name, &inst) || evt_instance_resize_kb(inst, -1, BUF_KB)) {
		fprintf(stderr, "triggers: setup failed\n");
		return 1;
	}
	printf("triggers: %s, pinned to CPU 0, %u calls x %d rounds (median), 28-byte records, "
	       "%d KiB overwrite buffers\n",
	       model, CALLS, ROUNDS, BUF_KB);
	w(ENABLE, "1\n");
	loop_trace(CALLS / 8);
	for (int r = 0; r < ROUNDS; r++) {
		w(ENABLE, "1\n");
		r_en[r] = time_one();
		r_fl[r] = time_fn(loop_floor);
		w(TRIG, "hist:keys=a:vals=c\n");
		r_h1[r] = time_one();
		w(TRIG, "!hist:keys=a:vals=c\n");
		w(TRIG, "hist:keys=a,b:vals=c\n");
		r_h2[r] = time_one();
		w(TRIG, "!hist:keys=a,b:vals=c\n");
		w(ENABLE, "0\n");
		w(TRIG, "hist:keys=a:vals=c\n");
		r_soft[r] = time_one();
		w(TRIG, "!hist:keys=a:vals=c\n");
	}
	en = median(r_en);
	h1 = median(r_h1);
	h2 = median(r_h2);
	soft = median(r_soft);
	fl = median(r_fl);
	printf("  %-16s %11s\n", "figure", "ns/call");
	printf("  %-16s %8.2f ns   (clock read + stores)\n", "clock floor", fl);
	printf("  %-16s %8.2f ns   (floor of the triggers; x %.2f of the clock floor)\n", "enabled",
	       en, fl > 0 ? en / fl : 0);
	report("hist_1key", h1, en);
	report("hist_2keys", h2, en);
	report("hist_1key_soft", soft, en);
	printf("BENCH triggers_floor_clock_store_28B %.2f ns\n", fl);
	printf("BENCH triggers_enabled %.2f ns\n", en);
	printf("BENCH triggers_enabled_ratio %.2f x\n", fl > 0 ? en / fl : 0);
	printf("BENCH triggers_hist_1key %.2f ns\n", h1);
	printf("BENCH triggers_hist_1key_ratio %.2f x\n", h1 / en);
	printf("BENCH triggers_hist_2keys %.2f ns\n", h2);
	printf("BENCH triggers_hist_2keys_ratio %.2f x\n", h2 / en);
	printf("BENCH triggers_hist_1key_soft %.2f ns\n", soft);
	printf("BENCH triggers_hist_1key_soft_ratio %.2f x\n", soft / en);
	evt_instance_destroy(inst);
	return 0;
}
