// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-report-files: `evtrace report A.dat B.dat` merges two files by time as
 * `trace-cmd report -i A.dat -i B.dat` does. Two runs of examples/record-demo
 * are recorded at the same time with `evtrace record --date` (each file gets a
 * DATE option: CLOCK_REALTIME - time stamp, trace-cmd's text); the merged output
 * has every record of both (the counts of `evtrace report A` and `report B`),
 * each line starting with its file's name, the times on the wall clock
 * (seconds since the epoch, as trace-cmd prints a DATE file), non-decreasing,
 * the two files interleaved; and the (file, time, event) of each line are the
 * ones trace-cmd prints. `report --info` names the DATE offset. SKIP without
 * record-demo; trace-cmd's part is skipped without trace-cmd.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif
#ifdef EVT_RECORD_DEMO
#define RECORD_DEMO EVT_RECORD_DEMO
#else
#define RECORD_DEMO "build/examples/record-demo"
#endif
#define MAX_LINES 4096

static char tmpdir[] = "/tmp/evt-rfiles-XXXXXX";
static char tool[4200], demo[4200];

struct key {
	char file[16];
	char time[32];
	char event[64];
};

/* "F.dat:  comm-pid [cpu] [flags] TIME: event: ..." -> (F.dat, TIME, event) */
static int parse(const char *line, struct key *k)
{
	const char *colon, *sp, *br = strchr(line, ']');
	const char *t;

	if (sscanf(line, "%15[^:]:", k->file) != 1 || !br)
		return -1;
	t = br + 1;
	while (*t == ' ' || *t == '.') /* our flags column ("....."), then the time */
		t++;
	colon = strstr(t, ": ");
	if (!colon || colon - t >= (long)sizeof(k->time))
		return -1;
	snprintf(k->time, sizeof(k->time), "%.*s", (int)(colon - t), t);
	colon += 2;
	sp = strchr(colon, ':');
	if (!sp || sp - colon >= (long)sizeof(k->event))
		return -1;
	snprintf(k->event, sizeof(k->event), "%.*s", (int)(sp - colon), colon);
	return 0;
}

static int read_keys(const char *path, struct key *keys)
{
	static char line[8192];
	int n = 0;
	FILE *f = fopen(path, "r");

	T_ASSERT(f);
	while (n < MAX_LINES && fgets(line, sizeof(line), f))
		if (strstr(line, ".dat: ") == line + 1 && !parse(line, &keys[n]))
			n++;
	fclose(f);
	return n;
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct key));
}

static long count_lines(const char *path)
{
	static char line[8192];
	long n = 0;
	FILE *f = fopen(path, "r");

	T_ASSERT(f);
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

int main(void)
{
	static struct key ours[MAX_LINES], theirs[MAX_LINES];
	char path[300];
	int n, m, switches = 0;
	long na, nb;

	if (access(EVT_TOOL, X_OK) || access(RECORD_DEMO, X_OK))
		t_skip("%s or %s is not built", EVT_TOOL, RECORD_DEMO);
	t_abspath(tool, sizeof(tool), EVT_TOOL);
	t_abspath(demo, sizeof(demo), RECORD_DEMO);
	T_ASSERT(mkdtemp(tmpdir));
	T_ASSERT_EQ(chdir(tmpdir), 0);
	T_ASSERT_EQ(t_sh("(%s record -q --date -e 'recdemo:*' -o A.dat -- %s -t 2 -n 40 & "
		       "%s record -q --date -e 'recdemo:*' -o B.dat -- %s -t 2 -n 40 & "
		       "wait) >/dev/null",
		       tool, demo, tool, demo),
		    0);
	T_ASSERT(!access("A.dat", R_OK) && !access("B.dat", R_OK));
	T_ASSERT_EQ(t_sh("%s report --info A.dat | grep -q '^date offset: [1-9]'", tool), 0);
	T_ASSERT_EQ(t_sh("%s report A.dat > a.txt && %s report B.dat > b.txt && "
		       "%s report A.dat B.dat > ab.txt",
		       tool, tool, tool),
		    0);
	na = count_lines("a.txt");
	nb = count_lines("b.txt");
	n = read_keys("ab.txt", ours);
	printf("A: %ld lines, B: %ld, merged: %d\n", na, nb, n);
	T_ASSERT(na > 0 && nb > 0);
	T_ASSERT_EQ(n, na + nb);
	T_ASSERT_EQ(count_lines("ab.txt"), na + nb);
	for (int i = 1; i < n; i++) {
		T_ASSERT(strtod(ours[i].time, NULL) >= strtod(ours[i - 1].time, NULL));
		switches += strcmp(ours[i].file, ours[i - 1].file) != 0;
	}
	T_ASSERT(strtod(ours[0].time, NULL) > 1e9); /* on the wall clock */
	printf("the files alternate %d times\n", switches);
	if (t_sh("command -v trace-cmd >/dev/null 2>&1") == 0) {
		T_ASSERT_EQ(t_sh("trace-cmd report -i A.dat -i B.dat > tc.txt 2>/dev/null"), 0);
		m = read_keys("tc.txt", theirs);
		T_ASSERT_EQ(m, n);
		/* same records at the same times (ties between files may come in either order) */
		qsort(ours, (size_t)n, sizeof(*ours), key_cmp);
		qsort(theirs, (size_t)m, sizeof(*theirs), key_cmp);
		for (int i = 0; i < n; i++)
			T_ASSERT(!key_cmp(&ours[i], &theirs[i]));
	}
	snprintf(path, sizeof(path), "rm -rf %s", tmpdir);
	T_ASSERT_EQ(chdir("/"), 0);
	t_sh("%s", path);
	return T_PASS;
}
