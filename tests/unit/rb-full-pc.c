// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-full-pc: producer/consumer mode. Fill until the buffer refuses;
 * every refused reservation is counted in dropped_events (exactly),
 * the oldest events are the ones kept, nothing is overrun, and once the
 * consumer makes room writing works again.
 */
#include "rb-test.h"

static void run(unsigned int page_size, size_t size, size_t len, int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc_opts(size, 0, page_size, 0, EVT_CLOCK_LOCAL);
	unsigned long pages = evt_ring_buffer_size(rb, cpu) / page_size;
	unsigned int per_page = (page_size - EVT_RB_PAGE_HDR_SIZE) / rbt_event_size(len);
	uint64_t seq = 0, ok, lost_sum = 0;
	struct evt_ring_buffer_event *ev;
	unsigned long lost;
	int ret, extra = 0;

	while ((ret = rbt_write_rec(rb, len, 1, seq)) == 0)
		seq++;
	RBT_EQ_I(ret, -ENOBUFS);
	ok = seq;
	/* the whole ring but at most one page can hold data; never more than all of it */
	RBT_ASSERTF(ok >= (pages - 1) * per_page && ok <= pages * per_page,
		    "%" PRIu64 " events fit in %lu pages of %u", ok, pages, per_page);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 1);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 1);

	/* more refusals, through both interfaces; each counts once */
	for (int i = 0; i < 10; i++, extra++)
		RBT_EQ_I(rbt_write_rec(rb, len, 1, 999999), -ENOBUFS);
	for (int i = 0; i < 5; i++, extra++)
		RBT_ASSERT(evt_ring_buffer_lock_reserve(rb, len) == NULL);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 1 + extra);
	RBT_EQ_U(evt_ring_buffer_overruns(rb), 0);
	RBT_EQ_U(evt_ring_buffer_overrun_cpu(rb, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), ok);
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));

	/* the oldest are kept: 0..ok-1, in order; the losses are reported once */
	for (uint64_t i = 0; i < ok; i++) {
		lost = 0;
		ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
		RBT_ASSERTF(ev, "event %" PRIu64 " of %" PRIu64 " missing", i, ok);
		RBT_EQ_U(rbt_rec_check(ev, 1, len), i);
		lost_sum += lost;
	}
	RBT_EQ_U(lost_sum, 1 + extra);
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), ok);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 0);

	/* room again: a full ring's worth fits once more, continuing the sequence */
	seq = 1000000;
	while ((ret = rbt_write_rec(rb, len, 2, seq)) == 0)
		seq++;
	RBT_EQ_I(ret, -ENOBUFS);
	RBT_ASSERTF(seq - 1000000 >= (pages - 1) * per_page, "only %" PRIu64 " fit after drain",
		    seq - 1000000);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 2 + extra);
	lost_sum = 0;
	for (uint64_t i = 1000000; i < seq; i++) {
		lost = 0;
		ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost);
		RBT_ASSERT(ev);
		RBT_EQ_U(rbt_rec_check(ev, 2, len), i);
		lost_sum += lost;
	}
	RBT_EQ_U(lost_sum, 1);
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);

	/* steady state: consume one page's worth, write one page's worth, forever */
	for (int round = 0; round < 50; round++) {
		unsigned long n = 0;

		for (unsigned int i = 0; i < per_page; i++)
			if (rbt_write_rec(rb, len, 3, (uint64_t)round * per_page + i) == 0)
				n++;
		RBT_EQ_U(n, per_page);
		for (unsigned int i = 0; i < per_page; i++) {
			ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL);
			RBT_ASSERT(ev);
			RBT_EQ_U(rbt_rec_check(ev, 3, len), (uint64_t)round * per_page + i);
		}
	}
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 2 + extra);
	RBT_EQ_U(evt_ring_buffer_overruns(rb), 0);
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpu = rbt_pin_first();

	run(4096, 0, 64, cpu);		/* minimum: 2 pages */
	run(4096, 0, 300, cpu);
	run(4096, 4 * 4096, 16, cpu);
	run(4096, 8 * 4096, 200, cpu);
	run(256, 0, 16, cpu);
	run(256, 16 * 256, 232, cpu);
	run(65536, 0, 1000, cpu);
	printf("rb-full-pc: PASS\n");
	return RBT_PASS;
}
