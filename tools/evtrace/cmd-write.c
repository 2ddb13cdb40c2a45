// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-write.c - `evtrace write [-p PID] [-a] PATH DATA...`: what
 * `echo DATA > PATH` does in /sys/kernel/tracing, for a traced process's
 * tree, through its control socket. A rejected write prints the errno and
 * the process's error text (the kernel's message), exit 1. evtrace-write(1).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

static void write_usage(FILE *f)
{
	fprintf(f, "usage: evtrace write [-p PID] [-a] [-n] PATH [DATA...]\n"
		   "Write DATA (the words joined by spaces, then a newline) to PATH of a traced\n"
		   "process's tracing tree, as `echo DATA > PATH` does.\n"
		   "  -p, --pid PID      the process (default: the only one traced)\n"
		   "  -a, --append       as `echo DATA >> PATH`\n"
		   "  -n                 no newline at the end (echo -n)\n");
}

int cmd_write(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "append", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int flags = CTL_WF_TRUNC;
	bool newline = true;
	struct ctl_client *c;
	char err[8192], *data;
	size_t len = 0, size = 1, done = 0;
	pid_t pid = 0;
	ssize_t n;
	int opt;

	while ((opt = getopt_long(argc, argv, "+p:anh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (cmd_parse_pid(optarg, &pid))
				return 2;
			break;
		case 'a':
			flags = CTL_WF_APPEND;
			break;
		case 'n':
			newline = false;
			break;
		case 'h':
			write_usage(stdout);
			return 0;
		default:
			write_usage(stderr);
			return 2;
		}
	}
	if (argc - optind < 1) {
		write_usage(stderr);
		return 2;
	}
	for (int i = optind + 1; i < argc; i++)
		size += strlen(argv[i]) + 1;
	data = malloc(size + 1);
	if (!data)
		return 1;
	for (int i = optind + 1; i < argc; i++) {
		size_t l = strlen(argv[i]);

		if (len)
			data[len++] = ' ';
		memcpy(data + len, argv[i], l);
		len += l;
	}
	if (newline)
		data[len++] = '\n';
	c = cmd_ctl_connect(pid);
	if (!c) {
		free(data);
		return 1;
	}
	/* As the shell's echo: a short write (set_event takes one word per write(2),
	 * as the kernel's) is followed by another of the rest, without truncating. */
	do {
		n = ctl_write(c, argv[optind], data + done, len - done,
			      done ? flags & ~(unsigned int)CTL_WF_TRUNC : flags, err, sizeof(err));
		if (n > 0)
			done += (size_t)n;
	} while (n > 0 && done < len);
	ctl_close(c);
	free(data);
	if (n < 0) {
		cmd_ctl_error("write", argv[optind], (int)n, err);
		return 1;
	}
	return 0;
}
