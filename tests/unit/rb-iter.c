// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-iter: non-consuming iterators. read_start / iter_peek / read /
 * iter_reset / iter_empty / read_finish on a static buffer; iterators
 * start at the consumer's position (also in the middle of its reader
 * page); several iterators at once; and iteration while a writer keeps
 * writing: recording is never disabled, the iterator follows the live
 * data, and in overwrite mode skips what was overwritten (iter_lost).
 */
#include "rb-test.h"

#include <stdatomic.h>

static void static_iter(unsigned int flags, int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(1 << 18, flags);
	struct evt_ring_buffer_iter *it, *it2;
	struct evt_ring_buffer_event *ev;
	uint64_t ts, ts2, prev = 0;
	const uint64_t n = 2000;

	for (uint64_t i = 0; i < n; i++)
		RBT_EQ_I(rbt_write_rec(rb, 16 + (size_t)(i % 200), 1, i), 0);

	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it), 0);
	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it2), 0);
	for (uint64_t i = 0; i < n; i++) {
		RBT_ASSERT(!evt_ring_buffer_iter_empty(it));
		ev = evt_ring_buffer_iter_peek(it, &ts);
		RBT_EQ_U(rbt_rec_check(ev, 1, 16 + i % 200), i);
		ev = evt_ring_buffer_iter_peek(it, &ts2);
		RBT_EQ_U(rbt_rec_check(ev, 1, 16 + i % 200), i);
		RBT_EQ_U(ts2, ts);
		ev = evt_ring_buffer_read(it, &ts2);
		RBT_EQ_U(rbt_rec_check(ev, 1, 16 + i % 200), i);
		RBT_EQ_U(ts2, ts);
		RBT_ASSERT(ts >= prev);
		prev = ts;
		/* the second iterator is independent: it lags half way behind */
		if (i % 2 == 0) {
			ev = evt_ring_buffer_read(it2, NULL);
			RBT_EQ_U(rbt_rec_check(ev, 1, 16 + (i / 2) % 200), i / 2);
		}
	}
	RBT_ASSERT(evt_ring_buffer_iter_empty(it));
	RBT_ASSERT(evt_ring_buffer_read(it, NULL) == NULL);
	RBT_ASSERT(evt_ring_buffer_iter_peek(it, NULL) == NULL);
	RBT_EQ_U(evt_ring_buffer_iter_lost(it), 0);
	/* nothing was consumed */
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), n);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), 0);

	/* reset: back to the oldest unconsumed event */
	evt_ring_buffer_iter_reset(it);
	RBT_ASSERT(!evt_ring_buffer_iter_empty(it));
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_read(it, NULL), 1, 16), 0);

	/* consume 3; the consumer's timestamps match the iterator's */
	for (uint64_t i = 0; i < 3; i++) {
		uint64_t tc;

		ev = evt_ring_buffer_consume(rb, cpu, &tc, NULL);
		RBT_EQ_U(rbt_rec_check(ev, 1, 16 + i), i);
	}
	/* a new iterator starts at the consumer's position (mid reader page) */
	evt_ring_buffer_read_finish(it2);
	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it2), 0);
	ev = evt_ring_buffer_iter_peek(it2, &ts);
	RBT_EQ_U(rbt_rec_check(ev, 1, 16 + 3), 3);
	{
		uint64_t tp;

		ev = evt_ring_buffer_peek(rb, cpu, &tp, NULL);
		RBT_EQ_U(rbt_rec_check(ev, 1, 16 + 3), 3);
		RBT_EQ_U(tp, ts);
	}
	{
		uint64_t k = 3;

		while ((ev = evt_ring_buffer_read(it2, NULL))) {
			RBT_EQ_U(rbt_rec_check(ev, 1, 16 + k % 200), k);
			k++;
		}
		RBT_EQ_U(k, n);
	}
	/* reset goes to the consumer's position now */
	evt_ring_buffer_iter_reset(it);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_iter_peek(it, NULL), 1, 16 + 3), 3);
	evt_ring_buffer_read_finish(it);
	evt_ring_buffer_read_finish(it2);

	/* drain; an iterator on the drained buffer is empty, and sees new events */
	rbt_drain_cpu(rb, cpu);
	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it), 0);
	RBT_ASSERT(evt_ring_buffer_iter_empty(it));
	RBT_EQ_I(rbt_write_rec(rb, 30, 2, 77), 0);
	RBT_ASSERT(!evt_ring_buffer_iter_empty(it));
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_read(it, NULL), 2, 30), 77);
	RBT_ASSERT(evt_ring_buffer_iter_empty(it));
	evt_ring_buffer_read_finish(it);
	/* the iterator did not consume it */
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 2, 30), 77);
	evt_ring_buffer_free(rb);
}

/*
 * Overwrite mode: the iterator falls behind a lapping writer. It skips
 * forward (never returns a damaged or repeated event), and iter_lost
 * counts exactly the events it skipped.
 */
static void lapped_iter(int cpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(0, EVT_RB_FL_OVERWRITE);
	struct evt_ring_buffer_iter *it;
	struct evt_ring_buffer_event *ev;
	uint64_t expect = 0, skipped = 0, w = 0;

	for (; w < 10; w++)
		RBT_EQ_I(rbt_write_rec(rb, 40, 4, w), 0);
	RBT_EQ_I(evt_ring_buffer_read_start(rb, cpu, &it), 0);
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 5; i++) {
			uint64_t s;

			ev = evt_ring_buffer_read(it, NULL);
			RBT_ASSERT(ev);
			s = rbt_rec_check(ev, 4, 40);
			RBT_ASSERTF(s >= expect, "seq %" PRIu64 " after %" PRIu64, s, expect);
			skipped += s - expect;
			expect = s + 1;
		}
		/* lap the ring a few times */
		for (int i = 0; i < 700; i++, w++)
			RBT_EQ_I(rbt_write_rec(rb, 40, 4, w), 0);
	}
	while ((ev = evt_ring_buffer_read(it, NULL))) {
		uint64_t s = rbt_rec_check(ev, 4, 40);

		RBT_ASSERT(s >= expect);
		skipped += s - expect;
		expect = s + 1;
	}
	RBT_EQ_U(expect, w);
	RBT_ASSERT(skipped > 0);
	RBT_ASSERTF(evt_ring_buffer_iter_lost(it) == skipped,
		    "iterator skipped %" PRIu64 " events, iter_lost says %lu", skipped,
		    evt_ring_buffer_iter_lost(it));
	evt_ring_buffer_read_finish(it);
	evt_ring_buffer_free(rb);
}

/* ---- live: a writer thread on the same CPU keeps writing ----------------- */

struct live {
	struct evt_ring_buffer *rb;
	int cpu;
	atomic_int stop;
	uint64_t cap;		/* PC mode: write no more than fits */
	atomic_ulong written;
	atomic_int error;
};

static void *live_writer(void *arg)
{
	struct live *l = arg;
	uint64_t seq = 0;

	if (rbt_pin(l->cpu) < 0) {
		atomic_store(&l->error, 1);
		return NULL;
	}
	while (!atomic_load(&l->stop)) {
		int ret;

		if (l->cap && seq >= l->cap) {
			rbt_sleep_ns(1000000);
			continue;
		}
		ret = rbt_write_rec(l->rb, 16 + (size_t)(seq % 100), 9, seq);

		if (ret == 0) {
			seq++;
			atomic_store(&l->written, seq);
		} else if (ret != -ENOBUFS) {
			atomic_store(&l->error, ret);
		}
		if (!(seq % 64))
			sched_yield();
	}
	return NULL;
}

static void live_iter(unsigned int flags, int cpu, double secs)
{
	struct live l = { .cpu = cpu };
	struct evt_ring_buffer_iter *it;
	struct evt_ring_buffer_event *ev;
	uint64_t expect = 0, seen = 0, skipped = 0, prev_ts = 0, ts;
	uint64_t deadline;
	unsigned long empties = 0;
	pthread_t th;

	/* PC: big enough to never fill in the time we run */
	l.rb = rbt_alloc(flags ? 8 * 4096 : 64u << 20, flags);
	l.cap = flags ? 0 : (64u << 20) / 128;
	RBT_EQ_I(evt_ring_buffer_read_start(l.rb, cpu, &it), 0);
	RBT_EQ_I(pthread_create(&th, NULL, live_writer, &l), 0);
	deadline = rbt_now_ns() + (uint64_t)(secs * 1e9);
	while (rbt_now_ns() < deadline) {
		ev = evt_ring_buffer_read(it, &ts);
		if (!ev) {
			empties++;
			RBT_ASSERT(evt_ring_buffer_record_is_on(l.rb));
			sched_yield();
			continue;
		}
		{
			struct rbt_rec r;
			uint64_t s;

			memcpy(&r, evt_ring_buffer_event_data(ev), sizeof(r));
			s = rbt_rec_check(ev, 9, 16 + r.seq % 100);
			RBT_ASSERTF(s >= expect, "iterator went back: %" PRIu64 " after %" PRIu64,
				    s, expect);
			if (!flags)
				RBT_ASSERTF(s == expect, "PC iterator skipped %" PRIu64 "..%"
					    PRIu64, expect, s);
			skipped += s - expect;
			expect = s + 1;
			seen++;
			/* overwrite: fall behind now and then, until the writer lapped us */
			if (flags && (seen == 1 || !(seen % 5000))) {
				unsigned long w0 = atomic_load(&l.written);
				uint64_t t0 = rbt_now_ns();

				while (atomic_load(&l.written) - w0 < 2000 &&
				       rbt_now_ns() - t0 < 1000000000)
					rbt_sleep_ns(1000000);
			}
		}
		RBT_ASSERT(ts >= prev_ts);
		prev_ts = ts;
		if (flags && evt_ring_buffer_iter_lost(it) < skipped)
			RBT_FAILF("skipped %" PRIu64 " but iter_lost is %lu", skipped,
				  evt_ring_buffer_iter_lost(it));
	}
	atomic_store(&l.stop, 1);
	RBT_EQ_I(pthread_join(th, NULL), 0);
	RBT_EQ_I(atomic_load(&l.error), 0);
	/* after the writer stopped, the iterator reaches the very end */
	while ((ev = evt_ring_buffer_read(it, &ts))) {
		struct rbt_rec r;
		uint64_t s;

		memcpy(&r, evt_ring_buffer_event_data(ev), sizeof(r));
		s = rbt_rec_check(ev, 9, 16 + r.seq % 100);
		RBT_ASSERT(s >= expect);
		if (!flags)
			RBT_EQ_U(s, expect);
		skipped += s - expect;
		expect = s + 1;
		seen++;
	}
	RBT_ASSERT(evt_ring_buffer_iter_empty(it));
	printf("live iterator (%s): %" PRIu64 " written, %" PRIu64 " seen, %" PRIu64
	       " skipped, iter_lost %lu, %lu empty reads, %lu dropped\n",
	       flags ? "overwrite" : "pc", expect, seen, skipped, evt_ring_buffer_iter_lost(it),
	       empties, evt_ring_buffer_dropped_events(l.rb));
	RBT_EQ_U(expect, atomic_load(&l.written));
	if (!flags) {
		RBT_EQ_U(seen, expect);
		RBT_EQ_U(evt_ring_buffer_dropped_events(l.rb), 0);
		/* the iterator consumed nothing */
		RBT_EQ_U(evt_ring_buffer_entries_cpu(l.rb, cpu), expect);
	} else {
		RBT_ASSERT(evt_ring_buffer_iter_lost(it) >= skipped);
		RBT_ASSERTF(skipped > 0, "the writer never lapped the iterator (%" PRIu64
			    " written, %" PRIu64 " seen)", expect, seen);
	}
	RBT_ASSERT(seen > 0);
	evt_ring_buffer_read_finish(it);
	evt_ring_buffer_free(l.rb);
}

int main(int argc, char **argv)
{
	double secs = rbt_duration(argc, argv, 0.5);
	int cpu = rbt_pin_first();
	int cpus[CPU_SETSIZE], n = rbt_allowed_cpus(cpus, CPU_SETSIZE);

	static_iter(0, cpu);
	static_iter(EVT_RB_FL_OVERWRITE, cpu);
	lapped_iter(cpu);
	/* the reader runs on another CPU when there is one */
	if (n > 1)
		RBT_EQ_I(rbt_pin(cpus[1]), 0);
	live_iter(0, cpu, secs);
	live_iter(EVT_RB_FL_OVERWRITE, cpu, secs);
	printf("rb-iter: PASS\n");
	return RBT_PASS;
}
