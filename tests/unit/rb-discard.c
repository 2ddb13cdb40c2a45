// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-discard: discard_commit turns a reserved event into padding.
 * Readers (consume, iterators, read_page + page iterator) never return
 * it; entries and overruns never count it; the time chain stays right
 * (the padding keeps its delta, so what follows has the right time);
 * nested reservations can be discarded in any combination; everything
 * after a discard is read normally.
 */
#include "rb-test.h"

static void basic(unsigned int flags, int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc_opts(1 << 16, flags, 0, 0, EVT_CLOCK_MONO);
	struct evt_ring_buffer_event *a, *b, *c;
	uint64_t ta, tc, before_c, after_c, t;
	struct evt_ring_buffer_iter *it;
	unsigned char page[4096];
	int ret;

	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 0), 0);
	rbt_sleep_ns(5000000);	/* B's delta is 5 ms: forgetting it would show */
	b = evt_ring_buffer_lock_reserve(rb, 40);
	RBT_ASSERT(b);
	rbt_rec_fill(evt_ring_buffer_event_data(b), 40, 2, 1);
	RBT_EQ_I(evt_ring_buffer_discard_commit(rb, b), 0);
	before_c = rbt_clock_ns(CLOCK_MONOTONIC);
	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 2), 0);
	after_c = rbt_clock_ns(CLOCK_MONOTONIC);

	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 2);
	/* the iterator skips it */
	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it), 0);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_read(it, &t), 1, 40), 0);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_read(it, &t), 1, 40), 2);
	RBT_ASSERTF(t >= before_c && t <= after_c, "iterator: C at %" PRIu64 " not in [%" PRIu64
		    ", %" PRIu64 "]", t, before_c, after_c);
	RBT_ASSERT(evt_ring_buffer_read(it, NULL) == NULL);
	evt_ring_buffer_read_finish(it);
	/* so does the consumer, with the right time for C */
	a = evt_ring_buffer_consume(rb, cpu, &ta, NULL);
	RBT_EQ_U(rbt_rec_check(a, 1, 40), 0);
	c = evt_ring_buffer_consume(rb, cpu, &tc, NULL);
	RBT_EQ_U(rbt_rec_check(c, 1, 40), 2);
	RBT_ASSERTF(tc >= before_c && tc <= after_c, "C at %" PRIu64 " not in [%" PRIu64 ", %"
		    PRIu64 "]", tc, before_c, after_c);
	RBT_ASSERT(tc - ta >= 5000000);
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), 2);

	/* discarding the last event leaves nothing to read */
	b = evt_ring_buffer_lock_reserve(rb, 200);
	RBT_ASSERT(b);
	RBT_EQ_I(evt_ring_buffer_discard_commit(rb, b), 0);
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_empty_cpu(rb, cpu));
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 0);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, cpu, page, sizeof(page)), -EAGAIN);
	/* ... and writing goes on after it */
	before_c = rbt_clock_ns(CLOCK_MONOTONIC);
	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 3), 0);
	after_c = rbt_clock_ns(CLOCK_MONOTONIC);
	c = evt_ring_buffer_consume(rb, cpu, &tc, NULL);
	RBT_EQ_U(rbt_rec_check(c, 1, 40), 3);
	RBT_ASSERT(tc >= before_c && tc <= after_c);

	/* read_page + page iterator: the padding is inside the data, skipped, delta applied */
	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 4), 0);
	rbt_sleep_ns(2000000);
	b = evt_ring_buffer_lock_reserve(rb, 150);	/* a type_len 0 event */
	RBT_ASSERT(b);
	RBT_EQ_I(evt_ring_buffer_discard_commit(rb, b), 0);
	before_c = rbt_clock_ns(CLOCK_MONOTONIC);
	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 5), 0);
	after_c = rbt_clock_ns(CLOCK_MONOTONIC);
	ret = evt_ring_buffer_read_page(rb, cpu, page, sizeof(page));
	RBT_ASSERT(ret > 0);
	{
		struct evt_rb_page_iter pit;
		const struct evt_ring_buffer_event *e;
		uint64_t k = 4;
		int r;

		RBT_EQ_I(evt_rb_page_iter_init(&pit, page, sizeof(page)), 0);
		while ((r = evt_rb_page_iter_next(&pit, &e, &t)) == 1) {
			RBT_EQ_U(rbt_rec_check((struct evt_ring_buffer_event *)e, 1, 40), k);
			if (k == 5)
				RBT_ASSERTF(t >= before_c && t <= after_c,
					    "page: event 5 at %" PRIu64 " not in [%" PRIu64
					    ", %" PRIu64 "]", t, before_c, after_c);
			k++;
		}
		RBT_EQ_I(r, 0);
		RBT_EQ_U(k, 6);
	}
	evt_ring_buffer_free(rb);
}

/* nested: outer/inner, each committed or discarded */
static void nested(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(1 << 20, 0);
	uint64_t expect[4000], n = 0, seq = 0;
	struct evt_ring_buffer_event *ev;

	for (int i = 0; i < 1000; i++) {
		struct evt_ring_buffer_event *o, *in;
		size_t lo = 16 + (size_t)(i * 7) % 200, li = 16 + (size_t)(i * 13) % 200;
		uint64_t so = seq++, si = seq++;

		o = evt_ring_buffer_lock_reserve(rb, lo);
		RBT_ASSERT(o);
		rbt_rec_fill(evt_ring_buffer_event_data(o), lo, 1, so);
		in = evt_ring_buffer_lock_reserve(rb, li);
		RBT_ASSERT(in);
		rbt_rec_fill(evt_ring_buffer_event_data(in), li, 1, si);
		if (i & 1)
			RBT_EQ_I(evt_ring_buffer_discard_commit(rb, in), 0);
		else
			RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, in), 0);
		if (i & 2)
			RBT_EQ_I(evt_ring_buffer_discard_commit(rb, o), 0);
		else
			RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, o), 0);
		/* buffer order: outer first */
		if (!(i & 2))
			expect[n++] = so;
		if (!(i & 1))
			expect[n++] = si;
	}
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), n);
	for (uint64_t k = 0; k < n; k++) {
		struct rbt_rec r;

		ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL);
		RBT_ASSERTF(ev, "event %" PRIu64 " of %" PRIu64 " missing", k, n);
		memcpy(&r, evt_ring_buffer_event_data(ev), sizeof(r));
		RBT_EQ_U(r.seq, expect[k]);
		rbt_rec_check(ev, 1, r.len);
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);
	evt_ring_buffer_free(rb);
}

/* overwrite: discarded events are not overruns; the sums hold */
static void overwrite(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(0, EVT_RB_FL_OVERWRITE);
	uint64_t committed = 0;

	for (int i = 0; i < 3000; i++) {
		struct evt_ring_buffer_event *ev = evt_ring_buffer_lock_reserve(rb, 40);

		RBT_ASSERT(ev);
		rbt_rec_fill(evt_ring_buffer_event_data(ev), 40, 1, (uint64_t)i);
		if (i % 3 == 0) {
			RBT_EQ_I(evt_ring_buffer_discard_commit(rb, ev), 0);
		} else {
			RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
			committed++;
		}
	}
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu) + evt_ring_buffer_overrun_cpu(rb, cpu),
		 committed);
	{
		uint64_t got = 0, prev = 0;
		struct evt_ring_buffer_event *ev;

		while ((ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL))) {
			uint64_t s = rbt_rec_check(ev, 1, 40);

			RBT_ASSERT(s % 3 != 0);
			RBT_ASSERT(!got || s > prev);
			prev = s;
			got++;
		}
		RBT_EQ_U(prev, 2999);
		RBT_EQ_U(got + evt_ring_buffer_overrun_cpu(rb, cpu), committed);
	}
	evt_ring_buffer_free(rb);
}

/* the first event of a page discarded: the page's time base still holds */
static void first_of_page(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc_opts(1 << 16, 0, 256, 0, EVT_CLOCK_MONO);
	uint64_t before, after, t;
	struct evt_ring_buffer_event *ev;

	for (int i = 0; i < 20; i++) {
		/* 116 bytes: two per 240-byte page; discard every other: page starts */
		ev = evt_ring_buffer_lock_reserve(rb, 112);
		RBT_ASSERT(ev);
		rbt_rec_fill(evt_ring_buffer_event_data(ev), 112, 1, (uint64_t)i);
		if (i % 2 == 0) {
			RBT_EQ_I(evt_ring_buffer_discard_commit(rb, ev), 0);
			rbt_sleep_ns(1000000);
			continue;
		}
		RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
	}
	before = rbt_clock_ns(CLOCK_MONOTONIC);
	RBT_EQ_I(rbt_write_rec(rb, 112, 1, 100), 0);
	after = rbt_clock_ns(CLOCK_MONOTONIC);
	for (int i = 1; i < 20; i += 2)
		RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 1, 112),
			 (uint64_t)i);
	ev = evt_ring_buffer_consume(rb, cpu, &t, NULL);
	RBT_EQ_U(rbt_rec_check(ev, 1, 112), 100);
	RBT_ASSERT(t >= before && t <= after);
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpu = rbt_pin_first();

	basic(0, cpu);
	basic(EVT_RB_FL_OVERWRITE, cpu);
	nested(cpu);
	overwrite(cpu);
	first_of_page(cpu);
	printf("rb-discard: PASS\n");
	return RBT_PASS;
}
