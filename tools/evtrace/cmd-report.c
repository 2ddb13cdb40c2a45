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
#include <fnmatch.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "filter/filter.h"

#define RP_MAX_SEL	64

struct rp_opts {
	unsigned char cpus[4096];	/* selected CPUs (all when none given) */
	bool cpu_sel;
	char *ev_sys[RP_MAX_SEL], *ev_name[RP_MAX_SEL];
	int nev;
	unsigned long long first, last;
	bool info;
	const char *filter;
	/* per event ID: 0 not compiled yet, 1 compiled (prog, NULL passes all), 2 no match */
	unsigned char fstate[65536];
	struct filter_prog *fprog[65536];
};

static void rp_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace report [-c CPUS] [-e EVENTS]... [-F FILTER] [--first NS] [--last NS]"
		" [--info] [FILE]\n"
		"Print a trace.dat file (default trace.dat) in the kernel's trace layout.\n"
		"  -c, --cpu CPUS      only these CPUs: 0,2,3\n"
		"  -e, --events LIST   only these events: name, sys:name, sys:* (comma list)\n"
		"  -F, --filter EXPR   only records passing EXPR (kernel filter grammar), of the\n"
		"                      events that have its fields\n"
		"  --first/--last NS   only records in that time range (clock units)\n"
		"  --info              what the file holds: CPUs, page size, clock, events\n");
}

static int rp_add_events(struct rp_opts *o, char *list)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		char *colon = strchr(tok, ':');

		if (o->nev == RP_MAX_SEL)
			return -1;
		if (colon) {
			*colon = '\0';
			o->ev_sys[o->nev] = tok;
			o->ev_name[o->nev] = *(colon + 1) ? colon + 1 : (char *)"*";
		} else {
			o->ev_sys[o->nev] = (char *)"*";
			o->ev_name[o->nev] = tok;
		}
		o->nev++;
	}
	return 0;
}

static int rp_add_cpus(struct rp_opts *o, char *list)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		char *end;
		long c = strtol(tok, &end, 10);

		if (end == tok || *end || c < 0 || c >= (long)sizeof(o->cpus))
			return -1;
		o->cpus[c] = 1;
	}
	o->cpu_sel = true;
	return 0;
}

/* Does @rec pass -F? The filter is compiled for each event at its first record. */
static bool rp_filter(struct rp_opts *o, const struct evt_tracedat_record *rec)
{
	unsigned int id = rec->event->id & 0xffff;

	if (!o->fstate[id]) {
		struct filter_error ferr = { 0 };

		o->fstate[id] = filter_compile(rec->event->fields, rec->event->nr_fields, o->filter,
					       &o->fprog[id], &ferr) ? 2 : 1;
	}
	return o->fstate[id] == 1 && filter_match(o->fprog[id], rec->data, rec->size);
}

static bool rp_wanted(struct rp_opts *o, const struct evt_tracedat_record *rec)
{
	if (o->cpu_sel && (rec->cpu >= (int)sizeof(o->cpus) || !o->cpus[rec->cpu]))
		return false;
	if (rec->ts < o->first || rec->ts > o->last)
		return false;
	if (o->filter && (!rec->event || !rp_filter(o, rec)))
		return false;
	if (!o->nev)
		return true;
	if (!rec->event)
		return false;
	for (int i = 0; i < o->nev; i++)
		if (!fnmatch(o->ev_sys[i], rec->event->system, 0) &&
		    !fnmatch(o->ev_name[i], rec->event->name, 0))
			return true;
	return false;
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

static unsigned long long rp_num(const char *s, bool *ok)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	*ok = end != s && !*end;
	return v;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "events", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "first", required_argument, NULL, 'A' },
		{ "last", required_argument, NULL, 'L' },
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
	bool ok = true;

	if (!o) {
		cmd_error("out of memory");
		return 1;
	}
	o->last = ~0ULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:e:F:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (rp_add_cpus(o, optarg)) {
				cmd_error("bad CPU list '%s'", optarg);
				goto usage_err;
			}
			break;
		case 'e':
			if (rp_add_events(o, optarg)) {
				cmd_error("too many events (at most %d)", RP_MAX_SEL);
				goto usage_err;
			}
			break;
		case 'F':
		case 'f':
			o->filter = optarg;
			break;
		case 'A':
			o->first = rp_num(optarg, &ok);
			break;
		case 'L':
			o->last = rp_num(optarg, &ok);
			break;
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
		if (!ok) {
			cmd_error("bad number '%s'", optarg);
			goto usage_err;
		}
	}
	if (argc - optind > 1) {
		rp_usage(stderr);
		goto usage_err;
	}
	path = optind < argc ? argv[optind] : "trace.dat";
	ret = evt_tracedat_open(path, &td, err, sizeof(err));
	if (ret) {
		cmd_error("%s: %s", path, err);
		status = 1;
		goto out;
	}
	if (o->filter) {
		/* a filter no event of the file can take is a usage error, as the kernel says */
		struct filter_error ferr = { 0 };
		bool any = false;

		for (int i = 0; i < evt_tracedat_nr_events(td) && !any; i++) {
			const struct evt_tracedat_event *e = evt_tracedat_event(td, i);
			struct filter_prog *prog = NULL;

			if (!filter_compile(e->fields, e->nr_fields, o->filter, &prog, &ferr))
				any = true;
			filter_free(prog);
		}
		if (!any) {
			cmd_error("filter '%s': %s (at %d)", o->filter,
				  ferr.msg ? ferr.msg : "no event has these fields", ferr.pos);
			status = 2;
			goto out_close;
		}
	}
	if (o->info) {
		rp_info(td, path);
		goto out_close;
	}
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		if (!rp_wanted(o, &rec))
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
	for (unsigned int i = 0; i < 65536; i++)
		filter_free(o->fprog[i]);
out:
	free(o);
	return status;
usage_err:
	free(o);
	return 2;
}
