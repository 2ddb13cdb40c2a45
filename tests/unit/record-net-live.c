// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-net-live: `evtrace record -N 127.0.0.1:PORT -p PID` streams to a
 * running `trace-cmd listen` while it records (docs/fleet.md, "When").
 *
 * The traced program is this test run again with --child: it writes a phase
 * of 1000 ctltest:ctl_tick events (seq numbered from 0, one thread) for each
 * byte it reads on its stdin, a pipe the test holds, and exits at its end.
 *
 * Live: record says it streams; the test sends one byte and waits until the
 * listener's per-CPU files (trace.HOST:PORT.cpuN, where its readers write what
 * they receive) hold data, while the program is still alive and blocked on
 * the pipe: the pages left before the end. Then a second phase, from a thread
 * named "late-namer" when it starts, and the end: record exits 0, the
 * listener's file holds 2000 events, seq 0..1999 each once (trace-cmd
 * report), the second phase's 1000 under the late thread's name (no "<...>":
 * the names go to the listener at the end), and trace-cmd report prints it
 * exactly as the local file.
 *
 * Killed: the same to a second listener, killed (its whole process group)
 * once the first phase arrived; then 5 more phases. record says which host
 * and what was sent, goes on recording, exits 1, and the local file holds all
 * 6000 events, seq 0..5999 each once: the guarantee is that the local file
 * keeps everything, whatever the listener got.
 *
 * Version 1: the same to a fake listener that knows only version 1 (it closes
 * on "-1V3", as trace-cmd 3.1's listener does on a version it does not know,
 * then takes version 1 on a new connection and appends what each connection
 * brings to a file): record falls back and streams; the CPUs' data arrives
 * before the program's end; the metadata is the local file's start, byte for
 * byte (the late thread's name in it), and the pages that came hold all 2000
 * records.
 *
 * The three run at the same time. SKIP without trace-cmd.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <poll.h>
#include <sys/wait.h>

#include <evtrace/ring_buffer.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"
#include "net-test.h"

#define PHASE 1000

static char tmpdir[300], self[4096];

static unsigned long long seq;

/* The second phase's thread: named after the stream began. */
static void *late_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "late-namer");
	for (int i = 0; i < PHASE; i++)
		trace_ctl_tick(0, seq++);
	return NULL;
}

/*
 * The traced program: a phase of PHASE events per byte on stdin, the second from a
 * thread it starts then, named "late-namer"; exits at its end.
 */
static int child_main(const char *ready)
{
	char path[256], c;
	int fd, n = 0;

	for (int i = 0; i < 2000 && evt_control_path(path, sizeof(path)); i++)
		usleep(5000);
	fd = open(ready, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	while (read(0, &c, 1) == 1) {
		pthread_t t;

		if (++n == 2 && !pthread_create(&t, NULL, late_thread, NULL)) {
			pthread_join(t, NULL);
			continue;
		}
		for (int i = 0; i < PHASE; i++)
			trace_ctl_tick(0, seq++);
	}
	return 0;
}

/*
 * The fake listener of version 1 only, in a child: closes on "-1V3" (as trace-cmd 3.1's
 * listener does on a version it does not know), then on a new connection takes version
 * 1's settings, gives a port per CPU (up to 8) and appends what comes on each connection
 * to @dir/v1-meta and @dir/v1-cpuN as it arrives, until all end.
 */
static void v1_listener(int lfd, const char *dir)
{
	char v[16], list[80] = "", path[600];
	int c, fds[9], out[9], cpus;
	unsigned int ports[8];

	c = tnet_v1_accept(lfd, &cpus);
	for (int i = 0; i < 4; i++) /* page size, "1", "4", "TCP" */
		tnet_read_string(c, v, sizeof(v));
	if (strcmp(v, "TCP"))
		_exit(5);
	for (int i = 0; i < cpus; i++) {
		int l = tnet_listen_any(&ports[i]);

		fds[i + 1] = l;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u", i ? "," : "",
			 ports[i]);
	}
	if (write(c, list, strlen(list) + 1) != (ssize_t)strlen(list) + 1)
		_exit(2);
	fds[0] = c;
	for (int i = 0; i <= cpus; i++) {
		if (i)
			fds[i] = accept(fds[i], NULL, NULL);
		if (i)
			snprintf(path, sizeof(path), "%s/v1-cpu%d", dir, i - 1);
		else
			snprintf(path, sizeof(path), "%s/v1-meta", dir);
		out[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fds[i] < 0 || out[i] < 0)
			_exit(2);
	}
	_exit(tnet_take_all(fds, cpus + 1, out) ? 7 : 0);
}

/* The records of the pages in @dir/v1-cpu* (the page iterator's count). */
static long v1_records(const char *dir)
{
	static unsigned char page[1 << 16];
	size_t ps = (size_t)sysconf(_SC_PAGESIZE); /* the buffers' pages */
	char path[600];
	long n = 0;

	T_ASSERT(ps <= sizeof(page));
	for (int cpu = 0; cpu < 8; cpu++) {
		const struct evt_ring_buffer_event *ev;
		struct evt_rb_page_iter it;
		int fd;

		snprintf(path, sizeof(path), "%s/v1-cpu%d", dir, cpu);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			break;
		while (read(fd, page, ps) == (ssize_t)ps) {
			T_ASSERT_OK(evt_rb_page_iter_init(&it, page, ps));
			while (evt_rb_page_iter_next(&it, &ev, NULL) > 0)
				n++;
		}
		close(fd);
	}
	return n;
}

/* One traced program and its record to 127.0.0.1:@port (stderr in @name.err). */
struct run {
	const char *name;
	bool v1; /* to a fake listener of version 1 only */
	unsigned int port;
	pid_t prog, rec, listener;
	int pipe; /* the program's stdin */
	char local[400], dir[400];
};

static void start_run(struct run *r)
{
	char ready[500], cmd[8192];
	int p[2];

	snprintf(r->dir, sizeof(r->dir), "%s/%s", tmpdir, r->name);
	snprintf(r->local, sizeof(r->local), "%s/%s.dat", tmpdir, r->name);
	snprintf(ready, sizeof(ready), "%s/%s.ready", tmpdir, r->name);
	T_ASSERT_EQ(mkdir(r->dir, 0755), 0);
	if (r->v1) {
		int lfd = tnet_listen_any(&r->port);

		r->listener = fork();
		T_ASSERT(r->listener >= 0);
		if (r->listener == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			alarm(30);
			v1_listener(lfd, r->dir);
		}
		close(lfd);
	} else {
		r->port = tnet_free_port();
		r->listener = tnet_trace_cmd_listen(r->port, r->dir);
	}
	T_ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	r->prog = fork();
	T_ASSERT(r->prog >= 0);
	if (r->prog == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(p[0], 0);
		setenv("EVTRACE_CONTROL", "1", 1);
		execl(self, self, "--child", ready, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	r->pipe = p[1];
	for (int i = 0; i < 1000 && access(ready, F_OK); i++)
		usleep(5000);
	T_ASSERT_EQ(access(ready, F_OK), 0);
	snprintf(cmd, sizeof(cmd),
		 "exec %s record -e ctltest:ctl_tick -N 127.0.0.1:%u -o %s -p %d 2>%s.err",
		 EVT_TOOL, r->port, r->local, (int)r->prog, r->local);
	r->rec = fork();
	T_ASSERT(r->rec >= 0);
	if (r->rec == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
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

/* A phase: one byte to the program. */
static void phase(struct run *r)
{
	T_ASSERT_EQ(write(r->pipe, "p", 1), 1);
}

static int end_run(struct run *r)
{
	int st;

	close(r->pipe);
	T_ASSERT_EQ(waitpid(r->prog, &st, 0), r->prog);
	T_ASSERT_EQ(waitpid(r->rec, &st, 0), r->rec);
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 1)
		t_sh("cat %s.err >&2", r->local);
	T_ASSERT(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* @file (trace-cmd report reads it) has seq 0..@n-1 of ctl_tick, each exactly once. */
static void check_seqs(const char *file, long n)
{
	T_ASSERT_EQ(t_sh("trace-cmd report '%s' 2>/dev/null | grep ctl_tick | "
			 "sed -n 's/.*seq=\\([0-9]*\\).*/\\1/p' | sort -n > '%s.seq' && "
			 "test \"$(wc -l < '%s.seq')\" = %ld && seq 0 %ld | cmp -s - '%s.seq'",
			 file, file, file, n, n - 1, file),
		    0);
}

int main(int argc, char **argv)
{
	struct run live = { .name = "live" }, gone = { .name = "gone" }, v1 = { .name = "v1" };
	char tdat[600];
	int st;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return child_main(argv[2]);
	crt_begin(self, sizeof(self));
	if (t_sh("command -v trace-cmd >/dev/null 2>&1"))
		t_skip("trace-cmd is missing (the listener)");
	crt_private_dir(tmpdir, sizeof(tmpdir));
	signal(SIGPIPE, SIG_IGN);

	v1.v1 = true;
	start_run(&v1); /* first: its fake listener (a fork) holds no other run's pipe */
	start_run(&live);
	start_run(&gone);
	/* the records stream, and say so */
	wait_for("record says it streams", "grep -q -- ': live: ' %s.err%s", live.local, "");
	wait_for("record says it streams", "grep -q -- ': live: ' %s.err%s", gone.local, "");
	wait_for("record says it streams", "grep -q -- ': live: ' %s.err%s", v1.local, "");
	phase(&live);
	phase(&gone);
	phase(&v1);
	/* the pages arrive while the programs wait on their pipes: before any end */
	wait_for("the listener's per-CPU files fill", "test -n \"$(find %s -name 'trace.*.cpu*' "
		 "-size +0 2>/dev/null)\"%s", live.dir, "");
	wait_for("the listener's per-CPU files fill", "test -n \"$(find %s -name 'trace.*.cpu*' "
		 "-size +0 2>/dev/null)\"%s", gone.dir, "");
	wait_for("version 1: the CPUs' data arrives", "test -n \"$(find %s -name 'v1-cpu*' "
		 "-size +0 2>/dev/null)\"%s", v1.dir, "");
	T_ASSERT_EQ(waitpid(live.prog, NULL, WNOHANG), 0);
	T_ASSERT_EQ(waitpid(live.rec, NULL, WNOHANG), 0);
	T_ASSERT_EQ(waitpid(v1.prog, NULL, WNOHANG), 0);
	/* the second listener goes away mid-stream; five more phases there */
	T_ASSERT_EQ(kill(-gone.listener, SIGKILL), 0);
	T_ASSERT_EQ(waitpid(gone.listener, NULL, 0), gone.listener);
	phase(&live);
	phase(&v1);
	for (int i = 0; i < 5; i++) {
		phase(&gone);
		usleep(20000);
	}
	T_ASSERT_EQ(end_run(&live), 0);
	T_ASSERT_EQ(end_run(&gone), 1);
	T_ASSERT_EQ(end_run(&v1), 0);

	/* version 1: the metadata first (a trace.dat's start), every record in the CPUs' pages */
	T_ASSERT_EQ(waitpid(v1.listener, &st, 0), v1.listener);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	T_ASSERT_EQ(t_sh("head -c 11 %s/v1-meta | grep -aq tracing6", v1.dir), 0);
	/* the metadata, names included (held for the end), is the local file's */
	T_ASSERT_EQ(t_sh("cmp -s -n $(stat -c %%s %s/v1-meta) %s/v1-meta %s", v1.dir, v1.dir,
			 v1.local),
		    0);
	T_ASSERT_EQ(v1_records(v1.dir), 2 * PHASE);
	check_seqs(v1.local, 2 * PHASE);

	/* live: the listener's file, whole, as the local one */
	snprintf(tdat, sizeof(tdat), "%s/trace.dat", live.dir);
	wait_for("the listener writes its file",
		 "ls %s/trace.*.dat >/dev/null 2>&1 && ! ls %s/trace.*.cpu* >/dev/null 2>&1",
		 live.dir, live.dir);
	T_ASSERT_EQ(t_sh("cd %s && f=$(ls trace.*.dat) && ln -sf \"$f\" trace.dat", live.dir), 0);
	check_seqs(tdat, 2 * PHASE);
	T_ASSERT_EQ(t_sh("trace-cmd report %s > %s.r1 2>&1 && trace-cmd report %s > %s.r2 2>&1 "
			 "&& cmp -s %s.r1 %s.r2",
			 tdat, tdat, live.local, tdat, tdat, tdat),
		    0);
	T_ASSERT_EQ(t_sh("grep -q -- '-N 127.0.0.1:%u: [0-9]* pages sent live' %s.err", live.port,
			 live.local),
		    0);
	/* the thread named after the stream began is named in the listener's file too */
	T_ASSERT_EQ(t_sh("test \"$(grep -c 'late-namer-[0-9]' %s.r1)\" = %d && "
			 "! grep -q '<\\.\\.\\.>' %s.r1",
			 tdat, PHASE, tdat),
		    0);

	/* gone: the message names the host and what was sent; the local file has everything */
	T_ASSERT_EQ(t_sh("grep -q -- '-N 127.0.0.1:%u: .*goes on into %s, which will hold all of "
			 "it' %s.err",
			 gone.port, gone.local, gone.local),
		    0);
	check_seqs(gone.local, 6 * PHASE);
	kill(-live.listener, SIGKILL);
	waitpid(live.listener, NULL, 0);
	t_sh("rm -rf %s", tmpdir);
	return 0;
}
