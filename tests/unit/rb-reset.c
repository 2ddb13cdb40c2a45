// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-reset: reset_cpu discards one CPU's data (also what the consumer
 * copied but did not consume) and zeroes its counters, leaving other
 * CPUs alone; reset does all; the buffer works normally afterwards;
 * a reservation left uncommitted makes reset_cpu return -EBUSY and
 * change nothing.
 */
#include "rb-test.h"

static void fill_cpu(struct evt_ring_buffer *rb, int cpu, uint32_t tag, int n)
{
	RBT_EQ_I(rbt_pin(cpu), 0);
	for (int i = 0; i < n; i++)
		rbt_write_rec(rb, 48, tag, (uint64_t)i);
}

static void run(unsigned int flags, const int *cpus, int ncpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(0, flags);
	int c0 = cpus[0], c1 = ncpu > 1 ? cpus[1] : -1;
	struct evt_ring_buffer_iter *it;
	struct evt_ring_buffer_event *ev;
	uint64_t ts_before, ts;
	unsigned long lost;

	/* enough to overrun (overwrite) or drop (PC) */
	fill_cpu(rb, c0, 1, 500);
	if (c1 >= 0)
		fill_cpu(rb, c1, 2, 50);
	RBT_EQ_I(rbt_pin(c0), 0);
	RBT_ASSERT(evt_ring_buffer_overrun_cpu(rb, c0) + evt_ring_buffer_dropped_events_cpu(rb, c0)
		   > 0);
	/* consume one: the rest of its page sits in the reader page */
	RBT_ASSERT(evt_ring_buffer_consume(rb, c0, NULL, NULL));
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, c0), 1);
	ts_before = evt_ring_buffer_time_stamp(rb);

	RBT_EQ_I(evt_ring_buffer_reset_cpu(rb, c0), 0);
	RBT_ASSERT(evt_ring_buffer_empty_cpu(rb, c0));
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, c0), 0);
	RBT_EQ_U(evt_ring_buffer_overrun_cpu(rb, c0), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, c0), 0);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, c0), 0);
	RBT_ASSERT(evt_ring_buffer_peek(rb, c0, NULL, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_consume(rb, c0, NULL, NULL) == NULL);
	RBT_EQ_I(evt_ring_buffer_read_start(rb, c0, &it), 0);
	RBT_ASSERT(evt_ring_buffer_iter_empty(it));
	evt_ring_buffer_read_finish(it);
	/* the other CPU is untouched */
	if (c1 >= 0) {
		RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, c1), 50);
		RBT_EQ_U(rbt_rec_check(evt_ring_buffer_peek(rb, c1, NULL, NULL), 2, 48), 0);
	}
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));

	/* works as new: a full ring's worth again, no loss reported from before */
	for (int i = 0; i < 40; i++)
		RBT_EQ_I(rbt_write_rec(rb, 48, 3, (uint64_t)i), 0);
	for (int i = 0; i < 40; i++) {
		lost = 99;
		ev = evt_ring_buffer_consume(rb, c0, &ts, &lost);
		RBT_EQ_U(rbt_rec_check(ev, 3, 48), (uint64_t)i);
		RBT_EQ_U(lost, 0);
		RBT_ASSERT(ts >= ts_before);
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, c0, NULL, NULL) == NULL);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, c0), 40);

	/* reset all */
	fill_cpu(rb, c0, 4, 500);
	RBT_EQ_I(rbt_pin(c0), 0);
	RBT_EQ_I(evt_ring_buffer_reset(rb), 0);
	RBT_ASSERT(evt_ring_buffer_empty(rb));
	RBT_EQ_U(evt_ring_buffer_entries(rb), 0);
	RBT_EQ_U(evt_ring_buffer_overruns(rb), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);
	for (int c = 0; c < evt_ring_buffer_nr_cpus(rb); c++)
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, c), 0);
	RBT_EQ_I(rbt_write_rec(rb, 48, 5, 1), 0);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, c0, NULL, NULL), 5, 48), 1);

	/* reset twice in a row, and on an empty buffer */
	RBT_EQ_I(evt_ring_buffer_reset(rb), 0);
	RBT_EQ_I(evt_ring_buffer_reset(rb), 0);
	RBT_EQ_I(evt_ring_buffer_reset_cpu(rb, c0), 0);
	RBT_ASSERT(evt_ring_buffer_empty(rb));

	/* bad CPU */
	RBT_EQ_I(evt_ring_buffer_reset_cpu(rb, -1), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_reset_cpu(rb, evt_ring_buffer_nr_cpus(rb)), -EINVAL);

	/* a writer half-way through an event: -EBUSY, nothing changed */
	RBT_EQ_I(rbt_write_rec(rb, 48, 6, 0), 0);
	ev = evt_ring_buffer_lock_reserve(rb, 48);
	RBT_ASSERT(ev);
	rbt_rec_fill(evt_ring_buffer_event_data(ev), 48, 6, 1);
	{
		uint64_t t0 = rbt_now_ns();
		int ret = evt_ring_buffer_reset_cpu(rb, c0);

		RBT_EQ_I(ret, -EBUSY);
		/* "a few ms", not forever */
		RBT_ASSERTF(rbt_now_ns() - t0 < 2000000000ull, "reset took %" PRIu64 " ns",
			    rbt_now_ns() - t0);
		RBT_EQ_I(evt_ring_buffer_reset(rb), -EBUSY);
	}
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));
	RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
	RBT_EQ_I(rbt_write_rec(rb, 48, 6, 2), 0);
	for (uint64_t i = 0; i < 3; i++)
		RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, c0, NULL, NULL), 6, 48), i);
	RBT_EQ_I(evt_ring_buffer_reset_cpu(rb, c0), 0);
	RBT_ASSERT(evt_ring_buffer_empty(rb));
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpus[CPU_SETSIZE], n = rbt_allowed_cpus(cpus, CPU_SETSIZE);

	if (n < 1)
		rbt_skip("no CPU");
	run(0, cpus, n);
	run(EVT_RB_FL_OVERWRITE, cpus, n);
	printf("rb-reset: PASS\n");
	return RBT_PASS;
}
