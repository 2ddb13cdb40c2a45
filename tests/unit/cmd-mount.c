// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-mount: `evtrace mount -p PID DIR` on a traced program (this binary
 * with --child: app:req, app:resp and db:query fired in a loop, the
 * control endpoint on), then the shell gestures of the kernel's
 * events.rst sections 2-5, verbatim but for the event names, run by bash
 * in DIR: set_event with '>>', '>', '!event', 'system:*', '*:*' and an
 * empty line; the enable files (0, 1, X); format; a filter, a rejected
 * one (bash's "write error: Invalid argument" and the kernel's display in
 * the file), clearing, a subsystem filter; trace; trace_pipe under
 * timeout(1); '> trace' with no write; an instance made and removed;
 * poll(2) on trace_pipe (not readable while nothing comes, readable once
 * records do) and on a plain file; then SIGTERM unmounts. `mount -d` comes back mounted; fusermount3 -u
 * ends it. Last mount: the process exits; a `cat
 * trace_pipe` blocked in the mount ends and the mount goes away by itself.
 * SKIP where FUSE cannot be mounted (no /dev/fuse, no fusermount3, no
 * permission).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/control.h>

#define CREATE_TRACE_POINTS
#include "mount-app-tp.h"
#define CREATE_TRACE_POINTS
#include "mount-db-tp.h"

#include "cmd-test.h"

static volatile sig_atomic_t child_stop;

static void on_term(int sig)
{
	(void)sig;
	child_stop = 1;
}

/* The traced program: fire the events until SIGTERM; READYFILE once the endpoint is up. */
static int child_main(const char *ready)
{
	struct timespec pause = { 0, 500 * 1000 };
	char path[256];
	int fd;

	signal(SIGTERM, on_term);
	for (int i = 0; i < 2000 && evt_control_path(path, sizeof(path)); i++)
		usleep(5000);
	fd = open(ready, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	for (int i = 0; !child_stop; i++) {
		trace_req(i % 20);
		trace_resp(i % 20, 200);
		trace_query(i % 7);
		nanosleep(&pause, NULL);
	}
	return 0;
}

static char mnt[300], tmp[256];
static pid_t child_pid, mount_pid;

/* On a failure: leave no traced child, no mount and no mount process behind. */
static void cleanup(void)
{
	if (mount_pid > 0)
		kill(mount_pid, SIGTERM);
	if (child_pid > 0)
		kill(child_pid, SIGKILL);
	if (mount_pid > 0 || child_pid > 0) {
		char cmd[800];

		snprintf(cmd, sizeof(cmd),
			 "fusermount3 -u -z %s >/dev/null 2>&1 || umount -l %s "
			 ">/dev/null 2>&1",
			 mnt, mnt);
		if (system(cmd))
			(void)0;
	}
}

/* Run `bash -c SCRIPT` in the mount; stdout and stderr into @out. The exit status. */
static int sh(const char *script, char *out, size_t cap)
{
	static char dummy[1 << 16];
	char *argv[] = { "bash", "-c", (char *)script, NULL };
	int p[2], st;
	pid_t pid;

	if (!out) {
		out = dummy;
		cap = sizeof(dummy);
	}
	if (pipe(p))
		t_fail("pipe");
	pid = fork();
	if (pid < 0)
		t_fail("fork");
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (chdir(mnt))
			_exit(126);
		execvp("bash", argv);
		_exit(127);
	}
	close(p[1]);
	cmdt_read_all(p[0], out, cap);
	if (waitpid(pid, &st, 0) != pid)
		t_fail("waitpid");
	printf("$ %s\n%s", script, out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The output of @script, which must succeed. */
static const char *sh_ok(const char *script)
{
	static char out[1 << 20];

	if (sh(script, out, sizeof(out)) != 0)
		t_fail("'%s' failed: %s", script, out);
	return out;
}

static void expect(const char *script, const char *want)
{
	const char *got = sh_ok(script);

	if (strcmp(got, want))
		t_fail("'%s': want \"%s\", got \"%s\"", script, want, got);
}

static pid_t start_child(const char *self, const char *ready)
{
	pid_t pid = fork();

	if (pid < 0)
		t_fail("fork");
	if (pid == 0) {
		setenv("EVTRACE_CONTROL", "1", 1);
		execl(self, self, "--child", ready, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 2000 && access(ready, F_OK); i++)
		usleep(5000);
	if (access(ready, F_OK))
		t_fail("the traced child did not start its endpoint");
	return pid;
}

/* Start `evtrace mount -p PID DIR`; wait for DIR/set_event. SKIP when it cannot mount. */
static pid_t start_mount(pid_t child, const char *errfile)
{
	char pidarg[32], path[400], err[4096];
	struct stat st;
	pid_t pid;
	int efd, status;

	snprintf(pidarg, sizeof(pidarg), "%d", (int)child);
	efd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (efd < 0)
		t_fail("%s: %s", errfile, strerror(errno));
	pid = fork();
	if (pid < 0)
		t_fail("fork");
	if (pid == 0) {
		dup2(efd, 1);
		dup2(efd, 2);
		execl(EVT_TOOL, EVT_TOOL, "mount", "-p", pidarg, mnt, (char *)NULL);
		_exit(127);
	}
	close(efd);
	snprintf(path, sizeof(path), "%s/set_event", mnt);
	for (int i = 0; i < 2000; i++) {
		if (stat(path, &st) == 0)
			return pid;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			int fd = open(errfile, O_RDONLY);

			cmdt_read_all(fd, err, sizeof(err));
			kill(child, SIGTERM);
			waitpid(child, NULL, 0);
			if (strstr(err, "is not a command"))
				t_skip("evtrace was built without libfuse3 (no mount verb)");
			if (strstr(err, "cannot mount"))
				t_skip("FUSE cannot be mounted here: %s", err);
			t_fail("evtrace mount exited: %s", err);
		}
		usleep(5000);
	}
	t_fail("%s did not appear", path);
}

/* Wait (bounded, generously: this is liveness, not speed) for @pid's exit status. */
static int wait_exit(pid_t pid, int seconds)
{
	int st;

	for (int i = 0; i < seconds * 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(10000);
	}
	kill(pid, SIGKILL);
	t_fail("process %d did not exit within %d s", (int)pid, seconds);
}

static bool mounted(void)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/set_event", mnt);
	return access(path, F_OK) == 0;
}

/* Every "req: id=N" line of @text has N > @min; the number of such lines. */
static int req_lines_above(const char *text, int min)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, " req: id=")); p++) {
		int id = atoi(p + 9);

		if (id <= min)
			t_fail("a req line with id=%d passed the filter id > %d", id, min);
		n++;
	}
	return n;
}

static void seeds_gestures(void)
{
	char out[1 << 16];
	const char *s;

	/* 2.1 set_event */
	s = sh_ok("cat available_events");
	T_ASSERT(strstr(s, "app:req\n") && strstr(s, "app:resp\n") && strstr(s, "db:query\n"));
	expect("echo req >> set_event; cat set_event", "app:req\n");
	expect("echo db:query >> set_event; cat set_event", "app:req\ndb:query\n");
	expect("echo '!req' >> set_event; cat set_event", "db:query\n");
	expect("echo > set_event; cat set_event", "");
	s = sh_ok("echo *:* > set_event; cat set_event");
	T_ASSERT(strstr(s, "app:req\n") && strstr(s, "app:resp\n") && strstr(s, "db:query\n"));
	expect("echo 'app:*' > set_event; cat set_event", "app:req\napp:resp\n");
	/* a word that names nothing: EINVAL, as the kernel */
	T_ASSERT(sh("echo nosuch:event >> set_event", out, sizeof(out)) != 0);
	T_ASSERT(strstr(out, "write error: Invalid argument"));

	/* 2.2 the enable toggles */
	expect("cat events/app/enable", "1\n");
	expect("echo 0 > events/app/resp/enable; cat events/app/resp/enable", "0\n");
	expect("cat events/app/enable", "X\n");
	expect("echo 1 > events/app/resp/enable; cat events/app/enable", "1\n");
	expect("echo 0 > events/app/enable; cat events/app/req/enable events/app/resp/enable",
	       "0\n0\n");
	expect("echo 1 > events/enable; cat events/enable events/db/enable", "1\n1\n");
	expect("echo 0 > events/enable; cat events/enable set_event", "0\n");

	/* 4. formats */
	s = sh_ok("cat events/app/req/format");
	T_ASSERT(!strncmp(s, "name: req\nID: ", 14));
	T_ASSERT(strstr(s, "field:int common_pid;\toffset:4;\tsize:4;\tsigned:1;"));
	T_ASSERT(strstr(s, "field:int id;"));
	T_ASSERT(strstr(s, "print fmt: \"id=%d\", REC->id"));

	/* 5.2 setting filters, and a rejected one */
	expect("cd events/app/req && echo \"common_preempt_count > 4\" > filter && cat filter",
	       "common_preempt_count > 4\n");
	expect("cd events/app/req && echo \"id > 5\" > filter && cat filter", "id > 5\n");
	T_ASSERT(sh("cd events/app/req; echo \"((id >= 10 && id < 15) || did == 17) && id != 3\" "
		    "> filter",
		    out, sizeof(out)) == 1);
	T_ASSERT(strstr(out, "echo: write error: Invalid argument"));
	s = sh_ok("cat events/app/req/filter");
	T_ASSERT(strstr(s, "((id >= 10 && id < 15) || did == 17) && id != 3\n"));
	/* the caret under the error (the seeds' kernel put it at the start; newer ones do this) */
	T_ASSERT(strstr(s, " ^\nparse_error: Field not found\n"));
	/* the kernel logs it in error_log too */
	s = sh_ok("cat error_log");
	T_ASSERT(strstr(s, "Field not found"));
	/* 5.3 clearing */
	expect("echo 0 > events/app/req/filter; cat events/app/req/filter", "none\n");
	/* 5.4 subsystem filters: common fields reach every event */
	expect("cd events/app && echo common_pid != 0 > filter && cat req/filter resp/filter",
	       "common_pid != 0\ncommon_pid != 0\n");
	/* a field only resp has: req keeps its old filter in force, and shows why as the
	 * kernel does */
	expect("cd events/app && echo status == 200 > filter; cat req/filter resp/filter",
	       "status == 200\n^\nparse_error: Couldn't find or set field in one of a "
	       "subsystem's events\n\nstatus == 200\n");
	expect("cd events/app && echo 0 > filter && cat req/filter resp/filter", "none\nnone\n");

	/* 5.5 PID filtering: '>' replaces, '>>' adds */
	expect("echo 123 244 1 > set_event_pid; echo 7 >> set_event_pid; cat set_event_pid",
	       "1\n7\n123\n244\n");
	expect("echo > set_event_pid; cat set_event_pid", "");

	/* trace, with a filter: only id > 5 (the buffer emptied first: '>' on trace) */
	sh_ok("echo 'id > 5' > events/app/req/filter && echo > trace && "
	      "echo 1 > events/app/req/enable");
	for (int i = 0;; i++) {
		s = sh_ok("cat trace");
		T_ASSERT(!strncmp(s, "# tracer: nop\n", 14));
		if (req_lines_above(s, 5) > 0)
			break;
		if (i > 500)
			t_fail("no req record in trace");
		usleep(10000);
	}
	/* trace_pipe streams (no header), consumed; head(1) ends the pipe */
	s = sh_ok("timeout 20 cat trace_pipe | head -3");
	T_ASSERT_EQ(req_lines_above(s, 5), 3);
	T_ASSERT(!strstr(s, "# tracer"));
	/*
	 * tracing off ends a reader that read something (the kernel's end of file): what was
	 * left in the buffer, then the end
	 */
	T_ASSERT_EQ(sh("(sleep 0.3; echo 0 > tracing_on) & timeout 20 cat trace_pipe >/dev/null",
		       out, sizeof(out)),
		    0);
	/* with nothing to read, it waits: its signal interrupts it (timeout(1): 124) */
	T_ASSERT_EQ(sh("echo 0 > tracing_on; echo > trace; timeout 0.2 cat trace_pipe >/dev/null",
		       out, sizeof(out)),
		    124);
	/* O_NONBLOCK: EAGAIN when nothing comes */
	T_ASSERT(sh("echo > trace; dd if=trace_pipe of=/dev/null iflag=nonblock bs=4096 count=1",
		    out, sizeof(out)) != 0);
	T_ASSERT(strstr(out, "Resource temporarily unavailable"));
	sh_ok("echo 1 > tracing_on");

	/* '> trace' (open with O_TRUNC, no write) empties the buffer */
	expect("echo 0 > tracing_on; > trace; grep -c ' req: ' trace || true", "0\n");
	expect("echo 1 > tracing_on; echo 0 > events/app/req/filter; cat tracing_on", "1\n");

	/* instances/ */
	expect("mkdir instances/foo && ls instances", "foo\n");
	expect("echo 'db:*' > instances/foo/set_event && cat instances/foo/set_event",
	       "db:query\n");
	expect("rmdir instances/foo && ls instances", "");

	/* many readers at once: each request its own connection from the pool */
	expect("for i in $(seq 16); do (grep -c '^name: req$' events/app/req/format) & done; wait",
	       "1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n");

	/* writers and readers at once: each write answered, each read whole */
	expect("for i in $(seq 8); do (echo 'id > 5' > events/app/req/filter && "
	       "cat events/app/req/filter) & done; wait; echo 0 > events/app/req/filter",
	       "id > 5\nid > 5\nid > 5\nid > 5\nid > 5\nid > 5\nid > 5\nid > 5\n");

	/* no file is created */
	T_ASSERT(sh("echo 1 > no_such_file", out, sizeof(out)) != 0);
	T_ASSERT(strstr(out, "Permission denied"));
}

/* poll(2): trace_pipe is readable only when records wait (FUSE poll); other files always */
static void poll_checks(void)
{
	char path[400], buf[4096];
	struct pollfd p;
	ssize_t n;
	int fd;

	sh_ok("echo 0 > tracing_on; echo > trace; echo 'app:req' > set_event");
	snprintf(path, sizeof(path), "%s/trace_pipe", mnt);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	T_ASSERT(fd >= 0);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	T_ASSERT_EQ(poll(&p, 1, 300), 0); /* tracing off, the buffer empty: nothing to read */
	sh_ok("echo 1 > tracing_on");
	p.revents = 0;
	T_ASSERT_EQ(poll(&p, 1, 20000), 1); /* the mount's waiter notified the kernel */
	T_ASSERT(p.revents & POLLIN);
	n = read(fd, buf, sizeof(buf) - 1);
	T_ASSERT(n > 0);
	buf[n] = '\0';
	T_ASSERT(strstr(buf, " req: "));
	close(fd);

	snprintf(path, sizeof(path), "%s/tracing_on", mnt);
	fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0);
	p = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	T_ASSERT_EQ(poll(&p, 1, 0), 1);
	T_ASSERT((p.revents & (POLLIN | POLLOUT)) == (POLLIN | POLLOUT));
	close(fd);
}

int main(int argc, char **argv)
{
	char self[4096], ready[300], errfile[300], sock[300], tmpl[] = "/tmp/evt-mount-XXXXXX";
	pid_t child, mp, cat;
	ssize_t sl;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child_main(argv[2]);

	if (access("/dev/fuse", R_OK | W_OK))
		t_skip("no usable /dev/fuse (%s)", strerror(errno));
	if (geteuid() != 0 && system("command -v fusermount3 >/dev/null 2>&1") != 0)
		t_skip("not root and no fusermount3");
	if (system("command -v bash >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1"))
		t_skip("bash and timeout(1) are needed");
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	T_ASSERT(sl > 0);
	self[sl] = '\0';
	if (!mkdtemp(tmpl))
		t_fail("mkdtemp");
	snprintf(tmp, sizeof(tmp), "%s", tmpl);
	snprintf(sock, sizeof(sock), "%s/sock", tmp);
	setenv("EVTRACE_CONTROL_DIR", sock, 1);
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	T_ASSERT(mkdir(mnt, 0755) == 0);
	snprintf(ready, sizeof(ready), "%s/ready", tmp);
	snprintf(errfile, sizeof(errfile), "%s/mount.err", tmp);

	/* 1. the gestures; SIGTERM unmounts */
	setvbuf(stdout, NULL, _IOLBF, 0);
	atexit(cleanup);
	child_pid = child = start_child(self, ready);
	mount_pid = mp = start_mount(child, errfile);
	seeds_gestures();
	poll_checks();
	kill(mp, SIGTERM);
	T_ASSERT_EQ(wait_exit(mp, 20), 0);
	mount_pid = 0;
	T_ASSERT(!mounted());

	/* 2. -d: back once mounted; fusermount3 -u (or umount) ends it */
	{
		char cmd[1200];

		/* system(): the daemon keeps no descriptor of ours (a pipe would never end) */
		snprintf(cmd, sizeof(cmd), "%s mount -d -p %d %s </dev/null >/dev/null 2>&1",
			 EVT_TOOL, (int)child, mnt);
		T_ASSERT_EQ(system(cmd), 0);
		T_ASSERT(mounted());
		expect("head -1 events/app/req/format", "name: req\n");
		snprintf(cmd, sizeof(cmd), "fusermount3 -u %s 2>/dev/null || umount %s", mnt, mnt);
		T_ASSERT_EQ(system(cmd), 0);
		T_ASSERT(!mounted());
	}

	/* 3. the process exits under the mount and a blocked trace_pipe reader */
	mount_pid = mp = start_mount(child, errfile);
	sh_ok("echo 'app:*' > set_event");
	cat = fork();
	T_ASSERT(cat >= 0);
	if (cat == 0) {
		char path[400];
		int nul = open("/dev/null", O_WRONLY);

		snprintf(path, sizeof(path), "%s/trace_pipe", mnt);
		dup2(nul, 1);
		dup2(nul, 2);
		execlp("cat", "cat", path, (char *)NULL);
		_exit(127);
	}
	usleep(100 * 1000);
	kill(child, SIGTERM);
	T_ASSERT_EQ(wait_exit(child, 20), 0);
	child_pid = 0;
	T_ASSERT_EQ(wait_exit(mp, 20), 0); /* it saw the exit and unmounted */
	mount_pid = 0;
	wait_exit(cat, 20); /* the reader did not hang (EOF or ENODEV) */
	T_ASSERT(!mounted());
	fd = open(errfile, O_RDONLY);
	if (fd >= 0) {
		char err[4096];

		cmdt_read_all(fd, err, sizeof(err));
		printf("mount's stderr: %s", err);
		T_ASSERT(strstr(err, "exited"));
	}
	/* the directory is an empty directory again */
	T_ASSERT(rmdir(mnt) == 0);
	unlink(ready);
	unlink(errfile);
	rmdir(sock);
	rmdir(tmp);
	printf("PASS\n");
	return 0;
}
