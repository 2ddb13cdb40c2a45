// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-map-control-op: a consumer in another mapping reads on while the
 * owner of the buffer resizes and resets it. While an operation holds
 * read_pos (its sentinel), read_page and consume on the mapping find
 * nothing (-EAGAIN / NULL), never a corrupt buffer (-EBADMSG, which ended
 * `evtrace record` when `buffer_size_kb` or `> trace` was written to the
 * program it recorded); then they go on, on the new layout. Last, a thread
 * resizes and resets in a loop while the mapping drains: no error, and
 * every event read is intact and in order.
 */
#include "rb-test.h"

#include <stdatomic.h>

#include "ringbuf/rb_internal.h"

#define PAGE	4096u

static atomic_int stop;

/* The owner's control operations, in a loop. */
static void *control_main(void *arg)
{
	struct evt_ring_buffer *rb = arg;

	for (unsigned int i = 0; !atomic_load(&stop); i++) {
		int ret = i % 3 == 2 ? evt_ring_buffer_reset(rb) :
				       evt_ring_buffer_resize(rb, (i & 1 ? 4 : 16) * PAGE,
							      EVT_RB_ALL_CPUS);

		RBT_ASSERTF(ret == 0 || ret == -EBUSY, "control op %u: %d", i, ret);
		rbt_sleep_ns(200 * 1000);
	}
	return NULL;
}

int main(void)
{
	struct evt_ring_buffer *rb, *m;
	unsigned char page[PAGE] __attribute__((aligned(8)));
	int cpu = rbt_pin_first();
	uint64_t rp, ov, next = 0, w = 0, reads = 0;
	pthread_t th;
	int ret;

	rb = rbt_alloc_opts(16 * PAGE, EVT_RB_FL_OVERWRITE, PAGE, 0, EVT_CLOCK_LOCAL);
	RBT_EQ_I(evt_ring_buffer_map(evt_ring_buffer_fd(rb), &m), 0);
	for (; w < 10; w++)
		RBT_EQ_I(rbt_write_rec(rb, 40, 1, w), 0);

	/* read_pos held by an operation: nothing now, not a corrupt page */
	pair_load(rb_rd(rb->cpus[cpu].shm), &rp, &ov);
	rb_rd_set(rb->cpus[cpu].shm, RB_READ_POS_LOCKED, ov);
	RBT_EQ_I(evt_ring_buffer_read_page(m, cpu, page, PAGE), -EAGAIN);
	RBT_ASSERT(!evt_ring_buffer_consume(m, cpu, NULL, NULL));
	rb_rd_set(rb->cpus[cpu].shm, rp, ov);
	RBT_ASSERT(rbt_rec_check(evt_ring_buffer_consume(m, cpu, NULL, NULL), 1, 40) == next++);

	/* a resize: the mapping follows it */
	RBT_EQ_I(evt_ring_buffer_resize(rb, 4 * PAGE, EVT_RB_ALL_CPUS), 0);
	while (evt_ring_buffer_consume(m, cpu, NULL, NULL))
		next++;
	RBT_EQ_U(next, w);

	/* racing: the owner resizes and resets, the mapping drains, a writer writes */
	RBT_EQ_I(pthread_create(&th, NULL, control_main, rb), 0);
	next = 0;
	for (uint64_t t0 = rbt_now_ns(); rbt_now_ns() - t0 < 1000000000ull;) {
		const struct evt_ring_buffer_event *ev;
		struct evt_rb_page_iter it;
		uint64_t ts, prev = 0;

		for (int i = 0; i < 20; i++)
			if (rbt_write_rec(rb, 40, 2, w) == 0)
				w++;
		ret = evt_ring_buffer_read_page(m, cpu, page, PAGE);
		RBT_ASSERTF(ret > 0 || ret == -EAGAIN, "read_page during control ops: %d", ret);
		if (ret < 0)
			continue;
		reads++;
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, PAGE), 0);
		while (evt_rb_page_iter_next(&it, &ev, &ts) == 1) {
			uint64_t s = rbt_rec_check((struct evt_ring_buffer_event *)ev, 2, 40);

			RBT_ASSERTF(s >= next && s < w, "seq %" PRIu64 " after %" PRIu64, s, next);
			RBT_ASSERT(ts >= prev);
			prev = ts;
			next = s + 1;
		}
		RBT_EQ_I(it.error, 0);
	}
	atomic_store(&stop, 1);
	RBT_EQ_I(pthread_join(th, NULL), 0);
	RBT_ASSERT(reads > 0);
	evt_ring_buffer_free(m);
	evt_ring_buffer_free(rb);
	printf("rb-map-control-op: PASS (%" PRIu64 " pages read beside the resizes and resets)\n",
	       reads);
	return RBT_PASS;
}
