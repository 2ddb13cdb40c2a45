// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/events.c - the cost of a tracepoint, next to the ring buffer's own.
 *
 * One thread pinned to CPU 0, the event evtest_bench (16 bytes of fields:
 * u32, u32, u64; a 28-byte record with the common fields) in a dedicated
 * instance with a 256 KiB overwrite buffer per CPU (it stays in cache).
 * Each figure is the median of ROUNDS (-r, default 9) rounds of CALLS (-n,
 * default 2M) calls, in ns per call; each round measures every
 * configuration in turn (a shared machine's load then hits all alike):
 *
 *   disabled          trace_evtest_bench() with the event off; floor: the
 *                     same loop without the call
 *   floor             one tclock_read(EVT_CLOCK_LOCAL) and the stores of a
 *                     header and the 28-byte record into a thread-local page
 *                     (the floor of every enabled figure)
 *   rb_write          evt_ring_buffer_write() of the 28-byte record in a
 *                     buffer of the same size and mode
 *   enabled           the event on, no filter
 *   filter_pass       a 3-predicate filter that keeps every record
 *   filter_reject     a 3-predicate filter that discards every record (all
 *                     three predicates evaluated: the last one fails)
 *
 * Output: a table, then "BENCH events_<figure> <ns> ns" and
 * "BENCH events_<figure>_ratio <x> x" lines (figure / floor), and
 * events_enabled_16B_rb_ratio (enabled / rb_write: the event layer's share).
 *
 * Instructions per event (repeatable on a shared machine):
 *   valgrind --tool=callgrind --toggle-collect=loop_enabled bench/events -n 10000 -r 1
 * collects CALLS * 9 / 8 events (a warm-up of CALLS / 8, then the round). Valgrind has
 * no rseq: the CAS write path runs, unless -V fakes the rseq area (see fake_rseq()).
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

#include "compat/compiler.h"
#include "compat/rseq.h"
#include "clock/clock_internal.h"	/* the floor reads the clock the buffer reads */

#define MAX_ROUNDS	31
#define BUF_KB		256

/* -n CALLS per round, -r ROUNDS (odd; at most MAX_ROUNDS): small values for callgrind. */
static uint32_t CALLS = 2000000u;
static int ROUNDS = 9;

static struct evt_ring_buffer *floor_rb;

/*
 * -V: under valgrind, which has no rseq, make the rseq write path run anyway
 * so that callgrind counts its instructions: the thread is pinned to CPU 0,
 * so an rseq area saying "CPU 0" is true, and no restart is ever needed
 * (valgrind runs one thread at a time and never preempts inside a sequence
 * the way the kernel would). Only before any buffer exists; never on a real
 * kernel (there glibc registered the area and the real path runs).
 */
static void fake_rseq(void)
{
#if EVT_HAVE_RSEQ_OPS
	if (rseq_ops_init() || !&__rseq_offset || (&__rseq_size && __rseq_size))
		return;
	evt_rseq_area()->cpu_id_start = 0;
	evt_rseq_area()->cpu_id = 0;
	rseq_ops_usable = 1;
	fprintf(stderr, "events: -V: rseq path forced (valgrind)\n");
#endif
}
static volatile uint32_t sink;

/*
 * EVT_BENCH_CPUTIME=1: time with the thread's CPU clock instead of the wall
 * clock, so that the time the thread spends preempted on a loaded machine
 * is not counted (the figures are then less noisy; a shared core's cache
 * and pipeline still are).
 */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * One loop per configuration, each its own symbol, so that callgrind can
 * count each alone: valgrind --tool=callgrind --toggle-collect=loop_enabled
 * bench/events -n 10000 -r 1 (instructions / (CALLS * ROUNDS) per event).
 */
#define LOOP_TRACE(name)								\
	static __attribute__((noinline)) void name(uint32_t n)				\
	{										\
		for (uint32_t i = 0; i < n; i++)					\
			trace_evtest_bench(i, i + 1, (uint64_t)i << 3);			\
	}
LOOP_TRACE(loop_disabled)
LOOP_TRACE(loop_enabled)
LOOP_TRACE(loop_pass)
LOOP_TRACE(loop_reject)

/*
 * The floor of an enabled event: what any tracer does at least, one read of
 * the instance's clock (tclock_read(EVT_CLOCK_LOCAL), the inline the ring
 * buffer uses) and the stores of the same 28-byte record behind a 4-byte
 * header into a thread-local, page-sized area (wrapping). barrier() keeps
 * the stores of every iteration.
 */
static __thread unsigned char floor_page[4096] __attribute__((aligned(64)));

static __attribute__((noinline)) void loop_floor(uint32_t n)
{
	struct {
		struct evt_trace_entry ent;
		uint32_t a, b;
		uint64_t c;
	} __attribute__((packed)) rec = { { 0 }, 0, 0, 0 };
	uint32_t off = 0;
	uint64_t last = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t now = tclock_read(EVT_CLOCK_LOCAL);
		uint32_t hdr = (uint32_t)((now - last) << 5) | 7;

		last = now;
		rec.a = i;
		rec.b = i + 1;
		rec.c = (uint64_t)i << 3;
		if (off + 32 > sizeof(floor_page))
			off = 0;
		memcpy(floor_page + off, &hdr, 4);
		memcpy(floor_page + off + 4, &rec, sizeof(rec));
		off += 32;
		barrier();
	}
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

int main(int argc, char **argv)
{
	struct evt_ring_buffer_opts opts = {
		.size = BUF_KB * 1024ul,
		.flags = EVT_RB_FL_OVERWRITE,
	};
	double dis, dis_floor, en, rbw, fl, pass, rej;
	struct evt_instance *inst;
	char model[128], name[64];
	cpu_set_t set;
	bool fake_valgrind = false;
	int ret, opt;

	while ((opt = getopt(argc, argv, "n:r:V")) != -1) {
		if (opt == 'V')
			fake_valgrind = true;
		else if (opt == 'n')
			CALLS = (uint32_t)strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			ROUNDS = atoi(optarg);
		else
			return 2;
	}
	if (getenv("EVT_BENCH_CPUTIME") && atoi(getenv("EVT_BENCH_CPUTIME")))
		bench_clock = CLOCK_THREAD_CPUTIME_ID;
	if (!CALLS || ROUNDS < 1 || ROUNDS > MAX_ROUNDS) {
		fprintf(stderr, "usage: events [-n CALLS] [-r ROUNDS (1-%d)]\n", MAX_ROUNDS);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (fake_valgrind)
		fake_rseq();
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
		double r_dis[MAX_ROUNDS], r_dfl[MAX_ROUNDS], r_en[MAX_ROUNDS], r_rb[MAX_ROUNDS];
		double r_pass[MAX_ROUNDS], r_rej[MAX_ROUNDS], r_fl[MAX_ROUNDS];

		evt_instance_event_enable(inst, "evtest", "evtest_bench", true);
		loop_enabled(CALLS / 8);
		loop_rb_write(CALLS / 8);
		loop_floor(CALLS / 8);
		for (int r = 0; r < ROUNDS; r++) {
			evt_instance_event_enable(inst, "evtest", "evtest_bench", false);
			r_dis[r] = time_one(loop_disabled);
			r_dfl[r] = time_one(loop_empty);
			evt_instance_event_enable(inst, "evtest", "evtest_bench", true);
			evt_instance_event_filter(inst, "evtest", "evtest_bench", "0");
			r_en[r] = time_one(loop_enabled);
			r_rb[r] = time_one(loop_rb_write);
			r_fl[r] = time_one(loop_floor);
			if (evt_instance_event_filter(inst, "evtest", "evtest_bench", pass_f) < 0)
				return 1;
			r_pass[r] = time_one(loop_pass);
			if (evt_instance_event_filter(inst, "evtest", "evtest_bench", rej_f) < 0)
				return 1;
			r_rej[r] = time_one(loop_reject);
		}
		dis = median(r_dis);
		dis_floor = median(r_dfl);
		en = median(r_en);
		rbw = median(r_rb);
		fl = median(r_fl);
		pass = median(r_pass);
		rej = median(r_rej);
	}

	printf("  %-16s %11s   %-22s %11s\n", "figure", "ns/call", "floor", "ns/call");
	report("disabled", dis, dis_floor, "empty loop");
	report("enabled", en, fl, "clock read + stores");
	report("enabled", en, rbw, "ring_buffer_write 28B");
	report("rb_write 28B", rbw, fl, "clock read + stores");
	report("filter_pass", pass, fl, "clock read + stores");
	report("filter_reject", rej, fl, "clock read + stores");
	printf("BENCH events_disabled %.2f ns\n", dis);
	printf("BENCH events_disabled_floor %.2f ns\n", dis_floor);
	printf("BENCH events_disabled_ratio %.2f x\n", dis_floor > 0 ? dis / dis_floor : 0);
	printf("BENCH events_floor_clock_store_28B %.2f ns\n", fl);
	printf("BENCH events_enabled_16B %.2f ns\n", en);
	printf("BENCH events_enabled_16B_ratio %.2f x\n", en / fl);
	printf("BENCH events_rb_write_28B %.2f ns\n", rbw);
	printf("BENCH events_rb_write_28B_ratio %.2f x\n", rbw / fl);
	printf("BENCH events_enabled_16B_rb_ratio %.2f x\n", en / rbw);
	printf("BENCH events_filter3_pass %.2f ns\n", pass);
	printf("BENCH events_filter3_pass_ratio %.2f x\n", pass / fl);
	printf("BENCH events_filter3_reject %.2f ns\n", rej);
	printf("BENCH events_filter3_reject_ratio %.2f x\n", rej / fl);

	evt_instance_destroy(inst);
	evt_ring_buffer_free(floor_rb);
	return 0;
}
