// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-time-stamp: time_stamp() reads the buffer's clock (never going back
 * on one thread); normalize_time_stamp() turns it into nanoseconds
 * (identity for ns clocks, the TSC scaled for x86-tsc); events are
 * stamped between the clock readings around their write; set_clock()
 * switches clocks and resets the buffer; bad clocks are refused.
 */
#include "rb-test.h"

static const struct {
	enum evt_clock_id id;
	clockid_t posix;	/* the POSIX clock it must agree with, or -1 */
} clocks[] = {
	{ EVT_CLOCK_LOCAL, -1 },
	{ EVT_CLOCK_GLOBAL, CLOCK_MONOTONIC },
	{ EVT_CLOCK_COUNTER, -1 },
	{ EVT_CLOCK_MONO, CLOCK_MONOTONIC },
	{ EVT_CLOCK_MONO_RAW, CLOCK_MONOTONIC_RAW },
	{ EVT_CLOCK_BOOT, CLOCK_BOOTTIME },
	{ EVT_CLOCK_TSC, -1 },
};

static uint64_t norm(struct evt_ring_buffer *rb, uint64_t t)
{
	evt_ring_buffer_normalize_time_stamp(rb, 0, &t);
	return t;
}

static void check_clock(struct evt_ring_buffer *rb, enum evt_clock_id id, clockid_t posix,
			int cpu)
{
	uint64_t t0, t1, p0, p1, prev = 0, ts;
	const char *name = evt_clock_name(id);
	struct evt_ring_buffer_event *ev;

	RBT_EQ_I(evt_ring_buffer_clock(rb), id);
	/* non-decreasing on one thread */
	for (int i = 0; i < 10000; i++) {
		uint64_t t = evt_ring_buffer_time_stamp(rb);

		RBT_ASSERTF(t >= prev, "%s: time_stamp went back %" PRIu64 " -> %" PRIu64, name,
			    prev, t);
		if (id == EVT_CLOCK_COUNTER && i)
			RBT_ASSERTF(t > prev, "counter clock not strictly increasing");
		prev = t;
	}
	if (id == EVT_CLOCK_COUNTER) {
		/* not time: normalize leaves it alone */
		RBT_EQ_U(norm(rb, 12345), 12345);
	} else if (evt_clock_is_ns(id)) {
		RBT_EQ_U(norm(rb, 12345), 12345);
		RBT_EQ_U(norm(rb, prev), prev);
	} else {
		/* cycles: normalize agrees with the clock API, and elapsed time matches */
		RBT_EQ_U(norm(rb, prev), evt_clock_to_ns(id, prev));
	}
	/* rate: 50 ms of the POSIX monotonic clock is ~50 ms normalized */
	if (id != EVT_CLOCK_COUNTER) {
		uint64_t m0 = rbt_now_ns(), m1, d, dm;

		t0 = evt_ring_buffer_time_stamp(rb);
		rbt_sleep_ns(50000000);
		t1 = evt_ring_buffer_time_stamp(rb);
		m1 = rbt_now_ns();
		d = norm(rb, t1) - norm(rb, t0);
		dm = m1 - m0;
		RBT_ASSERTF(d > dm / 2 && d < dm * 2, "%s: %" PRIu64 " ns elapsed while"
			    " CLOCK_MONOTONIC says %" PRIu64, name, d, dm);
	}
	/* the same clock as its POSIX twin: an event is stamped between two readings */
	if (posix >= 0) {
		p0 = rbt_clock_ns(posix);
		RBT_EQ_I(rbt_write_rec(rb, 16, 1, 0), 0);
		p1 = rbt_clock_ns(posix);
		ev = evt_ring_buffer_consume(rb, cpu, &ts, NULL);
		RBT_ASSERT(ev);
		RBT_ASSERTF(ts >= p0 && ts <= p1, "%s: event at %" PRIu64 ", written between %"
			    PRIu64 " and %" PRIu64, name, ts, p0, p1);
		t0 = evt_ring_buffer_time_stamp(rb);
		p1 = rbt_clock_ns(posix);
		RBT_ASSERTF(t0 >= p0 && t0 <= p1, "%s: time_stamp %" PRIu64 " not in [%" PRIu64
			    ", %" PRIu64 "]", name, t0, p0, p1);
	}
	/* events: stamped between time_stamp() calls around the write */
	for (int i = 0; i < 100; i++) {
		t0 = evt_ring_buffer_time_stamp(rb);
		RBT_EQ_I(rbt_write_rec(rb, 16, 2, (uint64_t)i), 0);
		t1 = evt_ring_buffer_time_stamp(rb);
		ev = evt_ring_buffer_consume(rb, cpu, &ts, NULL);
		RBT_EQ_U(rbt_rec_check(ev, 2, 16), (uint64_t)i);
		RBT_ASSERTF(ts >= t0 && ts <= t1, "%s: event %d at %" PRIu64 " not in [%" PRIu64
			    ", %" PRIu64 "]", name, i, ts, t0, t1);
	}
}

int main(void)
{
	int cpu = rbt_pin_first();
	struct evt_ring_buffer *rb = rbt_alloc(1 << 16, 0);

	RBT_EQ_I(evt_ring_buffer_clock(rb), EVT_CLOCK_LOCAL);
	check_clock(rb, EVT_CLOCK_LOCAL, -1, cpu);

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		/* data written under the old clock is gone after the switch */
		for (int k = 0; k < 10; k++)
			RBT_EQ_I(rbt_write_rec(rb, 16, 9, (uint64_t)k), 0);
		RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL));
		RBT_EQ_I(evt_ring_buffer_set_clock(rb, clocks[i].id), 0);
		RBT_EQ_I(evt_ring_buffer_clock(rb), clocks[i].id);
		RBT_ASSERT(evt_ring_buffer_empty(rb));
		RBT_EQ_U(evt_ring_buffer_entries(rb), 0);
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), 0);
		RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, NULL) == NULL);
		RBT_ASSERT(evt_ring_buffer_record_is_on(rb));
		check_clock(rb, clocks[i].id, clocks[i].posix, cpu);
	}
	/* from a big clock (mono) to a small one (counter) and back: times never run back
	 * within one clock, and the switch works both ways */
	RBT_EQ_I(evt_ring_buffer_set_clock(rb, EVT_CLOCK_BOOT), 0);
	RBT_EQ_I(evt_ring_buffer_set_clock(rb, EVT_CLOCK_COUNTER), 0);
	check_clock(rb, EVT_CLOCK_COUNTER, -1, cpu);
	RBT_EQ_I(evt_ring_buffer_set_clock(rb, EVT_CLOCK_MONO), 0);
	check_clock(rb, EVT_CLOCK_MONO, CLOCK_MONOTONIC, cpu);

	/* bad clocks change nothing */
	RBT_EQ_I(evt_ring_buffer_set_clock(rb, EVT_CLOCK__COUNT), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_set_clock(rb, (enum evt_clock_id)-1), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_clock(rb), EVT_CLOCK_MONO);

	/* clock names */
	for (int c = 0; c < EVT_CLOCK__COUNT; c++) {
		const char *name = evt_clock_name((enum evt_clock_id)c);

		RBT_ASSERT(name);
		RBT_EQ_I(evt_clock_by_name(name), c);
	}
	/* set_clock with a writer half-way: -EBUSY (or it waits); the event survives */
	{
		struct evt_ring_buffer_event *ev = evt_ring_buffer_lock_reserve(rb, 16);
		int ret;

		RBT_ASSERT(ev);
		rbt_rec_fill(evt_ring_buffer_event_data(ev), 16, 3, 0);
		ret = evt_ring_buffer_set_clock(rb, EVT_CLOCK_BOOT);
		RBT_ASSERTF(ret == -EBUSY, "set_clock with a writer in flight: %d", ret);
		/* -EBUSY means nothing changed: still the old clock */
		RBT_EQ_I(evt_ring_buffer_clock(rb), EVT_CLOCK_MONO);
		RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
		RBT_ASSERT(evt_ring_buffer_record_is_on(rb));
		ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL);
		RBT_EQ_U(rbt_rec_check(ev, 3, 16), 0);
		/* and it is stamped in the old clock: a mono time */
	}

	evt_ring_buffer_free(rb);
	printf("rb-time-stamp: PASS\n");
	return RBT_PASS;
}
