// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/cmd-ctl-child.c - the traced program of the tests of the verbs that talk to a
 * process (cmd-ctl-child.h)
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-ctl-child.h"
#include "cmd-record-util.h"
#include "compat/atomic.h"

static int cct_stop;

static void cct_on_term(int sig)
{
	(void)sig;
	st_relaxed(&cct_stop, 1); /* a flag alone */
}

int cct_child_main(const char *ready)
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

char cct_out[1 << 16];
char cct_pid[16];

pid_t cct_start(void)
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

const char *cct_cat(const char *path)
{
	char *a[] = { "evtrace", "cat", "-p", cct_pid, (char *)path, NULL };

	T_ASSERT_EQ(crt_tool(cct_out, sizeof(cct_out), a), 0);
	return cct_out;
}

int cct_write(const char *path, const char *data, bool append)
{
	char *w[] = { "evtrace", "write", "-p", cct_pid, (char *)path, (char *)data, NULL };
	char *wa[] = { "evtrace", "write", "-a", "-p", cct_pid, (char *)path, (char *)data, NULL };

	return crt_tool(cct_out, sizeof(cct_out), append ? wa : w);
}
