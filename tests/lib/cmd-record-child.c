// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/cmd-record-child.c - the traced program of the tests of `evtrace record`
 * (crt_child_main(), cmd-record-util.h), and the definitions of the events it writes
 * (control-tp.h): the programs that call crt_child_main(), cct_child_main() or trace_ctl_*()
 * get them from here and include control-tp.h without CREATE_TRACE_POINTS. A test whose
 * own constructor fires them (cmd-record-hold) defines them itself, so that their
 * registration runs first (constructors run in link order), and calls neither.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/control.h>

#define CREATE_TRACE_POINTS
#include "control-tp.h"

#include "cmd-record-util.h"
#include "compat/atomic.h"

struct crt_worker {
	int id;
	long count;	/* < 0: until stopped */
};

static int crt_stop;	/* set by SIGTERM/SIGINT, read by the workers */

static void crt_on_term(int sig)
{
	(void)sig;
	/* a flag alone: nothing else is published with it */
	st_relaxed(&crt_stop, 1);
}

static void *crt_worker_main(void *arg)
{
	struct crt_worker *w = arg;
	struct timespec pause = { 0, 1000 * 1000 };

	for (long i = 0; (w->count < 0 || i < w->count) && !ld_relaxed(&crt_stop); i++) {
		trace_ctl_tick(w->id, (unsigned long long)i);
		if (i % 64 == 0)
			trace_ctl_msg(w->id, "a message from a worker");
		if (w->count < 0 && i % 16 == 15)
			nanosleep(&pause, NULL);
	}
	return NULL;
}

int crt_child_main(int argc, char **argv)
{
	int nthreads = atoi(argv[2]);
	long count = atol(argv[3]);
	struct crt_worker w[16];
	pthread_t t[16];

	signal(SIGTERM, crt_on_term);
	signal(SIGINT, crt_on_term);
	if (nthreads < 1 || nthreads > 16)
		return 2;
	if (argc > 4) {
		char path[256];
		int fd;

		for (int i = 0; i < 2000 && evt_control_path(path, sizeof(path)); i++)
			usleep(5000);
		fd = open(argv[4], O_WRONLY | O_CREAT, 0644);
		if (fd >= 0)
			close(fd);
	}
	for (int i = 0; i < nthreads; i++) {
		w[i].id = i;
		w[i].count = count;
		pthread_create(&t[i], NULL, crt_worker_main, &w[i]);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
