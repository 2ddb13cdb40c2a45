/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/cmd-ctl-child.h - a traced program for the tests of the evtrace verbs that talk
 * to a process (cmd-reset, cmd-hist, cmd-stat): the test runs itself with
 * `--child READYFILE` and EVTRACE_CONTROL=1; the child writes ctl_msg and ctl_tick
 * (control-tp.h, defined in cmd-record-child.c) every ~100 us until SIGTERM.
 * Defined in cmd-ctl-child.c of the test library; names cct_*.
 */
#ifndef EVT_TESTS_CMD_CTL_CHILD_H
#define EVT_TESTS_CMD_CTL_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

extern char cct_out[1 << 16];	/* the last command's output */
extern char cct_pid[16];	/* the child's pid, for -p */

/* The traced program: @ready is created once its control socket is up. */
int cct_child_main(const char *ready);

/*
 * The test's start: SKIP without the command; a private socket directory;
 * this program run as `--child READYFILE` with EVTRACE_CONTROL=1. Returns
 * its pid (also in cct_pid) once it serves its socket.
 */
pid_t cct_start(void);

/* `evtrace cat -p PID PATH`: its output; exits on failure */
const char *cct_cat(const char *path);

/* `evtrace write [-a] -p PID PATH DATA`: its exit status */
int cct_write(const char *path, const char *data, bool append);

#endif /* EVT_TESTS_CMD_CTL_CHILD_H */
