// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * evtrace - the command: `evtrace <verb> [args...]`, one cmd-<verb>.c per verb.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <evtrace/version.h>

#include "evtrace-cmd.h"

/* Declared in evtrace-cmd.h, defined in cmd-<verb>.c: keep both lists sorted. */

static const struct evtrace_cmd commands[] = {
	{ "cat", cmd_cat, "print files of a traced process's tracing tree" },
	{ "export", cmd_export, "convert a trace.dat file to Perfetto/Chrome JSON trace events" },
	{ "extract", cmd_extract, "what a traced process's buffer holds now, as a trace.dat" },
	{ "hist", cmd_hist, "print the hist files of a traced process's events" },
	{ "list", cmd_list, "the traced processes and their events" },
#ifdef EVT_HAVE_FUSE
	{ "mount", cmd_mount, "show a traced process's tracing tree as files (FUSE)" },
#endif
	{ "probe", cmd_probe, "add, delete or list probe events on a traced process's functions" },
	{ "record", cmd_record, "record a traced process (or a command) into a trace.dat" },
	{ "recover", cmd_recover, "make the journal a killed record left a trace.dat" },
	{ "relay", cmd_relay, "drain relay channels and GTSC traces: cat, record" },
	{ "report", cmd_report, "print a trace.dat file in the kernel's trace layout" },
	{ "reset", cmd_reset, "disable events, filters and triggers; empty the buffer" },
	{ "show", cmd_cat, "the same as cat" },
	{ "stat", cmd_stat, "per-CPU entries, overruns, drops and buffer use of a process" },
	{ "tracepipe", cmd_tracepipe, "read tracepipe channels: list, cat, record" },
	{ "write", cmd_write, "write a file of a traced process's tree (echo DATA > PATH)" },
	{ NULL, NULL, NULL },
};

void cmd_error(const char *fmt, ...)
{
	va_list ap;

	fputs("evtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	const struct evtrace_cmd *c;

	fprintf(f, "usage: evtrace <command> [arguments]\n\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fprintf(f, "\n`evtrace <command> --help` for one command; evtrace(1) for all.\n");
}

int main(int argc, char **argv)
{
	const struct evtrace_cmd *c;

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("evtrace %s\n", EVTRACE_VERSION);
		return 0;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->run(argc - 1, argv + 1);
	cmd_error("'%s' is not a command (evtrace help lists them)", argv[1]);
	return 2;
}
