// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-init-threads: the calibration is safe when many threads start it
 * at once, and idempotent. Half the threads call evt_clock_init(), the
 * others read "local" in a loop from before the calibration starts until
 * after it ends: they never wait for it, and their readings never go
 * back across the switch from CLOCK_MONOTONIC (the fallback) to the
 * scaled counter. Afterwards, more evt_clock_init() calls change nothing.
 * The measurement path is forced (EVTRACE_TSC_CALIB=measure) so the
 * calibration takes long enough (~18 ms) for the threads to overlap it.
 */
#include <pthread.h>
#include <string.h>

#include "clock/clock_internal.h"
#include "helpers.h"

#define NTHREADS	8

static pthread_barrier_t start;
static int init_ret[NTHREADS];
static uint64_t reads[NTHREADS], before[NTHREADS], slow_reads[NTHREADS];

static void *init_thread(void *arg)
{
	long t = (long)arg;

	pthread_barrier_wait(&start);
	init_ret[t] = evt_clock_init();
	return NULL;
}

static void *read_thread(void *arg)
{
	long t = (long)arg;
	uint64_t prev = 0, now, end_ns = 0;
	bool done = false;

	pthread_barrier_wait(&start);
	for (;;) {
		/* Acquire: mode is the published state (see clock_internal.h). */
		bool calibrated = __atomic_load_n(&tclock.mode, __ATOMIC_ACQUIRE) !=
				  TCLOCK_MODE_UNINIT;

		now = evt_clock_read(EVT_CLOCK_LOCAL);
		if (now < prev)
			t_fail("thread %ld: local went back %" PRIu64 " ns (read %" PRIu64
			       ", %s)", t, prev - now, reads[t], calibrated ? "calibrated" :
			       "during calibration");
		prev = now;
		reads[t]++;
		if (!calibrated) {
			slow_reads[t]++;
		} else if (!done) {
			done = true;
			before[t] = slow_reads[t];
			end_ns = t_ns_now() + 20000000;	/* 20 ms more on the scaled clock */
		} else if (t_ns_now() > end_ns) {
			break;
		}
	}
	return NULL;
}

int main(void)
{
	struct tclock_calib snap;
	pthread_t th[NTHREADS];
	uint64_t during = 0;

	setenv("EVTRACE_TSC_CALIB", "measure", 1);
	T_ASSERT_EQ(tclock.mode, TCLOCK_MODE_UNINIT);
	T_ASSERT_EQ(pthread_barrier_init(&start, NULL, NTHREADS), 0);
	for (long t = 0; t < NTHREADS; t++)
		T_ASSERT_EQ(pthread_create(&th[t], NULL, t % 2 ? init_thread : read_thread,
					   (void *)t), 0);
	for (int t = 0; t < NTHREADS; t++)
		T_ASSERT_EQ(pthread_join(th[t], NULL), 0);
	for (int t = 0; t < NTHREADS; t++) {
		if (t % 2) {
			T_ASSERT_EQ(init_ret[t], 0);
		} else {
			printf("reader %d: %" PRIu64 " reads, %" PRIu64 " before calibration ended\n",
			       t, reads[t], before[t]);
			during += before[t];
		}
	}
	T_ASSERT(tclock.mode != TCLOCK_MODE_UNINIT);
	printf("calibration: %s, local on the %s, %.1f ms; %" PRIu64 " reads fell back meanwhile\n",
	       tclock_source_name(), tclock.tsc_ok ? "cycle counter" : "CLOCK_MONOTONIC",
	       (double)tclock.calib_ns / 1e6, during);

	/* idempotent: nothing moves */
	memcpy(&snap, &tclock, sizeof(snap));
	pthread_barrier_destroy(&start);
	T_ASSERT_EQ(pthread_barrier_init(&start, NULL, NTHREADS), 0);
	for (long t = 0; t < NTHREADS; t++)
		T_ASSERT_EQ(pthread_create(&th[t], NULL, init_thread, (void *)t), 0);
	for (int t = 0; t < NTHREADS; t++)
		T_ASSERT_EQ(pthread_join(th[t], NULL), 0);
	for (int t = 0; t < NTHREADS; t++)
		T_ASSERT_EQ(init_ret[t], 0);
	T_ASSERT_EQ(evt_clock_init(), 0);
	T_ASSERT(!memcmp(&snap, &tclock, sizeof(snap)));
	pthread_barrier_destroy(&start);
	printf("clock-init-threads: PASS\n");
	return T_PASS;
}
