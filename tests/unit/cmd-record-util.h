/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/cmd-record-util.h - what the tests of `evtrace record` and the
 * control verbs share (header-only): the traced program (this test binary
 * run again with "--child": threads writing the control-tp.h events), a
 * private socket directory, running the command and reading a trace.dat
 * back. The includer defines the events (CREATE_TRACE_POINTS) first.
 */
#ifndef EVT_TESTS_CMD_RECORD_UTIL_H
#define EVT_TESTS_CMD_RECORD_UTIL_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/tracedat.h>

#include "control/ctl_client.h"

#include "cmd-test.h"
#include "compat/atomic.h"
#include "control/ctl_client.h"

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

/*
 * The traced program: `--child THREADS COUNT [READYFILE]`. COUNT < 0: until
 * SIGTERM/SIGINT. READYFILE is created once the endpoint is up.
 */
static inline int crt_child_main(int argc, char **argv)
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

/*
 * The start of every cmd-* test that runs the command: SKIP when it is not
 * built; this program's own path in @self (the tests run themselves with
 * --child as the traced program).
 */
static inline void crt_begin(char *self, size_t len)
{
	ssize_t sl;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	sl = readlink("/proc/self/exe", self, len - 1);
	T_ASSERT(sl > 0);
	self[sl] = '\0';
}

/* A private socket directory for this test run (the command inherits it). */
static inline void crt_private_dir(char *tmpdir, size_t len)
{
	char tmpl[] = "/tmp/evt-crec-XXXXXX", dir[300];

	if (!mkdtemp(tmpl))
		t_fail("mkdtemp");
	snprintf(tmpdir, len, "%s", tmpl);
	snprintf(dir, sizeof(dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
}

/* Wait until a consumer (the record) holds @pid's buffer. */
static inline void crt_wait_held(pid_t pid)
{
	int ret = 0;

	for (int i = 0; i < 2000; i++) {
		struct ctl_client *c;
		int fd;

		T_ASSERT_OK(ctl_connect_pid(pid, &c));
		ret = ctl_get_buffer(c, NULL, &fd, NULL);
		if (ret == 0) {
			/*
			 * Give it back before closing: a close is released by the
			 * server's thread later, and the next probe would see our own
			 * EBUSY and take it for the record's.
			 */
			close(fd);
			T_ASSERT_OK(ctl_put_buffer(c));
		}
		ctl_close(c);
		if (ret == -EBUSY)
			return;
		usleep(5000);
	}
	t_fail("the record never took the buffer of %d", (int)pid);
}

/* Run `evtrace ARGS...` (NULL-terminated), stdout into @out; the exit status. */
static inline int crt_tool(char *out, size_t cap, char *const argv[])
{
	char errbuf[8192];
	int fd, efd[2], st;
	pid_t pid;

	if (pipe(efd))
		t_fail("pipe");
	pid = cmdt_run(argv, &fd, efd[1]);
	close(efd[1]);
	cmdt_read_all(fd, out, cap);
	st = cmdt_wait_status(pid);
	cmdt_read_all(efd[0], errbuf, sizeof(errbuf));
	if (*errbuf)
		fprintf(stderr, "[evtrace %s stderr] %s", argv[1], errbuf);
	return st;
}

/* Per worker: how many ctl_tick records, and are their seqs 0..n-1 in order. */
struct crt_count {
	long ticks[16], msgs[16];
	bool in_order[16];	/* each seq is the one before + 1 */
	bool increasing[16];	/* each seq is above the one before (gaps allowed: losses) */
	long long first[16];	/* the first seq seen */
	long total;
	unsigned long long missed;
};

/* The bytes of field @name of @rec, by the file's format. */
static inline int crt_field(const struct evt_tracedat_event *ev, const char *name,
			    const struct evt_tracedat_record *rec, void *out, size_t size)
{
	for (unsigned int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name) && ev->fields[i].size == size &&
		    (size_t)ev->fields[i].offset + size <= rec->size) {
			memcpy(out, (const char *)rec->data + ev->fields[i].offset, size);
			return 0;
		}
	return -1;
}

static inline int crt_read_file(const char *path, struct crt_count *cnt)
{
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	long long next[16];
	int ret;

	memset(cnt, 0, sizeof(*cnt));
	for (int i = 0; i < 16; i++) {
		cnt->in_order[i] = true;
		cnt->increasing[i] = true;
		next[i] = -1;	/* the first record of a worker may have any seq */
	}
	ret = evt_tracedat_open(path, &td);
	if (ret) {
		fprintf(stderr, "%s: %s\n", path, evt_error_detail());
		return ret;
	}
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		const struct evt_tracedat_event *ev = rec.event;
		int worker;

		cnt->total++;
		if (rec.missed && rec.missed != ~0ULL)
			cnt->missed += rec.missed;
		if (!ev || strcmp(ev->system, "ctltest"))
			continue;
		if (crt_field(ev, "worker", &rec, &worker, sizeof(worker)) || worker < 0 ||
		    worker >= 16)
			continue;
		if (!strcmp(ev->name, "ctl_tick")) {
			unsigned long long seq;

			if (crt_field(ev, "seq", &rec, &seq, sizeof(seq)))
				continue;
			if (next[worker] >= 0 && (long long)seq != next[worker])
				cnt->in_order[worker] = false;
			if (next[worker] >= 0 && (long long)seq < next[worker])
				cnt->increasing[worker] = false;
			if (next[worker] < 0)
				cnt->first[worker] = (long long)seq;
			next[worker] = (long long)seq + 1;
			cnt->ticks[worker]++;
		} else {
			cnt->msgs[worker]++;
		}
	}
	evt_tracedat_close(td);
	return ret;
}

#endif /* EVT_TESTS_CMD_RECORD_UTIL_H */
