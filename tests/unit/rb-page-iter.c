// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-page-iter: evt_rb_page_iter over hand-built kernel-format pages
 * (buffer_data_page: u64 time_stamp, u64 commit, data). Every entry
 * type: data with type_len 1..28, type_len 0 with array[0], padding
 * (29) with a delta (a discarded event) and without, the 4-byte null
 * padding, time extend (30), absolute time stamp (31); the commit flags;
 * and malformed pages: commit beyond the page, entries running past the
 * commit, bad length words -> -EBADMSG, which sticks.
 */
#include "rb-test.h"

struct pb {
	unsigned char *page;
	size_t size;
	size_t pos;	/* offset in data */
};

static void pb_init(struct pb *b, unsigned char *page, size_t size, uint64_t ts)
{
	memset(page, 0, size);
	b->page = page;
	b->size = size;
	b->pos = 0;
	memcpy(page, &ts, 8);
}

static void pb_u32(struct pb *b, uint32_t v)
{
	RBT_ASSERT(EVT_RB_PAGE_HDR_SIZE + b->pos + 4 <= b->size);
	memcpy(b->page + EVT_RB_PAGE_HDR_SIZE + b->pos, &v, 4);
	b->pos += 4;
}

static uint32_t hdr(uint32_t type, uint32_t delta)
{
	return type | delta << 5;
}

/* a data event: small (type_len) or large (array[0]); payload bytes = pattern(seed) */
static void pb_data(struct pb *b, size_t len, uint32_t delta, uint64_t seed)
{
	uint32_t al = RBT_ALIGN4(len ? (uint32_t)len : 1u);
	unsigned char buf[4096] = { 0 };

	rbt_fill(buf, len, seed);
	if (al <= EVT_RB_MAX_SMALL_DATA) {
		pb_u32(b, hdr(al / 4, delta));
	} else {
		pb_u32(b, hdr(0, delta));
		pb_u32(b, al + 4);
	}
	for (uint32_t i = 0; i < al; i += 4) {
		uint32_t w;

		memcpy(&w, buf + i, 4);
		pb_u32(b, w);
	}
}

static void pb_commit(struct pb *b, uint64_t flags)
{
	uint64_t c = b->pos | flags;

	memcpy(b->page + 8, &c, 8);
}

struct want {
	size_t len;
	uint64_t ts;
	uint64_t seed;
};

static void expect_events(const unsigned char *page, size_t size, const struct want *w,
			  size_t n, int end)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	uint64_t ts;
	int r;

	RBT_EQ_I(evt_rb_page_iter_init(&it, page, size), 0);
	for (size_t i = 0; i < n; i++) {
		r = evt_rb_page_iter_next(&it, &ev, &ts);
		RBT_ASSERTF(r == 1, "event %zu: next returned %d", i, r);
		RBT_EQ_U(evt_ring_buffer_event_length(ev), RBT_ALIGN4(w[i].len ? w[i].len : 1));
		RBT_ASSERTF(rbt_check(evt_ring_buffer_event_data(
					      (struct evt_ring_buffer_event *)ev),
				      w[i].len, w[i].seed), "event %zu payload", i);
		RBT_ASSERTF(ts == w[i].ts, "event %zu: ts %" PRIu64 ", want %" PRIu64, i, ts,
			    w[i].ts);
		RBT_ASSERT((const unsigned char *)ev >= page + EVT_RB_PAGE_HDR_SIZE &&
			   (const unsigned char *)ev < page + size);
	}
	r = evt_rb_page_iter_next(&it, &ev, &ts);
	RBT_ASSERTF(r == end, "after %zu events: %d, want %d", n, r, end);
	/* it stays there */
	RBT_EQ_I(evt_rb_page_iter_next(&it, &ev, &ts), end);
	RBT_EQ_I(evt_rb_page_iter_next(&it, NULL, NULL), end);
}

int main(void)
{
	static unsigned char page[65536];
	struct want w[64];
	struct pb b;
	size_t n;
	uint64_t t;

	/* every small type_len, deltas accumulate from the page time stamp */
	pb_init(&b, page, 4096, 1000000);
	t = 1000000;
	n = 0;
	for (uint32_t tl = 1; tl <= 28; tl++) {
		size_t len = tl * 4 - (tl % 4);	/* not always a multiple of 4 */

		pb_data(&b, len, tl * 10, tl);
		t += tl * 10;
		w[n++] = (struct want){ len, t, tl };
	}
	pb_commit(&b, 0);
	expect_events(page, 4096, w, n, 0);

	/* large events: type_len 0, array[0] = aligned length + 4 */
	pb_init(&b, page, 4096, 5);
	t = 5;
	n = 0;
	{
		static const size_t lens[] = { 113, 116, 117, 300, 1000, 2000 };

		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			pb_data(&b, lens[i], (uint32_t)i, 100 + i);
			t += i;
			w[n++] = (struct want){ lens[i], t, 100 + i };
		}
	}
	pb_commit(&b, 0);
	expect_events(page, 4096, w, n, 0);

	/* time extend, discarded event (padding with delta), absolute stamp */
	pb_init(&b, page, 4096, 777);
	t = 777;
	n = 0;
	pb_data(&b, 8, 0, 1);
	w[n++] = (struct want){ 8, t, 1 };
	/* extend of 2^27 * 3 + 5, then an event with delta 0 */
	pb_u32(&b, hdr(EVT_RINGBUF_TYPE_TIME_EXTEND, 5));
	pb_u32(&b, 3);
	t += (UINT64_C(3) << 27) + 5;
	pb_data(&b, 12, 0, 2);
	w[n++] = (struct want){ 12, t, 2 };
	/* a discarded 40-byte event (padding: array[0] = bytes after the header), delta 1000 */
	pb_u32(&b, hdr(EVT_RINGBUF_TYPE_PADDING, 1000));
	pb_u32(&b, 40);
	for (int i = 0; i < 9; i++)
		pb_u32(&b, 0xdeadbeef);
	t += 1000;
	pb_data(&b, 16, 7, 3);
	t += 7;
	w[n++] = (struct want){ 16, t, 3 };
	/* absolute time stamp: 27 low bits in the delta, the rest in array[0] */
	{
		uint64_t abs = (UINT64_C(0x123) << 27) | 0x4567;

		pb_u32(&b, hdr(EVT_RINGBUF_TYPE_TIME_STAMP, 0x4567));
		pb_u32(&b, 0x123);
		t = abs;
		pb_data(&b, 4, 3, 4);
		t += 3;
		w[n++] = (struct want){ 4, t, 4 };
	}
	/* a padding with delta 0 and a big time extend at once */
	pb_u32(&b, hdr(EVT_RINGBUF_TYPE_TIME_EXTEND, 0));
	pb_u32(&b, 0xffffffffu);
	t += UINT64_C(0xffffffff) << 27;
	pb_data(&b, 200, 1, 5);
	t += 1;
	w[n++] = (struct want){ 200, t, 5 };
	pb_commit(&b, 0);
	expect_events(page, 4096, w, n, 0);

	/* page end: data then a 4-byte null padding inside the commit */
	pb_init(&b, page, 256, 10);
	n = 0;
	pb_data(&b, 112, 1, 6);		/* 116 */
	w[n++] = (struct want){ 112, 11, 6 };
	pb_data(&b, 112, 1, 7);		/* 232 */
	w[n++] = (struct want){ 112, 12, 7 };
	pb_u32(&b, hdr(EVT_RINGBUF_TYPE_PADDING, 0));	/* 236; 4 bytes left: null padding */
	pb_u32(&b, 0);
	b.pos = 236;
	pb_commit(&b, 0);
	expect_events(page, 256, w, n, 0);
	/* the same with the padding running to the end of the page (240) */
	b.pos = 232;
	pb_u32(&b, hdr(EVT_RINGBUF_TYPE_PADDING, 0));
	pb_u32(&b, 4);
	pb_commit(&b, 0);
	expect_events(page, 256, w, n, 0);

	/* commit flags: reported, masked out of the length */
	pb_init(&b, page, 4096, 50);
	pb_data(&b, 20, 0, 8);
	w[0] = (struct want){ 20, 50, 8 };
	pb_commit(&b, EVT_RB_PAGE_MISSED_EVENTS);
	expect_events(page, 4096, w, 1, 0);
	{
		struct evt_rb_page_iter it;

		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 4096), 0);
		RBT_EQ_U(it.commit_flags, EVT_RB_PAGE_MISSED_EVENTS);
		RBT_EQ_U(it.end, EVT_RB_PAGE_HDR_SIZE + 24);
		pb_commit(&b, EVT_RB_PAGE_MISSED_EVENTS | EVT_RB_PAGE_MISSED_STORED);
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 4096), 0);
		RBT_EQ_U(it.commit_flags, EVT_RB_PAGE_MISSED_EVENTS | EVT_RB_PAGE_MISSED_STORED);
		RBT_EQ_U(it.end, EVT_RB_PAGE_HDR_SIZE + 24);
	}
	expect_events(page, 4096, w, 1, 0);

	/* empty page */
	pb_init(&b, page, 4096, 1);
	pb_commit(&b, 0);
	expect_events(page, 4096, w, 0, 0);
	/* a full large page */
	pb_init(&b, page, 65536, 9);
	n = 0;
	t = 9;
	while (b.pos + 4000 + 8 <= 65536 - 16) {
		pb_data(&b, 4000, 2, 50 + n);
		t += 2;
		w[n] = (struct want){ 4000, t, 50 + n };
		n++;
	}
	pb_commit(&b, 0);
	expect_events(page, 65536, w, n, 0);

	/* ---- malformed ---- */
	{
		struct evt_rb_page_iter it;
		const struct evt_ring_buffer_event *ev;
		uint64_t c;

		/* commit beyond the page */
		pb_init(&b, page, 256, 0);
		c = 241;
		memcpy(page + 8, &c, 8);
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 256), -EBADMSG);
		c = 240;
		memcpy(page + 8, &c, 8);
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 256), 0);
		c = EVT_RB_PAGE_COMMIT_MASK;
		memcpy(page + 8, &c, 8);
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 256), -EBADMSG);
		/* page smaller than its header */
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 15), -EBADMSG);
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 0), -EBADMSG);
		/* a header-only page: nothing */
		c = 0;
		memcpy(page + 8, &c, 8);
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 16), 0);
		RBT_EQ_I(evt_rb_page_iter_next(&it, &ev, &t), 0);

		/* event longer than the commit: valid event, then a truncated one */
		pb_init(&b, page, 4096, 0);
		pb_data(&b, 8, 0, 1);
		pb_data(&b, 28, 0, 2);
		b.pos -= 4;
		pb_commit(&b, 0);
		w[0] = (struct want){ 8, 0, 1 };
		expect_events(page, 4096, w, 1, -EBADMSG);

		/* type_len 0 with array[0] past the commit */
		pb_init(&b, page, 4096, 0);
		pb_u32(&b, hdr(0, 0));
		pb_u32(&b, 1000);
		pb_u32(&b, 0);
		pb_commit(&b, 0);
		expect_events(page, 4096, w, 0, -EBADMSG);
		/* array[0] not a multiple of 4, or 0 */
		pb_init(&b, page, 4096, 0);
		pb_u32(&b, hdr(0, 0));
		pb_u32(&b, 130);
		b.pos += 128;
		pb_commit(&b, 0);
		expect_events(page, 4096, w, 0, -EBADMSG);
		pb_init(&b, page, 4096, 0);
		pb_u32(&b, hdr(0, 0));
		pb_u32(&b, 0);
		pb_u32(&b, 0);
		pb_commit(&b, 0);
		expect_events(page, 4096, w, 0, -EBADMSG);
		/* huge array[0] (would wrap a 32-bit sum) */
		pb_init(&b, page, 4096, 0);
		pb_u32(&b, hdr(0, 0));
		pb_u32(&b, 0xfffffffcu);
		pb_u32(&b, 0);
		pb_commit(&b, 0);
		expect_events(page, 4096, w, 0, -EBADMSG);
		/* time extend cut in half by the commit */
		pb_init(&b, page, 4096, 0);
		pb_data(&b, 8, 0, 1);
		pb_u32(&b, hdr(EVT_RINGBUF_TYPE_TIME_EXTEND, 0));
		pb_commit(&b, 0);
		expect_events(page, 4096, w, 1, -EBADMSG);
		/* padding whose length word runs past the commit */
		pb_init(&b, page, 4096, 0);
		pb_u32(&b, hdr(EVT_RINGBUF_TYPE_PADDING, 3));
		pb_u32(&b, 400);
		pb_u32(&b, 0);
		pb_commit(&b, 0);
		expect_events(page, 4096, w, 0, -EBADMSG);
		/* commit not a multiple of 4 with a 2-byte tail */
		pb_init(&b, page, 4096, 0);
		pb_data(&b, 8, 0, 1);
		c = 14;
		memcpy(page + 8, &c, 8);
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, 4096), 0);
		RBT_EQ_I(evt_rb_page_iter_next(&it, &ev, &t), 1);
		RBT_EQ_I(evt_rb_page_iter_next(&it, &ev, &t), -EBADMSG);
		RBT_EQ_I(evt_rb_page_iter_next(&it, &ev, &t), -EBADMSG);
		/* NULL arguments */
		RBT_ASSERT(evt_rb_page_iter_init(&it, NULL, 4096) < 0);
		RBT_ASSERT(evt_rb_page_iter_init(NULL, page, 4096) < 0);
		RBT_ASSERT(evt_rb_page_iter_next(NULL, &ev, &t) < 0);
	}

	/* random garbage pages never make the iterator leave the page */
	{
		uint64_t rnd = 42;

		for (int round = 0; round < 20000; round++) {
			size_t size = (size_t)16 << (rbt_rand(&rnd) % 9);
			struct evt_rb_page_iter it;
			const struct evt_ring_buffer_event *ev;
			uint64_t c;
			int r, steps = 0;

			for (size_t i = 0; i < size; i += 8) {
				uint64_t v = rbt_rand(&rnd);

				/* bias toward plausible headers */
				if (rbt_rand(&rnd) & 1)
					v &= 0x000000ff0000003fULL | ((v & 1) ? 0 : 0xffffffe0ULL);
				memcpy(page + i, &v, size - i < 8 ? size - i : 8);
			}
			c = rbt_rand(&rnd) % (size + 16);
			if (rbt_rand(&rnd) & 1)
				c |= EVT_RB_PAGE_MISSED_EVENTS;
			memcpy(page + 8, &c, 8);
			if (evt_rb_page_iter_init(&it, page, size) < 0)
				continue;
			while ((r = evt_rb_page_iter_next(&it, &ev, &t)) == 1) {
				const unsigned char *p = (const unsigned char *)ev;
				unsigned int l = evt_ring_buffer_event_length(ev);

				RBT_ASSERT(p >= page + EVT_RB_PAGE_HDR_SIZE);
				RBT_ASSERT(p + 4 + l <= page + it.end ||
					   (ev->type_len == 0 && p + 8 + l <= page + it.end));
				RBT_ASSERT(++steps <= (int)size / 4);
			}
			RBT_ASSERT(r == 0 || r == -EBADMSG);
		}
	}
	printf("rb-page-iter: PASS\n");
	return RBT_PASS;
}
