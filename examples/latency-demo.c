// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * latency-demo: the kernel's most loved histogram, an inter-event latency
 * (histogram.rst 2.2), on a program's own events. Four threads serve
 * requests; each request fires demo_lat:req_start and, some microseconds
 * to a few milliseconds later, demo_lat:req_end with the same id. Through
 * the tracing file tree, as one would on /sys/kernel/tracing:
 *
 *   echo 'req_lat unsigned int id; unsigned int kind; u64 lat' >> synthetic_events
 *   echo 'hist:keys=id:ts0=common_timestamp.usecs:k=kind' \
 *        > events/demo_lat/req_start/trigger
 *   echo 'hist:keys=id:lat=common_timestamp.usecs-$ts0:' \
 *        'onmatch(demo_lat.req_start).trace(req_lat,id,$k,$lat)' \
 *        > events/demo_lat/req_end/trigger
 *   echo 'hist:keys=kind,lat.log2:sort=kind,lat' > events/synthetic/req_lat/trigger
 *   ... the threads run ...
 *   cat events/synthetic/req_lat/hist
 *
 * The req_start histogram keeps each request's start time (variable ts0)
 * by id; when req_end fires with the same id, lat = now - ts0 and the
 * synthetic event req_lat is traced with it; its own histogram counts the
 * latencies per kind of request in power-of-two buckets of microseconds.
 * Nothing is recorded into the ring buffer: the events only run triggers.
 *
 * `make demo` runs it after events-demo.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#define CREATE_TRACE_POINTS
#include "latency-demo-tp.h"

#define THREADS	 4
#define REQUESTS 50

static void sleep_us(unsigned long us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)us * 1000 };

	nanosleep(&ts, NULL);
}

/* Three kinds of request: cached (fast), database (slower), and a slow report. */
static void *worker(void *arg)
{
	unsigned int thread = (unsigned int)(long)arg;
	unsigned int seed = thread * 2654435761u + 1;

	for (unsigned int i = 0; i < REQUESTS; i++) {
		unsigned int id = thread * 1000 + i, kind;

		seed = seed * 1103515245u + 12345u;
		kind = (seed >> 16) % 10 < 6 ? 0 : (seed >> 16) % 10 < 9 ? 1 : 2;
		trace_req_start(id, kind);
		sleep_us(kind == 0 ? 5 + (seed >> 20) % 20 :
			 kind == 1 ? 200 + (seed >> 20) % 300 : 2000 + (seed >> 20) % 2000);
		trace_req_end(id, kind == 2 ? 500 : 200);
	}
	return NULL;
}

/* echo TEXT > PATH (or >> with @append), and say so */
static int echo(const char *text, const char *path, bool append)
{
	ssize_t n = evt_tracefs_write(NULL, path, text, strlen(text),
				      append ? EVT_TRACEFS_APPEND : EVT_TRACEFS_TRUNC);

	printf("# echo '%s' %s %s%s%s\n", text, append ? ">>" : ">", path, n < 0 ? ": " : "",
	       n < 0 ? evt_strerror((int)n) : "");
	return n < 0 ? 1 : 0;
}

/* cat PATH */
static int cat(const char *path)
{
	struct evt_tracefs_file *f;
	char buf[4096];
	ssize_t n;
	int ret;

	printf("# cat %s\n", path);
	ret = evt_tracefs_open(NULL, path, EVT_TRACEFS_READ, &f);
	if (ret) {
		fprintf(stderr, "%s: %s\n", path, evt_strerror(ret));
		return 1;
	}
	while ((n = evt_tracefs_file_read(f, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	evt_tracefs_close(f);
	return n < 0;
}

int main(void)
{
	pthread_t t[THREADS];
	int err = 0;

	err |= echo("req_lat unsigned int id; unsigned int kind; u64 lat", "synthetic_events",
		    true);
	err |= echo("hist:keys=id:ts0=common_timestamp.usecs:k=kind",
		    "events/demo_lat/req_start/trigger", false);
	err |= echo("hist:keys=id:lat=common_timestamp.usecs-$ts0:"
		    "onmatch(demo_lat.req_start).trace(req_lat,id,$k,$lat)",
		    "events/demo_lat/req_end/trigger", false);
	err |= echo("hist:keys=kind,lat.log2:sort=kind,lat", "events/synthetic/req_lat/trigger",
		    false);
	if (err)
		return 1;

	printf("# ... %d threads serve %d requests each ...\n", THREADS, REQUESTS);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);

	printf("# kind 0: cached (5-25 us), 1: database (200-500 us), 2: report (2-4 ms)\n");
	err |= cat("events/synthetic/req_lat/hist");
	return err;
}
