// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-overwrite: overwrite mode. Writing never fails for lack of room;
 * the oldest data goes, counted exactly in overruns; the newest is kept
 * and read back in order; at every step entries + overruns + read ==
 * written.
 */
#include "rb-test.h"

static void check_sum(struct evt_ring_buffer *rb, int cpu, uint64_t written)
{
	uint64_t e = evt_ring_buffer_entries_cpu(rb, cpu);
	uint64_t o = evt_ring_buffer_overrun_cpu(rb, cpu);
	uint64_t r = evt_ring_buffer_read_events_cpu(rb, cpu);

	RBT_ASSERTF(e + o + r == written,
		    "entries %" PRIu64 " + overruns %" PRIu64 " + read %" PRIu64 " != written %"
		    PRIu64, e, o, r, written);
	RBT_EQ_U(evt_ring_buffer_entries(rb), e);
	RBT_EQ_U(evt_ring_buffer_overruns(rb), o);
}

static void run(unsigned int page_size, size_t size, size_t len, int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc_opts(size, EVT_RB_FL_OVERWRITE, page_size, 0,
						    EVT_CLOCK_LOCAL);
	unsigned long pages = evt_ring_buffer_size(rb, cpu) / page_size;
	unsigned int per_page = (page_size - EVT_RB_PAGE_HDR_SIZE) / rbt_event_size(len);
	uint64_t n = (uint64_t)pages * per_page * 5 + 7, kept, first, lost_sum = 0, next;
	struct evt_ring_buffer_event *ev;
	unsigned long lost;
	uint64_t rnd = 99;

	for (uint64_t i = 0; i < n; i++) {
		RBT_EQ_I(rbt_write_rec(rb, len, 1, i), 0);
		if (i % 97 == 0)
			check_sum(rb, cpu, i + 1);
	}
	check_sum(rb, cpu, n);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);
	kept = evt_ring_buffer_entries_cpu(rb, cpu);
	RBT_ASSERTF(kept >= (pages - 1) * per_page && kept <= pages * per_page,
		    "%" PRIu64 " kept of %lu pages x %u", kept, pages, per_page);
	RBT_EQ_U(evt_ring_buffer_overrun_cpu(rb, cpu), n - kept);

	/* the newest are kept, consecutive up to the last one written */
	first = n - kept;
	for (uint64_t i = first; i < n; i++) {
		lost = 0;
		ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
		RBT_ASSERTF(ev, "event %" PRIu64 " missing", i);
		RBT_EQ_U(rbt_rec_check(ev, 1, len), i);
		if (i == first)
			RBT_EQ_U(lost, first);
		else
			RBT_EQ_U(lost, 0);
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);
	check_sum(rb, cpu, n);

	/* interleave: bursts of writes, partial reads; order, no duplicates, exact sums */
	next = n;
	{
		uint64_t expect = n;	/* next seq the reader may see (>=) */
		uint64_t skipped = 0;	/* events the reader never got */

		for (int round = 0; round < 300; round++) {
			uint64_t w = rbt_rand(&rnd) % (pages * per_page * 2);
			uint64_t r = rbt_rand(&rnd) % (pages * per_page);

			for (uint64_t i = 0; i < w; i++, next++)
				RBT_EQ_I(rbt_write_rec(rb, len, 1, next), 0);
			check_sum(rb, cpu, next);
			for (uint64_t i = 0; i < r; i++) {
				uint64_t s;

				lost = 0;
				ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
				if (!ev)
					break;
				s = rbt_rec_check(ev, 1, len);
				RBT_ASSERTF(s >= expect, "seq %" PRIu64 " after %" PRIu64, s,
					    expect);
				/*
				 * Whatever was skipped was reported lost by now (losses
				 * may be reported early: "since the last report").
				 */
				skipped += s - expect;
				lost_sum += lost;
				RBT_ASSERTF(lost_sum >= skipped, "skipped %" PRIu64 ", reported %"
					    PRIu64, skipped, lost_sum);
				RBT_ASSERT(lost_sum <= evt_ring_buffer_overrun_cpu(rb, cpu) -
						       (n - kept));
				expect = s + 1;
			}
			check_sum(rb, cpu, next);
		}
		/* drain */
		while ((ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost))) {
			uint64_t s = rbt_rec_check(ev, 1, len);

			RBT_ASSERT(s >= expect);
			skipped += s - expect;
			lost_sum += lost;
			RBT_ASSERT(lost_sum >= skipped);
			expect = s + 1;
		}
		RBT_EQ_U(expect, next);
		RBT_EQ_U(skipped, lost_sum);
		RBT_EQ_U(evt_ring_buffer_overrun_cpu(rb, cpu) - (n - kept), lost_sum);
	}
	check_sum(rb, cpu, next);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);
	RBT_ASSERT(evt_ring_buffer_empty(rb));
	evt_ring_buffer_free(rb);
}

/* A peeked event stays valid and unchanged while the writer laps the ring. */
static void run_peek_stable(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc_opts(0, EVT_RB_FL_OVERWRITE, 4096, 0,
						    EVT_CLOCK_LOCAL);
	struct evt_ring_buffer_event *ev;
	unsigned char copy[64];
	uint64_t ts, ts2;

	for (uint64_t i = 0; i < 10; i++)
		RBT_EQ_I(rbt_write_rec(rb, 64, 5, i), 0);
	ev = evt_ring_buffer_peek(rb, cpu, &ts, NULL);
	RBT_ASSERT(ev);
	memcpy(copy, evt_ring_buffer_event_data(ev), 64);
	for (uint64_t i = 10; i < 2000; i++)
		RBT_EQ_I(rbt_write_rec(rb, 64, 5, i), 0);
	/* the reader page is the reader's: not overwritten under it */
	RBT_ASSERT(!memcmp(copy, evt_ring_buffer_event_data(ev), 64));
	RBT_EQ_U(rbt_rec_check(ev, 5, 64), 0);
	/* and consuming it is still possible; it is the same event */
	ev = evt_ring_buffer_consume(rb, cpu, &ts2, NULL);
	RBT_ASSERT(ev);
	RBT_EQ_U(ts2, ts);
	RBT_EQ_U(rbt_rec_check(ev, 5, 64), 0);
	/* what follows is new again, and everything adds up */
	check_sum(rb, cpu, 2000);
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpu = rbt_pin_first();

	run(4096, 0, 64, cpu);		/* minimum: 2 pages */
	run(4096, 0, 1000, cpu);
	run(4096, 8 * 4096, 20, cpu);
	run(256, 0, 16, cpu);
	run(256, 32 * 256, 100, cpu);
	run(8192, 4 * 8192, 8100, cpu);	/* one event per page */
	run_peek_stable(cpu);
	printf("rb-overwrite: PASS\n");
	return RBT_PASS;
}
