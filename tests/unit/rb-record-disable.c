// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-record-disable: record_disable/enable nest, buffer-wide and per CPU;
 * while disabled, write returns -EBUSY and lock_reserve NULL, neither
 * counted as a drop; record_is_on reports the buffer-wide state;
 * lock/unlock disable recording; an event reserved before the disable
 * can still be committed and is read back.
 */
#include "rb-test.h"

static void expect_off(struct evt_ring_buffer *rb, const char *what)
{
	unsigned long d = evt_ring_buffer_dropped_events(rb);
	int ret = rbt_write_rec(rb, 16, 1, 0);

	RBT_ASSERTF(ret == -EBUSY, "%s: write returned %d, want -EBUSY", what, ret);
	RBT_ASSERTF(evt_ring_buffer_lock_reserve(rb, 16) == NULL, "%s: reserve succeeded", what);
	RBT_ASSERTF(evt_ring_buffer_dropped_events(rb) == d, "%s: refusal counted as a drop",
		    what);
}

static void expect_on(struct evt_ring_buffer *rb, int cpu, const char *what)
{
	unsigned long e = evt_ring_buffer_entries_cpu(rb, cpu);
	int ret = rbt_write_rec(rb, 16, 1, 0);

	RBT_ASSERTF(ret == 0, "%s: write returned %d", what, ret);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), e + 1);
}

int main(void)
{
	int cpus[CPU_SETSIZE], n = rbt_allowed_cpus(cpus, CPU_SETSIZE);
	struct evt_ring_buffer_event *ev;
	struct evt_ring_buffer *rb;
	int cpu = rbt_pin_first();

	rb = rbt_alloc(1 << 16, 0);
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));
	expect_on(rb, cpu, "fresh");

	/* buffer-wide, nested three deep */
	evt_ring_buffer_record_disable(rb);
	RBT_ASSERT(!evt_ring_buffer_record_is_on(rb));
	expect_off(rb, "disabled once");
	evt_ring_buffer_record_disable(rb);
	evt_ring_buffer_record_disable(rb);
	expect_off(rb, "disabled 3x");
	evt_ring_buffer_record_enable(rb);
	RBT_ASSERT(!evt_ring_buffer_record_is_on(rb));
	expect_off(rb, "disabled 3x, enabled 1x");
	evt_ring_buffer_record_enable(rb);
	expect_off(rb, "disabled 3x, enabled 2x");
	evt_ring_buffer_record_enable(rb);
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));
	expect_on(rb, cpu, "enabled again");

	/* reading works while disabled */
	evt_ring_buffer_record_disable(rb);
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL));
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, NULL));
	evt_ring_buffer_record_enable(rb);
	rbt_drain(rb);

	/* per CPU */
	evt_ring_buffer_record_disable_cpu(rb, cpu);
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));	/* buffer-wide: still on */
	expect_off(rb, "cpu disabled");
	evt_ring_buffer_record_disable_cpu(rb, cpu);
	evt_ring_buffer_record_enable_cpu(rb, cpu);
	expect_off(rb, "cpu disabled 2x, enabled 1x");
	/* other CPUs still record */
	if (n > 1) {
		RBT_EQ_I(rbt_pin(cpus[1]), 0);
		expect_on(rb, cpus[1], "other cpu while cpu disabled");
		RBT_EQ_I(rbt_pin(cpu), 0);
	}
	evt_ring_buffer_record_enable_cpu(rb, cpu);
	expect_on(rb, cpu, "cpu enabled again");

	/* buffer-wide and per CPU together: both must be undone */
	evt_ring_buffer_record_disable_cpu(rb, cpu);
	evt_ring_buffer_record_disable(rb);
	evt_ring_buffer_record_enable_cpu(rb, cpu);
	expect_off(rb, "cpu enabled, buffer disabled");
	evt_ring_buffer_record_disable_cpu(rb, cpu);
	evt_ring_buffer_record_enable(rb);
	expect_off(rb, "buffer enabled, cpu disabled");
	evt_ring_buffer_record_enable_cpu(rb, cpu);
	expect_on(rb, cpu, "both enabled");

	/* bad CPU numbers are ignored */
	evt_ring_buffer_record_disable_cpu(rb, -1);
	evt_ring_buffer_record_disable_cpu(rb, evt_ring_buffer_nr_cpus(rb));
	evt_ring_buffer_record_enable_cpu(rb, 1 << 20);
	expect_on(rb, cpu, "after bad cpu numbers");

	/* lock/unlock */
	evt_ring_buffer_lock(rb);
	RBT_ASSERT(!evt_ring_buffer_record_is_on(rb));
	expect_off(rb, "locked");
	evt_ring_buffer_unlock(rb);
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));
	expect_on(rb, cpu, "unlocked");

	/* a reservation made before the disable commits fine */
	rbt_drain(rb);
	ev = evt_ring_buffer_lock_reserve(rb, 32);
	RBT_ASSERT(ev);
	rbt_rec_fill(evt_ring_buffer_event_data(ev), 32, 8, 42);
	evt_ring_buffer_record_disable(rb);
	RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 8, 32), 42);
	evt_ring_buffer_record_enable(rb);

	/* disabled while full: -EBUSY wins over -ENOBUFS, and nothing is counted */
	while (rbt_write_rec(rb, 100, 1, 0) == 0)
		;
	{
		unsigned long d = evt_ring_buffer_dropped_events(rb);

		evt_ring_buffer_record_disable(rb);
		RBT_EQ_I(rbt_write_rec(rb, 100, 1, 0), -EBUSY);
		RBT_EQ_U(evt_ring_buffer_dropped_events(rb), d);
		evt_ring_buffer_record_enable(rb);
		RBT_EQ_I(rbt_write_rec(rb, 100, 1, 0), -ENOBUFS);
		RBT_EQ_U(evt_ring_buffer_dropped_events(rb), d + 1);
	}
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 1 + 1);
	evt_ring_buffer_free(rb);

	(void)n;
	printf("rb-record-disable: PASS\n");
	return RBT_PASS;
}
