// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-extract: `evtrace extract -p PID -o FILE` on a running program whose
 * buffer (overwrite mode, the default, 8 KiB per CPU) has wrapped: FILE is
 * a trace.dat of its last events (each worker's sequence rising, not
 * from 0: the oldest pages were overwritten, and the file says events were
 * lost; with gaps where one CPU's buffer wrapped while another kept older
 * events), read alike by `evtrace report` and `trace-cmd report`; the
 * program goes on (alive, its events enabled, a second extract has later
 * events only, in order too: it starts where the first one stopped, inside
 * a page, and its times are the events' own, never counted from 0 - the
 * bug of a page stamped ~0, fixed in rb_take()). Errors: no -p (usage, 2),
 * a process that is not there (1, no file left).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"

static char out[1 << 22];

static void extract(const char *pid, const char *file, struct crt_count *cnt)
{
	char *a[] = { "evtrace", "extract", "-p", (char *)pid, "-o", (char *)file, NULL };

	T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
	T_ASSERT_OK(crt_read_file(file, cnt));
}

int main(int argc, char **argv)
{
	char tmp[256], self[4096], cmd[700], ready[300], f1[300], f2[300], pid[16];
	struct crt_count c1, c2;
	pid_t child;

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(ready, sizeof(ready), "%s/ready", tmp);
	snprintf(f1, sizeof(f1), "%s/x1.dat", tmp);
	snprintf(f2, sizeof(f2), "%s/x2.dat", tmp);

	setenv("EVTRACE_CONTROL", "1", 1);
	setenv("EVTRACE_EVENTS", "ctltest:ctl_tick", 1);
	child = fork();
	T_ASSERT(child >= 0);
	if (child == 0) {
		execl(self, self, "--child", "2", "-1", ready, (char *)NULL);
		_exit(127);
	}
	unsetenv("EVTRACE_CONTROL");
	unsetenv("EVTRACE_EVENTS");
	for (int i = 0; i < 2000 && access(ready, F_OK); i++)
		usleep(5000);
	T_ASSERT_OK(access(ready, F_OK));
	snprintf(pid, sizeof(pid), "%d", (int)child);
	{
		char *a[] = { "evtrace", "write", "-p", pid, "buffer_size_kb", "8", NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
	}
	usleep(300 * 1000);	/* the workers wrap the 8 KiB many times */

	extract(pid, f1, &c1);
	printf("extract 1: %ld ticks, worker 0 from %lld, worker 1 from %lld, %llu lost\n",
	       c1.ticks[0] + c1.ticks[1], c1.first[0], c1.first[1], c1.missed);
	T_ASSERT(c1.ticks[0] + c1.ticks[1] > 0);
	for (int w = 0; w < 2; w++)
		T_ASSERT(c1.increasing[w]);
	T_ASSERT(c1.first[0] > 0 || c1.first[1] > 0);	/* the last events, not the first */
	T_ASSERT(c1.missed > 0);
	T_ASSERT_OK(kill(child, 0));			/* not stopped */
	if (system("command -v trace-cmd >/dev/null 2>&1") == 0) {
		long n = -1;
		FILE *p;

		snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null | grep -c ctl_tick:", f1);
		p = popen(cmd, "r");
		T_ASSERT(p && fscanf(p, "%ld", &n) == 1);
		pclose(p);
		printf("trace-cmd report: %ld ctl_tick lines\n", n);
		T_ASSERT_EQ(n, c1.ticks[0] + c1.ticks[1]);
	}
	usleep(100 * 1000);
	extract(pid, f2, &c2);
	printf("extract 2: %ld ticks, worker 0 from %lld, worker 1 from %lld\n",
	       c2.ticks[0] + c2.ticks[1], c2.first[0], c2.first[1]);
	for (int w = 0; w < 2; w++) {
		T_ASSERT(c2.increasing[w]);
		if (c1.ticks[w] && c2.ticks[w])
			T_ASSERT(c2.first[w] >= c1.first[w] + c1.ticks[w]);
	}
	T_ASSERT(c2.ticks[0] + c2.ticks[1] > 0);	/* its events are still on */

	{
		char *a[] = { "evtrace", "extract", "-o", f2, NULL };
		char *b[] = { "evtrace", "extract", "-p", "999999999", "-o", f2, NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 2);
		unlink(f2);
		T_ASSERT_EQ(crt_tool(out, sizeof(out), b), 1);
		T_ASSERT(access(f2, F_OK) < 0);
	}
	kill(child, SIGTERM);
	T_ASSERT_EQ(cmdt_wait_status(child), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(cmd), 0);
	printf("PASS\n");
	return 0;
}
