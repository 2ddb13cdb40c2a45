/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/cmd-record-util.h - what the tests of `evtrace record` and the control verbs
 * share: the traced program (the test binary run again with "--child": threads writing the
 * control-tp.h events), a private socket directory, running the command and reading a
 * trace.dat back. Defined in cmd-record-util.c and cmd-record-child.c of the test library;
 * the latter also defines the events: include control-tp.h without CREATE_TRACE_POINTS
 * (unless the test fires them from a constructor of its own: cmd-record-child.c says why).
 * Names crt_*.
 */
#ifndef EVT_TESTS_CMD_RECORD_UTIL_H
#define EVT_TESTS_CMD_RECORD_UTIL_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/tracedat.h>

#include "cmd-test.h"
#include "compat/atomic.h"
#include "control/ctl_client.h"

/*
 * The traced program: `--child THREADS COUNT [READYFILE]`. COUNT < 0: until
 * SIGTERM/SIGINT. READYFILE is created once the endpoint is up.
 */
int crt_child_main(int argc, char **argv);

/*
 * The start of every cmd-* test that runs the command: SKIP when it is not
 * built; this program's own path in @self (the tests run themselves with
 * --child as the traced program).
 */
void crt_begin(char *self, size_t len);

/* A private socket directory for this test run (the command inherits it). */
void crt_private_dir(char *tmpdir, size_t len);

/* Wait until a consumer (the record) holds @pid's buffer. */
void crt_wait_held(pid_t pid);

/* Run `evtrace ARGS...` (NULL-terminated), stdout into @out; the exit status. */
int crt_tool(char *out, size_t cap, char *const argv[]);

/* Per worker: how many ctl_tick records, and are their seqs 0..n-1 in order. */
struct crt_count {
	long ticks[16], msgs[16];
	bool in_order[16];	/* each seq is the one before + 1 */
	bool increasing[16];	/* each seq is above the one before (gaps allowed: losses) */
	long long first[16];	/* the first seq seen */
	long total;
	unsigned long long missed;
};

/* The bytes of field @name of @rec, by the file's format: 0, or -1 (no such field). */
int crt_field(const struct evt_tracedat_event *ev, const char *name,
	      const struct evt_tracedat_record *rec, void *out, size_t size);

/* Count the ctltest records of the trace.dat at @path into @cnt: 0 or -errno. */
int crt_read_file(const char *path, struct crt_count *cnt);

#endif /* EVT_TESTS_CMD_RECORD_UTIL_H */
