// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-peek-consume: peek shows the next event without consuming it (same
 * event, same time, as often as asked); consume takes it. The number of
 * lost events is reported with the next event (peek and consume of the
 * same event both report it, as in the kernel; the consume clears it),
 * in both modes; a NULL lost pointer is fine.
 */
#include "rb-test.h"

static void basic(unsigned int flags, int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(1 << 16, flags);
	struct evt_ring_buffer_event *ev, *ev2;
	uint64_t ts, ts2, ts_prev = 0;
	unsigned long lost;

	for (uint64_t i = 0; i < 100; i++)
		RBT_EQ_I(rbt_write_rec(rb, 16 + (size_t)i, 3, i), 0);
	for (uint64_t i = 0; i < 100; i++) {
		lost = 99;
		ev = evt_ring_buffer_peek(rb, cpu, &ts, &lost);
		RBT_ASSERT(ev);
		RBT_EQ_U(lost, 0);
		RBT_EQ_U(rbt_rec_check(ev, 3, 16 + i), i);
		for (int k = 0; k < 3; k++) {
			ev2 = evt_ring_buffer_peek(rb, cpu, &ts2, NULL);
			RBT_ASSERT(ev2);
			RBT_EQ_U(rbt_rec_check(ev2, 3, 16 + i), i);
			RBT_EQ_U(ts2, ts);
		}
		RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 100 - i);
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), i);
		ev2 = evt_ring_buffer_consume(rb, cpu, &ts2, &lost);
		RBT_ASSERT(ev2);
		RBT_EQ_U(lost, 0);
		RBT_EQ_U(ts2, ts);
		RBT_ASSERT(ts >= ts_prev);
		ts_prev = ts;
		RBT_EQ_U(rbt_rec_check(ev2, 3, 16 + i), i);
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), i + 1);
	}
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, &ts, &lost) == NULL);
	evt_ring_buffer_free(rb);
}

static void lost_pc(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(0, 0);
	struct evt_ring_buffer_event *ev;
	unsigned long lost;
	uint64_t n = 0;

	while (rbt_write_rec(rb, 40, 4, n) == 0)
		n++;
	for (int i = 0; i < 4; i++)	/* 1 + 4 = 5 drops */
		RBT_EQ_I(rbt_write_rec(rb, 40, 4, 0), -ENOBUFS);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 5);

	lost = 0;
	ev = evt_ring_buffer_peek(rb, cpu, NULL, &lost);
	RBT_ASSERT(ev);
	RBT_EQ_U(lost, 5);
	lost = 0;
	ev = evt_ring_buffer_peek(rb, cpu, NULL, &lost);
	RBT_EQ_U(lost, 5);
	/* consume with NULL for lost is allowed ... */
	ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL);
	RBT_EQ_U(rbt_rec_check(ev, 4, 40), 0);
	/* ... and whether it cleared the report or not, it is reported at most once more */
	lost = 0;
	ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
	RBT_EQ_U(rbt_rec_check(ev, 4, 40), 1);
	RBT_ASSERTF(lost == 0 || lost == 5, "lost %lu", lost);
	lost = 7;
	ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
	RBT_EQ_U(rbt_rec_check(ev, 4, 40), 2);
	RBT_EQ_U(lost, 0);
	rbt_drain_cpu(rb, cpu);
	evt_ring_buffer_free(rb);

	/* the kernel's rule: peek and the consume of the same event report the same count */
	rb = rbt_alloc(0, 0);
	n = 0;
	while (rbt_write_rec(rb, 40, 4, n) == 0)
		n++;
	lost = 0;
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, &lost));
	RBT_EQ_U(lost, 1);
	lost = 0;
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, &lost));
	RBT_EQ_U(lost, 1);
	lost = 9;
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, &lost));
	RBT_EQ_U(lost, 0);
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, &lost));
	RBT_EQ_U(lost, 0);
	/* new losses after a drain are reported with the next event */
	rbt_drain_cpu(rb, cpu);
	n = 0;
	while (rbt_write_rec(rb, 40, 5, n) == 0)
		n++;
	RBT_EQ_I(rbt_write_rec(rb, 40, 5, 0), -ENOBUFS);
	lost = 0;
	ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
	RBT_EQ_U(rbt_rec_check(ev, 5, 40), 0);
	RBT_EQ_U(lost, 2);
	evt_ring_buffer_free(rb);
}

static void lost_overwrite(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(0, EVT_RB_FL_OVERWRITE);
	struct evt_ring_buffer_event *ev;
	unsigned long lost;
	uint64_t first;

	for (uint64_t i = 0; i < 1000; i++)
		RBT_EQ_I(rbt_write_rec(rb, 40, 6, i), 0);
	first = evt_ring_buffer_overrun_cpu(rb, cpu);
	RBT_ASSERT(first > 0);
	lost = 0;
	ev = evt_ring_buffer_peek(rb, cpu, NULL, &lost);
	RBT_EQ_U(rbt_rec_check(ev, 6, 40), first);
	RBT_EQ_U(lost, first);
	lost = 0;
	ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
	RBT_EQ_U(rbt_rec_check(ev, 6, 40), first);
	RBT_EQ_U(lost, first);
	lost = 5;
	ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
	RBT_EQ_U(rbt_rec_check(ev, 6, 40), first + 1);
	RBT_EQ_U(lost, 0);
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpu = rbt_pin_first();

	basic(0, cpu);
	basic(EVT_RB_FL_OVERWRITE, cpu);
	lost_pc(cpu);
	lost_overwrite(cpu);
	printf("rb-peek-consume: PASS\n");
	return RBT_PASS;
}
