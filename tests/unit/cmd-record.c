// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record: `evtrace record -e ... -o FILE -- CMD` on a multi-threaded
 * program (this binary with --child: 4 threads, 3000 ctl_tick each, a
 * ctl_msg every 64) that ends by itself: the file holds every record, each
 * worker's sequence whole and in order, no loss; `evtrace report` prints
 * them; `trace-cmd report` (the oracle; skipped when missing) prints the
 * same events with the same fields and time stamps. Also: -f filters, the
 * command's exit status does not fail the record, usage errors exit 2.
 */
#include <errno.h>
#include <stdbool.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"

#define THREADS 4
#define COUNT	3000

static char out[1 << 22];

/*
 * Copy the line at *@p (before @end) into @buf, NUL-terminated and cut at
 * @size - 1, and step past it; false at the end. Lines are parsed from their
 * copy: sscanf() and the str*() functions on a pointer into a 4 MiB report
 * cost the rest of its length per call (glibc's sscanf measures the string,
 * and so does ASan's strict_string_checks), which made this test quadratic.
 */
static bool next_line(const char **p, const char *end, char *buf, size_t size)
{
	const char *nl;
	size_t len;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	len = (size_t)((nl ? nl : end) - *p);
	if (len > size - 1)
		len = size - 1;
	memcpy(buf, *p, len);
	buf[len] = '\0';
	*p = nl ? nl + 1 : end;
	return true;
}

/* The lines of @text that contain @needle. */
static int count_lines(const char *text, const char *needle)
{
	const char *p = text, *end = text + strlen(text);
	char l[1024];
	int n = 0;

	while (next_line(&p, end, l, sizeof(l)))
		if (strstr(l, needle))
			n++;
	return n;
}

struct tick {
	unsigned long long us; /* time stamp, microseconds (the kernel's rounding) */
	int cpu, pid, worker;
	unsigned long long seq;
};

static int tick_cmp(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;

	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if (x->worker != y->worker)
		return x->worker - y->worker;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The ctl_tick lines of a report: "comm-pid [cpu] (flags) sec.frac: ctl_tick: worker=W seq=S".
 * @ns: the time has 9 decimals (trace-cmd -t), else 6.
 */
static int parse_ticks(const char *text, bool ns, struct tick *v, int max)
{
	const char *p = text, *end = text + strlen(text);
	char l[1024];
	int n = 0;

	while (n < max && next_line(&p, end, l, sizeof(l))) {
		const char *ev = strstr(l, "ctl_tick: "), *br, *dash;
		unsigned long long sec, frac;
		const char *t;

		if (!ev)
			continue;
		br = strchr(l, '[');
		if (!br || br > ev)
			continue;
		for (dash = br; dash > l && dash[-1] != '-'; dash--)
			;
		v[n].pid = atoi(dash);
		v[n].cpu = atoi(br + 1);
		/* the time: the last "N.N:" before the event name */
		for (t = ev - 2; t > br && t[-1] != ' '; t--)
			;
		if (sscanf(t, "%llu.%llu:", &sec, &frac) != 2)
			continue;
		v[n].us = sec * 1000000ull + (ns ? (frac + 500) / 1000 : frac);
		if (sscanf(ev, "ctl_tick: worker=%d seq=%llu", &v[n].worker, &v[n].seq) != 2)
			continue;
		n++;
	}
	qsort(v, (size_t)n, sizeof(*v), tick_cmp);
	return n;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every record line of a report, as "pid cpu usecs name: fields" (the
 * fields' white space collapsed: trace-cmd pads the event name), sorted.
 * @ns: the time has 9 decimals (trace-cmd -t), else 6. Return: the count.
 */
static int norm_lines(const char *text, bool ns, char **v, int max)
{
	const char *p = text, *end = text + strlen(text);
	char l[1024];
	int n = 0;

	while (n < max && next_line(&p, end, l, sizeof(l))) {
		size_t len = strlen(l), k = 0;
		const char *br = memchr(l, '[', len), *dash, *t, *colon;
		unsigned long long sec, frac;
		char buf[1024];
		int pid, cpu;

		if (!br)
			continue;
		for (dash = br; dash > l && dash[-1] != '-'; dash--)
			;
		if (dash == l)
			continue;
		pid = atoi(dash);
		cpu = atoi(br + 1);
		/* the time: "N.N:" after the bracket (and trace-cmd's or our flags) */
		colon = memchr(br, ':', len - (size_t)(br - l));
		if (!colon)
			continue;
		for (t = colon; t > br && t[-1] != ' '; t--)
			;
		if (sscanf(t, "%llu.%llu:", &sec, &frac) != 2)
			continue;
		k = (size_t)snprintf(buf, sizeof(buf), "%d %d %llu", pid, cpu,
				     sec * 1000000ull + (ns ? (frac + 500) / 1000 : frac));
		for (const char *c = colon + 1; c < l + len && k < sizeof(buf) - 2; c++) {
			if (*c == ' ' && buf[k - 1] == ' ')
				continue;
			buf[k++] = *c;
		}
		while (k && buf[k - 1] == ' ')
			k--;
		buf[k] = '\0';
		v[n] = strdup(buf);
		T_ASSERT(v[n]);
		n++;
	}
	qsort(v, (size_t)n, sizeof(*v), str_cmp);
	return n;
}

/*
 * The oracle: `trace-cmd report -t` and `evtrace report` print the same
 * ctl_tick records: pid, CPU, time (trace-cmd's nanoseconds rounded to our
 * microseconds, as the kernel rounds), worker and seq. -1: no trace-cmd.
 */
static int oracle(const char *file, const char *ours)
{
	static char theirs[1 << 22];
	static struct tick a[20000], b[20000];
	char cmd[600];
	int na, nb, bad = 0;
	size_t got;
	FILE *f;

	if (system("command -v trace-cmd >/dev/null 2>&1") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "trace-cmd report -t %s 2>/dev/null", file);
	f = popen(cmd, "r");
	T_ASSERT(f);
	got = fread(theirs, 1, sizeof(theirs) - 1, f);
	theirs[got] = '\0';
	pclose(f);
	na = parse_ticks(theirs, true, a, 20000);
	nb = parse_ticks(ours, false, b, 20000);
	printf("oracle: trace-cmd %d ctl_tick records, evtrace %d\n", na, nb);
	T_ASSERT_EQ(na, nb);
	for (int i = 0; i < na; i++)
		if (tick_cmp(&a[i], &b[i]) || a[i].pid != b[i].pid) {
			if (!bad)
				fprintf(stderr,
					"first difference at %d: trace-cmd %d [%d] %llu us w=%d "
					"s=%llu; evtrace %d [%d] %llu us w=%d s=%llu\n",
					i, a[i].pid, a[i].cpu, a[i].us, a[i].worker, a[i].seq,
					b[i].pid, b[i].cpu, b[i].us, b[i].worker, b[i].seq);
			bad++;
		}
	T_ASSERT_EQ(bad, 0);

	/* and every record, every field, as text */
	{
		static char *la[20000], *lb[20000];
		int ma = norm_lines(theirs, true, la, 20000),
		    mb = norm_lines(ours, false, lb, 20000);

		printf("oracle: every record: trace-cmd %d lines, evtrace %d\n", ma, mb);
		T_ASSERT_EQ(ma, mb);
		for (int i = 0; i < ma; i++)
			if (strcmp(la[i], lb[i])) {
				if (!bad)
					fprintf(stderr, "trace-cmd: %s\nevtrace:   %s\n", la[i],
						lb[i]);
				bad++;
			}
		for (int i = 0; i < ma; i++) {
			free(la[i]);
			free(lb[i]);
		}
		T_ASSERT_EQ(bad, 0);
	}
	return na;
}

int main(int argc, char **argv)
{
	char tmp[256], file[300], file2[300], self[4096], threads[8], count[16];
	struct crt_count cnt;
	int st, n;

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(file, sizeof(file), "%s/rec.dat", tmp);
	snprintf(file2, sizeof(file2), "%s/rec2.dat", tmp);
	snprintf(threads, sizeof(threads), "%d", THREADS);
	snprintf(count, sizeof(count), "%d", COUNT);

	/* usage errors */
	{
		char *a1[] = { "evtrace", "record", NULL };
		char *a2[] = { "evtrace", "record", "-f", "x > 1", "--", "true", NULL };
		char *a3[] = { "evtrace", "record", "-p", "1", "--", "true", NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a1), 2);
		T_ASSERT_EQ(crt_tool(out, sizeof(out), a2), 2);
		T_ASSERT_EQ(crt_tool(out, sizeof(out), a3), 2);
	}

	/* record the whole run */
	{
		char *a[] = { "evtrace", "record", "-q",      "-e",    "ctltest:*", "-o", file,
			      "--",	 self,	   "--child", threads, count,	    NULL };

		st = crt_tool(out, sizeof(out), a);
		T_ASSERT_EQ(st, 0);
	}
	T_ASSERT_OK(crt_read_file(file, &cnt));
	printf("records: %ld, missed %llu\n", cnt.total, cnt.missed);
	for (int i = 0; i < THREADS; i++) {
		printf("worker %d: %ld ticks, %ld msgs, %s\n", i, cnt.ticks[i], cnt.msgs[i],
		       cnt.in_order[i] ? "in order" : "OUT OF ORDER");
		T_ASSERT_EQ(cnt.ticks[i], COUNT);
		T_ASSERT_EQ(cnt.first[i], 0);
		T_ASSERT_EQ(cnt.msgs[i], (COUNT + 63) / 64);
		T_ASSERT(cnt.in_order[i]);
	}
	T_ASSERT_EQ(cnt.missed, 0);

	/* evtrace report prints them */
	{
		char *a[] = { "evtrace", "report", file, NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
		T_ASSERT_EQ(count_lines(out, "ctl_tick: worker="), THREADS * COUNT);
		T_ASSERT_EQ(count_lines(out, "ctl_msg: worker="), THREADS * ((COUNT + 63) / 64));
		/* the thread names came with the file */
		T_ASSERT(strstr(out, "cmd-record-"));
	}
	n = oracle(file, out);
	if (n < 0)
		printf("SKIP (part): trace-cmd is not installed, no oracle comparison\n");
	else
		T_ASSERT_EQ(n, THREADS * COUNT);

	/* a filter: only worker 1's ticks with seq < 100 */
	{
		char *a[] = { "evtrace",
			      "record",
			      "-q",
			      "-e",
			      "ctltest:ctl_tick",
			      "-f",
			      "worker == 1 && seq < 100",
			      "-o",
			      file2,
			      "--",
			      self,
			      "--child",
			      threads,
			      count,
			      NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
		T_ASSERT_OK(crt_read_file(file2, &cnt));
		printf("filtered: worker 1 %ld ticks, others %ld %ld %ld, msgs %ld\n", cnt.ticks[1],
		       cnt.ticks[0], cnt.ticks[2], cnt.ticks[3], cnt.msgs[1]);
		/* the program is held at its first event until the filter is set: exact */
		T_ASSERT_EQ(cnt.ticks[1], 100);
		T_ASSERT_EQ(cnt.ticks[0] + cnt.ticks[2] + cnt.ticks[3], 0);
		T_ASSERT_EQ(cnt.msgs[1], 0);
	}

	/*
	 * A program linked with libevtrace.so that ends before the recorder
	 * connected: it waits in exit() for it, before its destructors
	 * unregister its events, so that the file has their formats (once, the
	 * wait ran after them: "Unknown type 32" in the report).
	 */
#ifdef EVT_RECORD_DEMO
	{
		char *a[] = { "evtrace", "record",	  "-q", "-e", "recdemo:*", "-o", file2,
			      "--",	 EVT_RECORD_DEMO, "-t", "4",  "-n",	   "50", NULL };
		char *rep[] = { "evtrace", "report", file2, NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
		T_ASSERT_EQ(crt_tool(out, sizeof(out), rep), 0);
		printf("record-demo: %d req_start, %d req_done lines\n",
		       count_lines(out, "req_start: worker="),
		       count_lines(out, "req_done: worker="));
		T_ASSERT_EQ(count_lines(out, "req_start: worker="), 200);
		T_ASSERT_EQ(count_lines(out, "req_done: worker="), 200);
		T_ASSERT(strstr(out, "record-demo-"));
	}
	/*
	 * The same program (shared linking: libevtrace's constructor runs before
	 * the program's) held until the filter and trigger are set: each
	 * worker's first request (req 0) is filtered out and fires the trigger.
	 */
	{
		char *a[] = { "evtrace", "record",	"-q",	      "-e",
			      "recdemo:req_start",	"-f",	      "req != 0",
			      "-T",		"stacktrace if req == 0", "-o",
			      file2,		"--",	      EVT_RECORD_DEMO,
			      "-t",		"4",	      "-n",
			      "50",		NULL };
		char *rep[] = { "evtrace", "report", file2, NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
		T_ASSERT_EQ(crt_tool(out, sizeof(out), rep), 0);
		printf("record-demo held: %d req_start (%d with req=0), %d stack traces\n",
		       count_lines(out, "req_start: worker="), count_lines(out, " req=0 "),
		       count_lines(out, "<stack trace>"));
		T_ASSERT_EQ(count_lines(out, "req_start: worker="), 196);
		T_ASSERT_EQ(count_lines(out, " req=0 "), 0);
		T_ASSERT_EQ(count_lines(out, "<stack trace>"), 4);
	}
#endif

	/* a command that is not traced: an error, not a hang */
	{
		char *a[] = { "evtrace", "record", "-q", "-o", file2, "--", "true", NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 1);
	}
	unlink(file);
	unlink(file2);
	snprintf(file, sizeof(file), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(file), 0);
	printf("PASS\n");
	return 0;
}
