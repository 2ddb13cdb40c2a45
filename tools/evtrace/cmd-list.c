// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-list.c - `evtrace list [-e] [-p PID]`: the processes that serve a
 * control socket (traced processes), each with its event count and the
 * events enabled; -e lists every event of each. evtrace-list(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

static void list_usage(FILE *f)
{
	fprintf(f, "usage: evtrace list [-e] [-p PID]\n"
		   "The traced processes (those serving a control socket) and their events.\n"
		   "  -e, --events       every event of each process ('*': enabled)\n"
		   "  -p, --pid PID      only this process\n");
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int list_one(pid_t pid, bool events)
{
	struct ctl_client *c;
	char *avail = NULL, *set = NULL, esc[CTL_COMM_MAX * 4 + 8];
	int ret = ctl_connect_pid(pid, &c);

	if (ret) {
		/* a refusal or a timeout says why (ctl_last_why()), naming the socket */
		printf("%-8d %-16s (%s)\n", (int)pid, "?",
		       ctl_last_why()[0] ? ctl_last_why() : strerror(-ret));
		return 1;
	}
	if (ctl_read(c, "available_events", &avail) < 0 || ctl_read(c, "set_event", &set) < 0) {
		printf("%-8d %-16s (read failed)\n", (int)pid,
		       cmd_escape(ctl_client_info(c)->comm, esc, sizeof(esc)));
		ctl_close(c);
		free(avail);
		return 1;
	}
	/* the name and the events are the process's words: escaped for the terminal */
	printf("%-8d %-16s %-7d", (int)pid, cmd_escape(ctl_client_info(c)->comm, esc, sizeof(esc)),
	       count_lines(avail));
	if (!*set)
		printf(" -");
	for (char *l = strtok(set, "\n"); l; l = strtok(NULL, "\n")) {
		char el[1024];

		printf(" %s", cmd_escape(l, el, sizeof(el)));
	}
	printf("\n");
	if (events) {
		char *en = NULL;

		free(set);
		set = NULL;
		ctl_read(c, "set_event", &en);
		for (char *l = strtok(avail, "\n"); l; l = strtok(NULL, "\n")) {
			char pat[600];
			bool on;

			snprintf(pat, sizeof(pat), "%s\n", l);
			on = en && (strstr(en, pat) == en ||
				    (strstr(en, pat) && strstr(en, pat)[-1] == '\n'));
			printf("    %c %s\n", on ? '*' : ' ', cmd_escape(l, pat, sizeof(pat)));
		}
		free(en);
	}
	free(avail);
	free(set);
	ctl_close(c);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool events = false;
	pid_t pid = 0, *pids = NULL;
	int opt, n, status = 0;

	while ((opt = getopt_long(argc, argv, "ep:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			events = true;
			break;
		case 'p':
			if (cmd_parse_pid(optarg, &pid))
				return 2;
			break;
		case 'h':
			list_usage(stdout);
			return 0;
		default:
			list_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		list_usage(stderr);
		return 2;
	}
	if (pid) {
		pids = malloc(sizeof(*pids));
		if (!pids)
			return 1;
		pids[0] = pid;
		n = 1;
	} else {
		n = cmd_ctl_pids(&pids);
	}
	printf("%-8s %-16s %-7s %s\n", "PID", "COMM", "EVENTS", "ENABLED");
	for (int i = 0; i < n; i++)
		status |= list_one(pids[i], events);
	free(pids);
	return pid ? status : 0;
}
