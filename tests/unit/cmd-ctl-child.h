/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/cmd-ctl-child.h - a traced program for the tests of the evtrace
 * verbs that talk to a process (cmd-reset, cmd-hist): the test runs itself
 * with `--child READYFILE` and EVTRACE_CONTROL=1; the child writes ctl_msg and
 * ctl_tick (control-tp.h, defined by the test) every ~100 us until SIGTERM.
 * Names cct_*. Include after cmd-record-util.h.
 */
#ifndef EVT_TESTS_CMD_CTL_CHILD_H
#define EVT_TESTS_CMD_CTL_CHILD_H

#include <stdbool.h>
#include <sys/prctl.h>

static int cct_stop;

static void cct_on_term(int sig)
{
	(void)sig;
	st_relaxed(&cct_stop, 1); /* a flag alone */
}

/* The traced program: @ready is created once its control socket is up. */
static inline int cct_child_main(const char *ready)
{
	struct timespec pause = { 0, 100 * 1000 };
	char path[256];
	int fd;

	signal(SIGTERM, cct_on_term);
	for (int i = 0; i < 2000 && evt_control_path(path, sizeof(path)); i++)
		usleep(5000);
	fd = open(ready, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	for (unsigned long long i = 0; !ld_relaxed(&cct_stop); i++) {
		trace_ctl_msg(0, "tick");
		trace_ctl_tick(0, i);
		nanosleep(&pause, NULL);
	}
	return 0;
}

static char cct_out[1 << 16]; /* the last command's output */
static char cct_pid[16];      /* the child's pid, for -p */

/*
 * The test's start: SKIP without the command; a private socket directory;
 * this program run as `--child READYFILE` with EVTRACE_CONTROL=1. Returns
 * its pid (also in cct_pid) once it serves its socket.
 */
static inline pid_t cct_start(void)
{
	static char self[4096], tmp[256], ready[300];
	pid_t prog;

	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(ready, sizeof(ready), "%s/ready", tmp);
	prog = fork();
	T_ASSERT(prog >= 0);
	if (prog == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves nothing behind */
		setenv("EVTRACE_CONTROL", "1", 1);
		execl(self, self, "--child", ready, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 2000 && access(ready, F_OK); i++)
		usleep(5000);
	T_ASSERT(access(ready, F_OK) == 0);
	snprintf(cct_pid, sizeof(cct_pid), "%d", (int)prog);
	return prog;
}


/* `evtrace cat -p PID PATH`: its output; exits on failure */
static inline const char *cct_cat(const char *path)
{
	char *a[] = { "evtrace", "cat", "-p", cct_pid, (char *)path, NULL };

	T_ASSERT_EQ(crt_tool(cct_out, sizeof(cct_out), a), 0);
	return cct_out;
}

/* `evtrace write [-a] -p PID PATH DATA`: its exit status */
static inline int cct_write(const char *path, const char *data, bool append)
{
	char *w[] = { "evtrace", "write", "-p", cct_pid, (char *)path, (char *)data, NULL };
	char *wa[] = { "evtrace", "write", "-a", "-p", cct_pid, (char *)path, (char *)data, NULL };

	return crt_tool(cct_out, sizeof(cct_out), append ? wa : w);
}

#endif
