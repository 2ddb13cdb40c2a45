// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-net-live-cmd: `evtrace record -N 127.0.0.1:PORT -- CMD` streams the
 * command to a running `trace-cmd listen` while it runs (docs/fleet.md, "When").
 *
 * The command is this test run again with --child: for each byte it reads on
 * its stdin (a pipe the test holds, record's stdin and so the command's) it
 * writes 1000 ctltest:ctl_tick events (worker 0, seq numbered from 0), and
 * exits at its end. With --tree it also starts, at its first byte, a second
 * program of the tree (--sub: 500 events of worker 7) and waits for it.
 *
 * Live: after the first phase record says it streams the command's process,
 * and the listener's per-CPU files (trace.HOST:PORT.cpuN) hold data while the
 * command is blocked on its pipe and record runs. A second phase and the end:
 * exit 0, the listener's file has seq 0..1999 each once, and trace-cmd report
 * prints it exactly as the local file.
 *
 * Killed: the listener killed (its process group) once the first phase
 * arrived, then 5 more phases: record says which host and what was sent, exits
 * 1, the local file holds seq 0..5999 each once.
 *
 * Tree: only the command's process is streamed, though the second program
 * writes its events first: the listener's file has the 2000 events of the
 * command and none of the other's; record says how many pages of how many
 * other processes were not sent; the local file has all 2500.
 *
 * The three run at the same time. SKIP without trace-cmd.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <evtrace/control.h>

#define CREATE_TRACE_POINTS
#include "control-tp.h"

#include "cmd-record-util.h"
#include "net-test.h"

#define PHASE 1000
#define SUB   500

static char tmpdir[300], self[4096];

/* The command: a phase of PHASE events per byte on stdin; with @tree a second program too. */
static int child_main(bool tree)
{
	unsigned long long seq = 0;
	bool first = true;
	char c;

	while (read(0, &c, 1) == 1) {
		if (tree && first) {
			pid_t sub = fork();

			if (sub == 0) {
				execl(self, self, "--sub", (char *)NULL);
				_exit(127);
			}
			if (sub < 0 || waitpid(sub, NULL, 0) != sub)
				return 1;
		}
		first = false;
		for (int i = 0; i < PHASE; i++)
			trace_ctl_tick(0, seq++);
	}
	return 0;
}

/* One command and its record to 127.0.0.1:@port (stderr in @local.err). */
struct run {
	const char *name;
	bool tree;
	unsigned int port;
	pid_t rec, listener;
	int pipe; /* the command's stdin */
	char local[400], dir[400];
};

static void start_run(struct run *r)
{
	char cmd[9000];
	int p[2];

	snprintf(r->dir, sizeof(r->dir), "%s/%s", tmpdir, r->name);
	snprintf(r->local, sizeof(r->local), "%s/%s.dat", tmpdir, r->name);
	T_ASSERT_EQ(mkdir(r->dir, 0755), 0);
	r->port = tnet_free_port();
	r->listener = tnet_trace_cmd_listen(r->port, r->dir);
	T_ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	snprintf(cmd, sizeof(cmd),
		 "exec %s record -e ctltest:ctl_tick -N 127.0.0.1:%u -o %s -- %s --child%s "
		 "2>%s.err",
		 EVT_TOOL, r->port, r->local, self, r->tree ? " --tree" : "", r->local);
	r->rec = fork();
	T_ASSERT(r->rec >= 0);
	if (r->rec == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(p[0], 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	r->pipe = p[1];
}

/* Wait (at most 5 s) until the shell test @fmt passes. */
static void wait_for(const char *what, const char *fmt, const char *a, const char *b)
{
	for (int i = 0; i < 500; i++) {
		if (!t_sh(fmt, a, b))
			return;
		usleep(10000);
	}
	t_fail("%s: not within 5 s", what);
}

static void phase(struct run *r)
{
	T_ASSERT_EQ(write(r->pipe, "p", 1), 1);
}

static int end_run(struct run *r)
{
	int st;

	close(r->pipe);
	T_ASSERT_EQ(waitpid(r->rec, &st, 0), r->rec);
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 1)
		t_sh("cat %s.err >&2", r->local);
	T_ASSERT(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* @file's ctl_tick events of worker @w (trace-cmd report) are seq 0..@n-1, each once. */
static void check_seqs(const char *file, int w, long n)
{
	char wk[32];

	snprintf(wk, sizeof(wk), "worker=%d ", w);
	T_ASSERT_EQ(t_sh("trace-cmd report '%s' 2>/dev/null | grep ctl_tick | grep -- '%s' | "
			 "sed -n 's/.*seq=\\([0-9]*\\).*/\\1/p' | sort -n > '%s.seq' && "
			 "test \"$(wc -l < '%s.seq')\" = %ld && seq 0 %ld | cmp -s - '%s.seq'",
			 file, wk, file, file, n, n - 1, file),
		    0);
}

/* The listener's file of @r, linked as @r->dir/trace.dat once written; its path in @out. */
static void listener_file(struct run *r, char *out, size_t len)
{
	snprintf(out, len, "%s/trace.dat", r->dir);
	wait_for("the listener writes its file",
		 "ls %s/trace.*.dat >/dev/null 2>&1 && ! ls %s/trace.*.cpu* >/dev/null 2>&1",
		 r->dir, r->dir);
	T_ASSERT_EQ(t_sh("cd %s && f=$(ls trace.*.dat) && ln -sf \"$f\" trace.dat", r->dir), 0);
}

int main(int argc, char **argv)
{
	struct run live = { .name = "live" }, gone = { .name = "gone" };
	struct run tree = { .name = "tree", .tree = true };
	char tdat[600];

	if (argc > 1 && !strcmp(argv[1], "--sub")) {
		for (int i = 0; i < SUB; i++)
			trace_ctl_tick(7, (unsigned long long)i);
		return 0;
	}
	crt_begin(self, sizeof(self));
	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child_main(argc > 2 && !strcmp(argv[2], "--tree"));
	if (t_sh("command -v trace-cmd >/dev/null 2>&1"))
		t_skip("trace-cmd is missing (the listener)");
	crt_private_dir(tmpdir, sizeof(tmpdir));
	signal(SIGPIPE, SIG_IGN);

	start_run(&live);
	start_run(&gone);
	start_run(&tree);
	phase(&live);
	phase(&gone);
	phase(&tree);
	/* the command's process is streamed once it is set up, and record says so */
	wait_for("record says it streams", "grep -q -- ': live: .* of process ' %s.err%s",
		 live.local, "");
	wait_for("record says it streams", "grep -q -- ': live: ' %s.err%s", gone.local, "");
	wait_for("record says it streams", "grep -q -- ': live: ' %s.err%s", tree.local, "");
	/* the pages arrive while the commands wait on their pipes: before any end */
	wait_for("the listener's per-CPU files fill", "test -n \"$(find %s -name 'trace.*.cpu*' "
		 "-size +0 2>/dev/null)\"%s", live.dir, "");
	wait_for("the listener's per-CPU files fill", "test -n \"$(find %s -name 'trace.*.cpu*' "
		 "-size +0 2>/dev/null)\"%s", gone.dir, "");
	T_ASSERT_EQ(waitpid(live.rec, NULL, WNOHANG), 0);
	/* the second listener goes away mid-stream; five more phases there */
	T_ASSERT_EQ(kill(-gone.listener, SIGKILL), 0);
	T_ASSERT_EQ(waitpid(gone.listener, NULL, 0), gone.listener);
	phase(&live);
	phase(&tree);
	for (int i = 0; i < 5; i++) {
		phase(&gone);
		usleep(20000);
	}
	T_ASSERT_EQ(end_run(&live), 0);
	T_ASSERT_EQ(end_run(&gone), 1);
	T_ASSERT_EQ(end_run(&tree), 0);

	/* live: the listener's file, whole, as the local one */
	listener_file(&live, tdat, sizeof(tdat));
	check_seqs(tdat, 0, 2 * PHASE);
	T_ASSERT_EQ(t_sh("trace-cmd report %s > %s.r1 2>&1 && trace-cmd report %s > %s.r2 2>&1 "
			 "&& cmp -s %s.r1 %s.r2",
			 tdat, tdat, live.local, tdat, tdat, tdat),
		    0);
	T_ASSERT_EQ(t_sh("grep -q -- '-N 127.0.0.1:%u: [0-9]* pages sent live' %s.err", live.port,
			 live.local),
		    0);

	/* gone: the message names the host and what was sent; the local file has everything */
	T_ASSERT_EQ(t_sh("grep -q -- '-N 127.0.0.1:%u: .*goes on into %s, which will hold all of "
			 "it' %s.err",
			 gone.port, gone.local, gone.local),
		    0);
	check_seqs(gone.local, 0, 6 * PHASE);

	/* tree: the command streamed, the other program only in the local file, and said */
	listener_file(&tree, tdat, sizeof(tdat));
	check_seqs(tdat, 0, 2 * PHASE);
	T_ASSERT_EQ(t_sh("! trace-cmd report %s 2>/dev/null | grep -q 'worker=7 '", tdat), 0);
	check_seqs(tree.local, 0, 2 * PHASE);
	check_seqs(tree.local, 7, SUB);
	T_ASSERT_EQ(t_sh("grep -q -- '-N 127.0.0.1:%u: [1-9][0-9]* pages of 1 other process of "
			 "the command.s tree were not sent.*; %s has them' %s.err",
			 tree.port, tree.local, tree.local),
		    0);
	kill(-live.listener, SIGKILL);
	waitpid(live.listener, NULL, 0);
	kill(-tree.listener, SIGKILL);
	waitpid(tree.listener, NULL, 0);
	t_sh("rm -rf %s", tmpdir);
	return 0;
}
