// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-encoding: events are encoded as the kernel encodes them. Looks at
 * the raw bytes (read_page output, parsed here without the library):
 *   - payload 1..112 bytes: type_len = ceil(len / 4), payload after the
 *     32-bit header; 113+: type_len 0, array[0] = aligned length + 4,
 *     payload after it;
 *   - every entry at least 8 bytes, 4-byte aligned;
 *   - the accessors (event_length, event_data, time_delta) agree;
 *   - the largest payload is page_size - 24; one more is -E2BIG.
 */
#include "rb-test.h"

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * Walk a read_page page by hand. For each data entry check it against
 * lens[*idx] and the pattern of index *idx; return bytes walked.
 */
static void walk_page(const unsigned char *page, unsigned int page_size, const size_t *lens,
		      size_t n, size_t *idx, uint64_t *ts_out, size_t nts)
{
	uint64_t commit = get64(page + 8) & EVT_RB_PAGE_COMMIT_MASK;
	uint64_t ts = get64(page);
	const unsigned char *d = page + EVT_RB_PAGE_HDR_SIZE;
	uint32_t pos = 0;

	RBT_ASSERTF(commit > 0 && commit <= page_size - EVT_RB_PAGE_HDR_SIZE, "commit %" PRIu64,
		    commit);
	while (pos < commit) {
		uint32_t hdr, type, delta, size;
		struct evt_ring_buffer_event *ev;
		size_t len;

		RBT_ASSERTF(!(pos & 3), "entry at unaligned offset %u", pos);
		RBT_ASSERTF(commit - pos >= 8, "entry at %u: only %" PRIu64 " bytes left", pos,
			    commit - pos);
		hdr = get32(d + pos);
		type = hdr & 31;
		delta = hdr >> 5;
		ev = (struct evt_ring_buffer_event *)(d + pos);
		RBT_EQ_U(ev->type_len, type);
		RBT_EQ_U(ev->time_delta, delta);
		RBT_EQ_U(evt_ring_buffer_time_delta(ev), delta);
		if (type == EVT_RINGBUF_TYPE_TIME_EXTEND) {
			ts += ((uint64_t)get32(d + pos + 4) << EVT_RB_TS_DELTA_BITS) | delta;
			pos += 8;
			continue;
		}
		if (type == EVT_RINGBUF_TYPE_PADDING) {
			/* only discards are padding inside data; we discard nothing */
			RBT_FAILF("padding inside committed data at %u", pos);
		}
		RBT_ASSERTF(type != EVT_RINGBUF_TYPE_TIME_STAMP, "absolute time stamp at %u", pos);
		RBT_ASSERTF(*idx < n, "more events than written");
		len = lens[*idx];
		ts += delta;
		if (*idx < nts)
			ts_out[*idx] = ts;
		if (RBT_ALIGN4(len ? len : 1) <= EVT_RB_MAX_SMALL_DATA) {
			RBT_ASSERTF(type == RBT_ALIGN4(len ? len : 1) / 4,
				    "payload %zu: type_len %u", len, type);
			size = 4 + type * 4;
			RBT_ASSERT((unsigned char *)evt_ring_buffer_event_data(ev) == d + pos + 4);
		} else {
			uint32_t a0 = get32(d + pos + 4);

			RBT_ASSERTF(type == 0, "payload %zu: type_len %u, want 0", len, type);
			RBT_ASSERTF(a0 == RBT_ALIGN4(len) + 4, "payload %zu: array[0] %u", len, a0);
			size = 4 + a0;
			RBT_ASSERT((unsigned char *)evt_ring_buffer_event_data(ev) == d + pos + 8);
		}
		RBT_ASSERTF(size >= 8, "entry of %u bytes", size);
		RBT_EQ_U(size, rbt_event_size(len));
		RBT_EQ_U(evt_ring_buffer_event_length(ev), RBT_ALIGN4(len ? len : 1));
		RBT_ASSERTF(pos + size <= commit, "entry at %u (%u bytes) beyond commit", pos,
			    size);
		RBT_ASSERTF(rbt_check(evt_ring_buffer_event_data(ev), len, 1000 + *idx),
			    "payload of event %zu", *idx);
		pos += size;
		(*idx)++;
	}
	RBT_EQ_U(pos, commit);
}

static void run(unsigned int page_size, int cpu)
{
	unsigned int max = page_size - EVT_RB_PAGE_HDR_SIZE - 8;
	size_t n = 0, idx = 0, cap = 2 * 300 + 16;
	size_t *lens = calloc(cap, sizeof(*lens));
	uint64_t *ts = calloc(cap, sizeof(*ts));
	unsigned char *buf = malloc(max + 16), *page = malloc(page_size);
	struct evt_ring_buffer_event *ev;
	struct evt_ring_buffer *rb;
	uint64_t t;
	int ret;

	RBT_ASSERT(lens && ts && buf && page);
	rb = rbt_alloc_opts(1u << 20, 0, page_size, 0, EVT_CLOCK_LOCAL);

	/* every length 0..300 (capped by the page), twice: write() and reserve */
	for (int round = 0; round < 2; round++) {
		for (size_t len = 0; len <= 300 && len <= max; len++) {
			rbt_fill(buf, len, 1000 + n);
			if (round == 0) {
				RBT_EQ_I(evt_ring_buffer_write(rb, len, buf), 0);
			} else {
				ev = evt_ring_buffer_lock_reserve(rb, len);
				RBT_ASSERT(ev);
				RBT_ASSERT(!((uintptr_t)ev & 3));
				RBT_ASSERT(evt_ring_buffer_event_length(ev) >= len);
				memcpy(evt_ring_buffer_event_data(ev), buf, len);
				RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
			}
			lens[n++] = len;
		}
	}
	/* the largest payload, alone in its page */
	rbt_fill(buf, max, 1000 + n);
	RBT_EQ_I(evt_ring_buffer_write(rb, max, buf), 0);
	lens[n++] = max;
	rbt_fill(buf, max - 3, 1000 + n);
	RBT_EQ_I(evt_ring_buffer_write(rb, max - 3, buf), 0);
	lens[n++] = max - 3;
	/* one more is too big, and not a drop */
	RBT_EQ_I(evt_ring_buffer_write(rb, max + 1, buf), -E2BIG);
	RBT_EQ_I(evt_ring_buffer_write(rb, max + 4, buf), -E2BIG);
	RBT_ASSERT(evt_ring_buffer_lock_reserve(rb, max + 1) == NULL);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), n);

	/* first pass: consume through peek to see the accessors on live events */
	for (size_t i = 0; i < n; i++) {
		ev = evt_ring_buffer_peek(rb, cpu, &t, NULL);
		RBT_ASSERT(ev);
		RBT_ASSERT(!((uintptr_t)ev & 3));
		RBT_EQ_U(evt_ring_buffer_event_length(ev), RBT_ALIGN4(lens[i] ? lens[i] : 1));
		if (RBT_ALIGN4(lens[i] ? lens[i] : 1) <= EVT_RB_MAX_SMALL_DATA) {
			RBT_EQ_U(ev->type_len, RBT_ALIGN4(lens[i] ? lens[i] : 1) / 4);
			RBT_ASSERT(evt_ring_buffer_event_data(ev) == (void *)&ev->array[0]);
		} else {
			RBT_EQ_U(ev->type_len, 0);
			RBT_EQ_U(ev->array[0], RBT_ALIGN4(lens[i]) + 4);
			RBT_ASSERT(evt_ring_buffer_event_data(ev) == (void *)&ev->array[1]);
		}
		RBT_ASSERTF(rbt_check(evt_ring_buffer_event_data(ev), lens[i], 1000 + i),
			    "payload %zu", i);
		ts[i] = t;
		RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == ev);
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);

	/* second pass: the same events again, read as raw pages */
	RBT_EQ_I(evt_ring_buffer_reset(rb), 0);
	n = 0;
	for (int round = 0; round < 2; round++) {
		for (size_t len = 0; len <= 300 && len <= max; len++) {
			rbt_fill(buf, len, 1000 + n);
			RBT_EQ_I(evt_ring_buffer_write(rb, len, buf), 0);
			n++;
		}
	}
	rbt_fill(buf, max, 1000 + n);
	RBT_EQ_I(evt_ring_buffer_write(rb, max, buf), 0);
	n++;
	rbt_fill(buf, max - 3, 1000 + n);
	RBT_EQ_I(evt_ring_buffer_write(rb, max - 3, buf), 0);
	n++;
	{
		uint64_t *ts2 = calloc(n, sizeof(*ts2));
		int pages = 0;

		RBT_ASSERT(ts2);
		for (;;) {
			size_t first = idx;
			uint64_t tpeek = 0;

			ev = evt_ring_buffer_peek(rb, cpu, &tpeek, NULL);
			ret = evt_ring_buffer_read_page(rb, cpu, page, page_size);
			if (ret <= 0)
				break;
			RBT_ASSERT(ev);
			walk_page(page, page_size, lens, n, &idx, ts2, n);
			RBT_ASSERT(idx > first);
			/* the page's time base plus the deltas gives what peek said */
			RBT_EQ_U(ts2[first], tpeek);
			pages++;
		}
		RBT_ASSERT(pages >= 2);
		RBT_EQ_I(ret, -EAGAIN);
		RBT_EQ_U(idx, n);
		for (size_t i = 1; i < n; i++)
			RBT_ASSERT(ts2[i] >= ts2[i - 1]);
		free(ts2);
	}
	evt_ring_buffer_free(rb);
	free(lens);
	free(ts);
	free(buf);
	free(page);
}

int main(void)
{
	int cpu = rbt_pin_first();

	/* struct layout: a 32-bit header, type_len in the low 5 bits (little endian) */
	RBT_EQ_U(sizeof(struct evt_ring_buffer_event), 4);
	{
		uint32_t raw = (12345u << 5) | 17u;
		struct evt_ring_buffer_event *ev = (void *)&raw;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		RBT_EQ_U(ev->type_len, 17);
		RBT_EQ_U(ev->time_delta, 12345);
		RBT_EQ_U(evt_ring_buffer_time_delta(ev), 12345);
		RBT_EQ_U(evt_ring_buffer_event_length(ev), 68);
#endif
	}
	run(4096, cpu);
	run(256, cpu);
	run(512, cpu);
	run(16384, cpu);
	printf("rb-encoding: PASS\n");
	return RBT_PASS;
}
