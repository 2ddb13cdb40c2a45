// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/filter.c - nanoseconds per record for a compiled 3-predicate filter.
 *
 * What is measured: filter_match() of
 *	"a32 > 10 && b16 == -5 && a64 != 0"
 * on records that pass it (all three predicates run) and on records that
 * fail it at the third predicate (all three run, the worst rejection), and
 * on records failing at the first (one runs); next to the floor: the same
 * three comparisons written by hand in C (a noinline function reading the
 * same fields with the same loads), in the same run. The records rotate
 * through 64 copies so that nothing is hoisted out of the loop.
 *
 * Method. The thread pins itself to CPU 0, warms up, then runs batches of
 * 1000 matches with clock_gettime(CLOCK_MONOTONIC) around each; a run is
 * 0.1 s of batches (-d), its figure the median batch; the result is the
 * median of 5 runs (-r). ratio = filter / floor.
 *
 * Output: a table, then "BENCH <name> <value> <unit>" lines:
 *   filter_3pred_pass       ns   filter_match, record passes
 *   filter_3pred_reject     ns   filter_match, rejected at the 3rd predicate
 *   filter_3pred_reject1    ns   filter_match, rejected at the 1st predicate
 *   filter_floor_pass       ns   hand-written C, record passes
 *   filter_floor_reject     ns   hand-written C, rejected at the 3rd
 *   filter_3pred_pass_ratio x    filter_3pred_pass / filter_floor_pass
 *   filter_3pred_reject_ratio x  filter_3pred_reject / filter_floor_reject
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#include "filter/filter.h"

#define BATCH	1000
#define NREC	64

struct rec {
	uint16_t common_type;
	uint8_t common_flags;
	uint8_t common_preempt_count;
	int32_t common_pid;
	uint32_t a32;
	int16_t b16;
	uint16_t pad;
	uint64_t a64;
};

static const struct evt_field fields[] = {
	{ "unsigned short", "common_type", 0, 2, 2, EVT_FIELD_INT, 0 },
	{ "unsigned char", "common_flags", 2, 1, 1, EVT_FIELD_INT, 0 },
	{ "unsigned char", "common_preempt_count", 3, 1, 1, EVT_FIELD_INT, 0 },
	{ "int", "common_pid", 4, 4, 4, EVT_FIELD_INT, 1 },
	{ "u32", "a32", 8, 4, 4, EVT_FIELD_INT, 0 },
	{ "s16", "b16", 12, 2, 2, EVT_FIELD_INT, 1 },
	{ "u64", "a64", 16, 8, 8, EVT_FIELD_INT, 0 },
};

static struct rec pass[NREC], reject[NREC], reject1[NREC];

/* The floor: the same three comparisons, by hand, with the same loads. */
__attribute__((noinline)) static bool floor_match(const void *r, size_t len)
{
	uint32_t a32;
	int16_t b16;
	uint64_t a64;

	if (len < sizeof(struct rec))
		return false;
	memcpy(&a32, (const char *)r + 8, 4);
	memcpy(&b16, (const char *)r + 12, 2);
	memcpy(&a64, (const char *)r + 16, 8);
	return a32 > 10 && b16 == -5 && a64 != 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double secs = 0.1;
static int runs = 5;
static volatile int sink;

/* ns per match: median batch of a run, median of the runs. */
static double measure(const struct filter_prog *prog, const struct rec *recs)
{
	static double samples[1 << 18];
	double results[101];

	for (int r = 0; r < runs; r++) {
		double end = now_ns() + secs * 1e9;
		int n = 0;

		while (n < (int)(sizeof(samples) / sizeof(samples[0]))) {
			double t0 = now_ns(), t1;
			int hits = 0;

			for (int i = 0; i < BATCH; i++) {
				const struct rec *rec = &recs[i & (NREC - 1)];

				hits += prog ? filter_match(prog, rec, sizeof(*rec)) :
					       floor_match(rec, sizeof(*rec));
			}
			t1 = now_ns();
			sink += hits;
			samples[n++] = (t1 - t0) / BATCH;
			if (t1 > end)
				break;
		}
		qsort(samples, (size_t)n, sizeof(double), cmp_double);
		results[r] = samples[n / 2];
	}
	qsort(results, (size_t)runs, sizeof(double), cmp_double);
	return results[runs / 2];
}

int main(int argc, char **argv)
{
	const char *expr = "a32 > 10 && b16 == -5 && a64 != 0";
	double f_pass, f_rej, f_rej1, fl_pass, fl_rej;
	struct filter_error err;
	struct filter_prog *prog;
	char model[128];
	cpu_set_t set;
	int opt;

	while ((opt = getopt(argc, argv, "d:r:")) != -1) {
		if (opt == 'd')
			secs = atof(optarg);
		else if (opt == 'r')
			runs = atoi(optarg) < 1 ? 1 : atoi(optarg) > 101 ? 101 : atoi(optarg);
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);

	if (filter_compile(fields, sizeof(fields) / sizeof(fields[0]), expr, &prog, &err)) {
		fprintf(stderr, "cannot compile: %s\n", err.msg ? err.msg : "error");
		return 1;
	}
	for (int i = 0; i < NREC; i++) {
		pass[i] = (struct rec){ .common_pid = i, .a32 = 11 + (uint32_t)i, .b16 = -5,
					.a64 = 1 + (uint64_t)i };
		reject[i] = pass[i];
		reject[i].a64 = 0;
		reject1[i] = pass[i];
		reject1[i].a32 = (uint32_t)i % 10;
	}
	if (!filter_match(prog, &pass[0], sizeof(pass[0])) ||
	    filter_match(prog, &reject[0], sizeof(reject[0])) ||
	    filter_match(prog, &reject1[0], sizeof(reject1[0]))) {
		fprintf(stderr, "the filter does not do what the benchmark expects\n");
		return 1;
	}
	measure(prog, pass);	/* warm up */

	f_pass = measure(prog, pass);
	fl_pass = measure(NULL, pass);
	f_rej = measure(prog, reject);
	fl_rej = measure(NULL, reject);
	f_rej1 = measure(prog, reject1);

	bench_cpu_model(model, sizeof(model));
	printf("filter: \"%s\", %d runs of %.2f s, batches of %d, CPU %s\n", expr, runs, secs,
	       BATCH, model);
	printf("%-28s %8s %8s %8s\n", "", "filter", "floor", "ratio");
	printf("%-28s %8.2f %8.2f %8.2f\n", "pass (3 predicates run)", f_pass, fl_pass,
	       f_pass / fl_pass);
	printf("%-28s %8.2f %8.2f %8.2f\n", "reject at the 3rd", f_rej, fl_rej, f_rej / fl_rej);
	printf("%-28s %8.2f\n", "reject at the 1st", f_rej1);
	printf("BENCH filter_3pred_pass %.2f ns\n", f_pass);
	printf("BENCH filter_3pred_reject %.2f ns\n", f_rej);
	printf("BENCH filter_3pred_reject1 %.2f ns\n", f_rej1);
	printf("BENCH filter_floor_pass %.2f ns\n", fl_pass);
	printf("BENCH filter_floor_reject %.2f ns\n", fl_rej);
	printf("BENCH filter_3pred_pass_ratio %.2f x\n", f_pass / fl_pass);
	printf("BENCH filter_3pred_reject_ratio %.2f x\n", f_rej / fl_rej);
	filter_free(prog);
	return 0;
}
