// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * examples/events-basic.c - static tracepoints with TRACE_EVENT().
 *
 * Defines two events (events-basic-tp.h), enables one subsystem in the top
 * instance, sets a filter, fires events from a few threads and prints the
 * `trace` text as ftrace would. Run with EVTRACE_EVENTS=basic:basic_state
 * to see the start-up option at work.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/seq.h>

#define CREATE_TRACE_POINTS
#include "events-basic-tp.h"

#define WORKERS		3
#define REQUESTS	4

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	char path[32];

	trace_basic_state(id, 1);
	for (int i = 0; i < REQUESTS; i++) {
		snprintf(path, sizeof(path), "/data/%d/%d", id, i);
		trace_basic_request(id, (unsigned long long)i, path,
				    i % 2 ? BASIC_REQ_WRITE | BASIC_REQ_SYNC : BASIC_REQ_READ);
	}
	trace_basic_state(id, 2);
	return NULL;
}

int main(void)
{
	struct evt_instance *top = evt_instance_top();
	pthread_t th[WORKERS];
	static char text[1 << 16];
	int ret;

	if (!top)
		return 1;
	/* echo basic:basic_request > set_event; a filter on it; the format file */
	ret = evt_instance_event_enable(top, "basic", "basic_request", true);
	if (ret < 0)
		return 1;
	ret = evt_instance_event_filter(top, "basic", "basic_request", "seq < 2 || worker == 0");
	if (ret < 0)
		return 1;
	evt_event_format_text("basic", "basic_request", text, sizeof(text));
	fputs(text, stdout);
	putchar('\n');

	for (long i = 0; i < WORKERS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	evt_instance_trace_marker(top, "workers done", 12);

	ret = evt_instance_trace_text(top, -1, text, sizeof(text));
	if (ret < 0)
		return 1;
	fputs(text, stdout);
	return 0;
}
