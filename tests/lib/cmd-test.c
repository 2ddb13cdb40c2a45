// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/cmd-test.c - shared helpers of the tests that include cmd-test.h
 */
#include "cmd-test.h"

pid_t cmdt_run(char *const argv[], int *out, int errfd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		t_fail("pipe");
	pid = fork();
	if (pid < 0)
		t_fail("fork");
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(p[1], 1);
		dup2(errfd >= 0 ? errfd : nul, 2);
		close(p[0]);
		execv(EVT_TOOL, argv);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

int cmdt_wait_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		t_fail("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

size_t cmdt_read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
	close(fd);
	return n;
}

int cmdt_simple(char *const argv[], char *buf, size_t cap)
{
	int out;
	pid_t pid = cmdt_run(argv, &out, -1);

	cmdt_read_all(out, buf, cap);
	return cmdt_wait_status(pid);
}

int cmdt_capture(char *const argv[], char *out, size_t cap, char *err, size_t errcap)
{
	int fd, efd[2];
	pid_t pid;

	if (pipe(efd))
		t_fail("pipe");
	pid = cmdt_run(argv, &fd, efd[1]);
	close(efd[1]);
	cmdt_read_all(fd, out, cap);
	cmdt_read_all(efd[0], err, errcap);
	return cmdt_wait_status(pid);
}

void cmdt_read_until(int master, char *buf, size_t cap, const char *want)
{
	size_t got = 0;

	buf[0] = 0;
	while (!strstr(buf, want)) {
		ssize_t r = read(master, buf + got, cap - 1 - got);

		if (r <= 0)
			t_fail("pty read: %zd (%s)", r, buf);
		got += (size_t)r;
		buf[got] = 0;
		if (got > cap - 200)
			got = 0;
	}
}
