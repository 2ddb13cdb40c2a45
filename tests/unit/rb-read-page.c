// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-read-page: read_page fills a kernel-format page with the next
 * unread events of a CPU and consumes them: the return value is the
 * commit (data bytes), the time stamp is the base the first delta
 * applies to (the page iterator gives the same times as peek), events
 * come in order across pages and after a partial consume; -EAGAIN when
 * empty, -EINVAL for a short buffer or bad CPU; MISSED_EVENTS (and
 * MISSED_STORED with the count after the data) after losses, once.
 */
#include "rb-test.h"

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Walk a page: check events next..; return how many. */
static unsigned int walk(const unsigned char *page, size_t size, uint32_t tag, size_t len,
			 uint64_t *next, uint64_t first_ts)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	unsigned int n = 0;
	uint64_t ts, prev = 0;
	int r;

	RBT_EQ_I(evt_rb_page_iter_init(&it, page, size), 0);
	while ((r = evt_rb_page_iter_next(&it, &ev, &ts)) == 1) {
		RBT_EQ_U(rbt_rec_check((struct evt_ring_buffer_event *)ev, tag, len), *next);
		if (!n && first_ts)
			RBT_EQ_U(ts, first_ts);
		RBT_ASSERT(ts >= prev);
		prev = ts;
		(*next)++;
		n++;
	}
	RBT_EQ_I(r, 0);
	return n;
}

static void run(unsigned int page_size, unsigned int flags, int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc_opts(64 * page_size, flags, page_size, 0,
						    EVT_CLOCK_LOCAL);
	unsigned char *page = malloc(page_size * 2);
	uint64_t next = 0, w = 0, tpeek;
	unsigned int pages = 0;
	int ret;

	RBT_ASSERT(page);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, cpu, page, page_size), -EAGAIN);
	for (; w < 20 * page_size / 64; w++)
		RBT_EQ_I(rbt_write_rec(rb, 60, 1, w), 0);

	/* bad arguments */
	RBT_EQ_I(evt_ring_buffer_read_page(rb, cpu, page, page_size - 1), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, cpu, NULL, page_size), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, -1, page, page_size), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, evt_ring_buffer_nr_cpus(rb), page, page_size),
		 -EINVAL);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), 0);

	/* page by page; a bigger buffer than a page is fine */
	for (;;) {
		uint64_t commit, e0 = evt_ring_buffer_entries_cpu(rb, cpu);
		unsigned int n;

		if (!evt_ring_buffer_peek(rb, cpu, &tpeek, NULL))
			break;
		memset(page, 0x5a, page_size * 2);
		ret = evt_ring_buffer_read_page(rb, cpu, page, pages & 1 ? page_size * 2 :
							      page_size);
		RBT_ASSERTF(ret > 0, "read_page: %d", ret);
		commit = get64(page + 8);
		RBT_EQ_U(commit, (uint64_t)ret);	/* no flags: nothing lost */
		RBT_ASSERT((unsigned int)ret <= page_size - EVT_RB_PAGE_HDR_SIZE);
		n = walk(page, page_size, 1, 60, &next, tpeek);
		RBT_ASSERT(n > 0);
		RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), e0 - n);
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), next);
		pages++;
	}
	RBT_EQ_U(next, w);
	RBT_ASSERT(pages >= 20);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, cpu, page, page_size), -EAGAIN);

	/* mixing: consume 3, then read_page gets the rest of that page, then consume again */
	/* more than one page's worth, less than the ring */
	for (uint64_t i = 0; i < (page_size <= 4096 ? 100 : 2 * page_size / 64 + 10); i++, w++)
		RBT_EQ_I(rbt_write_rec(rb, 60, 1, w), 0);
	for (int i = 0; i < 3; i++)
		RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 1, 60),
			 next++);
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, &tpeek, NULL));
	ret = evt_ring_buffer_read_page(rb, cpu, page, page_size);
	RBT_ASSERT(ret > 0);
	walk(page, page_size, 1, 60, &next, tpeek);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 1, 60), next++);
	while ((ret = evt_ring_buffer_read_page(rb, cpu, page, page_size)) > 0)
		walk(page, page_size, 1, 60, &next, 0);
	RBT_EQ_I(ret, -EAGAIN);
	RBT_EQ_U(next, w);

	/* losses: the next page says so, once; with room, the count follows the data */
	{
		uint64_t lost_before = evt_ring_buffer_overrun_cpu(rb, cpu) +
				       evt_ring_buffer_dropped_events_cpu(rb, cpu);
		uint64_t lost, commit, stored;
		uint64_t nw = 0;

		while (nw < 200 * page_size / 64) {
			if (rbt_write_rec(rb, 60, 2, nw) == 0)
				nw++;
			else if (!flags)
				break;
		}
		/* PC: a few more refusals */
		if (!flags)
			for (int i = 0; i < 3; i++)
				RBT_EQ_I(rbt_write_rec(rb, 60, 2, 0), -ENOBUFS);
		lost = evt_ring_buffer_overrun_cpu(rb, cpu) +
		       evt_ring_buffer_dropped_events_cpu(rb, cpu) - lost_before;
		RBT_ASSERT(lost > 0);
		ret = evt_ring_buffer_read_page(rb, cpu, page, page_size);
		RBT_ASSERT(ret > 0);
		commit = get64(page + 8);
		RBT_ASSERTF(commit & EVT_RB_PAGE_MISSED_EVENTS, "no MISSED_EVENTS after %" PRIu64
			    " lost", lost);
		RBT_EQ_U(commit & EVT_RB_PAGE_COMMIT_MASK, (uint64_t)ret);
		if (commit & EVT_RB_PAGE_MISSED_STORED) {
			RBT_ASSERT((uint64_t)ret + 8 <= page_size - EVT_RB_PAGE_HDR_SIZE);
			stored = get64(page + EVT_RB_PAGE_HDR_SIZE + ret);
			RBT_EQ_U(stored, lost);
		}
		{
			struct evt_rb_page_iter it;

			RBT_EQ_I(evt_rb_page_iter_init(&it, page, page_size), 0);
			RBT_ASSERT(it.commit_flags & EVT_RB_PAGE_MISSED_EVENTS);
		}
		/* the next page has no flag: the loss was reported */
		ret = evt_ring_buffer_read_page(rb, cpu, page, page_size);
		if (ret > 0)
			RBT_EQ_U(get64(page + 8), (uint64_t)ret);
	}
	evt_ring_buffer_free(rb);
	free(page);
}

int main(void)
{
	int cpu = rbt_pin_first();

	run(4096, 0, cpu);
	run(4096, EVT_RB_FL_OVERWRITE, cpu);
	run(256, 0, cpu);
	run(256, EVT_RB_FL_OVERWRITE, cpu);
	run(65536, 0, cpu);
	printf("rb-read-page: PASS\n");
	return RBT_PASS;
}
