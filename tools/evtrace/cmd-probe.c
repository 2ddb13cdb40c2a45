// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-probe.c - `evtrace probe [-p PID] DEFINITION...`, `-d EVENT...`, `-l`: probe
 * events on a running program's own functions, from outside: each definition
 * ("p:[GRP/]EVENT SYM args", "r:...", "-:[GRP/]EVENT") is appended to the process's
 * `kprobe_events` through its control socket, as `echo DEF >> kprobe_events` does in
 * /sys/kernel/tracing. A refused one prints the errno and the process's error_log
 * entry (the kernel's message, the command, a caret), exit 1. evtrace-probe(1).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

#define PROBE_FILE "kprobe_events"
#define PROBE_DEF_MAX 4094 /* a line of the kernel's 4 KiB write buffer, and its newline */

static void probe_usage(FILE *f)
{
	fprintf(f, "usage: evtrace probe [-p PID] DEFINITION...\n"
		   "       evtrace probe [-p PID] -d [GROUP/]EVENT...\n"
		   "       evtrace probe [-p PID] [-l]\n"
		   "Add or delete probe events on a traced process's functions (its kprobe_events):\n"
		   "  'p[:[GRP/]EVENT] [LIB:]SYM[+OFFS] [FETCHARGS]'   an entry probe\n"
		   "  'r[N][:[GRP/]EVENT] [LIB:]SYM [FETCHARGS]'       a return probe ($retval)\n"
		   "  '-:[GRP/]EVENT'                                  delete one\n"
		   "  -p, --pid PID      the process (default: the only one traced)\n"
		   "  -d, --delete       the arguments are events to delete\n"
		   "  -l, --list         list the process's probes (the default without arguments)\n"
		   "Enable them with `evtrace write -p PID events/GRP/EVENT/enable 1` or record them\n"
		   "with `evtrace record -p PID -e 'kprobes:*'`; see evtrace-probe(1).\n");
}

static int probe_list(struct ctl_client *c)
{
	char *text = NULL, esc[8192];
	ssize_t n = ctl_read(c, PROBE_FILE, &text);

	if (n < 0) {
		cmd_ctl_error("probe: read", PROBE_FILE, (int)n, NULL);
		return 1;
	}
	/* the process's words: escaped for the terminal, line by line */
	for (char *l = text, *nl; *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = l + strlen(l);
		printf("%s\n", cmd_escape(l, esc, sizeof(esc)));
	}
	free(text);
	return 0;
}

/* Append one line ("-:" + @arg when @del); 0, or 1 after a message. */
static int probe_one(struct ctl_client *c, const char *arg, bool del)
{
	char line[PROBE_DEF_MAX + 2], err[8192];
	size_t len;
	ssize_t n;

	if (strchr(arg, '\n')) {
		cmd_error("probe: one definition per argument (a newline in '%s')", arg);
		return 1;
	}
	len = (size_t)snprintf(line, sizeof(line), "%s%s\n", del ? "-:" : "", arg);
	if (len >= sizeof(line) - 1) {
		cmd_error("probe: a definition is at most %d bytes", PROBE_DEF_MAX);
		return 1;
	}
	n = ctl_write(c, PROBE_FILE, line, len, CTL_WF_APPEND, err, sizeof(err));
	if (n < 0) {
		line[len - 1] = '\0';
		cmd_ctl_error("probe", line, (int)n, err);
		return 1;
	}
	return 0;
}

/*
 * The options, by hand: getopt() would take a deletion "-:EVENT" for options. Each
 * argument that is not an option is a definition; the indexes of the definitions go to
 * @defs. Return: -1 to go on, else the exit status (usage printed).
 */
static int probe_args(int argc, char **argv, pid_t *pid, bool *del, bool *list, int *defs,
		      int *ndefs)
{
	bool opts_done = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || a[1] == ':' || a[1] == '\0') {
			defs[(*ndefs)++] = i;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			if (i + 1 == argc || cmd_parse_pid(argv[++i], pid))
				return 2;
		} else if (!strncmp(a, "-p", 2) || !strncmp(a, "--pid=", 6)) {
			if (cmd_parse_pid(a + (a[1] == 'p' ? 2 : 6), pid))
				return 2;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--delete")) {
			*del = true;
		} else if (!strcmp(a, "-l") || !strcmp(a, "--list")) {
			*list = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			probe_usage(stdout);
			return 0;
		} else {
			cmd_error("probe: unknown option '%s'", a);
			probe_usage(stderr);
			return 2;
		}
	}
	if ((*del && !*ndefs) || (*list && *ndefs)) {
		probe_usage(stderr);
		return 2;
	}
	return -1;
}

int cmd_probe(int argc, char **argv)
{
	bool del = false, list = false;
	int status = 0, ndefs = 0, *defs;
	struct ctl_client *c;
	pid_t pid = 0;

	defs = calloc((size_t)argc, sizeof(*defs));
	if (!defs)
		return 1;
	status = probe_args(argc, argv, &pid, &del, &list, defs, &ndefs);
	if (status >= 0) {
		free(defs);
		return status;
	}
	status = 0;
	c = cmd_ctl_connect(pid);
	if (!c) {
		free(defs);
		return 1;
	}
	if (!ndefs)
		status = probe_list(c);
	/* in order; the first refusal stops (the ones before it stay, as with echo) */
	for (int i = 0; i < ndefs && !status; i++)
		status = probe_one(c, argv[defs[i]], del);
	ctl_close(c);
	free(defs);
	return status;
}
