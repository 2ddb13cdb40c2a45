// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-start-fail: with EVTRACE_CONTROL=1, an endpoint that cannot start
 * says so, once, on stderr, and counts it (issue 11, defect 10); the
 * program runs on. This program runs itself with --child (the library's
 * constructor tries to start the endpoint) in each case:
 *  - EVTRACE_CONTROL_DIR names a directory others can write to: refused,
 *    the message names it, and it keeps its mode;
 *  - no descriptor left (RLIMIT_NOFILE 4: the loader needs one): the message says so;
 *  - the child starts the endpoint again by hand: counted twice, said once.
 * The child prints evt_control_stats(3) on stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "helpers.h"

static int child_main(void)
{
	struct evt_control_stats st;
	int ret = evt_control_start(0);

	evt_control_stats(&st);
	printf("start %d failures %lu last %d\n", ret, st.start_failures, st.last_error);
	return 0;
}

/* Run ourselves with --child; stdout into @out, stderr into @err. */
static void run_child(const char *self, int nofile, char *out, size_t olen, char *err, size_t elen)
{
	int o[2], e[2], st;
	pid_t pid;
	ssize_t n;

	T_ASSERT(pipe(o) == 0 && pipe(e) == 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		if (nofile) {
			struct rlimit rl = { nofile, nofile };

			setrlimit(RLIMIT_NOFILE, &rl);
		}
		execl(self, self, "--child", (char *)NULL);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	n = read(o[0], out, olen - 1);
	out[n > 0 ? n : 0] = '\0';
	n = read(e[0], err, elen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(o[0]);
	close(e[0]);
	T_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	printf("child: %s  stderr: %s", out, err);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/evt-sfail-XXXXXX", open_dir[300], self[4096], out[4096], err[4096];
	struct stat st;
	ssize_t sl;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child_main();
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	T_ASSERT(sl > 0);
	self[sl] = '\0';
	T_ASSERT(mkdtemp(tmpl));
	setenv("EVTRACE_CONTROL", "1", 1);

	/* a directory others can write to */
	snprintf(open_dir, sizeof(open_dir), "%s/open", tmpl);
	T_ASSERT(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
	setenv("EVTRACE_CONTROL_DIR", open_dir, 1);
	run_child(self, 0, out, sizeof(out), err, sizeof(err));
	T_ASSERT_EQ(count(err, "serves no control socket"), 1);
	T_ASSERT(strstr(err, open_dir) && strstr(err, "others can write"));
	/* the constructor's try and the child's own: two failures, one message */
	T_ASSERT(strstr(out, "start -1 failures 2 last -1"));
	T_ASSERT(stat(open_dir, &st) == 0 && (st.st_mode & 07777) == 0777);

	/* no descriptor left */
	snprintf(open_dir, sizeof(open_dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", open_dir, 1);
	run_child(self, 4, out, sizeof(out), err, sizeof(err));
	T_ASSERT_EQ(count(err, "serves no control socket"), 1);
	T_ASSERT(strstr(err, strerror(EMFILE)));
	T_ASSERT(strstr(out, "failures 2 last -24"));

	rmdir(open_dir);
	snprintf(open_dir, sizeof(open_dir), "%s/open", tmpl);
	rmdir(open_dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
