// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-trace-live: reading `trace` (the non-consuming iterator) ends while
 * writers outrun the reader. Each line takes far longer to format than an
 * event takes to record, so an iterator that followed the writers would
 * never reach the end; it stops at the records that were there when it was
 * opened: no line it gives is younger than the moment the read began.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "events-util.h"

#define WRITERS 2

static atomic_bool stop;

static void *writer(void *arg)
{
	uint64_t seq = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		trace_evtest_seq((uint32_t)(uintptr_t)arg, seq++, 0);
	return NULL;
}

int main(void)
{
	struct evt_instance *inst = t_instance("live");
	struct evt_ring_buffer *rb = evt_instance_ring_buffer(inst);
	pthread_t th[WRITERS];
	char buf[4096];
	struct evt_seq s;

	T_ASSERT_OK(evt_instance_event_enable(inst, "evtest", "evtest_seq", true));
	for (long w = 0; w < WRITERS; w++)
		T_ASSERT(pthread_create(&th[w], NULL, writer, (void *)w) == 0);
	usleep(50 * 1000);	/* the buffer fills and wraps */

	for (int round = 0; round < 3; round++) {
		struct evt_trace_iter *it;
		unsigned long lines = 0;
		unsigned long late = 0;
		uint64_t opened;
		double opened_s;
		int r;

		T_ASSERT_OK(evt_trace_iter_open(inst, -1, 0, &it));
		opened = evt_ring_buffer_time_stamp(rb);
		evt_ring_buffer_normalize_time_stamp(rb, 0, &opened);
		opened_s = (double)opened / 1e9;
		do {
			const char *p;
			double ts;

			evt_seq_init(&s, buf, sizeof(buf));
			r = evt_trace_iter_next_line(it, &s);
			T_ASSERT(r >= 0);
			lines += r > 0;
			/* "  comm-tid  [cpu] .....  secs.usecs: evtest_seq: ..." */
			p = r > 0 ? strstr(buf, "] ") : NULL;
			if (p && sscanf(p + 2, "%*s %lf:", &ts) == 1 && ts > opened_s + 2e-6)
				late++;
			/* a buffer of 1 MiB per CPU holds well under a million records */
			if (lines > 4000000)
				t_fail("round %d: still reading after %lu lines", round, lines);
		} while (r > 0);
		evt_trace_iter_close(it);
		printf("round %d: %lu lines, %lu written after the read began\n", round, lines,
		       late);
		/* no lower bound on lines: writers may lap the whole buffer meanwhile */
		T_ASSERT_EQ(late, 0);
	}
	atomic_store(&stop, true);
	for (int w = 0; w < WRITERS; w++)
		pthread_join(th[w], NULL);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
