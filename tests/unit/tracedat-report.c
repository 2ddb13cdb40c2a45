// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-report: the oracle. A multi-threaded recording (ints, strings,
 * __data_loc strings, arrays, a record over 112 bytes, a trace_marker
 * line) written as trace.dat: `trace-cmd report FILE` prints the same
 * events, with the same task, CPU, time stamp and fields, as the
 * instance's `trace` text, and `trace-cmd report -t` the same nanosecond
 * time stamps as the ring buffer holds; `trace-cmd dump -v` calls the file
 * valid, `report --check-events` passes, and `trace-cmd convert` to v7 prints
 * the same report. Once with the default clock
 * (seconds), once with the counter clock (raw numbers).
 * Skips (77) when trace-cmd is not installed.
 *
 * Two known differences of libtraceevent are mapped, not hidden:
 * trace-cmd prints a trace_marker record as "print: tracing_mark_write: X"
 * where `trace` prints "tracing_mark_write: X", and it prints a 1-byte
 * signed field with %d zero-extended (s8=-4 shows as s8=252).
 */
#include <regex.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

static regex_t line_re;

/* Collapse runs of blanks into one space (trace-cmd pads the event name). */
static void squeeze(char *s)
{
	char *o = s;
	bool sp = false;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t') {
			if (!sp)
				*o++ = ' ';
			sp = true;
		} else {
			*o++ = *s;
			sp = false;
		}
	}
	while (o > s && o[-1] == ' ')
		o--;
	*o = '\0';
}

/*
 * "comm-pid [cpu] [flags] ts: body" -> "comm|pid|cpu|ts|body" with the body
 * squeezed and the known differences mapped. NULL if the line does not parse.
 */
static char *normalize(const char *line, bool tracecmd)
{
	regmatch_t m[7];
	char body[1024], out[1400], *p;

	if (regexec(&line_re, line, 7, m, 0))
		return NULL;
	snprintf(body, sizeof(body), "%.*s", (int)(m[6].rm_eo - m[6].rm_so), line + m[6].rm_so);
	squeeze(body);
	if (tracecmd && !strncmp(body, "print: tracing_mark_write: ", 27))
		memmove(body, body + 7, strlen(body + 7) + 1);
	if (!tracecmd && (p = strstr(body, " s8=-"))) {
		/* libtraceevent: %d of a signed char field is zero-extended */
		long v = strtol(p + 4, NULL, 10);
		char rest[1024], *e = strchr(p + 1, ' ');

		snprintf(rest, sizeof(rest), "%s", e ? e : "");
		snprintf(p, sizeof(body) - (size_t)(p - body), " s8=%ld%s", v & 0xff, rest);
	}
	snprintf(out, sizeof(out), "%.*s|%.*s|%.*s|%.*s|%s",
		 (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so,
		 (int)(m[2].rm_eo - m[2].rm_so), line + m[2].rm_so,
		 (int)(m[3].rm_eo - m[3].rm_so), line + m[3].rm_so,
		 (int)(m[5].rm_eo - m[5].rm_so), line + m[5].rm_so, body);
	{
		char *c = out;

		while (*c == ' ')
			c++;
		return strdup(c);
	}
}

/* The lines of `trace-cmd report ARGS FILE` (stderr dropped). */
static int tracecmd_lines(const char *args, const char *path, char ***linesp)
{
	char cmd[512], buf[2048], **lines = NULL;
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "trace-cmd report %s %s 2>/dev/null", args, path);
	f = popen(cmd, "r");
	T_ASSERT(f);
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (!strncmp(buf, "cpus=", 5) || !buf[0])
			continue;
		lines = realloc(lines, (size_t)(n + 1) * sizeof(*lines));
		T_ASSERT(lines);
		lines[n++] = strdup(buf);
	}
	T_ASSERT_EQ(pclose(f), 0);
	*linesp = lines;
	return n;
}

static void check(const char *clock)
{
	struct evt_instance *inst;
	struct td_rec *snap;
	char **ours, **theirs, **a, **b, *path, what[32];
	int nsnap, nours, ntheirs;

	snprintf(what, sizeof(what), "report-%s", clock);
	inst = td_record(what, clock);
	nsnap = td_snapshot(inst, &snap);
	nours = td_trace_lines(inst, &ours);
	T_ASSERT_EQ(nours, nsnap);
	path = td_write_tmp(inst, what);

	/* formatted: the same lines as `trace` */
	ntheirs = tracecmd_lines("", path, &theirs);
	if (ntheirs != nours)
		t_fail("%s: trace-cmd printed %d lines, trace has %d", clock, ntheirs, nours);
	a = calloc((size_t)nours, sizeof(*a));
	b = calloc((size_t)nours, sizeof(*b));
	T_ASSERT(a && b);
	for (int i = 0; i < nours; i++) {
		a[i] = normalize(ours[i], false);
		b[i] = normalize(theirs[i], true);
		if (!a[i])
			t_fail("our line does not parse: [%s]", ours[i]);
		if (!b[i])
			t_fail("trace-cmd line does not parse: [%s]", theirs[i]);
	}
	qsort(a, (size_t)nours, sizeof(*a), td_strcmp);
	qsort(b, (size_t)nours, sizeof(*b), td_strcmp);
	for (int i = 0; i < nours; i++)
		if (strcmp(a[i], b[i]))
			t_fail("%s: line %d differs:\n  trace:     [%s]\n  trace-cmd: [%s]", clock,
			       i, a[i], b[i]);

	td_free_lines(theirs, ntheirs);
	td_free_lines(ours, nours);
	td_free_lines(a, nours);
	td_free_lines(b, nours);
	/* time stamps to the nanosecond (seconds clocks only: -t prints 9 decimals) */
	if (strcmp(clock, "counter")) {
		unsigned long long *ts_snap = calloc((size_t)nsnap, sizeof(*ts_snap));
		unsigned long long *ts_tc = calloc((size_t)nsnap, sizeof(*ts_tc));
		int n;

		T_ASSERT(ts_snap && ts_tc);
		n = tracecmd_lines("-t", path, &theirs);
		T_ASSERT_EQ(n, nsnap);
		for (int i = 0; i < n; i++) {
			unsigned long long s, ns;
			const char *p = strstr(theirs[i], "] ");

			T_ASSERT(p && sscanf(p + 2, " %llu.%9llu:", &s, &ns) == 2);
			ts_tc[i] = s * 1000000000ull + ns;
			ts_snap[i] = snap[i].ts;
		}
		td_free_lines(theirs, n);
		qsort(ts_snap, (size_t)n, sizeof(*ts_snap), td_u64cmp);
		qsort(ts_tc, (size_t)n, sizeof(*ts_tc), td_u64cmp);
		for (int i = 0; i < n; i++)
			if (ts_snap[i] != ts_tc[i])
				t_fail("time stamp %d: buffer %llu, trace-cmd -t %llu", i,
				       ts_snap[i], ts_tc[i]);
		free(ts_snap);
		free(ts_tc);
	}
	/* trace-cmd's own checks, and its v7 conversion prints the same */
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "trace-cmd dump -v -i %s 2>&1 | grep -q 'is a valid'",
			 path);
		if (system(cmd) != 0)
			t_fail("%s: trace-cmd dump -v does not call the file valid", clock);
		snprintf(cmd, sizeof(cmd), "trace-cmd report --check-events %s >/dev/null 2>&1",
			 path);
		if (system(cmd) != 0)
			t_fail("%s: trace-cmd report --check-events failed", clock);
		snprintf(cmd, sizeof(cmd),
			 "trace-cmd convert -i %s -o %s.v7 >/dev/null 2>&1 && "
			 "trace-cmd report -t %s > %s.r6 2>/dev/null && "
			 "trace-cmd report -t %s.v7 > %s.r7 2>/dev/null && cmp -s %s.r6 %s.r7",
			 path, path, path, path, path, path, path, path);
		if (system(cmd) != 0)
			t_fail("%s: trace-cmd convert to v7 changes the report", clock);
		snprintf(cmd, sizeof(cmd), "rm -f %s.v7 %s.r6 %s.r7", path, path, path);
		T_ASSERT_EQ(system(cmd), 0);
	}
	unlink(path);
	free(path);
	free(snap);
	T_ASSERT_OK(evt_instance_destroy(inst));
	printf("%s: %d lines identical\n", clock, nours);
}

int main(void)
{
	if (system("trace-cmd -h >/dev/null 2>&1") == -1 ||
	    system("command -v trace-cmd >/dev/null 2>&1") != 0)
		t_skip("trace-cmd is not installed (Debian package trace-cmd)");
	prctl(PR_SET_NAME, "td-report", 0, 0, 0);
	T_ASSERT(regcomp(&line_re,
			 "^(.*)-([0-9]+) +\\[([0-9]{3})\\] +([^ ]{5} +)?"
			 "([0-9]+\\.[0-9]{6}|[0-9]+): (.*)$",
			 REG_EXTENDED) == 0);
	check("local");
	check("counter");
	{
		/* an empty buffer: trace-cmd reads the file and prints no record */
		struct evt_instance *inst = NULL;
		char name[64], **lines, *path;
		int n;

		snprintf(name, sizeof(name), "tracedat-empty-%d", (int)getpid());
		T_ASSERT_OK(evt_instance_create(name, &inst));
		path = td_write_tmp(inst, "empty");
		n = tracecmd_lines("", path, &lines);
		T_ASSERT_EQ(n, 0);
		td_free_lines(lines, n);
		unlink(path);
		free(path);
		T_ASSERT_OK(evt_instance_destroy(inst));
	}
	regfree(&line_re);
	return T_PASS;
}
