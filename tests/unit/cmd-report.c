// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-report: `evtrace report FILE` prints the lines of the instance's
 * `trace` text for a trace.dat written from it; -e and -c select; a
 * truncated file prints the error with its offset and exits 1; --info
 * lists the events.
 */
#include <sys/wait.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif

/* The stdout lines of `evtrace ARGS` (stderr to @errfile); *@status: exit status. */
static char **last_lines;
static int last_n;

static int run(const char *args, char ***linesp, int *status)
{
	char cmd[1024], buf[4096], **lines = NULL;
	int n = 0, st;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s %s", EVT_TOOL, args);
	f = popen(cmd, "r");
	T_ASSERT(f);
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		lines = realloc(lines, (size_t)(n + 1) * sizeof(*lines));
		T_ASSERT(lines);
		lines[n++] = strdup(buf);
	}
	st = pclose(f);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	td_free_lines(last_lines, last_n);
	last_lines = lines;
	last_n = n;
	*linesp = lines;
	return n;
}

int main(void)
{
	struct evt_instance *inst;
	char **ours, **theirs, args[1024], cut[200], errf[200], *path;
	int nours, n, st, nbig = 0;
	FILE *f;

	for (int i = 0; i < TD_PER_THREAD; i++)
		nbig += i % 4 == 3;
	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	prctl(PR_SET_NAME, "td-cmd-report", 0, 0, 0);
	inst = td_record("cmd-report", NULL);
	nours = td_trace_lines(inst, &ours);
	path = td_write_tmp(inst, "cmd-report");

	snprintf(args, sizeof(args), "report %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(st, 0);
	T_ASSERT_EQ(n, nours);
	qsort(ours, (size_t)nours, sizeof(*ours), td_strcmp);
	qsort(theirs, (size_t)n, sizeof(*theirs), td_strcmp);
	for (int i = 0; i < n; i++)
		if (strcmp(ours[i], theirs[i]))
			t_fail("line %d:\n  trace:  [%s]\n  report: [%s]", i, ours[i], theirs[i]);

	/* -e: one event; a system glob */
	snprintf(args, sizeof(args), "report -e td_big %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(st, 0);
	T_ASSERT_EQ(n, TD_THREADS * nbig);
	for (int i = 0; i < n; i++)
		T_ASSERT(strstr(theirs[i], " td_big: "));
	snprintf(args, sizeof(args), "report -e 'tdapp:*' %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(n, TD_THREADS * (TD_PER_THREAD - nbig));
	/* -c: CPU 0 only */
	snprintf(args, sizeof(args), "report -c 0 %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(st, 0);
	for (int i = 0; i < n; i++)
		T_ASSERT(strstr(theirs[i], "] ") && strstr(theirs[i], " [000] "));
	/* -F: the kernel's filter grammar on the record's fields */
	snprintf(args, sizeof(args), "report -F 'worker == 2 && u16 > 300' %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(st, 0);
	T_ASSERT(n > 0);
	for (int i = 0; i < n; i++)
		T_ASSERT(strstr(theirs[i], " td_ints: worker=2 "));
	snprintf(args, sizeof(args), "report -F 'worker == 1' %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(n, TD_PER_THREAD);
	snprintf(args, sizeof(args), "report -F 'nosuch == 1' %s 2>/dev/null", path);
	run(args, &theirs, &st);
	T_ASSERT_EQ(st, 2);
	/* --first/--last: an empty range, the whole range */
	snprintf(args, sizeof(args), "report --first 1 --last 0 %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(st, 0);
	T_ASSERT_EQ(n, 0);
	snprintf(args, sizeof(args), "report --first 0 --last 0xffffffffffffffff %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(n, nours);
	/* a version 7 file (when trace-cmd can make one): exit 1, and how to convert it */
	snprintf(args, sizeof(args), "command -v trace-cmd >/dev/null && "
		 "trace-cmd convert -i %s -o %s.v7 >/dev/null 2>&1", path, path);
	if (system(args) == 0) {
		snprintf(args, sizeof(args), "report %s.v7 2>&1", path);
		n = run(args, &theirs, &st);
		T_ASSERT_EQ(st, 1);
		T_ASSERT(n == 1 && strstr(theirs[0], "version 7") &&
			 strstr(theirs[0], "--file-version 6"));
		snprintf(args, sizeof(args), "%s.v7", path);
		unlink(args);
	}
	/* --info */
	snprintf(args, sizeof(args), "report --info %s", path);
	n = run(args, &theirs, &st);
	T_ASSERT_EQ(st, 0);
	{
		bool big = false;

		for (int i = 0; i < n; i++)
			big |= strstr(theirs[i], "tdnet:td_big") != NULL;
		T_ASSERT(big);
	}

	/* truncated: an error naming the offset, exit 1 */
	snprintf(cut, sizeof(cut), "%s.cut", path);
	snprintf(errf, sizeof(errf), "%s.err", path);
	snprintf(args, sizeof(args), "head -c 5000 %s > %s", path, cut);
	T_ASSERT_EQ(system(args), 0);
	snprintf(args, sizeof(args), "report %s 2>%s", cut, errf);
	run(args, &theirs, &st);
	T_ASSERT_EQ(st, 1);
	f = fopen(errf, "r");
	T_ASSERT(f);
	T_ASSERT(fgets(args, sizeof(args), f));
	fclose(f);
	if (!strstr(args, "offset "))
		t_fail("no offset in [%s]", args);
	/* usage error */
	run("report -c x nosuch 2>/dev/null", &theirs, &st);
	T_ASSERT_EQ(st, 2);

	td_free_lines(last_lines, last_n);
	td_free_lines(ours, nours);
	unlink(cut);
	unlink(errf);
	unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
