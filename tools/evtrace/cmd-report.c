// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-report.c - `evtrace report [opts] [FILE...]`: print trace.dat files
 * (ours, or kernel ones trace-cmd made, version 6) in the kernel's `trace`
 * layout, the CPUs merged by time stamp. evtrace-report(1).
 *
 *   -c, --cpu LIST      only these CPUs ("0,2")
 *   -e, --events LIST   only these events ("name", "sys:name", "sys:*"; repeatable)
 *   -F, --filter EXPR   only records that pass EXPR (the kernel's filter grammar),
 *                       of the events that have the fields it names
 *   --first NS, --last NS   only records with FIRST <= time <= LAST (clock units)
 *   -R, --raw           each record as its fields (report-raw.c), not its print format
 *   --nodate            with several files: ignore their DATE options
 *   --info              the file's CPUs, page size, clock and events instead
 *
 * Several files (from several hosts) are merged by time as `trace-cmd report
 * -i A -i B` merges them: each file's time stamps plus its DATE option (the
 * CLOCK_REALTIME offset `evtrace record --date` writes) unless --nodate, printed
 * so, and each line starts with the file's name, padded to the longest ("A.dat: ").
 *
 * A file that is truncated or corrupt: what was read is printed, then the
 * error (with its file offset) on stderr, exit 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "evtrace-journal.h"
#include "evtrace-report.h"
#include "evtrace-select.h"

#define RP_MAX_FILES 64

struct rp_input {
	const char *path;
	struct evt_tracedat *td;
	struct cmd_select *sel;
	struct evt_tracedat_record rec;
	long long offset; /* added to its time stamps to merge (DATE, in ns) */
	bool have;	  /* @rec holds its next record */
	bool failed;
};

struct rp_opts {
	struct cmd_select sel;
	bool info, raw, nodate;
	int width; /* of the file name column; 0: one file, no column */
};

static void rp_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace report [-c CPUS] [-e EVENTS]... [-F FILTER] [--first NS] [--last NS]"
		" [-R] [--nodate] [--info] [FILE...]\n"
		"Print trace.dat files (default trace.dat) in the kernel's trace layout; several\n"
		"files are merged by time (plus each one's DATE offset), as trace-cmd report -i.\n"
		CMD_SELECT_USAGE
		"  -R, --raw           each record's fields (name=value), not its print format\n"
		"  --nodate            merge several files on their own time stamps\n"
		"  --info              what the file holds: CPUs, page size, clock, events\n");
}

static void rp_info(struct evt_tracedat *td, const char *path)
{
	long long off;

	printf("file: %s\ncpus: %d\npage size: %u\nclock: %s\nevents: %d\n", path,
	       evt_tracedat_nr_cpus(td), evt_tracedat_page_size(td),
	       evt_tracedat_clock(td)[0] ? evt_tracedat_clock(td) : "(none)",
	       evt_tracedat_nr_events(td));
	if (evt_tracedat_date(td, &off) == 1)
		printf("date offset: %lld ns (CLOCK_REALTIME = time stamp + offset)\n", off);
	for (int i = 0; i < evt_tracedat_nr_events(td); i++) {
		const struct evt_tracedat_event *e = evt_tracedat_event(td, i);

		printf("  %5u %s:%s\n", e->id, e->system, e->name);
	}
}

/* The next wanted record of @in into in->rec; in->have says whether there is one. */
static void rp_advance(struct rp_input *in)
{
	int ret;

	in->have = false;
	while ((ret = evt_tracedat_next(in->td, &in->rec)) == 1) {
		if (cmd_select_wanted(in->sel, &in->rec)) {
			in->have = true;
			return;
		}
	}
	if (ret < 0) {
		fflush(stdout);
		cmd_error("%s: %s", in->path, evt_error_detail());
		in->failed = true;
	}
}

static void rp_print(const struct rp_opts *o, struct rp_input *in, char *line, size_t cap)
{
	struct evt_tracedat_record shifted = in->rec, *rec = &shifted;
	struct evt_seq s;

	shifted.ts += (uint64_t)in->offset; /* as trace-cmd prints a DATE file: wall time */
	if (o->width)
		printf("%*s: ", o->width, in->path);
	if (rec->missed && rec->missed != ~0ULL)
		printf("CPU:%d [%llu EVENTS DROPPED]\n", rec->cpu, rec->missed);
	else if (rec->missed)
		printf("CPU:%d [EVENTS DROPPED]\n", rec->cpu);
	if (rec->missed && o->width)
		printf("%*s: ", o->width, in->path);
	if (o->raw) {
		cmd_report_raw(in->td, rec, stdout);
		return;
	}
	evt_seq_init(&s, line, cap);
	if (evt_tracedat_print(in->td, rec, &s) == 0)
		fputs(s.buf, stdout);
	else
		printf("<record of %u bytes too long to print>\n", rec->size);
}

/* Print the records of @in[0..@n) merged by time; 0, or 1 when a file failed. */
static int rp_merge(const struct rp_opts *o, struct rp_input *in, int n)
{
	static char line[8192];
	int status = 0;

	for (int i = 0; i < n; i++)
		rp_advance(&in[i]);
	for (;;) {
		struct rp_input *best = NULL;

		for (int i = 0; i < n; i++) {
			if (in[i].have && (!best || (long long)in[i].rec.ts + in[i].offset <
							    (long long)best->rec.ts + best->offset))
				best = &in[i];
		}
		if (!best)
			break;
		rp_print(o, best, line, sizeof(line));
		rp_advance(best);
	}
	for (int i = 0; i < n; i++)
		status |= in[i].failed;
	return status;
}

/* Open each file with its own copy of the selection; 0, 1 (open error) or 2 (usage). */
static int rp_open(struct rp_opts *o, struct rp_input *in, int n)
{
	char err[256];

	for (int i = 0; i < n; i++) {
		int ret = rj_tracedat_open(in[i].path, &in[i].td, err, sizeof(err));

		if (ret) {
			cmd_error("%s: %s", in[i].path, err);
			return 1;
		}
		in[i].sel = malloc(sizeof(*in[i].sel));
		if (!in[i].sel) {
			cmd_error("out of memory");
			return 1;
		}
		memcpy(in[i].sel, &o->sel, sizeof(o->sel)); /* nothing compiled yet */
		if (cmd_select_check(in[i].sel, in[i].td))
			return 2; /* a filter no event of the file can take, as the kernel says */
		if (n > 1 && !o->nodate && evt_tracedat_date(in[i].td, &in[i].offset) != 1)
			in[i].offset = 0;
		if (n > 1 && (int)strlen(in[i].path) > o->width)
			o->width = (int)strlen(in[i].path);
	}
	return 0;
}

static int rp_parse(struct rp_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		CMD_SELECT_LONGOPTS,
		{ "raw", no_argument, NULL, 'R' },
		{ "nodate", no_argument, NULL, 'N' },
		{ "info", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, CMD_SELECT_SHORTOPTS "Rh", longopts, NULL)) != -1) {
		ret = cmd_select_option(&o->sel, c, optarg);
		if (ret < 0)
			return 2;
		if (!ret)
			continue;
		switch (c) {
		case 'I':
			o->info = true;
			break;
		case 'R':
			o->raw = true;
			break;
		case 'N':
			o->nodate = true;
			break;
		case 'h':
			rp_usage(stdout);
			return 0;
		default:
			rp_usage(stderr);
			return 2;
		}
	}
	if (argc - optind > RP_MAX_FILES) {
		cmd_error("at most %d files", RP_MAX_FILES);
		return 2;
	}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	struct rp_opts *o = calloc(1, sizeof(*o));
	struct rp_input in[RP_MAX_FILES];
	int n, status;

	if (!o) {
		cmd_error("out of memory");
		return 1;
	}
	memset(in, 0, sizeof(in));
	cmd_select_init(&o->sel);
	status = rp_parse(o, argc, argv);
	if (status >= 0)
		goto out;
	n = argc - optind;
	if (!n) {
		in[0].path = "trace.dat";
		n = 1;
	}
	for (int i = 0; i < argc - optind; i++)
		in[i].path = argv[optind + i];
	status = rp_open(o, in, n);
	if (status)
		goto out_close;
	if (o->info) {
		for (int i = 0; i < n; i++)
			rp_info(in[i].td, in[i].path);
		goto out_close;
	}
	status = rp_merge(o, in, n);
	if (fflush(stdout) != 0)
		status = 1;
out_close:
	for (int i = 0; i < n; i++) {
		if (in[i].sel) {
			cmd_select_release(in[i].sel);
			free(in[i].sel);
		}
		if (in[i].td)
			evt_tracedat_close(in[i].td);
	}
out:
	free(o);
	return status;
}
