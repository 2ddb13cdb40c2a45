// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-write-read: write N events (through write() and through
 * lock_reserve/unlock_commit), consume N in order with payloads and
 * lengths intact and time stamps non-decreasing; the counters agree.
 */
#include "rb-test.h"

#define N	3000

static size_t len_of(uint64_t i)
{
	/* 16..300 bytes, every alignment, some above 112 */
	return 16 + (size_t)(rbt_mix64(i) % 285);
}

static void run(unsigned int page_size, unsigned int flags, int cpu)
{
	struct evt_ring_buffer *rb;
	struct evt_ring_buffer_event *ev;
	unsigned long lost;
	uint64_t ts, last_ts = 0;
	int nr_cpus;

	/* big enough for all N: no loss */
	rb = rbt_alloc_opts(2u << 20, flags, page_size, 0, EVT_CLOCK_LOCAL);
	nr_cpus = evt_ring_buffer_nr_cpus(rb);

	for (uint64_t i = 0; i < N; i++) {
		size_t len = len_of(i);

		if (len > page_size - 24)
			len = page_size - 24;
		if (i & 1) {
			RBT_EQ_I(rbt_write_rec(rb, len, 7, i), 0);
		} else {
			ev = evt_ring_buffer_lock_reserve(rb, len);
			RBT_ASSERTF(ev, "reserve %zu bytes failed at %" PRIu64, len, i);
			RBT_ASSERT(evt_ring_buffer_event_length(ev) >= len);
			rbt_rec_fill(evt_ring_buffer_event_data(ev), len, 7, i);
			RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
		}
	}
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), N);
	RBT_EQ_U(evt_ring_buffer_entries(rb), N);
	RBT_ASSERT(!evt_ring_buffer_empty(rb));
	RBT_ASSERT(!evt_ring_buffer_empty_cpu(rb, cpu));
	for (int c = 0; c < nr_cpus; c++) {
		if (c == cpu)
			continue;
		RBT_ASSERT(evt_ring_buffer_empty_cpu(rb, c));
		RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, c), 0);
		RBT_ASSERT(evt_ring_buffer_consume(rb, c, NULL, NULL) == NULL);
	}

	for (uint64_t i = 0; i < N; i++) {
		size_t len = len_of(i);

		if (len > page_size - 24)
			len = page_size - 24;
		lost = 12345;
		ev = evt_ring_buffer_consume(rb, cpu, &ts, &lost);
		RBT_ASSERTF(ev, "event %" PRIu64 " missing", i);
		RBT_EQ_U(rbt_rec_check(ev, 7, len), i);
		RBT_EQ_U(lost, 0);
		RBT_ASSERTF(ts >= last_ts, "time went back: %" PRIu64 " after %" PRIu64, ts,
			    last_ts);
		last_ts = ts;
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), i + 1);
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_peek(rb, cpu, NULL, NULL) == NULL);
	RBT_EQ_U(evt_ring_buffer_entries(rb), 0);
	RBT_ASSERT(evt_ring_buffer_empty(rb));
	RBT_EQ_U(evt_ring_buffer_overruns(rb), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);

	/* write after drain; zero-length payload is an event of 4 bytes */
	RBT_EQ_I(evt_ring_buffer_write(rb, 0, ""), 0);
	ev = evt_ring_buffer_lock_reserve(rb, 0);
	RBT_ASSERT(ev);
	RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
	for (int k = 0; k < 2; k++) {
		ev = evt_ring_buffer_consume(rb, cpu, &ts, NULL);
		RBT_ASSERT(ev);
		RBT_EQ_U(evt_ring_buffer_event_length(ev), 4);
		RBT_ASSERT(ts >= last_ts);
		last_ts = ts;
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpu, NULL, NULL) == NULL);

	/* exact byte lengths 1..40 come back with their bytes */
	for (unsigned int len = 1; len <= 40; len++) {
		unsigned char buf[64];

		rbt_fill(buf, len, len);
		RBT_EQ_I(evt_ring_buffer_write(rb, len, buf), 0);
	}
	for (unsigned int len = 1; len <= 40; len++) {
		ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL);
		RBT_ASSERT(ev);
		RBT_EQ_U(evt_ring_buffer_event_length(ev), RBT_ALIGN4(len));
		RBT_ASSERT(rbt_check(evt_ring_buffer_event_data(ev), len, len));
	}
	evt_ring_buffer_free(rb);
}

/* Two threads pinned to the same CPU interleave; each one's events stay in its order. */
struct wctx {
	struct evt_ring_buffer *rb;
	int cpu;
	uint32_t tag;
	int n;
};

static void *writer(void *arg)
{
	struct wctx *w = arg;

	if (rbt_pin(w->cpu) < 0)
		return (void *)1;
	for (int i = 0; i < w->n; i++) {
		if (rbt_write_rec(w->rb, 16 + (size_t)(i % 50), w->tag, (uint64_t)i) != 0)
			return (void *)2;
		if (!(i % 97))
			sched_yield();
	}
	return NULL;
}

static void run_threads(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(4u << 20, 0);
	struct wctx w[2];
	pthread_t th[2];
	uint64_t next[2] = { 0, 0 }, ts, last = 0;
	struct evt_ring_buffer_event *ev;
	void *ret;

	for (int i = 0; i < 2; i++) {
		w[i] = (struct wctx){ .rb = rb, .cpu = cpu, .tag = 100u + (uint32_t)i, .n = 5000 };
		RBT_EQ_I(pthread_create(&th[i], NULL, writer, &w[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		RBT_EQ_I(pthread_join(th[i], &ret), 0);
		RBT_ASSERTF(ret == NULL, "writer %d failed (%p)", i, ret);
	}
	while ((ev = evt_ring_buffer_consume(rb, cpu, &ts, NULL))) {
		struct rbt_rec r;

		memcpy(&r, evt_ring_buffer_event_data(ev), sizeof(r));
		RBT_ASSERT(r.tag == 100 || r.tag == 101);
		RBT_EQ_U(rbt_rec_check(ev, r.tag, 16 + (r.seq % 50)), next[r.tag - 100]);
		next[r.tag - 100]++;
		RBT_ASSERT(ts >= last);
		last = ts;
	}
	RBT_EQ_U(next[0], 5000);
	RBT_EQ_U(next[1], 5000);
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpu = rbt_pin_first();

	run(4096, 0, cpu);
	run(4096, EVT_RB_FL_OVERWRITE, cpu);
	run(256, 0, cpu);
	run(65536, EVT_RB_FL_OVERWRITE, cpu);
	run_threads(cpu);
	printf("rb-write-read: PASS\n");
	return RBT_PASS;
}
