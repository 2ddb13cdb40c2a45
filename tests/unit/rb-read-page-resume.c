// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-read-page-resume: a consumer that takes over a CPU buffer where
 * another one stopped in the middle of a page (a new mapping after a
 * killed recorder, the second `evtrace extract`) gets pages whose time
 * stamp is the time of the entry before their first one, as a consumer
 * that had read on would: its events carry their real times, never
 * times counted from 0. Checked for read_page and for consume, in both
 * buffer modes, and after the other consumer had stopped at several
 * points of a page (after a time extend too).
 */
#include "rb-test.h"

#define PAGE	4096u

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The events of a read_page copy: check seqs from *next and times against @t. */
static void walk(const unsigned char *page, uint64_t *next, const uint64_t *t)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	uint64_t ts;
	int r;

	RBT_EQ_I(evt_rb_page_iter_init(&it, page, PAGE), 0);
	while ((r = evt_rb_page_iter_next(&it, &ev, &ts)) == 1) {
		RBT_EQ_U(rbt_rec_check((struct evt_ring_buffer_event *)ev, 1, 40), *next);
		RBT_EQ_U(ts, t[*next]);
		(*next)++;
	}
	RBT_EQ_I(r, 0);
}

/* The times of events @from..@to - 1 by an iterator of @rb's CPU @cpu, into @t. */
static void times(struct evt_ring_buffer *rb, int cpu, unsigned int from, unsigned int to,
		  uint64_t *t)
{
	struct evt_ring_buffer_iter *it;
	struct evt_ring_buffer_event *ev;
	unsigned int next = from;
	uint64_t ts;

	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it), 0);
	while ((ev = evt_ring_buffer_read(it, &ts))) {
		RBT_EQ_U(rbt_rec_check(ev, 1, 40), next);
		t[next++] = ts;
	}
	evt_ring_buffer_read_finish(it);
	RBT_EQ_U(next, to);
}

/*
 * @first events, of which a first consumer (its own mapping) reads @stop
 * with read_page or consume, then more events; a second mapping reads the
 * rest. The reference times: an iterator from the page starts before the
 * first consumer reads, and one from its read_pos after (checked to go on
 * from the first ones).
 */
static void run(unsigned int flags, int cpu, unsigned int first, unsigned int more,
		bool by_page, bool extend)
{
	struct evt_ring_buffer *rb = rbt_alloc_opts(16 * PAGE, flags, PAGE, 0, EVT_CLOCK_LOCAL);
	struct evt_ring_buffer *a, *b;
	unsigned char page[PAGE] __attribute__((aligned(8)));
	uint64_t t[512], next = 0;
	unsigned int n = first + more;
	int ret;

	RBT_ASSERT(n <= 512);
	for (unsigned int i = 0; i < first; i++)
		RBT_EQ_I(rbt_write_rec(rb, 40, 1, i), 0);
	times(rb, cpu, 0, first, t);	/* from the page starts: the reference */
	RBT_EQ_I(evt_ring_buffer_map(evt_ring_buffer_fd(rb), &a), 0);
	/* the first consumer drains what is there: it ends inside the current page */
	while ((ret = evt_ring_buffer_read_page(a, cpu, page, PAGE)) > 0)
		;
	RBT_EQ_I(ret, -EAGAIN);
	evt_ring_buffer_free(a);
	if (extend)
		rbt_sleep_ns(20 * 1000 * 1000);	/* a delta past 27 bits: a time extend */
	for (unsigned int i = first; i < n; i++)
		RBT_EQ_I(rbt_write_rec(rb, 40, 1, i), 0);
	/* the later events' times, by an iterator that starts at read_pos (inside a page) */
	times(rb, cpu, first, n, t);
	RBT_ASSERT(t[first] >= t[first - 1]);
	RBT_ASSERT(t[n - 1] - t[first - 1] < UINT64_C(10000000000));

	/* the second consumer, a new mapping, picks up where the first stopped */
	RBT_EQ_I(evt_ring_buffer_map(evt_ring_buffer_fd(rb), &b), 0);
	next = first;
	if (by_page) {
		while ((ret = evt_ring_buffer_read_page(b, cpu, page, PAGE)) > 0) {
			RBT_ASSERTF(get64(page) > 0, "page time stamp 0 at seq %" PRIu64, next);
			walk(page, &next, t);
		}
		RBT_EQ_I(ret, -EAGAIN);
	} else {
		struct evt_ring_buffer_event *ev;
		uint64_t ts;

		while ((ev = evt_ring_buffer_consume(b, cpu, &ts, NULL))) {
			RBT_EQ_U(rbt_rec_check(ev, 1, 40), next);
			RBT_EQ_U(ts, t[next]);
			next++;
		}
	}
	RBT_EQ_U(next, n);
	evt_ring_buffer_free(b);
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpu = rbt_pin_first();

	for (int mode = 0; mode < 2; mode++) {
		unsigned int flags = mode ? EVT_RB_FL_OVERWRITE : 0;

		for (int by_page = 0; by_page < 2; by_page++) {
			run(flags, cpu, 5, 7, by_page, false);	/* stopped after 5 of page 0 */
			run(flags, cpu, 130, 60, by_page, false);	/* inside page 1 */
			run(flags, cpu, 5, 7, by_page, true);	/* the next event has an extend */
		}
	}
	printf("rb-read-page-resume: PASS\n");
	return RBT_PASS;
}
