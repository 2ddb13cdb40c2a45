// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-cat.c - `evtrace cat [-p PID] PATH...` (also `evtrace show`): print
 * files of a traced process's tracing tree, read through its control
 * socket. trace_pipe files stream until Ctrl-C or the file ends (-n: what
 * is there now). A directory lists its entries. evtrace-cat(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

static void cat_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace cat [-p PID] [-n] PATH...   (or: evtrace show ...)\n"
		"Print files of a traced process's tracing tree (the paths of\n"
		"/sys/kernel/tracing: trace, set_event, events/SYS/EVENT/format, ...).\n"
		"  -p, --pid PID      the process (default: the only one traced)\n"
		"  -n, --nonblock     trace_pipe: what is there now, do not wait for more\n");
}

static bool is_pipe(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "trace_pipe") || !strcmp(base, "trace_pipe_raw");
}

static int print_entry(void *arg, const char *name, unsigned int mode)
{
	(void)arg;
	printf("%s%s\n", name, S_ISDIR(mode) ? "/" : "");
	return 0;
}

static int stream(struct ctl_client *c, const char *path)
{
	char buf[65536];
	ssize_t n;
	int ret = ctl_stream_open(c, path);

	if (ret) {
		cmd_ctl_error("cat", path, ret, NULL);
		return 1;
	}
	for (;;) {
		n = ctl_stream_read(c, buf, sizeof(buf), 200);
		if (n == -EAGAIN || n == -EINTR) {
			if (cmd_stop)
				break;
			continue;
		}
		if (n <= 0)
			break;
		if (cmd_write_all(STDOUT_FILENO, buf, (size_t)n) < 0) {
			n = -errno;
			break;
		}
		if (cmd_stop)
			break;
	}
	if (n > 0 || n == -EAGAIN || n == -EINTR) {
		ret = ctl_stream_stop(c);
		if (ret)
			n = ret;
		else
			n = 0;
	}
	/* a stop with the stream still open: drain what was in flight */
	while (n > 0)
		n = ctl_stream_read(c, buf, sizeof(buf), -1);
	if (n < 0 && n != -EPIPE) {
		cmd_ctl_error("cat", path, (int)n, NULL);
		return 1;
	}
	return 0;
}

int cmd_cat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "nonblock", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl_client *c;
	bool nonblock = false;
	pid_t pid = 0;
	int opt, status = 0;

	while ((opt = getopt_long(argc, argv, "+p:nh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (cmd_parse_pid(optarg, &pid))
				return 2;
			break;
		case 'n':
			nonblock = true;
			break;
		case 'h':
			cat_usage(stdout);
			return 0;
		default:
			cat_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		cat_usage(stderr);
		return 2;
	}
	c = cmd_ctl_connect(pid);
	if (!c)
		return 1;
	cmd_catch_signals();
	for (int i = optind; i < argc && !cmd_stop; i++) {
		const char *path = argv[i];
		unsigned int mode = 0;
		char *buf = NULL;
		ssize_t n;
		int ret;

		ret = ctl_stat(c, path, &mode);
		if (ret) {
			cmd_ctl_error("cat", path, ret, NULL);
			status = 1;
			continue;
		}
		if (S_ISDIR(mode)) {
			ret = ctl_readdir(c, path, print_entry, NULL);
			if (ret) {
				cmd_ctl_error("cat", path, ret, NULL);
				status = 1;
			}
			continue;
		}
		if (is_pipe(path) && !nonblock) {
			fflush(stdout);
			status |= stream(c, path);
			continue;
		}
		n = ctl_read(c, path, &buf);
		if (n < 0) {
			cmd_ctl_error("cat", path, (int)n, NULL);
			status = 1;
			continue;
		}
		fflush(stdout);
		if (cmd_write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
			status = 1;
		free(buf);
	}
	ctl_close(c);
	return status;
}
