// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-merge-order: evt_ring_buffer_peek_oldest() keeps each writer's order while it moves
 * between CPUs. A writer thread writes seq 0, 1, 2, ... and moves to the next allowed CPU
 * before every write; a reader thread drains the buffer at the same time, in the merged
 * order (peek_oldest, then consume that CPU), as trace_pipe does. Every seq must come out
 * exactly once and in order. A merge that looks at the CPUs once, one after another, fails
 * here within a fraction of a second: the reader looks at CPU A while it is empty, the writer
 * then commits N on A and N + 1 on B, and the reader finds N + 1 on B first.
 *
 * Usage: rb-merge-order [-d SECONDS] (default 1).
 */
#include <stdatomic.h>

#include "rb-test.h"

#define REC_LEN 24
#define TAG 7

static struct evt_ring_buffer *rb;
static int cpus[CPU_SETSIZE], ncpus;
static atomic_bool done;	/* the writer wrote its last seq */
static uint64_t written;	/* the writer's, read after the join */

static void *writer(void *arg)
{
	double secs = *(double *)arg;
	uint64_t t0 = rbt_now_ns(), seq = 0;

	do {
		for (int i = 0; i < 64; i++, seq++) {
			RBT_EQ_I(rbt_pin(cpus[seq % (uint64_t)ncpus]), 0);
			RBT_EQ_I(rbt_write_rec(rb, REC_LEN, TAG, seq), 0);
		}
	} while (rbt_now_ns() - t0 < (uint64_t)(secs * 1e9));
	written = seq;
	/* Release: every write before it is committed (pairs with the reader's acquire). */
	atomic_store_explicit(&done, true, memory_order_release);
	return NULL;
}

/* Consume in merged order; return the count, checking seq by seq. */
static uint64_t drain(uint64_t *next)
{
	int nr = evt_ring_buffer_nr_cpus(rb), cpu;
	uint64_t n = 0;

	while ((cpu = evt_ring_buffer_peek_oldest(rb, 0, nr, NULL, NULL, NULL)) >= 0) {
		struct evt_ring_buffer_event *ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL);
		uint64_t seq;

		RBT_ASSERTF(ev, "cpu %d: peeked, then nothing to consume", cpu);
		seq = rbt_rec_check(ev, TAG, REC_LEN);
		RBT_ASSERTF(seq == *next, "seq %" PRIu64 " on cpu %d where %" PRIu64
			    " was due: the merge broke the writer's order", seq, cpu, *next);
		(*next)++;
		n++;
	}
	RBT_EQ_I(cpu, -ENODATA);
	return n;
}

int main(int argc, char **argv)
{
	double secs = rbt_duration(argc, argv, 1.0);
	uint64_t next = 0, passes = 0;
	pthread_t th;

	ncpus = rbt_allowed_cpus(cpus, CPU_SETSIZE);
	if (ncpus < 2) {
		printf("SKIP: one CPU: nothing to merge\n");
		return RBT_SKIP;
	}
	/* big enough that the reader never falls a whole buffer behind (checked: nothing lost) */
	rb = rbt_alloc(4 << 20, 0);
	RBT_EQ_I(evt_ring_buffer_peek_oldest(rb, 0, 0, NULL, NULL, NULL), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_peek_oldest(rb, 0, evt_ring_buffer_nr_cpus(rb) + 1, NULL, NULL,
					     NULL), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_peek_oldest(rb, 0, evt_ring_buffer_nr_cpus(rb), NULL, NULL,
					     NULL), -ENODATA);
	RBT_EQ_I(pthread_create(&th, NULL, writer, &secs), 0);
	/* Acquire: pairs with the writer's release; one more drain after it takes the rest. */
	while (!atomic_load_explicit(&done, memory_order_acquire)) {
		/* Spinning, never yielding: the writer that comes to this CPU preempts the reader
		 * anywhere, also between two CPUs of a merge (what makes a one-pass merge fail) */
		drain(&next);
		passes++;
	}
	drain(&next);
	RBT_EQ_I(pthread_join(th, NULL), 0);
	RBT_EQ_U(next, written);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);
	printf("rb-merge-order: %" PRIu64 " events over %d CPUs, each once and in order (%" PRIu64
	       " drains)\n", written, ncpus, passes);
	evt_ring_buffer_free(rb);
	return RBT_PASS;
}
