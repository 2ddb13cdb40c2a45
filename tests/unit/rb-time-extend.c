// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-time-extend: a gap between two events that does not fit in the
 * 27-bit delta (> 2^27 clock units: 134 ms in ns, less in TSC cycles)
 * is written as a time extend (type 30) before the event, and the
 * consumer's time stamps stay exact. The writer stores the buffer's
 * time_stamp() in each payload just before writing; the reader checks
 * the event's time is at or after it and close to it.
 */
#include "rb-test.h"

struct stamp {
	uint64_t before;	/* evt_ring_buffer_time_stamp() just before the write */
	uint32_t idx;
	uint32_t pad;
};

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t to_ns(struct evt_ring_buffer *rb, uint64_t t)
{
	evt_ring_buffer_normalize_time_stamp(rb, 0, &t);
	return t;
}

/* gaps in ms before each event: 0 = back to back */
static const unsigned int gaps_ms[] = { 0, 0, 150, 0, 1, 300, 0, 140, 0, 0, 250, 2 };
#define NEV (sizeof(gaps_ms) / sizeof(gaps_ms[0]))

static void run(enum evt_clock_id clock, int cpu, unsigned int page_size)
{
	/* the same events go to both: rb is consumed, rb2 read as raw pages */
	struct evt_ring_buffer *rb = rbt_alloc_opts(1u << 16, 0, page_size, 0, clock);
	struct evt_ring_buffer *rb2 = rbt_alloc_opts(1u << 16, 0, page_size, 0, clock);
	uint64_t ts[NEV], t;
	unsigned char *page = malloc(page_size);
	struct evt_ring_buffer_event *ev;
	unsigned int extends = 0;
	/* how many clock units 2^27 is: ns clocks 134 ms, TSC far less */
	uint64_t lim = (UINT64_C(1) << EVT_RB_TS_DELTA_BITS);
	struct stamp s;
	size_t idx = 0;
	int ret;

	RBT_ASSERT(page);
	for (uint32_t i = 0; i < NEV; i++) {
		if (gaps_ms[i])
			rbt_sleep_ns(gaps_ms[i] * 1000000ull);
		s.before = evt_ring_buffer_time_stamp(rb);
		s.idx = i;
		s.pad = 0;
		RBT_EQ_I(evt_ring_buffer_write(rb, sizeof(s), &s), 0);
		s.before = evt_ring_buffer_time_stamp(rb2);
		RBT_EQ_I(evt_ring_buffer_write(rb2, sizeof(s), &s), 0);
	}

	/* consume: ts >= what the writer saw before, and close to it */
	for (uint32_t i = 0; i < NEV; i++) {
		ev = evt_ring_buffer_peek(rb, cpu, &t, NULL);
		RBT_ASSERT(ev);
		memcpy(&s, evt_ring_buffer_event_data(ev), sizeof(s));
		RBT_EQ_U(s.idx, i);
		RBT_ASSERTF(t >= s.before, "%s: event %u at %" PRIu64 " before its write (%" PRIu64
			    ")", evt_clock_name(clock), i, t, s.before);
		RBT_ASSERTF(to_ns(rb, t) - to_ns(rb, s.before) < 100000000ull,
			    "%s: event %u stamped %" PRIu64 " ns after its write",
			    evt_clock_name(clock), i, to_ns(rb, t) - to_ns(rb, s.before));
		if (i && gaps_ms[i])
			RBT_ASSERTF(to_ns(rb, t) - to_ns(rb, ts[i - 1]) >=
					    gaps_ms[i] * 1000000ull - 1000000ull,
				    "%s: gap before event %u too small", evt_clock_name(clock), i);
		ts[i] = t;
		RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == ev);
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);

	/* the same events looked at as raw pages: extends where the gap needs one */
	while ((ret = evt_ring_buffer_read_page(rb2, cpu, page, page_size)) > 0) {
		struct evt_rb_page_iter it;
		const unsigned char *d = page + EVT_RB_PAGE_HDR_SIZE;
		uint64_t pts;
		uint32_t pos = 0, prev_delta = 0, prev_hi = 0;
		bool after_extend = false;

		memcpy(&pts, page, 8);
		/* by hand */
		while (pos < (uint32_t)ret) {
			uint32_t hdr = get32(d + pos), type = hdr & 31, delta = hdr >> 5;

			if (type == EVT_RINGBUF_TYPE_TIME_EXTEND) {
				prev_hi = get32(d + pos + 4);
				pts += ((uint64_t)prev_hi << EVT_RB_TS_DELTA_BITS) | delta;
				after_extend = true;
				prev_delta = delta;
				extends++;
				pos += 8;
				continue;
			}
			RBT_ASSERTF(type >= 1 && type <= 28, "type %u at %u", type, pos);
			pts += delta;
			memcpy(&s, d + pos + 4, sizeof(s));
			RBT_ASSERT(s.idx == idx);
			RBT_ASSERTF(pts >= s.before, "%s raw: event %u at %" PRIu64 " < %" PRIu64,
				    evt_clock_name(clock), s.idx, pts, s.before);
			if (after_extend) {
				uint64_t gap = ((uint64_t)prev_hi << EVT_RB_TS_DELTA_BITS) |
					       prev_delta;

				RBT_ASSERTF(gap > lim - 1, "extend of %" PRIu64 " fits in 27 bits",
					    gap);
				RBT_EQ_U(delta, 0);
			} else if (pos && gaps_ms[idx] >= 140) {
				RBT_FAILF("%s: event %zu after a %u ms gap has no time extend",
					  evt_clock_name(clock), idx, gaps_ms[idx]);
			}
			ts[idx++] = pts;
			after_extend = false;
			pos += 4 + type * 4;
		}
		RBT_EQ_U(pos, (uint32_t)ret);

		/* and through the library's page iterator: the same times */
		{
			const struct evt_ring_buffer_event *e;
			size_t k = idx;
			uint64_t it_ts;
			int r;

			RBT_EQ_I(evt_rb_page_iter_init(&it, page, page_size), 0);
			/* count back how many events this page had */
			while ((r = evt_rb_page_iter_next(&it, &e, &it_ts)) == 1) {
				struct stamp s2;

				memcpy(&s2, evt_ring_buffer_event_data(
						    (struct evt_ring_buffer_event *)e), sizeof(s2));
				RBT_ASSERT(s2.idx < k);
				RBT_EQ_U(it_ts, ts[s2.idx]);
			}
			RBT_EQ_I(r, 0);
		}
	}
	RBT_EQ_I(ret, -EAGAIN);
	RBT_EQ_U(idx, NEV);
	/* gaps of 150, 300, 140 and 600 ms all exceed 2^27 units of every clock here */
	RBT_ASSERTF(extends >= (page_size >= 4096 ? 4u : 1u), "%s: only %u time extends",
		    evt_clock_name(clock), extends);
	for (size_t i = 1; i < NEV; i++)
		RBT_ASSERT(ts[i] >= ts[i - 1]);
	evt_ring_buffer_free(rb);
	evt_ring_buffer_free(rb2);
	free(page);
}

int main(int argc, char **argv)
{
	int cpu = rbt_pin_first();

	(void)argc;
	(void)argv;
	run(EVT_CLOCK_MONO, cpu, 4096);
	run(EVT_CLOCK_LOCAL, cpu, 4096);
	run(EVT_CLOCK_TSC, cpu, 4096);
	run(EVT_CLOCK_BOOT, cpu, 256);
	printf("rb-time-extend: PASS\n");
	return RBT_PASS;
}
