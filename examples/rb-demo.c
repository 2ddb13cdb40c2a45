// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-demo - the ring buffer in one page: four threads write events while
 * a consumer reads them back live, then the statistics.
 *
 * Build and run: make demo
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#define NR_THREADS	4
#define NR_EVENTS	12

/* What each event carries. Any bytes will do: the buffer does not look inside. */
struct demo_event {
	uint32_t thread;
	uint32_t seq;
	char msg[24];
};

static struct evt_ring_buffer *rb;

static void *writer(void *arg)
{
	uint32_t thread = (uint32_t)(uintptr_t)arg;

	for (uint32_t seq = 0; seq < NR_EVENTS; seq++) {
		struct evt_ring_buffer_event *ev;
		struct demo_event *e;

		/* Reserve room in this CPU's buffer: no lock, no system call. */
		ev = evt_ring_buffer_lock_reserve(rb, sizeof(*e));
		if (!ev)
			continue;	/* full (counted in dropped_events) or disabled */
		e = evt_ring_buffer_event_data(ev);
		e->thread = thread;
		e->seq = seq;
		snprintf(e->msg, sizeof(e->msg), "hello from %u", thread);
		/* Publish it: the consumer can see it from now on. */
		evt_ring_buffer_unlock_commit(rb, ev);
		usleep(1000 * (thread + 1));
	}
	return NULL;
}

/* Read what is there now on every CPU; return how many events. */
static int drain(uint64_t *first_ns)
{
	int n = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		struct evt_ring_buffer_event *ev;
		unsigned long lost;
		uint64_t ts;

		while ((ev = evt_ring_buffer_consume(rb, cpu, &ts, &lost))) {
			const struct demo_event *e = evt_ring_buffer_event_data(ev);

			evt_ring_buffer_normalize_time_stamp(rb, cpu, &ts);
			if (!*first_ns)
				*first_ns = ts;
			printf("  cpu %d  %4" PRIu64 ".%06" PRIu64 "  thread %u  seq %2u  %s\n", cpu,
			       (ts - *first_ns) / 1000000000u, (ts - *first_ns) / 1000 % 1000000,
			       e->thread, e->seq, e->msg);
			if (lost)
				printf("  (%lu events lost before this one)\n", lost);
			n++;
		}
	}
	return n;
}

int main(void)
{
	pthread_t threads[NR_THREADS];
	uint64_t first_ns = 0;
	int ret, read = 0;

	/* 64 KiB per CPU, producer/consumer mode (new events are dropped when full). */
	ret = evt_ring_buffer_alloc(64 * 1024, 0, &rb);
	if (ret < 0) {
		fprintf(stderr, "evt_ring_buffer_alloc: %s\n", evt_strerror(ret));
		return 1;
	}
	printf("ring buffer: %d CPUs x %lu bytes, pages of %u bytes, clock \"%s\"\n",
	       evt_ring_buffer_nr_cpus(rb), evt_ring_buffer_size(rb, 0),
	       evt_ring_buffer_page_size(rb), evt_clock_name(evt_ring_buffer_clock(rb)));
	printf("events (cpu, seconds since the first, payload):\n");

	for (uintptr_t i = 0; i < NR_THREADS; i++)
		pthread_create(&threads[i], NULL, writer, (void *)i);
	/* The consumer runs while the writers write. */
	while (read < NR_THREADS * NR_EVENTS) {
		int n = drain(&first_ns);

		read += n;
		if (!n)
			usleep(2000);
		if (read && evt_ring_buffer_dropped_events(rb))
			break;
	}
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(threads[i], NULL);
	read += drain(&first_ns);

	printf("read %d of %d events\n", read, NR_THREADS * NR_EVENTS);
	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++)
		printf("  cpu %d: entries %lu  read %lu  overruns %lu  dropped %lu\n", cpu,
		       evt_ring_buffer_entries_cpu(rb, cpu), evt_ring_buffer_read_events_cpu(rb, cpu),
		       evt_ring_buffer_overrun_cpu(rb, cpu),
		       evt_ring_buffer_dropped_events_cpu(rb, cpu));
	evt_ring_buffer_free(rb);
	return read == NR_THREADS * NR_EVENTS ? 0 : 1;
}
