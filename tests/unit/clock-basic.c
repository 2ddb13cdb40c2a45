// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-basic: the trace clocks. Names round-trip as ftrace spells them;
 * every clock is monotonic on each CPU; "local" runs at the rate of
 * CLOCK_MONOTONIC and reads like it; x86-tsc converts to local's ns;
 * calibrating from many threads at once is safe.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <evtrace/clock.h>

#include "helpers.h"

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *init_thread(void *arg)
{
	(void)arg;
	T_ASSERT_EQ(evt_clock_init(), 0);
	return NULL;
}

int main(void)
{
	pthread_t th[8];

	/* calibration from several threads at once */
	for (int i = 0; i < 8; i++)
		T_ASSERT_EQ(pthread_create(&th[i], NULL, init_thread, NULL), 0);
	for (int i = 0; i < 8; i++)
		T_ASSERT_EQ(pthread_join(th[i], NULL), 0);

	/* names */
	for (int id = 0; id < EVT_CLOCK__COUNT; id++) {
		const char *name = evt_clock_name((enum evt_clock_id)id);

		T_ASSERT(name);
		T_ASSERT_EQ(evt_clock_by_name(name), id);
	}
	T_ASSERT_EQ(evt_clock_by_name("local"), EVT_CLOCK_LOCAL);
	T_ASSERT_EQ(evt_clock_by_name("mono_raw"), EVT_CLOCK_MONO_RAW);
	T_ASSERT_EQ(evt_clock_by_name("x86-tsc"), EVT_CLOCK_TSC);
	T_ASSERT_EQ(evt_clock_by_name("tsc"), EVT_CLOCK_TSC);
	T_ASSERT_EQ(evt_clock_by_name("perf"), -EINVAL);
	T_ASSERT_EQ(evt_clock_by_name(""), -EINVAL);
	T_ASSERT_EQ(evt_clock_by_name(NULL), -EINVAL);
	T_ASSERT(evt_clock_name(EVT_CLOCK__COUNT) == NULL);
	T_ASSERT(evt_clock_is_ns(EVT_CLOCK_LOCAL) && evt_clock_is_ns(EVT_CLOCK_MONO));
	T_ASSERT(!evt_clock_is_ns(EVT_CLOCK_COUNTER) && !evt_clock_is_ns(EVT_CLOCK_TSC));

	/* monotonic on every CPU, for every clock */
	for (int cpu = 0; cpu < t_nr_cpus(); cpu++) {
		if (t_pin_to_cpu(cpu) < 0)
			continue;
		for (int id = 0; id < EVT_CLOCK__COUNT; id++) {
			uint64_t prev = evt_clock_read((enum evt_clock_id)id);

			for (int i = 0; i < 100000; i++) {
				uint64_t now = evt_clock_read((enum evt_clock_id)id);

				if (now < prev)
					t_fail("clock %s went back on cpu %d: %llu < %llu",
					       evt_clock_name((enum evt_clock_id)id), cpu,
					       (unsigned long long)now, (unsigned long long)prev);
				prev = now;
			}
		}
	}
	t_unpin();

	/* local: same rate as CLOCK_MONOTONIC (within 200 ppm), same origin (within 5 ms) */
	{
		uint64_t l0 = evt_clock_read(EVT_CLOCK_LOCAL), m0 = mono_ns();
		struct timespec nap = { .tv_sec = 0, .tv_nsec = 300 * 1000 * 1000 };
		uint64_t l1, m1;
		double rate;

		nanosleep(&nap, NULL);
		l1 = evt_clock_read(EVT_CLOCK_LOCAL);
		m1 = mono_ns();
		rate = (double)(l1 - l0) / (double)(m1 - m0);
		if (rate < 1 - 200e-6 || rate > 1 + 200e-6)
			t_fail("local runs at %.6f x CLOCK_MONOTONIC", rate);
		if ((l1 > m1 ? l1 - m1 : m1 - l1) > 5000000)
			t_fail("local is %lld ns away from CLOCK_MONOTONIC", (long long)(l1 - m1));
	}

	/* x86-tsc: to_ns gives local's nanoseconds */
	{
		uint64_t c = evt_clock_read(EVT_CLOCK_TSC);
		uint64_t l = evt_clock_read(EVT_CLOCK_LOCAL);
		uint64_t n = evt_clock_to_ns(EVT_CLOCK_TSC, c);

		if ((l > n ? l - n : n - l) > 1000000)
			t_fail("to_ns(x86-tsc) %llu vs local %llu", (unsigned long long)n,
			       (unsigned long long)l);
		T_ASSERT_EQ(evt_clock_to_ns(EVT_CLOCK_MONO, 12345), 12345);
		T_ASSERT_EQ(evt_clock_to_ns(EVT_CLOCK_COUNTER, 7), 7);
	}

	/* counter: strictly increasing across threads is what it is for */
	{
		uint64_t a = evt_clock_read(EVT_CLOCK_COUNTER), b = evt_clock_read(EVT_CLOCK_COUNTER);

		T_ASSERT(b > a);
	}
	printf("clock-basic: PASS\n");
	return T_PASS;
}
