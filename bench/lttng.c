// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/lttng.c - evtrace's tracepoint next to LTTng-UST's, same payload,
 * same run: the peer the write path is measured against.
 *
 * One thread pinned to CPU 0. evtrace: trace_evtest_bench() (u32, u32, u64:
 * 16 bytes of fields) enabled in an instance of its own with a 256 KiB
 * overwrite buffer per CPU, as bench/events. LTTng-UST 2.13: the tracepoint
 * evtbench:ev16 with the same three fields (bench/lttng-tp.h), enabled in a
 * snapshot session (overwrite buffers, LTTng's defaults) that
 * bench/lttng-session.sh sets up. Each figure is the median of ROUNDS (-r,
 * default 9) rounds of CALLS (-n, default 1M) calls; each round measures
 * every configuration in turn (load on a shared machine hits all alike).
 * EVT_BENCH_CPUTIME=1 times the loops with the thread's CPU clock.
 *
 * Run bare (no EVT_BENCH_LTTNG_SESSION in the environment), the program runs
 * itself again through bench/lttng-session.sh when lttng(1) is installed,
 * so that `make bench` measures LTTng's tracepoint enabled. Without
 * lttng-tools, or when the session cannot be made, LTTng's figure is its
 * disabled tracepoint and the output says so (lttng_ust_enabled 0). Built
 * without liblttng-ust-dev, the program says it skipped and exits 0.
 *
 * Output: a table, then "BENCH lttng_evtrace_enabled_16B <ns> ns",
 * "BENCH lttng_ust_tracepoint_16B <ns> ns", "BENCH lttng_ust_enabled 0|1"
 * and "BENCH lttng_ratio <x> x" (LTTng's time / evtrace's: how many times
 * faster evtrace is).
 *
 * Linking: bench/lttng has evtrace linked statically (as bench/events),
 * LTTng-UST as the shared library it comes as. bench/lttng-shared is the
 * same program with libevtrace.so (EVT_BENCH_LTTNG_SHARED): both tracers
 * then pay a call through the PLT and a DSO's thread-local state, the
 * like-for-like figure; its BENCH names end in "_shared".
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "bench.h"

#if EVT_HAVE_LTTNG_UST
/* LTTng's own names only: its compatibility aliases (TP_ARGS, ...) are evtrace's macros too. */
#define LTTNG_UST_COMPAT_API_VERSION 0
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "lttng-tp.h"
#endif

#ifdef EVT_BENCH_LTTNG_SHARED
#define LINK_NAME	"libevtrace.so"
#define SFX		"_shared"
#else
#define LINK_NAME	"static libevtrace"
#define SFX		""
#endif

#define MAX_ROUNDS 31
#define BUF_KB	   256

static uint32_t CALLS = 1000000u;
static int ROUNDS = 9;

/* EVT_BENCH_CPUTIME=1: the thread's CPU clock, as bench/events (time preempted not counted). */
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

static double median(double *r)
{
	qsort(r, ROUNDS, sizeof(r[0]), cmp_double);
	return r[ROUNDS / 2];
}

static __attribute__((noinline)) void loop_evtrace(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		trace_evtest_bench(i, i + 1, (uint64_t)i << 3);
}

#if EVT_HAVE_LTTNG_UST
static __attribute__((noinline)) void loop_lttng(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		lttng_ust_tracepoint(evtbench, ev16, i, i + 1, (uint64_t)i << 3);
}

static bool lttng_enabled(void)
{
	return lttng_ust_tracepoint_enabled(evtbench, ev16) != 0;
}
#else
static void loop_lttng(uint32_t n)
{
	(void)n;
}

static bool lttng_enabled(void)
{
	return false;
}
#endif

static double time_one(void (*fn)(uint32_t))
{
	double t0 = now_ns();

	fn(CALLS);
	return (now_ns() - t0) / CALLS;
}

/* Bare run with lttng(1) installed: again, through the script that makes the session. */
static void run_in_session(char **argv)
{
#if EVT_HAVE_LTTNG_UST && defined(EVT_BENCH_LTTNG_SCRIPT)
	char *args[64];
	int n = 0;

	if (getenv("EVT_BENCH_LTTNG_SESSION") ||
	    system("command -v lttng >/dev/null 2>&1 && "
		   "command -v lttng-sessiond >/dev/null 2>&1"))
		return;
	args[n++] = "sh";
	args[n++] = EVT_BENCH_LTTNG_SCRIPT;
	for (int i = 0; argv[i] && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	fflush(stdout);
	execv("/bin/sh", args);
	perror("lttng: /bin/sh");
#else
	(void)argv;
#endif
}

int main(int argc, char **argv)
{
	double r_ev[MAX_ROUNDS], r_lt[MAX_ROUNDS], ev, lt;
	const char *sess = getenv("EVT_BENCH_LTTNG_SESSION");
	struct evt_instance *inst;
	char model[128], name[64];
	cpu_set_t set;
	bool on;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			CALLS = (uint32_t)strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			ROUNDS = atoi(optarg);
		else
			return 2;
	}
	if (getenv("EVT_BENCH_CPUTIME") && atoi(getenv("EVT_BENCH_CPUTIME")))
		bench_clock = CLOCK_THREAD_CPUTIME_ID;
	if (!CALLS || ROUNDS < 1 || ROUNDS > MAX_ROUNDS) {
		fprintf(stderr, "usage: lttng [-n CALLS] [-r ROUNDS (1-%d)]\n", MAX_ROUNDS);
		return 2;
	}
	if (!EVT_HAVE_LTTNG_UST) {
		printf("lttng: skipped (built without liblttng-ust-dev)\n");
		return 0;
	}
	run_in_session(argv);

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	bench_cpu_model(model, sizeof(model));
	snprintf(name, sizeof(name), "bench-lttng-%d", (int)getpid());
	if (evt_instance_create(name, &inst) || evt_instance_resize_kb(inst, -1, BUF_KB) ||
	    evt_instance_event_enable(inst, "evtest", "evtest_bench", true) < 0) {
		fprintf(stderr, "lttng: evtrace setup failed\n");
		return 1;
	}
	/* The session daemon enables the tracepoint after the registration: wait for it. */
	for (int i = 0; sess && strcmp(sess, "off") && !lttng_enabled() && i < 300; i++)
		usleep(10000);
	on = lttng_enabled();
	printf("lttng: %s, pinned to CPU 0, %u calls x %d rounds (median), 16 bytes of fields; "
	       "evtrace (%s): %d KiB overwrite buffer; LTTng-UST: tracepoint %s (%s)\n",
	       model, CALLS, ROUNDS, LINK_NAME, BUF_KB, on ? "enabled" : "DISABLED",
	       on ? "snapshot session, LTTng's default buffers" :
		    "no session: lttng-tools missing or the session failed");

	loop_evtrace(CALLS / 8);
	loop_lttng(CALLS / 8);
	for (int r = 0; r < ROUNDS; r++) {
		r_ev[r] = time_one(loop_evtrace);
		r_lt[r] = time_one(loop_lttng);
	}
	ev = median(r_ev);
	lt = median(r_lt);
	printf("  %-28s %8.2f ns\n", "evtrace trace_evtest_bench", ev);
	printf("  %-28s %8.2f ns   x %.2f evtrace's\n",
	       on ? "LTTng-UST tracepoint" : "LTTng-UST tracepoint (off)", lt,
	       ev > 0 ? lt / ev : 0);
	printf("BENCH lttng_evtrace_enabled_16B" SFX " %.2f ns\n", ev);
	printf("BENCH lttng_ust_tracepoint_16B" SFX " %.2f ns\n", lt);
	printf("BENCH lttng_ust_enabled" SFX " %d\n", on);
	printf("BENCH lttng_ratio" SFX " %.2f x\n", ev > 0 ? lt / ev : 0);
	evt_instance_destroy(inst);
	return 0;
}
