// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record-exit: `evtrace record -- CMD` exits as CMD did, as strace and
 * time do: _exit(3) gives 3, SIGSEGV 139, SIGKILL 137, 0 gives 0. And the
 * file of a program that named itself (prctl, "crash-PID"), wrote events
 * and died at once keeps its records, printed with its name by
 * `evtrace report` and `trace-cmd report`, not as "<...>": the recorder
 * takes names from /proc while the process lives (and reaps its command
 * only after draining it).
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"

static char out[1 << 22];

/* The traced program: name itself, 200 events from its main thread, then end by @how. */
static int die_main(const char *how)
{
	struct rlimit no_core = { 0, 0 };
	char name[16];

	setrlimit(RLIMIT_CORE, &no_core);
	snprintf(name, sizeof(name), "crash-%d", (int)getpid());
	prctl(PR_SET_NAME, name);
	for (int i = 0; i < 200; i++)
		trace_ctl_tick(0, (unsigned long long)i);
	if (!strcmp(how, "exit3"))
		_exit(3);
	if (!strcmp(how, "segv")) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	if (!strcmp(how, "kill"))
		raise(SIGKILL);
	return 0;
}

static void one(const char *self, const char *tmp, const char *how, int want)
{
	char file[300], name[32], *line;
	struct crt_count cnt;
	int st;
	char *rec[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick", "-o", file, "--",
			(char *)self, "--die", (char *)how, NULL };
	char *rep[] = { "evtrace", "report", file, NULL };

	snprintf(file, sizeof(file), "%s/exit-%s.dat", tmp, how);
	st = crt_tool(out, sizeof(out), rec);
	printf("%-6s: exit status %d (want %d)\n", how, st, want);
	T_ASSERT_EQ(st, want);
	T_ASSERT_OK(crt_read_file(file, &cnt));
	T_ASSERT_EQ(cnt.ticks[0], 200);
	T_ASSERT(cnt.in_order[0]);
	T_ASSERT_EQ(crt_tool(out, sizeof(out), rep), 0);
	line = strstr(out, "ctl_tick: worker=0 seq=199");
	T_ASSERT(line);
	T_ASSERT(!strstr(out, "<...>"));
	T_ASSERT(strstr(out, "crash-"));
	/* the task column of the records: crash-PID-PID */
	{
		char *t = strstr(out, "crash-");
		long pid = strtol(t + 6, NULL, 10);

		snprintf(name, sizeof(name), "crash-%ld-%ld", pid, pid);
		T_ASSERT(strstr(out, name));
		printf("        %d records by %s, report prints its name\n", (int)cnt.total, name);
	}
	if (system("command -v trace-cmd >/dev/null 2>&1") == 0) {
		char cmd[600];
		long n = -1;
		FILE *p;

		snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null | grep -c '%s.*ctl_tick:'",
			 file, name);
		p = popen(cmd, "r");
		T_ASSERT(p && fscanf(p, "%ld", &n) == 1);
		pclose(p);
		printf("        trace-cmd report: %ld ctl_tick lines of %s\n", n, name);
		T_ASSERT_EQ(n, 200);
	}
}

int main(int argc, char **argv)
{
	char tmp[256], self[4096], cmd[600];

	if (argc > 2 && !strcmp(argv[1], "--die"))
		return die_main(argv[2]);
	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	one(self, tmp, "exit0", 0);
	one(self, tmp, "exit3", 3);
	one(self, tmp, "segv", 128 + SIGSEGV);
	one(self, tmp, "kill", 128 + SIGKILL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(cmd), 0);
	printf("PASS\n");
	return 0;
}
