// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-hist.c - `evtrace hist [-p PID] [-a] [EVENT...]`: the `hist` files
 * of a traced process's events (events/SYS/EVENT/hist, the histogram
 * triggers' output), each under a title line; events without a hist file
 * are skipped, as are histograms with no entries unless -a. EVENT is
 * "name", "sys:name" or "sys:*". evtrace-hist(1).
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

static void hist_usage(FILE *f)
{
	fprintf(f, "usage: evtrace hist [-p PID] [-a] [EVENT...]\n"
		   "Print the hist files of a traced process's events (histogram triggers).\n"
		   "  -p, --pid PID      the process (default: the only one traced)\n"
		   "  -a, --all          also the histograms with no entries\n"
		   "  EVENT              name, sys:name or sys:* (default: every event)\n");
}

static bool selected(int argc, char **argv, const char *sys, const char *ev)
{
	if (argc == 0)
		return true;
	for (int i = 0; i < argc; i++) {
		const char *colon = strchr(argv[i], ':');
		char s[256];

		if (!colon) {
			if (!fnmatch(argv[i], ev, 0))
				return true;
			continue;
		}
		snprintf(s, sizeof(s), "%.*s", (int)(colon - argv[i]), argv[i]);
		if (!fnmatch(s, sys, 0) && !fnmatch(*(colon + 1) ? colon + 1 : "*", ev, 0))
			return true;
	}
	return false;
}

/* Has the hist text an entry? Entries are the lines "{ key: value } hitcount: ..." (Totals not). */
static bool has_entries(const char *text)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (*l == '{')
			return true;
	return false;
}

int cmd_hist(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_names sys = { 0 };
	struct ctl_client *c;
	bool all = false;
	int opt, printed = 0, files = 0;
	pid_t pid = 0;

	while ((opt = getopt_long(argc, argv, "p:ah", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (cmd_parse_pid(optarg, &pid))
				return 2;
			break;
		case 'a':
			all = true;
			break;
		case 'h':
			hist_usage(stdout);
			return 0;
		default:
			hist_usage(stderr);
			return 2;
		}
	}
	c = cmd_ctl_connect(pid);
	if (!c)
		return 1;
	if (ctl_readdir(c, "events", cmd_names_add_dir, &sys)) {
		cmd_error("cannot list events/");
		ctl_close(c);
		return 1;
	}
	for (int i = 0; i < sys.n; i++) {
		struct cmd_names ev = { 0 };
		char dir[300];

		snprintf(dir, sizeof(dir), "events/%s", sys.v[i]);
		if (ctl_readdir(c, dir, cmd_names_add_dir, &ev))
			continue;
		for (int j = 0; j < ev.n; j++) {
			char path[600], *text = NULL;

			if (!selected(argc - optind, argv + optind, sys.v[i], ev.v[j]))
				continue;
			snprintf(path, sizeof(path), "%s/%s/hist", dir, ev.v[j]);
			if (ctl_read(c, path, &text) < 0) {
				free(text);
				continue;
			}
			files++;
			/* an empty file: the event has no histogram at all, even for -a */
			if (*text && (all || has_entries(text))) {
				printf("%s==> %s:%s (%s) <==\n", printed ? "\n" : "", sys.v[i],
				       ev.v[j], path);
				fputs(text, stdout);
				printed++;
			}
			free(text);
		}
		cmd_names_free(&ev);
	}
	cmd_names_free(&sys);
	if (!files)
		fprintf(stderr,
			"evtrace: no hist file in process %d (no histogram support, or no "
			"event matched)\n",
			(int)ctl_client_info(c)->pid);
	ctl_close(c);
	return 0;
}
