// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/clock.c - nanoseconds per read of each trace clock.
 *
 * What is measured: tclock_read(id), the inline the ring buffer's writers
 * call, with @id loaded from memory at run time as the buffer does (so the
 * clock dispatch is in the figure), for every clock; evt_clock_read(local),
 * the public out-of-line call; "counter" also with two threads hammering
 * it at once (the cache line bounces between them); and the floor: the
 * same loop with no clock read in it.
 *
 * Method. The thread pins itself to one CPU, calibrates, warms up, then
 * runs batches of 1000 reads with clock_gettime(CLOCK_MONOTONIC) around
 * each (~20 ns per batch: 0.02 ns per read). A run is 0.1 s of batches
 * (-d), its figure the median batch; the result is the median of 5 runs
 * (-r). Medians ignore the batches an interrupt or a preemption hit.
 * ratio = clock read / floor.
 *
 * Output: a table, then "BENCH <name> <value> <unit>" lines:
 *   clock_floor                  ns   the empty loop, per iteration
 *   clock_<name>_read            ns   tclock_read() (x86-tsc is spelt x86_tsc)
 *   clock_<name>_ratio           x    clock_<name>_read / clock_floor
 *   clock_local_evt_read         ns   evt_clock_read(EVT_CLOCK_LOCAL)
 *   clock_counter_read_2t        ns   "counter", each of two threads at once
 *                                     (2+ CPUs; mean over each run, not median)
 *   clock_insn_<source>          ns   the time source alone, no scaling: rdtsc,
 *                                     rdtscp, lfence_rdtsc (x86-64), and
 *                                     clock_gettime_mono_raw (the vDSO call)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#include "bench.h"

#include "compat/compiler.h"
#include "clock/clock_internal.h"	/* the inline hot path, and the calibration to print */

#define BATCH		1000
#define MAX_SAMPLES	(1 << 20)
#define MAX_RUNS	101

enum what {
	W_FLOOR = -1,		/* >= 0: a clock id */
	W_PUBLIC = -2,		/* evt_clock_read(EVT_CLOCK_LOCAL) */
	W_RDTSC = -3,		/* the instructions alone (x86-64): rdtsc */
	W_RDTSCP = -4,		/* rdtscp */
	W_LFENCE_RDTSC = -5,	/* lfence; rdtsc (ordered, as a serialized read) */
	W_MONO_RAW = -6,	/* clock_gettime(CLOCK_MONOTONIC_RAW), the vDSO call itself */
};

/* One read of what @what names among the raw sources (W_RDTSC ... W_MONO_RAW). */
static inline uint64_t raw_read(int what)
{
	struct timespec t;

#if defined(__x86_64__)
	uint32_t lo, hi, aux;

	if (what == W_RDTSC) {
		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return (uint64_t)hi << 32 | lo;
	}
	if (what == W_RDTSCP) {
		__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
		return (uint64_t)hi << 32 | lo;
	}
	if (what == W_LFENCE_RDTSC) {
		__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
		return (uint64_t)hi << 32 | lo;
	}
#else
	(void)what;	/* only W_MONO_RAW elsewhere */
#endif
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_nsec;
}

static struct {
	double secs;
	int runs;
	int cpus[2];
	int ncpus;
} opt = { 0.1, 5, { -1, -1 }, 0 };

/* The clock id, read at run time as the ring buffer reads rb->clock. */
static volatile int bench_id;
static pthread_barrier_t bar2;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One batch; returns ns per iteration. noinline: the same loop shape for every clock. */
static __attribute__((noinline)) double batch(int what)
{
	uint64_t t0, t1, acc = 0;

	if (what == W_FLOOR) {
		t0 = now_ns();
		for (int i = 0; i < BATCH; i++) {
			acc += (uint64_t)i;
			barrier();	/* keeps the loop a loop */
		}
		t1 = now_ns();
	} else if (what == W_PUBLIC) {
		t0 = now_ns();
		for (int i = 0; i < BATCH; i++) {
			acc += evt_clock_read(EVT_CLOCK_LOCAL);
			barrier();
		}
		t1 = now_ns();
	} else if (what <= W_RDTSC) {
		t0 = now_ns();
		for (int i = 0; i < BATCH; i++) {
			acc += raw_read(what);
			barrier();
		}
		t1 = now_ns();
	} else {
		t0 = now_ns();
		for (int i = 0; i < BATCH; i++) {
			acc += tclock_read((enum evt_clock_id)bench_id);
			barrier();
		}
		t1 = now_ns();
	}
	__asm__ __volatile__("" : : "r"(acc));	/* the reads are used: not optimized away */
	return (double)(t1 - t0) / BATCH;
}

/* One run: batches for opt.secs; the median batch. */
static double run(int what, double *samples)
{
	uint64_t end;
	int n = 0;

	if (what >= 0)
		bench_id = what;
	end = now_ns() + (uint64_t)(opt.secs / 10 * 1e9);	/* warm-up */
	while (now_ns() < end)
		batch(what);
	end = now_ns() + (uint64_t)(opt.secs * 1e9);
	while (now_ns() < end && n < MAX_SAMPLES)
		samples[n++] = batch(what);
	return median(samples, n);
}

static double measure(int what, double *samples)
{
	double r[MAX_RUNS];

	for (int i = 0; i < opt.runs; i++)
		r[i] = run(what, samples);
	return median(r, opt.runs);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

struct counter_arg {
	int cpu;
	double result;
	double *samples;
};

static void *counter_thread(void *p)
{
	struct counter_arg *a = p;

	if (pin(a->cpu))
		perror("sched_setaffinity");
	bench_id = EVT_CLOCK_COUNTER;
	for (int r = 0; r < opt.runs; r++) {
		uint64_t t0, t1, n = 0;

		/* Both threads time the same interval: a mean, not a median of batches
		 * (the line goes back and forth in bursts: one thread's fast batch is
		 * the other's slow one). */
		pthread_barrier_wait(&bar2);
		t0 = now_ns();
		do {
			batch(EVT_CLOCK_COUNTER);
			n++;
			t1 = now_ns();
		} while (t1 - t0 < (uint64_t)(opt.secs * 1e9));
		a->samples[r] = (double)(t1 - t0) / (double)(n * BATCH);
	}
	a->result = median(a->samples, opt.runs);
	return NULL;
}

/* "counter" read by two threads at once, on two CPUs: ns per read in each. */
static double counter_2t(void)
{
	struct counter_arg a[2];
	pthread_t th[2];

	pthread_barrier_init(&bar2, NULL, 2);
	for (int i = 0; i < 2; i++) {
		a[i].cpu = opt.cpus[i];
		a[i].samples = malloc(sizeof(double) * MAX_SAMPLES);
		if (!a[i].samples || pthread_create(&th[i], NULL, counter_thread, &a[i])) {
			fprintf(stderr, "clock: cannot start a thread\n");
			exit(1);
		}
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		free(a[i].samples);
	}
	pthread_barrier_destroy(&bar2);
	return (a[0].result + a[1].result) / 2;
}

static void print_machine(void)
{
	char model[128];
	struct utsname u;

	bench_cpu_model(model, sizeof(model));
	uname(&u);
	printf("evtrace %s clock benchmark\n", EVTRACE_VERSION);
	printf("machine:     %s, %ld CPUs online, %s %s %s\n", model,
	       sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release, u.machine);
	printf("calibration: %s, counter %.6f GHz (mult %llu, shift %u), %s, took %.1f ms",
	       tclock_source_name(), (double)tclock.freq_hz / 1e9, (unsigned long long)tclock.mult,
	       tclock.shift, tclock.invariant ? "invariant" : "NOT invariant",
	       (double)tclock.calib_ns / 1e6);
	if (tclock.source == TCLOCK_SRC_MEASURED)
		printf(", brackets %llu ns", (unsigned long long)tclock.bracket_ns);
	printf("\nlocal:       %s\n", tclock.tsc_ok ? "scaled cycle counter" :
						    "CLOCK_MONOTONIC (no invariant counter, or EVTRACE_TSC=0)");
	printf("method:      pinned to CPU %d; batches of %d reads, %.2f s per run, median of %d "
	       "runs\n", opt.cpus[0], BATCH, opt.secs, opt.runs);
}

static void pick_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE && opt.ncpus < 2; c++)
		if (CPU_ISSET(c, &set))
			opt.cpus[opt.ncpus++] = c;
	if (!opt.ncpus)
		opt.cpus[opt.ncpus++] = 0;
}

/* "x86-tsc" -> "x86_tsc": BENCH names are identifiers. */
static const char *bench_name(int id, char *buf, size_t len)
{
	snprintf(buf, len, "%s", evt_clock_name((enum evt_clock_id)id));
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
	return buf;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-q] [-d SECONDS_PER_RUN] [-r RUNS]\n"
		"  -q  quick: 0.02 s per run, 3 runs\n", prog);
}

int main(int argc, char **argv)
{
	static const struct {
		int what;
		const char *name;
	} raws[] = {
#if defined(__x86_64__)
		{ W_RDTSC, "rdtsc" },
		{ W_RDTSCP, "rdtscp" },
		{ W_LFENCE_RDTSC, "lfence_rdtsc" },
#endif
		{ W_MONO_RAW, "clock_gettime_mono_raw" },
	};
	double floor_ns, read_ns[EVT_CLOCK__COUNT], pub, c2 = 0, raw_ns[4];
	double *samples;
	char name[32];
	int c;

	while ((c = getopt(argc, argv, "qd:r:h")) != -1) {
		switch (c) {
		case 'q':
			opt.secs = 0.02;
			opt.runs = 3;
			break;
		case 'd':
			opt.secs = atof(optarg);
			break;
		case 'r':
			opt.runs = atoi(optarg);
			break;
		default:
			usage(argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (opt.secs <= 0 || opt.secs > 60 || opt.runs < 1 || opt.runs > MAX_RUNS) {
		usage(argv[0]);
		return 2;
	}
	samples = malloc(sizeof(double) * MAX_SAMPLES);
	if (!samples)
		return 1;
	pick_cpus();
	if (pin(opt.cpus[0]))
		perror("sched_setaffinity");
	if (evt_clock_init()) {
		fprintf(stderr, "clock: no usable clock\n");
		return 1;
	}
	print_machine();

	floor_ns = measure(W_FLOOR, samples);
	for (int id = 0; id < EVT_CLOCK__COUNT; id++)
		read_ns[id] = measure(id, samples);
	pub = measure(W_PUBLIC, samples);
	for (size_t i = 0; i < sizeof(raws) / sizeof(raws[0]); i++)
		raw_ns[i] = measure(raws[i].what, samples);
	if (opt.ncpus > 1)
		c2 = counter_2t();

	printf("\n  %-28s %8s %8s\n", "read (ns)", "median", "ratio");
	printf("  %-28s %8.2f %8s\n", "floor (empty loop)", floor_ns, "1.00");
	for (int id = 0; id < EVT_CLOCK__COUNT; id++)
		printf("  %-28s %8.2f %8.1f\n", evt_clock_name((enum evt_clock_id)id), read_ns[id],
		       read_ns[id] / floor_ns);
	printf("  %-28s %8.2f %8.1f\n", "local via evt_clock_read()", pub, pub / floor_ns);
	if (c2 > 0)
		printf("  %-28s %8.2f %8.1f\n", "counter, 2 threads", c2, c2 / floor_ns);
	for (size_t i = 0; i < sizeof(raws) / sizeof(raws[0]); i++)
		printf("  %-28s %8.2f %8.1f\n", raws[i].name, raw_ns[i], raw_ns[i] / floor_ns);
	printf("\n");

	printf("BENCH clock_floor %.2f ns\n", floor_ns);
	for (int id = 0; id < EVT_CLOCK__COUNT; id++) {
		bench_name(id, name, sizeof(name));
		printf("BENCH clock_%s_read %.2f ns\n", name, read_ns[id]);
		printf("BENCH clock_%s_ratio %.2f x\n", name, read_ns[id] / floor_ns);
	}
	printf("BENCH clock_local_evt_read %.2f ns\n", pub);
	if (c2 > 0)
		printf("BENCH clock_counter_read_2t %.2f ns\n", c2);
	for (size_t i = 0; i < sizeof(raws) / sizeof(raws[0]); i++)
		printf("BENCH clock_insn_%s %.2f ns\n", raws[i].name, raw_ns[i]);
	free(samples);
	return 0;
}
