// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-swap-cpu: swap_cpu exchanges two buffers' per-CPU buffers for one
 * CPU (contents, positions, counters), as ftrace's snapshot does; both
 * keep working afterwards; other CPUs are untouched; a mismatch in page
 * size, that CPU's size, nr_cpus or clock is -EINVAL; a writer in
 * flight makes it -EBUSY.
 */
#include "rb-test.h"

static void expect_seq(struct evt_ring_buffer *rb, int cpu, uint32_t tag, uint64_t from,
		       uint64_t to)
{
	for (uint64_t i = from; i < to; i++) {
		struct evt_ring_buffer_event *ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL);

		RBT_ASSERTF(ev, "tag %u: event %" PRIu64 " missing", tag, i);
		RBT_EQ_U(rbt_rec_check(ev, tag, 40), i);
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);
}

static void run(unsigned int flags, const int *cpus, int ncpu)
{
	struct evt_ring_buffer *a = rbt_alloc(8 * 4096, flags);
	struct evt_ring_buffer *b = rbt_alloc(8 * 4096, flags);
	int c0 = cpus[0], c1 = ncpu > 1 ? cpus[1] : -1;
	struct evt_ring_buffer_event *ev;

	RBT_EQ_I(rbt_pin(c0), 0);
	for (int i = 0; i < 30; i++)
		RBT_EQ_I(rbt_write_rec(a, 40, 1, (uint64_t)i), 0);
	for (int i = 0; i < 20; i++)
		RBT_EQ_I(rbt_write_rec(b, 40, 2, (uint64_t)i), 0);
	/* a's consumer is part way through */
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(a, c0, NULL, NULL), 1, 40), 0);
	if (c1 >= 0) {
		RBT_EQ_I(rbt_pin(c1), 0);
		for (int i = 0; i < 5; i++)
			RBT_EQ_I(rbt_write_rec(a, 40, 3, (uint64_t)i), 0);
		RBT_EQ_I(rbt_pin(c0), 0);
	}

	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, c0), 0);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(a, c0), 20);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(b, c0), 29);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(b, c0), 1);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(a, c0), 0);
	if (c1 >= 0) {
		RBT_EQ_U(evt_ring_buffer_entries_cpu(a, c1), 5);
		RBT_EQ_U(evt_ring_buffer_entries_cpu(b, c1), 0);
	}

	/* both keep recording into what they now hold */
	RBT_EQ_I(rbt_write_rec(a, 40, 2, 20), 0);
	RBT_EQ_I(rbt_write_rec(b, 40, 1, 30), 0);
	expect_seq(a, c0, 2, 0, 21);
	expect_seq(b, c0, 1, 1, 31);
	if (c1 >= 0)
		expect_seq(a, c1, 3, 0, 5);

	/* swap back and forth a few times with data in flight between swaps */
	for (int round = 0; round < 10; round++) {
		RBT_EQ_I(rbt_write_rec(a, 40, 10, (uint64_t)round), 0);
		RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, c0), 0);
		RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(b, c0, NULL, NULL), 10, 40),
			 (uint64_t)round);
		RBT_ASSERT(evt_ring_buffer_consume(a, c0, NULL, NULL) == NULL);
	}

	/* overruns and drops travel with the contents */
	rbt_drain(a);
	rbt_drain(b);
	for (int i = 0; i < 2000; i++)
		rbt_write_rec(a, 40, 11, (uint64_t)i);
	{
		unsigned long o = evt_ring_buffer_overrun_cpu(a, c0);
		unsigned long d = evt_ring_buffer_dropped_events_cpu(a, c0);
		unsigned long ob = evt_ring_buffer_overrun_cpu(b, c0);
		unsigned long db = evt_ring_buffer_dropped_events_cpu(b, c0);

		RBT_ASSERT(o + d > 0);
		RBT_EQ_I(evt_ring_buffer_swap_cpu(b, a, c0), 0);
		RBT_EQ_U(evt_ring_buffer_overrun_cpu(b, c0), o);
		RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(b, c0), d);
		RBT_EQ_U(evt_ring_buffer_overrun_cpu(a, c0), ob);
		RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(a, c0), db);
	}

	/* invalid CPU */
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, -1), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, evt_ring_buffer_nr_cpus(a)), -EINVAL);

	/* a writer in flight on that CPU: -EBUSY, nothing moved */
	rbt_drain(a);
	rbt_drain(b);
	RBT_EQ_I(rbt_write_rec(a, 40, 12, 0), 0);
	ev = evt_ring_buffer_lock_reserve(a, 40);
	RBT_ASSERT(ev);
	rbt_rec_fill(evt_ring_buffer_event_data(ev), 40, 12, 1);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, c0), -EBUSY);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(b, a, c0), -EBUSY);
	RBT_EQ_I(evt_ring_buffer_unlock_commit(a, ev), 0);
	RBT_ASSERT(evt_ring_buffer_record_is_on(a) && evt_ring_buffer_record_is_on(b));
	RBT_EQ_I(rbt_write_rec(b, 40, 13, 0), 0);
	expect_seq(a, c0, 12, 0, 2);
	expect_seq(b, c0, 13, 0, 1);

	evt_ring_buffer_free(a);
	evt_ring_buffer_free(b);
}

static void mismatch(int cpu)
{
	struct evt_ring_buffer *a = rbt_alloc_opts(8 * 4096, 0, 4096, 0, EVT_CLOCK_LOCAL);
	struct evt_ring_buffer *b;

	/* page size */
	b = rbt_alloc_opts(8 * 4096, 0, 8192, 0, EVT_CLOCK_LOCAL);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, cpu), -EINVAL);
	evt_ring_buffer_free(b);
	/* size of that CPU */
	b = rbt_alloc_opts(16 * 4096, 0, 4096, 0, EVT_CLOCK_LOCAL);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, cpu), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(b, a, cpu), -EINVAL);
	/* ... made equal by resizing that CPU: fine */
	RBT_EQ_I(evt_ring_buffer_resize(b, 8 * 4096, cpu), 0);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, cpu), 0);
	evt_ring_buffer_free(b);
	/* nr_cpus */
	b = rbt_alloc_opts(8 * 4096, 0, 4096, evt_ring_buffer_nr_cpus(a) + 1, EVT_CLOCK_LOCAL);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, 0), -EINVAL);
	evt_ring_buffer_free(b);
	/* clock */
	b = rbt_alloc_opts(8 * 4096, 0, 4096, 0, EVT_CLOCK_MONO);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, cpu), -EINVAL);
	/* ... made equal by set_clock: fine */
	RBT_EQ_I(evt_ring_buffer_set_clock(b, EVT_CLOCK_LOCAL), 0);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, cpu), 0);
	evt_ring_buffer_free(b);
	/* nothing moved by the refusals */
	RBT_EQ_I(rbt_write_rec(a, 40, 1, 5), 0);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(a, cpu, NULL, NULL), 1, 40), 5);
	evt_ring_buffer_free(a);
}

int main(void)
{
	int cpus[CPU_SETSIZE], n = rbt_allowed_cpus(cpus, CPU_SETSIZE);

	if (n < 1)
		rbt_skip("no CPU");
	run(0, cpus, n);
	run(EVT_RB_FL_OVERWRITE, cpus, n);
	RBT_EQ_I(rbt_pin(cpus[0]), 0);
	mismatch(cpus[0]);
	printf("rb-swap-cpu: PASS\n");
	return RBT_PASS;
}
