/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/cmd-test.h - what the tests of the evtrace command share:
 * run build/tools/evtrace as a child with its stdout on a pipe, wait for
 * its exit status, read its output, and read a terminal (the live line).
 * Header-only (each test is one program); names cmdt_*.
 */
#ifndef EVT_TESTS_CMD_TEST_H
#define EVT_TESTS_CMD_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif

/* Run the command with stdout to *@out (a pipe) and stderr to @errfd (-1: /dev/null). */
static inline pid_t cmdt_run(char *const argv[], int *out, int errfd)
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

/* The exit status of @pid, or 128 + the signal that ended it. */
static inline int cmdt_wait_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		t_fail("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Read @fd to its end (at most @cap - 1 bytes, NUL-terminated) and close it. */
static inline size_t cmdt_read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
	close(fd);
	return n;
}

/* Run the command, its output to @buf; its exit status. */
static inline int cmdt_simple(char *const argv[], char *buf, size_t cap)
{
	int out;
	pid_t pid = cmdt_run(argv, &out, -1);

	cmdt_read_all(out, buf, cap);
	return cmdt_wait_status(pid);
}

/*
 * Read the terminal @master into @buf until @want shows in it (the live line);
 * when @buf fills up, start again at its beginning.
 */
static inline void cmdt_read_until(int master, char *buf, size_t cap, const char *want)
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

#endif /* EVT_TESTS_CMD_TEST_H */
