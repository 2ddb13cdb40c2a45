// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record-tree: `evtrace record -- CMD` records every process of the
 * command's tree that serves a control socket, not only CMD:
 *  - `sh -c 'CHILD; CHILD'`: two traced programs one after the other, both
 *    complete (each worker's seqs 0..n-1, in order);
 *  - `sh -c 'CHILD & CHILD & wait'`: two at once, merged by time stamp into
 *    one file (non-decreasing), both complete;
 *  - a traced program that forks (no exec): the child's events, written into
 *    the buffer it shares with its parent, are in the file with its own pid;
 *  - a command with no traced process: exit 1, a message that says so, no
 *    file (and a file that was there is left as it was);
 *  - the session's socket directory is gone at the end;
 *  - trace-cmd report (the oracle; skipped when missing) prints the same
 *    ctl_tick records as evtrace report.
 * Nothing here depends on timing: the start-up hold parks each program at
 * its first event until the recorder has its buffer.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/wait.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"

static char out[1 << 22];

/* `--forker COUNT`: worker 0 in this process, worker 1 in a fork() child (no exec). */
static int forker_main(long count)
{
	pid_t pid;
	int st;

	trace_ctl_tick(0, 0); /* parks here (the hold) until the recorder has the buffer */
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		for (long i = 0; i < count; i++)
			trace_ctl_tick(1, (unsigned long long)i);
		_exit(0);
	}
	for (long i = 1; i < count; i++)
		trace_ctl_tick(0, (unsigned long long)i);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 3;
	return 0;
}

/*
 * `--orphan COUNT`: as --forker, but this process ends first; the child
 * writes once it is gone (its parent changed), into the buffer they share.
 */
static int orphan_main(long count)
{
	pid_t me = getpid(), pid;

	trace_ctl_tick(0, 0); /* the hold */
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		while (getppid() == me)
			usleep(1000);
		for (long i = 0; i < count; i++)
			trace_ctl_tick(1, (unsigned long long)i);
		_exit(0);
	}
	for (long i = 1; i < count; i++)
		trace_ctl_tick(0, (unsigned long long)i);
	return 0;
}

/* `--exec COUNT`: worker 2 here, then exec this binary as a --child of 1 worker (same pid). */
static int exec_main(const char *self, const char *count)
{
	long n = atol(count);

	for (long i = 0; i < n; i++)
		trace_ctl_tick(2, (unsigned long long)i);
	execl(self, self, "--child", "1", count, (char *)NULL);
	return 127;
}

/* Per process (tgid) and worker: ticks, the first seq, in order. */
struct proc_count {
	int tgid;
	long ticks[4];
	long long next[4];
	bool in_order[4];
	long long first[4];
};

struct tree_count {
	struct proc_count p[8];
	int np;
	long total;
	bool backwards;
	unsigned long long missed;
};

static struct proc_count *proc_of(struct tree_count *tc, int tgid)
{
	for (int i = 0; i < tc->np; i++)
		if (tc->p[i].tgid == tgid)
			return &tc->p[i];
	T_ASSERT(tc->np < 8);
	memset(&tc->p[tc->np], 0, sizeof(tc->p[0]));
	tc->p[tc->np].tgid = tgid;
	for (int w = 0; w < 4; w++) {
		tc->p[tc->np].next[w] = -1;
		tc->p[tc->np].in_order[w] = true;
		tc->p[tc->np].first[w] = -1;
	}
	return &tc->p[tc->np++];
}

static int proc_cmp(const void *a, const void *b)
{
	const struct proc_count *x = a, *y = b;

	return x->tgid - y->tgid;
}

static void read_tree(const char *path, struct tree_count *tc)
{
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	unsigned long long last = 0;
	int ret;

	memset(tc, 0, sizeof(*tc));
	ret = evt_tracedat_open(path, &td);
	if (ret)
		t_fail("%s: %s", path, evt_error_detail());
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		const struct evt_tracedat_event *ev = rec.event;
		unsigned long long seq;
		struct proc_count *p;
		int worker, tgid;

		tc->total++;
		if (rec.ts < last)
			tc->backwards = true;
		last = rec.ts;
		if (rec.missed && rec.missed != ~0ULL)
			tc->missed += rec.missed;
		if (!ev || strcmp(ev->system, "ctltest") || strcmp(ev->name, "ctl_tick"))
			continue;
		T_ASSERT_OK(crt_field(ev, "worker", &rec, &worker, sizeof(worker)));
		T_ASSERT_OK(crt_field(ev, "seq", &rec, &seq, sizeof(seq)));
		T_ASSERT_OK(crt_field(ev, "common_tgid", &rec, &tgid, sizeof(tgid)));
		T_ASSERT(worker >= 0 && worker < 4);
		p = proc_of(tc, tgid);
		if (p->next[worker] >= 0 && (long long)seq != p->next[worker])
			p->in_order[worker] = false;
		if (p->first[worker] < 0)
			p->first[worker] = (long long)seq;
		p->next[worker] = (long long)seq + 1;
		p->ticks[worker]++;
	}
	T_ASSERT_EQ(ret, 0);
	evt_tracedat_close(td);
	qsort(tc->p, (size_t)tc->np, sizeof(tc->p[0]), proc_cmp);
	for (int i = 0; i < tc->np; i++)
		for (int w = 0; w < 4; w++)
			if (tc->p[i].ticks[w])
				printf("  process %d worker %d: %ld ticks from seq %lld, %s\n",
				       tc->p[i].tgid, w, tc->p[i].ticks[w], tc->p[i].first[w],
				       tc->p[i].in_order[w] ? "in order" : "OUT OF ORDER");
	printf("  %ld records, %s, missed %llu\n", tc->total,
	       tc->backwards ? "TIME GOES BACK" : "time ordered", tc->missed);
}

/* @p recorded @n ticks of worker @w, seqs 0..n-1 in order. */
static void complete(const struct proc_count *p, int w, long n)
{
	T_ASSERT_EQ(p->ticks[w], n);
	T_ASSERT_EQ(p->first[w], 0);
	T_ASSERT(p->in_order[w]);
}

/* Run `evtrace ARGS...`: stdout into @out, stderr into @err; the exit status. */
static int run_tool(char *const argv[], char *err, size_t errcap)
{
	int st = cmdt_capture(argv, out, sizeof(out), err, errcap);

	if (*err)
		fprintf(stderr, "[evtrace %s stderr] %s", argv[1], err);
	return st;
}

/*
 * The ctl_tick lines of a report as "comm-pid [cpu] time: name: fields" (white
 * space collapsed: trace-cmd pads the event name; our flags column dropped:
 * trace-cmd prints none for a file without them), sorted; their count.
 */
static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int tick_lines(const char *text, char **v, int max)
{
	const char *p = text;
	int n = 0;

	while (*p && n < max) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		char l[512], buf[512];
		size_t len = (size_t)(end - p), k = 0;

		if (len >= sizeof(l))
			len = sizeof(l) - 1;
		memcpy(l, p, len);
		l[len] = '\0';
		p = nl ? nl + 1 : end;
		if (!strstr(l, "ctl_tick:"))
			continue;
		/* "comm-pid [cpu]", then the time ("N.N:"): our flags column in between goes */
		{
			char *br = strchr(l, ']'), *t;

			T_ASSERT(br);
			for (t = br + 1; *t == ' ' || (*t && !strchr("0123456789", *t));)
				t += strcspn(t, " ") + strspn(t + strcspn(t, " "), " ");
			memmove(br + 2, t, strlen(t) + 1);
			br[1] = ' ';
		}
		for (const char *c = l; *c; c++) {
			if (*c == ' ' && (k == 0 || buf[k - 1] == ' '))
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

/* trace-cmd report prints the same ctl_tick records as evtrace report. -1: no trace-cmd. */
static int oracle(const char *file)
{
	static char theirs[1 << 22];
	static char *a[20000], *b[20000];
	char *rep[] = { "evtrace", "report", (char *)file, NULL }, cmd[600], err[4096];
	int na, nb, bad = 0;
	size_t got;
	FILE *f;

	if (system("command -v trace-cmd >/dev/null 2>&1") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null", file);
	f = popen(cmd, "r");
	T_ASSERT(f);
	got = fread(theirs, 1, sizeof(theirs) - 1, f);
	theirs[got] = '\0';
	pclose(f);
	T_ASSERT_EQ(run_tool(rep, err, sizeof(err)), 0);
	na = tick_lines(theirs, a, 20000);
	nb = tick_lines(out, b, 20000);
	printf("oracle: trace-cmd %d ctl_tick lines, evtrace %d\n", na, nb);
	T_ASSERT_EQ(na, nb);
	for (int i = 0; i < na; i++) {
		if (strcmp(a[i], b[i]) && !bad++)
			fprintf(stderr, "trace-cmd: %s\nevtrace:   %s\n", a[i], b[i]);
		free(a[i]);
		free(b[i]);
	}
	T_ASSERT_EQ(bad, 0);
	return na;
}

/* No record-* directory is left in the socket directory. */
static void no_session_dir(void)
{
	const char *dir = getenv("EVTRACE_CONTROL_DIR");
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "record-", 7))
			t_fail("%s/%s left behind", dir, de->d_name);
	closedir(d);
}

int main(int argc, char **argv)
{
	char tmp[256], file[300], self[4096], script[9000], err[8192];
	struct tree_count tc;
	ssize_t sl;
	int n;

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	if (argc > 2 && !strcmp(argv[1], "--forker"))
		return forker_main(atol(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "--orphan"))
		return orphan_main(atol(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "--exec")) {
		sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (sl <= 0)
			return 2;
		self[sl] = '\0';
		return exec_main(self, argv[2]);
	}
	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	if (access("/bin/sh", X_OK))
		t_skip("no /bin/sh");
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	T_ASSERT(sl > 0);
	self[sl] = '\0';
	T_ASSERT(!strchr(self, '\''));
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(file, sizeof(file), "%s/tree.dat", tmp);

	/* one after the other, under a shell that is not traced */
	printf("sh -c 'CHILD 2 500; CHILD 1 700':\n");
	snprintf(script, sizeof(script), "'%s' --child 2 500; '%s' --child 1 700; echo done", self,
		 self);
	{
		char *a[] = { "evtrace", "record", "-q", "-e", "ctltest:*", "-o",
			      file,	 "--",	   "sh", "-c", script,	    NULL };

		T_ASSERT_EQ(run_tool(a, err, sizeof(err)), 0);
	}
	read_tree(file, &tc);
	T_ASSERT_EQ(tc.np, 2);
	complete(&tc.p[0], 0, 500);
	complete(&tc.p[0], 1, 500);
	complete(&tc.p[1], 0, 700);
	T_ASSERT_EQ(tc.p[1].ticks[1], 0);
	T_ASSERT(!tc.backwards);
	T_ASSERT_EQ(tc.missed, 0);
	no_session_dir();

	/* two at once: merged by time stamp, both complete; trace-cmd agrees */
	printf("sh -c 'CHILD & CHILD & wait':\n");
	snprintf(script, sizeof(script), "'%s' --child 1 3000 & '%s' --child 2 1500 & wait", self,
		 self);
	{
		char *a[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick",
			      "-o",	 file,	   "--", "sh", "-c",
			      script,	 NULL };

		T_ASSERT_EQ(run_tool(a, err, sizeof(err)), 0);
	}
	read_tree(file, &tc);
	T_ASSERT_EQ(tc.np, 2);
	for (int i = 0; i < 2; i++) {
		/* which one is which: the one with two workers ran "--child 2 1500" */
		bool two = tc.p[i].ticks[1] != 0;

		complete(&tc.p[i], 0, two ? 1500 : 3000);
		if (two)
			complete(&tc.p[i], 1, 1500);
	}
	T_ASSERT(tc.p[0].ticks[1] != tc.p[1].ticks[1]);
	T_ASSERT(!tc.backwards);
	T_ASSERT_EQ(tc.missed, 0);
	n = oracle(file);
	if (n < 0)
		printf("SKIP (part): trace-cmd is not installed, no oracle comparison\n");
	else
		T_ASSERT_EQ(n, 6000);
	no_session_dir();

	/* a traced program that forks without exec: the child writes into the shared buffer */
	printf("CHILD that forks:\n");
	{
		char *a[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick",
			      "-o",	 file,	   "--", self, "--forker",
			      "2000",	 NULL };

		T_ASSERT_EQ(run_tool(a, err, sizeof(err)), 0);
	}
	read_tree(file, &tc);
	T_ASSERT_EQ(tc.np, 2);
	/* the parent wrote worker 0, its child worker 1 */
	{
		int par = tc.p[0].ticks[0] ? 0 : 1;

		complete(&tc.p[par], 0, 2000);
		complete(&tc.p[1 - par], 1, 2000);
		T_ASSERT_EQ(tc.p[par].ticks[1] + tc.p[1 - par].ticks[0], 0);
	}
	T_ASSERT(!tc.backwards);

	/*
	 * The same, but the parent ends first: its buffer is drained until the
	 * child that shares it has ended too; the child's name is in the file.
	 */
	printf("CHILD that forks and ends before its child:\n");
	{
		char *a[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick",
			      "-o",	 file,	   "--", self, "--orphan",
			      "2000",	 NULL };
		char *rep[] = { "evtrace", "report", file, NULL };
		char name[64];
		int par;

		T_ASSERT_EQ(run_tool(a, err, sizeof(err)), 0);
		read_tree(file, &tc);
		T_ASSERT_EQ(tc.np, 2);
		par = tc.p[0].ticks[0] ? 0 : 1;
		complete(&tc.p[par], 0, 2000);
		complete(&tc.p[1 - par], 1, 2000);
		T_ASSERT(!tc.backwards);
		T_ASSERT_EQ(run_tool(rep, err, sizeof(err)), 0);
		snprintf(name, sizeof(name), "cmd-record-tree-%d ", tc.p[1 - par].tgid);
		T_ASSERT(strstr(out, name));
	}

	/* a traced program that execs another one: two images of one pid, each held, both in */
	printf("CHILD that execs CHILD:\n");
	{
		char *a[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick",
			      "-o",	 file,	   "--", self, "--exec",
			      "1000",	 NULL };

		T_ASSERT_EQ(run_tool(a, err, sizeof(err)), 0);
	}
	read_tree(file, &tc);
	T_ASSERT_EQ(tc.np, 1);
	complete(&tc.p[0], 2, 1000);
	complete(&tc.p[0], 0, 1000);
	T_ASSERT(!tc.backwards);
	no_session_dir();

	/*
	 * While it records, the other verbs find the command's processes in the
	 * record's directory: `evtrace list` shows one, `-p` reaches it.
	 */
	printf("evtrace list during a record:\n");
	{
		char ready[320], pidarg[16], *line;
		char *a[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick",
			      "-o",	 file,	   "--", "sh", "-c",
			      script,	 NULL };
		char *l[] = { "evtrace", "list", NULL };
		char *st[] = { "evtrace", "stat", "-p", pidarg, NULL };
		int fd, pid = 0;
		pid_t rec;

		snprintf(ready, sizeof(ready), "%s/ready", tmp);
		snprintf(script, sizeof(script), "'%s' --child 1 -1 '%s'; true", self, ready);
		rec = cmdt_run(a, &fd, -1);
		for (int i = 0; i < 4000 && access(ready, F_OK); i++)
			usleep(5000);
		T_ASSERT_OK(access(ready, F_OK));
		T_ASSERT_EQ(run_tool(l, err, sizeof(err)), 0);
		printf("%s", out);
		line = strstr(out, "cmd-record-tree");
		T_ASSERT(line);
		while (line > out && line[-1] != '\n')
			line--;
		pid = atoi(line);
		T_ASSERT(pid > 0);
		snprintf(pidarg, sizeof(pidarg), "%d", pid);
		T_ASSERT_EQ(run_tool(st, err, sizeof(err)), 0);
		T_ASSERT(kill(pid, SIGTERM) == 0);
		T_ASSERT_EQ(cmdt_wait_status(rec), 0);
		close(fd);
	}
	read_tree(file, &tc);
	T_ASSERT_EQ(tc.np, 1);
	T_ASSERT_EQ(tc.p[0].first[0], 0);
	T_ASSERT(tc.p[0].in_order[0]);
	no_session_dir();

	/* nothing traced in the tree: said, exit 1, no file */
	printf("sh -c 'true; true':\n");
	unlink(file);
	{
		char *a[] = { "evtrace", "record", "-q", "-o",	       file,
			      "--",	 "sh",	   "-c", "true; true", NULL };

		T_ASSERT_EQ(run_tool(a, err, sizeof(err)), 1);
		T_ASSERT(strstr(err, "no process of the command served a control socket"));
		T_ASSERT(strstr(err, "not written"));
		T_ASSERT(access(file, F_OK) < 0 && errno == ENOENT);
	}
	/* a file that was there stays as it was */
	{
		char *a[] = { "evtrace", "record", "-q", "-o", file, "--", "true", NULL };
		char buf[16] = "";
		FILE *f = fopen(file, "w");

		T_ASSERT(f);
		fputs("before", f);
		fclose(f);
		T_ASSERT_EQ(run_tool(a, err, sizeof(err)), 1);
		T_ASSERT(strstr(err, "left as it was"));
		f = fopen(file, "r");
		T_ASSERT(f && fgets(buf, sizeof(buf), f));
		fclose(f);
		T_ASSERT(!strcmp(buf, "before"));
	}
	no_session_dir();

	unlink(file);
	snprintf(script, sizeof(script), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(script), 0);
	printf("PASS\n");
	return 0;
}
