// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/events.c - the cost of a tracepoint, next to the ring buffer's own.
 *
 * One thread pinned to CPU 0, the event evtest_bench (16 bytes of fields:
 * u32, u32, u64; a 28-byte record with the common fields) in a dedicated
 * instance with a 256 KiB overwrite buffer per CPU (it stays in cache).
 * Each figure is the median of 9 rounds of 2M calls, in ns per call; each round measures every
 * configuration in turn (a shared machine's load then hits all alike):
 *
 *   disabled          trace_evtest_bench() with the event off; floor: the
 *                     same loop without the call
 *   enabled           the event on, no filter; floor: evt_ring_buffer_write()
 *                     of 28 bytes in a buffer of the same size and mode
 *   filter_pass       a 3-predicate filter that keeps every record
 *   filter_reject     a 3-predicate filter that discards every record (all
 *                     three predicates evaluated: the last one fails)
 *
 * Output: a table, then "BENCH events_<figure> <ns> ns" and
 * "BENCH events_<figure>_ratio <x> x" lines (figure / floor).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/ring_buffer.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "bench.h"

#define ROUNDS		9
#define CALLS		2000000u
#define BUF_KB		256

static struct evt_ring_buffer *floor_rb;
static volatile uint32_t sink;

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
		trace_evtest_bench(i, i + 1, (uint64_t)i << 3);
}

static __attribute__((noinline)) void loop_empty(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		/* what the disabled call leaves: the loop itself */
		__asm__ __volatile__("" : : "r"(i) : "memory");
	}
	sink = n;
}

static __attribute__((noinline)) void loop_rb_write(uint32_t n)
{
	struct {
		struct evt_trace_entry ent;
		uint32_t a, b;
		uint64_t c;
	} __attribute__((packed)) rec = { { 0 }, 0, 0, 0 };

	for (uint32_t i = 0; i < n; i++) {
		rec.a = i;
		rec.b = i + 1;
		rec.c = (uint64_t)i << 3;
		evt_ring_buffer_write(floor_rb, sizeof(rec), &rec);
	}
}

static double time_one(void (*fn)(uint32_t))
{
	double t0 = now_ns();

	fn(CALLS);
	return (now_ns() - t0) / CALLS;
}

static double median(double *r)
{
	qsort(r, ROUNDS, sizeof(r[0]), cmp_double);
	return r[ROUNDS / 2];
}

static void report(const char *name, double v, double floor, const char *floor_name)
{
	printf("  %-16s %8.2f ns   %-22s %8.2f ns   x %.2f\n", name, v, floor_name, floor,
	       floor > 0 ? v / floor : 0);
}

int main(void)
{
	struct evt_ring_buffer_opts opts = {
		.size = BUF_KB * 1024ul,
		.flags = EVT_RB_FL_OVERWRITE,
	};
	double dis, dis_floor, en, rbw, pass, rej;
	struct evt_instance *inst;
	char model[128], name[64];
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	bench_cpu_model(model, sizeof(model));
	snprintf(name, sizeof(name), "bench-events-%d", (int)getpid());
	ret = evt_instance_create(name, &inst);
	if (ret || evt_instance_resize_kb(inst, -1, BUF_KB) ||
	    evt_ring_buffer_alloc_opts(&opts, &floor_rb)) {
		fprintf(stderr, "events: setup failed (%d)\n", ret);
		return 1;
	}
	printf("events: %s, pinned to CPU 0, %u calls x %d rounds (median), 28-byte records, "
	       "%d KiB overwrite buffers\n", model, CALLS, ROUNDS, BUF_KB);

	/*
	 * The rounds interleave the configurations, so that a change in the machine's
	 * load (it is shared) hits every figure and its floor alike.
	 */
	{
		static const char *const pass_f = "a < 4000000000 && b != 0 && c != 5";
		static const char *const rej_f = "a < 4000000000 && b != 0 && c == 5";
		double r_dis[ROUNDS], r_dfl[ROUNDS], r_en[ROUNDS], r_rb[ROUNDS];
		double r_pass[ROUNDS], r_rej[ROUNDS];

		loop_trace(CALLS / 8);
		loop_rb_write(CALLS / 8);
		for (int r = 0; r < ROUNDS; r++) {
			evt_instance_event_enable(inst, "evtest", "evtest_bench", false);
			r_dis[r] = time_one(loop_trace);
			r_dfl[r] = time_one(loop_empty);
			evt_instance_event_enable(inst, "evtest", "evtest_bench", true);
			evt_instance_event_filter(inst, "evtest", "evtest_bench", "0", NULL, NULL);
			r_en[r] = time_one(loop_trace);
			r_rb[r] = time_one(loop_rb_write);
			if (evt_instance_event_filter(inst, "evtest", "evtest_bench", pass_f, NULL,
						      NULL) < 0)
				return 1;
			r_pass[r] = time_one(loop_trace);
			if (evt_instance_event_filter(inst, "evtest", "evtest_bench", rej_f, NULL,
						      NULL) < 0)
				return 1;
			r_rej[r] = time_one(loop_trace);
		}
		dis = median(r_dis);
		dis_floor = median(r_dfl);
		en = median(r_en);
		rbw = median(r_rb);
		pass = median(r_pass);
		rej = median(r_rej);
	}

	printf("  %-16s %11s   %-22s %11s\n", "figure", "ns/call", "floor", "ns/call");
	report("disabled", dis, dis_floor, "empty loop");
	report("enabled", en, rbw, "ring_buffer_write 28B");
	report("filter_pass", pass, rbw, "ring_buffer_write 28B");
	report("filter_reject", rej, rbw, "ring_buffer_write 28B");
	printf("BENCH events_disabled %.2f ns\n", dis);
	printf("BENCH events_disabled_floor %.2f ns\n", dis_floor);
	printf("BENCH events_enabled_16B %.2f ns\n", en);
	printf("BENCH events_rb_write_28B %.2f ns\n", rbw);
	printf("BENCH events_enabled_16B_ratio %.2f x\n", en / rbw);
	printf("BENCH events_filter3_pass %.2f ns\n", pass);
	printf("BENCH events_filter3_pass_ratio %.2f x\n", pass / rbw);
	printf("BENCH events_filter3_reject %.2f ns\n", rej);
	printf("BENCH events_filter3_reject_ratio %.2f x\n", rej / rbw);

	evt_instance_destroy(inst);
	evt_ring_buffer_free(floor_rb);
	return 0;
}
