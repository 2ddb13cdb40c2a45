// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-reset.c - `evtrace reset [-p PID]`: put a traced process's tracing
 * back to its start, as `trace-cmd reset` does for the kernel: every event
 * disabled, every filter and trigger removed, the buffer emptied, tracing
 * on. evtrace-reset(1).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

static void reset_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace reset [-p PID]\n"
		"Disable every event, remove every filter and trigger, empty the buffer and turn\n"
		"tracing on, in a traced process's top instance.\n"
		"  -p, --pid PID      the process (default: the only one traced)\n");
}

static int put(struct ctl_client *c, const char *path, const char *data, unsigned int flags)
{
	char err[4096];
	ssize_t n = ctl_write(c, path, data, strlen(data), flags, err, sizeof(err));

	if (n < 0) {
		cmd_ctl_error("reset", path, (int)n, err);
		return 1;
	}
	return 0;
}

/*
 * The removal command of a line of a trigger file: "!" + the line, without the " [active]" or
 * " [paused]" a hist trigger shows. The whole line, because a hist trigger is removed only by
 * one with the same filter (a count is not read on removal). A hist line's sort keys print
 * with their key's modifier ("sort=usecs.log2"), which the parser, like the kernel's, only
 * takes as ".ascending"/".descending": those others are dropped.
 */
static int removal_cmd(const char *line, char *cmd, size_t size)
{
	static const char *const states[] = { " [active]", " [paused]" };
	size_t len = strlen(line), o = 0;
	const char *sort = NULL, *sort_end = NULL;

	for (size_t i = 0; i < 2; i++) {
		size_t sl = strlen(states[i]);

		if (len >= sl && !strcmp(line + len - sl, states[i]))
			len -= sl;
	}
	if (!strncmp(line, "hist:", 5)) {
		sort = strstr(line, ":sort=");
		if (sort && sort < line + len) {
			sort += 6;
			sort_end = sort + strcspn(sort, ": ");
		} else {
			sort = NULL;
		}
	}
	if (size < 2)
		return -1;
	cmd[o++] = '!';
	for (size_t i = 0; i < len; i++) {
		if (sort && line + i >= sort && line + i < sort_end && line[i] == '.') {
			size_t m = strcspn(line + i, ",: ");

			if ((m != 10 || strncmp(line + i, ".ascending", 10)) &&
			    (m != 11 || strncmp(line + i, ".descending", 11))) {
				i += m - 1; /* a key's modifier: not a sort modifier */
				continue;
			}
		}
		if (o + 1 >= size)
			return -1;
		cmd[o++] = line[i];
	}
	cmd[o] = '\0';
	return 0;
}

/* Remove each trigger of @dir/trigger: its removal command (removal_cmd()). */
static int clear_triggers(struct ctl_client *c, const char *dir)
{
	char path[1024], *text = NULL;
	int status = 0;

	snprintf(path, sizeof(path), "%s/trigger", dir);
	if (ctl_read(c, path, &text) < 0) {
		free(text);
		return 0;
	}
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		char cmd[8192];

		if (*l == '#' || !*l)
			continue;
		if (removal_cmd(l, cmd, sizeof(cmd))) {
			cmd_error("reset: %s: a trigger line too long to remove", path);
			status = 1;
			continue;
		}
		status |= put(c, path, cmd, CTL_WF_APPEND);
	}
	free(text);
	return status;
}

int cmd_reset(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_names sys = { 0 };
	struct ctl_client *c;
	pid_t pid = 0;
	int opt, status = 0;

	while ((opt = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (cmd_parse_pid(optarg, &pid))
				return 2;
			break;
		case 'h':
			reset_usage(stdout);
			return 0;
		default:
			reset_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		reset_usage(stderr);
		return 2;
	}
	c = cmd_ctl_connect(pid);
	if (!c)
		return 1;
	status |= put(c, "set_event", "", CTL_WF_TRUNC);
	if (ctl_readdir(c, "events", cmd_names_add_dir, &sys) == 0) {
		for (int i = 0; i < sys.n; i++) {
			struct cmd_names ev = { 0 };
			char dir[600];

			snprintf(dir, sizeof(dir), "events/%s", sys.v[i]);
			if (ctl_readdir(c, dir, cmd_names_add_dir, &ev))
				continue;
			for (int j = 0; j < ev.n; j++) {
				char edir[900], path[1000];

				snprintf(edir, sizeof(edir), "%s/%s", dir, ev.v[j]);
				status |= clear_triggers(c, edir);
				snprintf(path, sizeof(path), "%s/filter", edir);
				if (ctl_stat(c, path, NULL) == 0)
					status |= put(c, path, "0", CTL_WF_TRUNC);
			}
			cmd_names_free(&ev);
		}
	}
	cmd_names_free(&sys);
	/*
	 * Again: an event an enable_event trigger turned on stays on once its trigger is gone
	 * (soft mode ends with the event enabled, as in the kernel).
	 */
	status |= put(c, "set_event", "", CTL_WF_TRUNC);
	status |= put(c, "trace", "", CTL_WF_TRUNC);
	status |= put(c, "tracing_on", "1", CTL_WF_TRUNC);
	ctl_close(c);
	return status;
}
