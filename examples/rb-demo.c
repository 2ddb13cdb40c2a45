// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-demo.c - the ring buffer on one page: start here.
 *
 * Four writer threads each record a dozen small events while a consumer
 * thread reads them back live, oldest first, and prints them; then the
 * statistics of every per-CPU buffer. The interleaving of the lines
 * changes from run to run; their shape does not.
 *
 * Build and run: make demo
 */
#define _GNU_SOURCE 1	/* for sched_setaffinity() */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#define NR_WRITERS	4
#define NR_EVENTS	12	/* per writer */

/* An event's payload. Any bytes will do: the buffer never looks inside. */
struct demo_event {
	uint32_t thread;
	uint32_t seq;
	char msg[16];
};

static struct evt_ring_buffer *rb;
static atomic_int writers_left = NR_WRITERS;

static void *writer(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;
	cpu_set_t cpus;

	/* Spread the writers over the CPUs: each CPU has a buffer of its own. */
	CPU_ZERO(&cpus);
	CPU_SET(id % sysconf(_SC_NPROCESSORS_ONLN), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);	/* if it fails, any CPU will do */

	for (uint32_t seq = 0; seq < NR_EVENTS; seq++) {
		struct evt_ring_buffer_event *ev;
		struct demo_event *e;

		/* Room in the buffer of the CPU we run on: no lock, no system call. */
		ev = evt_ring_buffer_lock_reserve(rb, sizeof(*e));
		if (!ev)
			continue;	/* full or disabled: counted, never waits */
		e = evt_ring_buffer_event_data(ev);
		e->thread = id;
		e->seq = seq;
		snprintf(e->msg, sizeof(e->msg), "%s", seq ? "tick" : "hello");
		/* Publish it: from now on the consumer can see it. */
		evt_ring_buffer_unlock_commit(rb, ev);
		usleep(500 * (id + 1));	/* let the threads interleave */
	}
	atomic_fetch_sub(&writers_left, 1);
	return NULL;
}

/*
 * Each CPU's events are in time order; to see all of them in order, peek
 * at every CPU's next event and take the oldest (trace-cmd does the same).
 * Return: the CPU holding the oldest unread event, or -1 if none.
 */
static int oldest_cpu(void)
{
	uint64_t ts, best_ts = UINT64_MAX;
	int best = -1;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		if (evt_ring_buffer_peek(rb, cpu, &ts, NULL) && ts < best_ts) {
			best_ts = ts;
			best = cpu;
		}
	}
	return best;
}

static void *consumer(void *arg)
{
	uint64_t ts, first = 0;
	int *nread = arg;

	for (;;) {
		/* Read "done" first: if the buffer is empty after that, it stays so. */
		int done = atomic_load(&writers_left) == 0;
		int cpu = oldest_cpu();
		struct evt_ring_buffer_event *ev;
		const struct demo_event *e;
		uint64_t rel;

		if (cpu < 0) {
			if (done)
				break;
			usleep(1000);	/* nothing yet: a real tracer would poll or sleep too */
			continue;
		}
		/* Take the event we peeked at; the pointer is valid until the next read. */
		ev = evt_ring_buffer_consume(rb, cpu, &ts, NULL);
		e = evt_ring_buffer_event_data(ev);
		evt_ring_buffer_normalize_time_stamp(rb, cpu, &ts);	/* to nanoseconds */
		if (!*nread)
			first = ts;
		rel = ts > first ? ts - first : 0;
		printf("  [%03d] %3" PRIu64 ".%06" PRIu64 "  thread %" PRIu32 "  seq %2" PRIu32
		       "  %s\n", cpu, rel / 1000000000, rel / 1000 % 1000000, e->thread, e->seq,
		       e->msg);
		(*nread)++;
	}
	return NULL;
}

int main(void)
{
	pthread_t writers[NR_WRITERS], reader;
	int ret, nread = 0;

	/* 64 KiB per CPU; producer/consumer mode: when full, new events are dropped. */
	ret = evt_ring_buffer_alloc(64 * 1024, 0, &rb);
	if (ret < 0) {
		fprintf(stderr, "evt_ring_buffer_alloc: %s\n", evt_strerror(ret));
		return 1;
	}
	printf("ring buffer: %d CPUs x %lu bytes, %u-byte pages, clock \"%s\"\n",
	       evt_ring_buffer_nr_cpus(rb), evt_ring_buffer_size(rb, 0),
	       evt_ring_buffer_page_size(rb), evt_clock_name(evt_ring_buffer_clock(rb)));
	printf("  [cpu] seconds     payload: writer, sequence, message\n");

	pthread_create(&reader, NULL, consumer, &nread);
	for (uintptr_t i = 0; i < NR_WRITERS; i++)
		pthread_create(&writers[i], NULL, writer, (void *)i);
	for (int i = 0; i < NR_WRITERS; i++)
		pthread_join(writers[i], NULL);
	pthread_join(reader, NULL);

	printf("read %d of %d events\n", nread, NR_WRITERS * NR_EVENTS);
	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++)
		printf("  cpu %d: entries %lu  read %lu  overruns %lu  dropped %lu\n", cpu,
		       evt_ring_buffer_entries_cpu(rb, cpu), evt_ring_buffer_read_events_cpu(rb, cpu),
		       evt_ring_buffer_overrun_cpu(rb, cpu),
		       evt_ring_buffer_dropped_events_cpu(rb, cpu));
	evt_ring_buffer_free(rb);
	return nread == NR_WRITERS * NR_EVENTS ? 0 : 1;
}
