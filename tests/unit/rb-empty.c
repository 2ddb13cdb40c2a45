// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-empty: an empty buffer and an empty CPU buffer say so everywhere:
 * empty/empty_cpu, peek/consume (NULL, lost untouched), read_page
 * (-EAGAIN), iterators (iter_empty, NULL), entries; CPU numbers out of
 * range give NULL/-EINVAL, never a crash.
 */
#include "rb-test.h"

static void check_empty_cpu(struct evt_ring_buffer *rb, int cpu)
{
	unsigned char page[4096];
	struct evt_ring_buffer_iter *it = NULL;
	unsigned long lost = 77;
	uint64_t ts = 88;

	RBT_ASSERT(evt_ring_buffer_empty_cpu(rb, cpu));
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 0);
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, &ts, &lost) == NULL);
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, &ts, &lost) == NULL);
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);
	RBT_EQ_U(lost, 77);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, cpu, page, sizeof(page)), -EAGAIN);
	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it), 0);
	RBT_ASSERT(it);
	RBT_ASSERT(evt_ring_buffer_iter_empty(it));
	RBT_ASSERT(evt_ring_buffer_iter_peek(it, &ts) == NULL);
	RBT_ASSERT(evt_ring_buffer_read(it, &ts) == NULL);
	RBT_ASSERT(evt_ring_buffer_read(it, NULL) == NULL);
	evt_ring_buffer_iter_reset(it);
	RBT_ASSERT(evt_ring_buffer_iter_empty(it));
	RBT_EQ_U(evt_ring_buffer_iter_lost(it), 0);
	evt_ring_buffer_read_finish(it);
}

static void run(unsigned int flags, int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(0, flags);
	int nr = evt_ring_buffer_nr_cpus(rb);
	struct evt_ring_buffer_iter *it = (void *)1;
	unsigned char page[4096];
	uint64_t ts;

	RBT_ASSERT(evt_ring_buffer_empty(rb));
	RBT_EQ_U(evt_ring_buffer_entries(rb), 0);
	for (int c = 0; c < nr; c++)
		check_empty_cpu(rb, c);

	/* out of range */
	RBT_ASSERT(evt_ring_buffer_peek(rb, nr, &ts, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_consume(rb, nr, &ts, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_peek(rb, -1, &ts, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_consume(rb, -5, &ts, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_peek(rb, 1 << 20, &ts, NULL) == NULL);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, nr, page, sizeof(page)), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_read_page(rb, -1, page, sizeof(page)), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_read_start(rb, nr, &it), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_read_start(rb, -1, &it), -EINVAL);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, nr), 0);
	RBT_EQ_U(evt_ring_buffer_overrun_cpu(rb, nr), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, -1), 0);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, nr), 0);
	evt_ring_buffer_read_finish(NULL);

	/* one event on our CPU: only that CPU is non-empty */
	RBT_EQ_I(rbt_write_rec(rb, 24, 1, 0), 0);
	RBT_ASSERT(!evt_ring_buffer_empty(rb));
	RBT_ASSERT(!evt_ring_buffer_empty_cpu(rb, cpu));
	RBT_EQ_U(evt_ring_buffer_entries(rb), 1);
	for (int c = 0; c < nr; c++)
		if (c != cpu)
			check_empty_cpu(rb, c);
	/* empty/entries/peek do not consume */
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, NULL));
	RBT_ASSERT(!evt_ring_buffer_empty_cpu(rb, cpu));
	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it), 0);
	RBT_ASSERT(!evt_ring_buffer_iter_empty(it));
	RBT_ASSERT(evt_ring_buffer_read(it, NULL));
	RBT_ASSERT(evt_ring_buffer_iter_empty(it));
	evt_ring_buffer_read_finish(it);
	RBT_ASSERT(!evt_ring_buffer_empty(rb));
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 1, 24), 0);
	/* empty again */
	RBT_ASSERT(evt_ring_buffer_empty(rb));
	for (int c = 0; c < nr; c++)
		check_empty_cpu(rb, c);

	/* a reserved but uncommitted event is not there yet */
	{
		struct evt_ring_buffer_event *ev = evt_ring_buffer_lock_reserve(rb, 16);

		RBT_ASSERT(ev);
		memset(evt_ring_buffer_event_data(ev), 0xab, 16);
		RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, NULL) == NULL);
		RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);
		RBT_ASSERT(evt_ring_buffer_empty_cpu(rb, cpu));
		RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 0);
		RBT_EQ_I(evt_ring_buffer_read_page(rb, cpu, page, sizeof(page)), -EAGAIN);
		RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
		RBT_ASSERT(!evt_ring_buffer_empty_cpu(rb, cpu));
		ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL);
		RBT_ASSERT(ev);
		RBT_EQ_U(((unsigned char *)evt_ring_buffer_event_data(ev))[15], 0xab);
	}
	RBT_ASSERT(evt_ring_buffer_empty(rb));
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpu = rbt_pin_first();

	run(0, cpu);
	run(EVT_RB_FL_OVERWRITE, cpu);
	printf("rb-empty: PASS\n");
	return RBT_PASS;
}
