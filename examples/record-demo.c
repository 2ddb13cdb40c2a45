// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-demo: a multi-threaded program to record from outside.
 *
 *   record-demo [-t THREADS] [-n REQUESTS] [-d SECONDS]
 *
 * THREADS workers (default 4) each handle REQUESTS requests (default 200;
 * with -d: until SECONDS passed; -d 0: until Ctrl-C), writing a
 * recdemo:req_start and a recdemo:req_done event per request. It does
 * nothing about tracing itself: run it under the evtrace command,
 *
 *   evtrace record -e 'recdemo:*' -o demo.dat -- ./record-demo -t 4 -n 1000
 *   evtrace report demo.dat | head
 *   trace-cmd report demo.dat | head
 *
 * or start it with EVTRACE_CONTROL=1 and attach: `evtrace list`,
 * `evtrace record -p PID -o demo.dat` (Ctrl-C to stop), `evtrace stat`,
 * `evtrace cat -p PID trace_pipe`.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#define CREATE_TRACE_POINTS
#include "record-demo-tp.h"

static atomic_int stop; /* set by SIGINT/SIGTERM, read by the workers */
static long requests = 200;
static double seconds = -1;

static void on_stop(int sig)
{
	(void)sig;
	atomic_store_explicit(&stop, 1, memory_order_relaxed); /* a flag, nothing else */
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	static const char *const paths[] = { "/index.html", "/api/v1/items", "/login", "/static" };
	int id = (int)(long)arg;
	double end = seconds > 0 ? now() + seconds : 0;

	for (unsigned long long req = 0;; req++) {
		struct timespec work = { 0, 20000 + 5000 * (long)(req % 7) };
		double t0;

		if (atomic_load_explicit(&stop, memory_order_relaxed) ||
		    (seconds < 0 && (long)req >= requests) || (end && now() >= end))
			break;
		t0 = now();
		trace_req_start(id, req, paths[(req + (unsigned int)id) % 4]);
		nanosleep(&work, NULL);
		trace_req_done(id, req, (unsigned int)((now() - t0) * 1e6));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int threads = 4, opt;

	while ((opt = getopt(argc, argv, "t:n:d:")) != -1) {
		switch (opt) {
		case 't':
			threads = atoi(optarg);
			break;
		case 'n':
			requests = atol(optarg);
			break;
		case 'd':
			seconds = atof(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: record-demo [-t THREADS] [-n REQUESTS] [-d SECONDS]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 64 || requests < 0) {
		fprintf(stderr, "record-demo: 1 to 64 threads, requests >= 0\n");
		return 2;
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	if (seconds == 0)
		seconds = 1e9; /* until Ctrl-C */
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("record-demo: %d workers done\n", threads);
	return 0;
}
