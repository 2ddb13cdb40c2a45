// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-demo: a program with events in three subsystems, traced through the
 * tracing file tree as one would trace the kernel through /sys/kernel/tracing:
 *
 *   echo 'demo_net:* demo_app:app_req' > set_event
 *   echo 'len > 1000' > events/demo_net/net_rx/filter
 *   echo 'hist:keys=queue:vals=len:sort=queue' > events/demo_net/net_tx/trigger
 *   ... four threads run ...
 *   cat trace
 *   cat events/demo_net/net_tx/hist
 *
 * With a FILE argument it then writes the trace as a trace.dat file (what
 * `evtrace record` will write from outside the program), for `evtrace report`,
 * `trace-cmd report`, KernelShark and `evtrace export` (Perfetto).
 *
 * `make demo` runs it after rb-demo, with build/events-demo.dat.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#define CREATE_TRACE_POINTS
#include "events-demo-tp.h"

#define ROUNDS 4

static void *worker(void *arg)
{
	static const char *const paths[] = { "/index.html", "/api/v1/items", "/login" };
	int id = (int)(long)arg;

	for (int i = 0; i < ROUNDS; i++) {
		/* net_rx: only len > 1000 passes the filter */
		trace_net_rx(id, (unsigned int)(400 * (i + 1) + id));
		trace_app_req(id * 100 + i, paths[(id + i) % 3]);
		/* disk_io: not enabled, costs a byte test */
		trace_disk_io((unsigned long long)(id * 8192 + i * 8), i & 1);
		trace_net_tx(id, (unsigned int)(64 * (i + 1) * (id + 1)));
	}
	return NULL;
}

/* echo TEXT > PATH, and say so */
static int echo(const char *text, const char *path)
{
	size_t done = 0, len = strlen(text);
	struct evt_tracefs_file *f;
	ssize_t n;

	n = evt_tracefs_open(NULL, path, EVT_TRACEFS_WRITE | EVT_TRACEFS_TRUNC, &f);
	if (!n) {
		/* as the shell's echo: write again after a short write (set_event
		 * takes one word per write(2), as the kernel's) */
		do {
			n = evt_tracefs_file_write(f, text + done, len - done);
			if (n > 0)
				done += (size_t)n;
		} while (n > 0 && done < len);
		evt_tracefs_close(f);
	}
	printf("# echo '%s' > %s%s%s\n", text, path, n < 0 ? ": " : "",
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

int main(int argc, char **argv)
{
	pthread_t t[4];
	int err = 0;

	err |= echo("demo_net:* demo_app:app_req", "set_event");
	err |= echo("len > 1000", "events/demo_net/net_rx/filter");
	/* a histogram of the bytes sent per queue (the kernel's hist trigger) */
	err |= echo("hist:keys=queue:vals=len:sort=queue", "events/demo_net/net_tx/trigger");
	err |= cat("set_event");
	err |= cat("events/enable");
	err |= cat("events/demo_net/net_rx/filter");
	/* a mistake, to show how a rejected filter reads back (the one before stays) */
	echo("len > 1000 && nosuch == 1", "events/demo_net/net_rx/filter");
	err |= cat("events/demo_net/net_rx/filter");

	for (long i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);

	err |= cat("trace");
	err |= cat("events/demo_net/net_tx/hist");
	err |= cat("error_log");
	if (argc > 1) {
		/* after `cat trace`: writing the file consumes the buffer, as trace_pipe_raw does */
		long long n = evt_tracedat_write_file(NULL, argv[1], 0);

		printf("# wrote %s: %lld bytes%s%s\n", argv[1], n < 0 ? 0 : n, n < 0 ? ", " : "",
		       n < 0 ? evt_strerror((int)n) : "");
		err |= n < 0;
	}
	echo("!hist:keys=queue:vals=len:sort=queue", "events/demo_net/net_tx/trigger");
	echo("", "set_event");
	return err;
}
