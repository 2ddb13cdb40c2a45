// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * common.c - what the draining subcommands (relay, tracepipe, report) share
 * besides the live line (status.c): the verb/help check, option values,
 * opening an output file and writing all of a buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evtrace-cmd.h"

int cmd_verb_or_help(int argc, char **argv, void (*usage)(FILE *f))
{
	if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h"))
		return -1;
	usage(argc < 2 ? stderr : stdout);
	return argc < 2 ? 2 : 0;
}

int cmd_parse_seconds(const char *arg, double *seconds)
{
	char *end;

	*seconds = strtod(arg, &end);
	if (*end || *seconds <= 0) {
		cmd_error("-t: a positive number of seconds, not '%s'", arg);
		return -1;
	}
	return 0;
}

double cmd_deadline(double seconds)
{
	return seconds > 0 ? status_now() + seconds : 0;
}

int cmd_open_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		cmd_error("%s: %s", path, strerror(errno));
	return fd;
}

int cmd_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}
