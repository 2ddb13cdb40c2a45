// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-page-padding: an event that does not fit in the rest of a page goes
 * to the next page, and the rest of the old page becomes padding (a
 * 4-byte "null" padding when only 4 bytes remain). Checked by
 * simulating the packing and comparing with what read_page returns,
 * page by page: the commit (data bytes, padding excluded), the events
 * in each page, and their order, walked with evt_rb_page_iter.
 *
 * The "counter" clock is used so no time extend changes the packing.
 */
#include "rb-test.h"

#define MAXEV 4000

struct expect {
	size_t len;
	unsigned int page;	/* which ring page it should land in */
	unsigned int off;	/* offset in that page's data */
};

static struct expect ex[MAXEV];

static unsigned int simulate(size_t n, unsigned int data_size, unsigned int *page_bytes)
{
	unsigned int page = 0, off = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned int sz = rbt_event_size(ex[i].len);

		if (off + sz > data_size) {
			page_bytes[page] = off;
			page++;
			off = 0;
		}
		ex[i].page = page;
		ex[i].off = off;
		off += sz;
	}
	page_bytes[page] = off;
	return page + 1;
}

static void run(unsigned int page_size, unsigned int flags, const size_t *lens, size_t n,
		int cpu)
{
	unsigned int data_size = page_size - EVT_RB_PAGE_HDR_SIZE;
	static unsigned int page_bytes[MAXEV];
	unsigned char *page = malloc(page_size), buf[4096];
	unsigned int npages, got_pages = 0;
	struct evt_ring_buffer *rb;
	size_t idx = 0;
	int ret;

	RBT_ASSERT(page && n <= MAXEV);
	for (size_t i = 0; i < n; i++)
		ex[i].len = lens[i];
	npages = simulate(n, data_size, page_bytes);
	/* room for everything */
	rb = rbt_alloc_opts((size_t)(npages + 2) * page_size, flags, page_size, 0,
			    EVT_CLOCK_COUNTER);

	for (size_t i = 0; i < n; i++) {
		rbt_fill(buf, lens[i], i);
		RBT_EQ_I(evt_ring_buffer_write(rb, lens[i], buf), 0);
	}
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), n);

	/* the non-consuming iterator sees them all in order first */
	{
		struct evt_ring_buffer_iter *it;
		struct evt_ring_buffer_event *ev;
		size_t k = 0;

		RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it), 0);
		while ((ev = evt_ring_buffer_read(it, NULL))) {
			RBT_ASSERT(k < n);
			RBT_EQ_U(evt_ring_buffer_event_length(ev),
				 RBT_ALIGN4(lens[k] ? lens[k] : 1));
			RBT_ASSERT(rbt_check(evt_ring_buffer_event_data(ev), lens[k], k));
			k++;
		}
		RBT_EQ_U(k, n);
		evt_ring_buffer_read_finish(it);
	}

	while ((ret = evt_ring_buffer_read_page(rb, cpu, page, page_size)) > 0) {
		struct evt_rb_page_iter it;
		const struct evt_ring_buffer_event *ev;
		uint64_t commit, ts, last_ts = 0;
		unsigned int pg = got_pages++;
		int r;

		RBT_ASSERTF(pg < npages, "more pages than expected (%u)", npages);
		memcpy(&commit, page + 8, 8);
		RBT_EQ_U(commit & EVT_RB_PAGE_COMMIT_MASK, (uint64_t)ret);
		RBT_ASSERTF(!(commit & EVT_RB_PAGE_MISSED_EVENTS), "missed events on page %u", pg);
		RBT_ASSERTF((unsigned int)ret == page_bytes[pg],
			    "page %u (size %u): commit %d, expected %u", pg, page_size, ret,
			    page_bytes[pg]);

		RBT_EQ_I(evt_rb_page_iter_init(&it, page, page_size), 0);
		RBT_EQ_U(it.end, EVT_RB_PAGE_HDR_SIZE + (uint64_t)ret);
		RBT_EQ_U(it.commit_flags, 0);
		while ((r = evt_rb_page_iter_next(&it, &ev, &ts)) == 1) {
			const unsigned char *p = (const unsigned char *)ev;

			RBT_ASSERT(idx < n);
			RBT_ASSERTF(ex[idx].page == pg, "event %zu in page %u, expected %u", idx,
				    pg, ex[idx].page);
			RBT_ASSERTF((size_t)(p - (page + EVT_RB_PAGE_HDR_SIZE)) == ex[idx].off,
				    "event %zu at offset %td, expected %u", idx,
				    p - (page + EVT_RB_PAGE_HDR_SIZE), ex[idx].off);
			RBT_ASSERT(rbt_check(evt_ring_buffer_event_data(
						     (struct evt_ring_buffer_event *)ev),
					     lens[idx], idx));
			RBT_ASSERT(ts >= last_ts);
			last_ts = ts;
			idx++;
		}
		RBT_EQ_I(r, 0);
		/* at the end it stays at the end */
		RBT_EQ_I(evt_rb_page_iter_next(&it, &ev, &ts), 0);
	}
	RBT_EQ_I(ret, -EAGAIN);
	RBT_EQ_U(got_pages, npages);
	RBT_EQ_U(idx, n);
	evt_ring_buffer_free(rb);
	free(page);
}

int main(void)
{
	static size_t lens[MAXEV];
	uint64_t rnd = 0x1234567;
	int cpu = rbt_pin_first();
	size_t n;

	/* 256-byte pages, 240 data bytes. */
	/* two 100-byte payloads (104 each) fit; the third goes to the next page (32 pad) */
	for (n = 0; n < 7; n++)
		lens[n] = 100;
	run(256, 0, lens, n, cpu);
	run(256, EVT_RB_FL_OVERWRITE, lens, n, cpu);

	/* 116 + 116 = 232, 8 left: a 4-byte payload (8 bytes) fits exactly */
	n = 0;
	lens[n++] = 112;
	lens[n++] = 112;
	lens[n++] = 4;
	lens[n++] = 112;
	lens[n++] = 112;
	lens[n++] = 5;	/* 12 bytes: does not fit in 8 -> 8-byte padding */
	lens[n++] = 112;
	lens[n++] = 112;
	lens[n++] = 1;
	run(256, 0, lens, n, cpu);

	/* leave exactly 4 bytes: 4-byte null padding */
	n = 0;
	lens[n++] = 112;	/* 116 */
	lens[n++] = 108;	/* 112 -> 228 */
	lens[n++] = 4;		/* 8 -> 236, 4 left */
	lens[n++] = 1;		/* 8: next page */
	lens[n++] = 232;	/* the largest: a page of its own */
	lens[n++] = 232;
	lens[n++] = 0;
	run(256, 0, lens, n, cpu);
	run(256, EVT_RB_FL_OVERWRITE, lens, n, cpu);

	/* random mixes, all remainders */
	for (int round = 0; round < 6; round++) {
		unsigned int ps = round & 1 ? 4096 : 256;

		n = 200 + (size_t)(rbt_rand(&rnd) % 1500);
		for (size_t i = 0; i < n; i++) {
			size_t max = ps - 24;

			lens[i] = (size_t)(rbt_rand(&rnd) % (round < 4 ? 130 : max + 1));
		}
		run(ps, round & 2 ? EVT_RB_FL_OVERWRITE : 0, lens, n, cpu);
	}
	printf("rb-page-padding: PASS\n");
	return RBT_PASS;
}
