/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/cmd-test.h - what the tests of the evtrace command share:
 * run build/tools/evtrace as a child with its stdout on a pipe, wait for
 * its exit status, read its output, and read a terminal (the live line).
 * Defined in cmd-test.c of the test library; names cmdt_*.
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
pid_t cmdt_run(char *const argv[], int *out, int errfd);

/* The exit status of @pid, or 128 + the signal that ended it. */
int cmdt_wait_status(pid_t pid);

/* Read @fd to its end (at most @cap - 1 bytes, NUL-terminated) and close it. */
size_t cmdt_read_all(int fd, char *buf, size_t cap);

/* Run the command, its output to @buf; its exit status. */
int cmdt_simple(char *const argv[], char *buf, size_t cap);

/* Run the command, its stdout to @out and its stderr to @err (each read to its end,
 * NUL-terminated); its exit status. */
int cmdt_capture(char *const argv[], char *out, size_t cap, char *err, size_t errcap);

/*
 * Read the terminal @master into @buf until @want shows in it (the live line);
 * when @buf fills up, start again at its beginning.
 */
void cmdt_read_until(int master, char *buf, size_t cap, const char *want);

#endif /* EVT_TESTS_CMD_TEST_H */
