// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-report.c - `evtrace report [opts] [FILE]`: print a trace.dat file
 * (ours, or a kernel one trace-cmd made, version 6) in the kernel's `trace`
 * layout, the CPUs merged by time stamp. evtrace-report(1).
 *
 *   -c, --cpu LIST      only these CPUs ("0,2")
 *   -e, --events LIST   only these events ("name", "sys:name", "sys:*"; repeatable)
 *   -F, --filter EXPR   only records that pass EXPR (the kernel's filter grammar),
 *                       of the events that have the fields it names
 *   --first NS, --last NS   only records with FIRST <= time <= LAST (clock units)
 *   --info              the file's CPUs, page size, clock and events instead
 *
 * A file that is truncated or corrupt: what was read is printed, then the
 * error (with its file offset) on stderr, exit 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "evtrace-journal.h"
#include "evtrace-select.h"

struct rp_opts {
	struct cmd_select sel;
	bool info;
};

static void rp_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace report [-c CPUS] [-e EVENTS]... [-F FILTER] [--first NS] [--last NS]"
		" [--info] [FILE]\n"
		"Print a trace.dat file (default trace.dat) in the kernel's trace layout.\n"
		CMD_SELECT_USAGE
		"  --info              what the file holds: CPUs, page size, clock, events\n");
}

static void rp_info(struct evt_tracedat *td, const char *path)
{
	printf("file: %s\ncpus: %d\npage size: %u\nclock: %s\nevents: %d\n", path,
	       evt_tracedat_nr_cpus(td), evt_tracedat_page_size(td),
	       evt_tracedat_clock(td)[0] ? evt_tracedat_clock(td) : "(none)",
	       evt_tracedat_nr_events(td));
	for (int i = 0; i < evt_tracedat_nr_events(td); i++) {
		const struct evt_tracedat_event *e = evt_tracedat_event(td, i);

		printf("  %5u %s:%s\n", e->id, e->system, e->name);
	}
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		CMD_SELECT_LONGOPTS,
		{ "info", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rp_opts *o = calloc(1, sizeof(*o));
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	const char *path;
	char err[256], line[8192];
	struct evt_seq s;
	int c, ret, status = 0;

	if (!o) {
		cmd_error("out of memory");
		return 1;
	}
	cmd_select_init(&o->sel);
	optind = 1;
	while ((c = getopt_long(argc, argv, CMD_SELECT_SHORTOPTS "h", longopts, NULL)) != -1) {
		ret = cmd_select_option(&o->sel, c, optarg);
		if (ret < 0)
			goto usage_err;
		if (!ret)
			continue;
		switch (c) {
		case 'I':
			o->info = true;
			break;
		case 'h':
			rp_usage(stdout);
			goto out;
		default:
			rp_usage(stderr);
			goto usage_err;
		}
	}
	if (argc - optind > 1) {
		rp_usage(stderr);
		goto usage_err;
	}
	path = optind < argc ? argv[optind] : "trace.dat";
	ret = rj_tracedat_open(path, &td, err, sizeof(err));
	if (ret) {
		cmd_error("%s: %s", path, err);
		status = 1;
		goto out;
	}
	if (cmd_select_check(&o->sel, td)) {
		/* a filter no event of the file can take is a usage error, as the kernel says */
		status = 2;
		goto out_close;
	}
	if (o->info) {
		rp_info(td, path);
		goto out_close;
	}
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		if (!cmd_select_wanted(&o->sel, &rec))
			continue;
		if (rec.missed && rec.missed != ~0ULL)
			printf("CPU:%d [%llu EVENTS DROPPED]\n", rec.cpu, rec.missed);
		else if (rec.missed)
			printf("CPU:%d [EVENTS DROPPED]\n", rec.cpu);
		evt_seq_init(&s, line, sizeof(line));
		if (evt_tracedat_print(td, &rec, &s) == 0)
			fputs(s.buf, stdout);
		else
			printf("<record of %u bytes too long to print>\n", rec.size);
	}
	if (ret < 0) {
		fflush(stdout);
		cmd_error("%s: %s", path, evt_tracedat_error(td));
		status = 1;
	}
	if (fflush(stdout) != 0)
		status = 1;
out_close:
	evt_tracedat_close(td);
	cmd_select_release(&o->sel);
out:
	free(o);
	return status;
usage_err:
	free(o);
	return 2;
}
