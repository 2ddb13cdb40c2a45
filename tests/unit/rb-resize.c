// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-resize: growing keeps every unread event; shrinking below the
 * unread data drops the oldest pages and counts their events as
 * overruns (entries + overruns + read == written holds throughout);
 * one CPU or all; size() follows; bad arguments are refused. Then the
 * same while writer threads, a consumer and the resizer all run: resize
 * returns 0 or -EBUSY, no event is ever torn or duplicated, and the
 * totals stay exact.
 */
#include "rb-test.h"

#include <stdatomic.h>

static void check_sum(struct evt_ring_buffer *rb, int cpu, uint64_t written)
{
	uint64_t e = evt_ring_buffer_entries_cpu(rb, cpu);
	uint64_t o = evt_ring_buffer_overrun_cpu(rb, cpu);
	uint64_t r = evt_ring_buffer_read_events_cpu(rb, cpu);

	RBT_ASSERTF(e + o + r == written, "entries %" PRIu64 " + overruns %" PRIu64
		    " + read %" PRIu64 " != written %" PRIu64, e, o, r, written);
}

static void static_resize(unsigned int flags, const int *cpus, int ncpu)
{
	const unsigned long ps = 4096;
	struct evt_ring_buffer *rb = rbt_alloc(2 * ps, flags);
	int cpu = cpus[0], other = ncpu > 1 ? cpus[1] : -1;
	unsigned long per_page = (ps - 16) / rbt_event_size(40);
	uint64_t w = 0, r = 0, e, o;

	RBT_EQ_I(rbt_pin(cpu), 0);
	/* 1.5 pages of data, one consumed */
	for (; w < per_page * 3 / 2; w++)
		RBT_EQ_I(rbt_write_rec(rb, 40, 1, w), 0);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 1, 40), r++);

	/* grow this CPU only */
	RBT_EQ_I(evt_ring_buffer_resize(rb, 16 * ps, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_size(rb, cpu), 16 * ps);
	RBT_EQ_U(evt_ring_buffer_size(rb, EVT_RB_ALL_CPUS), 16 * ps);
	if (other >= 0)
		RBT_EQ_U(evt_ring_buffer_size(rb, other), 2 * ps);
	check_sum(rb, cpu, w);
	RBT_EQ_U(evt_ring_buffer_overrun_cpu(rb, cpu), 0);
	/* room for much more now */
	for (; w < per_page * 12; w++)
		RBT_EQ_I(rbt_write_rec(rb, 40, 1, w), 0);
	check_sum(rb, cpu, w);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);
	RBT_EQ_U(evt_ring_buffer_overruns(rb), 0);
	/* everything in order */
	for (int i = 0; i < 10; i++)
		RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 1, 40), r++);
	check_sum(rb, cpu, w);

	/* shrink below the unread data: oldest go, counted as overruns */
	RBT_EQ_I(evt_ring_buffer_resize(rb, 4 * ps, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_size(rb, cpu), 4 * ps);
	check_sum(rb, cpu, w);
	o = evt_ring_buffer_overrun_cpu(rb, cpu);
	e = evt_ring_buffer_entries_cpu(rb, cpu);
	RBT_ASSERTF(o > 0, "shrinking lost nothing?");
	/* the ring's four pages, plus what the consumer already copied out */
	RBT_ASSERT(e <= 5 * per_page);
	/* what is left is the newest, in order, and losses are reported */
	{
		uint64_t s, lost_sum = 0, expect = r;
		unsigned long lost;
		struct evt_ring_buffer_event *ev;

		while ((ev = evt_ring_buffer_consume(rb, cpu, NULL, &lost))) {
			s = rbt_rec_check(ev, 1, 40);
			RBT_ASSERTF(s >= expect, "seq %" PRIu64 " after %" PRIu64, s, expect);
			lost_sum += lost;
			expect = s + 1;
		}
		RBT_EQ_U(expect, w);
		RBT_EQ_U(lost_sum, o);
		r = w;
	}
	check_sum(rb, cpu, w);

	/* and it works at the new size */
	for (int i = 0; i < 100; i++, w++)
		rbt_write_rec(rb, 40, 1, w);
	check_sum(rb, cpu, w - evt_ring_buffer_dropped_events(rb));

	/* all CPUs */
	RBT_EQ_I(evt_ring_buffer_resize(rb, 32 * ps, EVT_RB_ALL_CPUS), 0);
	for (int c = 0; c < evt_ring_buffer_nr_cpus(rb); c++)
		RBT_EQ_U(evt_ring_buffer_size(rb, c), 32 * ps);
	RBT_EQ_I(evt_ring_buffer_resize(rb, 0, EVT_RB_ALL_CPUS), 0);
	for (int c = 0; c < evt_ring_buffer_nr_cpus(rb); c++)
		RBT_EQ_U(evt_ring_buffer_size(rb, c), 2 * ps);
	/* same size: nothing happens */
	RBT_EQ_I(evt_ring_buffer_resize(rb, 2 * ps, cpu), 0);
	/* rounding as at allocation */
	RBT_EQ_I(evt_ring_buffer_resize(rb, 5 * ps + 1, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_size(rb, cpu), 8 * ps);

	/* bad arguments */
	RBT_EQ_I(evt_ring_buffer_resize(rb, ps, -2), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_resize(rb, ps, evt_ring_buffer_nr_cpus(rb)), -EINVAL);
	{
		int ret = evt_ring_buffer_resize(rb, ~0ul, cpu);

		RBT_ASSERTF(ret == -EINVAL || ret == -ENOMEM, "resize(ULONG_MAX): %d", ret);
		RBT_EQ_U(evt_ring_buffer_size(rb, cpu), 8 * ps);
	}

	/* -EBUSY with a writer half-way, and nothing changed */
	{
		struct evt_ring_buffer_event *ev = evt_ring_buffer_lock_reserve(rb, 40);

		RBT_ASSERT(ev);
		rbt_rec_fill(evt_ring_buffer_event_data(ev), 40, 2, 0);
		RBT_EQ_I(evt_ring_buffer_resize(rb, 64 * ps, cpu), -EBUSY);
		RBT_EQ_U(evt_ring_buffer_size(rb, cpu), 8 * ps);
		RBT_EQ_I(evt_ring_buffer_unlock_commit(rb, ev), 0);
		rbt_drain(rb);
	}
	evt_ring_buffer_free(rb);
}

/* ---- resize under load ----------------------------------------------------- */

#define NWRITERS 3

struct load {
	struct evt_ring_buffer *rb;
	atomic_int stop;
	atomic_int writers_done;
	int ncpu;
	const int *cpus;
	/* per writer, written by that writer only, read after join */
	uint64_t committed[NWRITERS];
	uint64_t nulls[NWRITERS];
	/* consumer */
	uint64_t consumed;
	uint64_t *last_seq;	/* [writer][cpu] + 1, 0 = none yet */
	int nr_cpus;
	atomic_int fail;
};

struct wargs {
	struct load *l;
	int id;
};

static void *load_writer(void *arg)
{
	struct load *l = ((struct wargs *)arg)->l;
	int id = ((struct wargs *)arg)->id;
	uint64_t seq = 0, rnd = (uint64_t)id * 7919 + 1;
	unsigned int i = 0;

	while (!atomic_load(&l->stop)) {
		size_t len = 16 + (size_t)(rbt_rand(&rnd) % 200);
		struct evt_ring_buffer_event *ev;

		if (!(++i % 2000) && l->ncpu > 1)
			rbt_pin(l->cpus[rbt_rand(&rnd) % (uint64_t)l->ncpu]);
		ev = evt_ring_buffer_lock_reserve(l->rb, len);
		if (!ev) {
			l->nulls[id]++;
			continue;
		}
		rbt_rec_fill(evt_ring_buffer_event_data(ev), len, 100u + (uint32_t)id, seq++);
		if (!(i % 500))
			sched_yield();
		evt_ring_buffer_unlock_commit(l->rb, ev);
		l->committed[id]++;
	}
	return NULL;
}

static void consume_one(struct load *l, struct evt_ring_buffer_event *ev, int cpu)
{
	struct rbt_rec r;
	uint64_t *last;

	memcpy(&r, evt_ring_buffer_event_data(ev), sizeof(r));
	if (r.tag < 100 || r.tag >= 100 + NWRITERS || r.len < 16 || r.len >= 216) {
		fprintf(stderr, "torn record: tag %u len %u\n", r.tag, r.len);
		atomic_store(&l->fail, 1);
		return;
	}
	rbt_rec_check(ev, r.tag, r.len);
	last = &l->last_seq[(r.tag - 100) * (unsigned int)l->nr_cpus + (unsigned int)cpu];
	if (*last && r.seq + 1 <= *last) {
		fprintf(stderr, "writer %u cpu %d: seq %" PRIu64 " after %" PRIu64 "\n",
			r.tag - 100, cpu, r.seq, *last - 1);
		atomic_store(&l->fail, 1);
	}
	*last = r.seq + 1;
	l->consumed++;
}

static void *load_consumer(void *arg)
{
	struct load *l = arg;

	for (;;) {
		int done = atomic_load(&l->writers_done);
		unsigned long got = 0;

		for (int c = 0; c < l->nr_cpus; c++) {
			struct evt_ring_buffer_event *ev;

			while ((ev = evt_ring_buffer_consume(l->rb, c, NULL, NULL))) {
				consume_one(l, ev, c);
				got++;
			}
		}
		if (done && !got)
			break;
		if (!got)
			sched_yield();
	}
	return NULL;
}

static void load_resize(unsigned int flags, const int *cpus, int ncpu, double secs)
{
	struct load l = { .ncpu = ncpu, .cpus = cpus };
	struct wargs args[NWRITERS];
	pthread_t w[NWRITERS], c;
	uint64_t committed = 0, nulls = 0, deadline, rnd = 5;
	unsigned long ok = 0, busy = 0;
	static const unsigned long sizes[] = { 2, 4, 1, 16, 8, 64, 2, 32 };

	l.rb = rbt_alloc(4 * 4096, flags);
	l.nr_cpus = evt_ring_buffer_nr_cpus(l.rb);
	l.last_seq = calloc((size_t)NWRITERS * (size_t)l.nr_cpus, sizeof(uint64_t));
	RBT_ASSERT(l.last_seq);
	for (int i = 0; i < NWRITERS; i++) {
		args[i].l = &l;
		args[i].id = i;
		RBT_EQ_I(pthread_create(&w[i], NULL, load_writer, &args[i]), 0);
	}
	RBT_EQ_I(pthread_create(&c, NULL, load_consumer, &l), 0);

	deadline = rbt_now_ns() + (uint64_t)(secs * 1e9);
	while (rbt_now_ns() < deadline) {
		unsigned long pages = sizes[rbt_rand(&rnd) % (sizeof(sizes) / sizeof(sizes[0]))];
		int cpu = rbt_rand(&rnd) % 3 ? EVT_RB_ALL_CPUS :
			  (int)(rbt_rand(&rnd) % (uint64_t)l.nr_cpus);
		int ret = evt_ring_buffer_resize(l.rb, pages * 4096, cpu);

		RBT_ASSERTF(ret == 0 || ret == -EBUSY, "resize under load: %d", ret);
		if (ret)
			busy++;
		else
			ok++;
		rbt_sleep_ns(200000);
	}
	atomic_store(&l.stop, 1);
	for (int i = 0; i < NWRITERS; i++)
		RBT_EQ_I(pthread_join(w[i], NULL), 0);
	atomic_store(&l.writers_done, 1);
	RBT_EQ_I(pthread_join(c, NULL), 0);
	RBT_EQ_I(atomic_load(&l.fail), 0);

	for (int i = 0; i < NWRITERS; i++) {
		committed += l.committed[i];
		nulls += l.nulls[i];
	}
	/* everything drained: committed = consumed + overruns + still there (0) */
	RBT_EQ_U(evt_ring_buffer_entries(l.rb), 0);
	RBT_ASSERTF(committed == l.consumed + evt_ring_buffer_overruns(l.rb),
		    "committed %" PRIu64 " != consumed %" PRIu64 " + overruns %lu", committed,
		    l.consumed, evt_ring_buffer_overruns(l.rb));
	/* refusals while a resize quiesced the CPU are not drops */
	RBT_ASSERT(evt_ring_buffer_dropped_events(l.rb) <= nulls);
	/* no state our own writers and consumer left was taken for a corrupt one */
	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(l.rb); cpu++)
		RBT_EQ_U(evt_ring_buffer_corrupt_cpu(l.rb, cpu), 0);
	printf("resize under load (%s): %lu resizes, %lu -EBUSY, %" PRIu64 " committed, %"
	       PRIu64 " consumed, %lu overruns, %lu dropped, %" PRIu64 " refused\n",
	       flags ? "overwrite" : "pc", ok, busy, committed, l.consumed,
	       evt_ring_buffer_overruns(l.rb), evt_ring_buffer_dropped_events(l.rb), nulls);
	RBT_ASSERT(ok > 0);
	free(l.last_seq);
	evt_ring_buffer_free(l.rb);
}

int main(int argc, char **argv)
{
	int cpus[CPU_SETSIZE], n = rbt_allowed_cpus(cpus, CPU_SETSIZE);
	double secs = rbt_duration(argc, argv, 0.6);

	if (n < 1)
		rbt_skip("no CPU");
	static_resize(0, cpus, n);
	static_resize(EVT_RB_FL_OVERWRITE, cpus, n);
	rbt_unpin(cpus, n);
	load_resize(0, cpus, n, secs);
	load_resize(EVT_RB_FL_OVERWRITE, cpus, n, secs);
	printf("rb-resize: PASS\n");
	return RBT_PASS;
}
