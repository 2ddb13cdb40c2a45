// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-monotonic: every clock is monotonic over many reads on each CPU
 * (the thread pinned to each CPU in turn), "counter" strictly; "counter"
 * stays strictly increasing in each thread and hands out every value
 * exactly once when several threads read it at once. Whether "local"
 * also holds across a migration (it needs the CPUs' counters to be in
 * sync, which the clock does not promise) is reported, not asserted.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <evtrace/clock.h>

#include "helpers.h"

#define READS		1000000
#define THREAD_READS	100000
#define MAX_THREADS	16

static pthread_barrier_t start;
static uint64_t *vals[MAX_THREADS];

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_clock(enum evt_clock_id id, int cpu)
{
	uint64_t prev = evt_clock_read(id), now;
	bool strict = id == EVT_CLOCK_COUNTER;

	for (int i = 0; i < READS; i++) {
		now = evt_clock_read(id);
		if (now < prev || (strict && now == prev))
			t_fail("clock %s went back on CPU %d at read %d: %" PRIu64 " after %" PRIu64,
			       evt_clock_name(id), cpu, i, now, prev);
		prev = now;
	}
}

static void *counter_thread(void *arg)
{
	uint64_t *v = vals[(long)arg];

	pthread_barrier_wait(&start);
	for (int i = 0; i < THREAD_READS; i++)
		v[i] = evt_clock_read(EVT_CLOCK_COUNTER);
	return NULL;
}

int main(void)
{
	uint64_t last_local = 0, backs = 0, worst = 0;
	int nthreads, ncpus = 0;
	pthread_t th[MAX_THREADS];
	uint64_t *all;
	cpu_set_t set;

	T_ASSERT_EQ(evt_clock_init(), 0);
	T_ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);

	/* each clock, on each CPU we may run on */
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		uint64_t l;

		if (!CPU_ISSET(cpu, &set))
			continue;
		T_ASSERT_EQ(t_pin_to_cpu(cpu), 0);
		ncpus++;
		l = evt_clock_read(EVT_CLOCK_LOCAL);
		if (last_local && l < last_local) {
			backs++;
			if (last_local - l > worst)
				worst = last_local - l;
		}
		for (int id = 0; id < EVT_CLOCK__COUNT; id++)
			check_clock((enum evt_clock_id)id, cpu);
		last_local = evt_clock_read(EVT_CLOCK_LOCAL);
	}
	T_ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	printf("every clock monotonic on %d CPUs (%d reads each)\n", ncpus, READS);
	printf("local across migrations: %" PRIu64 " of %d went back (by at most %" PRIu64 " ns)\n",
	       backs, ncpus - 1, worst);

	/* counter: threads at once, unpinned */
	nthreads = 2 * t_nr_cpus();
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	if (nthreads < 2)
		nthreads = 2;
	all = malloc(sizeof(*all) * THREAD_READS * (size_t)nthreads);
	T_ASSERT(all);
	T_ASSERT_EQ(pthread_barrier_init(&start, NULL, (unsigned int)nthreads), 0);
	for (long t = 0; t < nthreads; t++) {
		vals[t] = all + t * THREAD_READS;
		T_ASSERT_EQ(pthread_create(&th[t], NULL, counter_thread, (void *)t), 0);
	}
	for (int t = 0; t < nthreads; t++)
		T_ASSERT_EQ(pthread_join(th[t], NULL), 0);
	for (int t = 0; t < nthreads; t++)
		for (int i = 1; i < THREAD_READS; i++)
			if (vals[t][i] <= vals[t][i - 1])
				t_fail("counter not increasing in thread %d: %" PRIu64 " after %" PRIu64,
				       t, vals[t][i], vals[t][i - 1]);
	/* nobody else reads it now: the values are one unbroken range, each once */
	qsort(all, (size_t)nthreads * THREAD_READS, sizeof(*all), cmp_u64);
	for (size_t i = 1; i < (size_t)nthreads * THREAD_READS; i++)
		if (all[i] != all[i - 1] + 1)
			t_fail("counter values %" PRIu64 " then %" PRIu64 " (duplicate or gap)",
			       all[i - 1], all[i]);
	printf("counter: %d threads x %d reads, every value once\n", nthreads, THREAD_READS);
	free(all);
	pthread_barrier_destroy(&start);
	printf("clock-monotonic: PASS\n");
	return T_PASS;
}
