// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-read-count: read_events counts what the consumer consumed. In the
 * consumer's process it is exact after every consume, also partway through
 * a page; a consumer handle of the same memfd (evt_ring_buffer_map(): how
 * another process sees it) sees the count a page at a time, never more than
 * was consumed, and all of it once the page's last event is consumed.
 * read_page() counts the rest of a page that consume() began; swap_cpu()
 * carries a count taken partway through a page with the ring; reset clears
 * it; a consumer handle freed partway through a page leaves its count. (The consumer adds to the shared word once per page: src/ringbuf/
 * rb_reader.c, "read_events".)
 */
#include "rb-test.h"

#define REC_LEN	40	/* 44-byte entries: 92 to a 4 KiB page */
#define N_REC	600

static void fill(struct evt_ring_buffer *rb, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		RBT_EQ_I(rbt_write_rec(rb, REC_LEN, 7, i), 0);
}

/* consume one event (it must be there), and check both views of the count */
static void consume_one(struct evt_ring_buffer *rb, struct evt_ring_buffer *m, int cpu,
			uint64_t *consumed, uint64_t *seen)
{
	unsigned long v;

	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL));
	(*consumed)++;
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), *consumed);
	v = evt_ring_buffer_read_events_cpu(m, cpu);
	/* the other view moves only to the whole count, a page at a time */
	RBT_ASSERTF(v == *seen || v == *consumed, "mapped view %lu, was %" PRIu64
		    ", consumed %" PRIu64, v, *seen, *consumed);
	*seen = v;
}

static void views(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(1 << 16, 0), *m;
	uint64_t consumed = 0, seen = 0, jumps = 0, before;
	struct evt_rb_page_iter it;
	unsigned char page[4096];
	int ret;

	RBT_EQ_I(evt_ring_buffer_map(evt_ring_buffer_fd(rb), &m), 0);
	fill(rb, N_REC);
	/* three pages' worth, one event at a time */
	while (consumed < 3 * 4096 / (REC_LEN + 4)) {
		before = seen;
		consume_one(rb, m, cpu, &consumed, &seen);
		jumps += seen != before;
	}
	RBT_ASSERTF(jumps >= 2, "the mapped view moved %" PRIu64 " times", jumps);
	RBT_ASSERT(seen < consumed);	/* partway through a page */
	/* read_page() takes the rest of that page and counts all of it */
	ret = evt_ring_buffer_read_page(rb, cpu, page, sizeof(page));
	RBT_ASSERTF(ret > 0, "read_page: %d", ret);
	RBT_EQ_I(evt_rb_page_iter_init(&it, page, sizeof(page)), 0);
	while (evt_rb_page_iter_next(&it, NULL, NULL) == 1)
		consumed++;
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), consumed);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(m, cpu), consumed);
	/* and a drain leaves both views equal to everything */
	consumed += rbt_drain_cpu(rb, cpu);
	RBT_EQ_U(consumed, N_REC);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), N_REC);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(m, cpu), N_REC);
	evt_ring_buffer_free(m);
	/* a consumer handle freed partway through a page leaves its whole count */
	fill(rb, 50);
	RBT_EQ_I(evt_ring_buffer_map(evt_ring_buffer_fd(rb), &m), 0);
	for (int i = 0; i < 7; i++)
		RBT_ASSERT(evt_ring_buffer_consume(m, cpu, NULL, NULL));
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(m, cpu), N_REC + 7);
	evt_ring_buffer_free(m);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), N_REC + 7);
	evt_ring_buffer_free(rb);
}

static void swap_reset(int cpu)
{
	struct evt_ring_buffer *a = rbt_alloc(1 << 16, 0), *b = rbt_alloc(1 << 16, 0);
	uint64_t n;

	fill(a, 200);
	for (int i = 0; i < 10; i++)
		RBT_ASSERT(evt_ring_buffer_consume(a, cpu, NULL, NULL));
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(a, cpu), 10);
	/* the count, partway through a page, goes with the ring and its reader page */
	RBT_EQ_I(evt_ring_buffer_swap_cpu(a, b, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(b, cpu), 10);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(a, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(b, cpu), 190);
	RBT_ASSERT(evt_ring_buffer_consume(b, cpu, NULL, NULL));
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(b, cpu), 11);
	n = rbt_drain_cpu(b, cpu);
	RBT_EQ_U(n, 189);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(b, cpu), 200);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(a, cpu), 0);
	/* a reset partway through a page clears the count, pending part too */
	fill(b, 50);
	for (int i = 0; i < 5; i++)
		RBT_ASSERT(evt_ring_buffer_consume(b, cpu, NULL, NULL));
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(b, cpu), 205);
	RBT_EQ_I(evt_ring_buffer_reset_cpu(b, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(b, cpu), 0);
	fill(b, 3);
	RBT_EQ_U(rbt_drain_cpu(b, cpu), 3);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(b, cpu), 3);
	evt_ring_buffer_free(a);
	evt_ring_buffer_free(b);
}

int main(void)
{
	int cpu = rbt_pin_first();

	views(cpu);
	swap_reset(cpu);
	printf("rb-read-count: PASS\n");
	return RBT_PASS;
}
