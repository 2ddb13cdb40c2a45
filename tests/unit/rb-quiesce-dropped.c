// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-quiesce-dropped: a reservation refused because a control operation
 * (resize, reset, swap, set_clock) holds the CPU buffer quiesced counts in
 * dropped_events, as one refused for lack of room does: the traced program
 * did not ask for it, and nothing is lost uncounted (once it was not, and
 * a soak writing beside `buffer_size_kb` changes lost events nobody
 * counted). One refused because recording is off (record_disable, the
 * kernel's tracing_off) is not counted, as in the kernel. After the
 * operation, writers get in again and nothing more is counted; an
 * operation that gives up (-EBUSY) lets them in too. Then a writer thread
 * beside resizes in a loop: committed = read + overruns, and every refusal
 * is a drop.
 */
#include "rb-test.h"

#include <stdatomic.h>

#include "ringbuf/rb_internal.h"

#define PAGE	4096u

static atomic_int stop;

static void *resizer(void *arg)
{
	struct evt_ring_buffer *rb = arg;

	for (unsigned int i = 0; !atomic_load(&stop); i++) {
		int ret = evt_ring_buffer_resize(rb, (i & 1 ? 2 : 8) * PAGE, EVT_RB_ALL_CPUS);

		RBT_ASSERTF(ret == 0 || ret == -EBUSY, "resize: %d", ret);
		rbt_sleep_ns(100 * 1000);
	}
	return NULL;
}

int main(void)
{
	int cpu = rbt_pin_first();
	struct evt_ring_buffer *rb = rbt_alloc_opts(8 * PAGE, EVT_RB_FL_OVERWRITE, PAGE, 0,
						    EVT_CLOCK_LOCAL);
	struct rb_cpu *cb = &rb->cpus[cpu];
	uint64_t committed = 0, refused = 0, read = 0, seq;
	pthread_t th;

	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 0), 0);

	/* quiesced by a control operation: refused and counted */
	pthread_mutex_lock(&rb->ctl_lock);
	RBT_EQ_I(rb_cpu_quiesce(rb, cb, false), 0);
	RBT_ASSERT(rbt_write_rec(rb, 40, 1, 1) != 0);
	RBT_ASSERT(rbt_write_rec(rb, 40, 1, 2) != 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 2);
	pthread_mutex_lock(&cb->reader_lock);
	seq = rb_cpu_close_page(rb, cb);
	pthread_mutex_unlock(&cb->reader_lock);
	rb_cpu_unquiesce(rb, cb, RB_POS(seq, rb->data_size));
	pthread_mutex_unlock(&rb->ctl_lock);
	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 3), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 2);

	/* an operation that gives up: writers in again, nothing more counted */
	pthread_mutex_lock(&rb->ctl_lock);
	RBT_EQ_I(rb_cpu_quiesce(rb, cb, false), 0);
	rb_cpu_quiesce_end(rb, cb);
	pthread_mutex_unlock(&rb->ctl_lock);
	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 4), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 2);

	/* recording off: refused, not counted (and still not, across an operation) */
	evt_ring_buffer_record_disable(rb);
	RBT_ASSERT(rbt_write_rec(rb, 40, 1, 5) != 0);
	RBT_EQ_I(evt_ring_buffer_resize(rb, 4 * PAGE, EVT_RB_ALL_CPUS), 0);
	RBT_ASSERT(rbt_write_rec(rb, 40, 1, 5) != 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 2);
	evt_ring_buffer_record_enable(rb);
	RBT_EQ_I(rbt_write_rec(rb, 40, 1, 5), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 2);
	RBT_EQ_I(evt_ring_buffer_reset(rb), 0);

	/* beside resizes: every refusal is a drop, every commit is read or overwritten */
	RBT_EQ_I(pthread_create(&th, NULL, resizer, rb), 0);
	for (uint64_t t0 = rbt_now_ns(); rbt_now_ns() - t0 < 500000000ull;) {
		for (int i = 0; i < 64; i++) {
			if (rbt_write_rec(rb, 40, 2, committed) == 0)
				committed++;
			else
				refused++;
		}
		while (evt_ring_buffer_consume(rb, cpu, NULL, NULL))
			read++;
	}
	atomic_store(&stop, 1);
	RBT_EQ_I(pthread_join(th, NULL), 0);
	while (evt_ring_buffer_consume(rb, cpu, NULL, NULL))
		read++;
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), refused);
	RBT_EQ_U(committed, read + evt_ring_buffer_overrun_cpu(rb, cpu));
	printf("rb-quiesce-dropped: PASS (%" PRIu64 " committed, %" PRIu64 " refused beside "
	       "resizes, %" PRIu64 " overwritten)\n", committed, refused,
	       evt_ring_buffer_overrun_cpu(rb, cpu));
	evt_ring_buffer_free(rb);
	return RBT_PASS;
}
