/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-cmd.h - what the evtrace command's subcommands share.
 *
 * Each subcommand lives in tools/evtrace/cmd-<verb>.c and is one entry of
 * the table in main.c: int cmd_<verb>(int argc, char **argv), argv[0] being
 * the verb. It returns the process exit status (0 ok, 1 failure, 2 usage).
 */
#ifndef EVTRACE_CMD_H
#define EVTRACE_CMD_H

struct evtrace_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;	/* one line for `evtrace help` */
};

/* Print "evtrace: <msg>" to stderr, printf-style. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* EVTRACE_CMD_H */
