// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-export.c - `evtrace export [--format=perfetto|ctf] [-o OUT] [SELECTION] [FILE]`:
 * a trace.dat file (ours, or a kernel one, version 6) as Chrome/Perfetto JSON
 * trace events, for ui.perfetto.dev and chrome://tracing, or as a CTF 1.8 trace
 * directory for babeltrace2 and Trace Compass. evtrace-export(1); the
 * converters are src/output/trace_json.c and src/output/ctf_*.c (ctf-dir.c here).
 *
 *   --format perfetto       JSON (also "json", "chrome"; the default)
 *   --format ctf            a CTF trace in the directory -o names (required)
 *   --clock-freq HZ         ctf: the counting clock's counts per second (x86-tsc:
 *                           the file does not say; default 1 GHz, with a warning)
 *   -o, --output FILE       write there (default: standard output; "-" too)
 *   --durations             X_begin/X_end, X_enter/X_exit, sys_enter_X/sys_exit_X
 *                           pairs as duration (B/E) events
 *   -c, -e, -F, --first, --last   which records, as in `evtrace report` (select.c)
 *
 * Written as read (records stream through a 64 KiB buffer). A file that cannot be
 * opened: nothing written, exit 1. A corrupt page: the JSON is closed after the
 * records before it (metadata.error names the offset), the error goes to stderr,
 * exit 1. A write error: exit 1 (and -o's file is removed).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/export.h>
#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "evtrace-journal.h"
#include "evtrace-ctf.h"
#include "evtrace-select.h"

static void ex_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace export [--format=perfetto|ctf] [-o OUT] [--durations] [-c CPUS]\n"
		"                      [-e EVENTS]... [-F FILTER] [--first NS] [--last NS] [FILE]\n"
		"Convert a trace.dat file (default trace.dat; -: standard input) to the JSON\n"
		"trace event format that ui.perfetto.dev and chrome://tracing open, or to a\n"
		"CTF 1.8 trace (a directory) that babeltrace2 and Trace Compass open.\n"
		"  --format FMT        perfetto (default; also: json, chrome) or ctf\n"
		"  -o, --output OUT    write to OUT (default: standard output); with ctf, the\n"
		"                      directory of the trace (made; must be empty)\n"
		"  --clock-freq HZ     ctf: the clock's counts per second (x86-tsc: the TSC's\n"
		"                      frequency on the recording machine; default 1 GHz)\n"
		"  --durations         X_begin/X_end, X_enter/X_exit, sys_enter_X/sys_exit_X\n"
		"                      pairs (both halves in the file) as duration events\n");
	fputs(CMD_SELECT_USAGE, f);
}

static bool ex_want(void *ctx, const struct evt_tracedat_record *rec)
{
	return cmd_select_wanted(ctx, rec);
}

static int ex_write(void *ctx, const void *buf, size_t len)
{
	return cmd_write_all(*(int *)ctx, buf, len) ? -errno : 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		CMD_SELECT_LONGOPTS,
		{ "format", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "durations", no_argument, NULL, 'D' },
		{ "clock-freq", required_argument, NULL, 'Z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_select *sel = malloc(sizeof(*sel));
	struct evt_json_opts opts = { 0 };
	struct evt_tracedat *td = NULL;
	const char *path, *out = NULL;
	struct evt_json_sink sink;
	int c, ret, fd = 1, status = 2;
	bool ctf = false;
	unsigned long long freq = 0;
	char *end;
	char err[256];

	if (!sel) {
		cmd_error("out of memory");
		return 1;
	}
	cmd_select_init(sel);
	optind = 1;
	while ((c = getopt_long(argc, argv, CMD_SELECT_SHORTOPTS "o:h", longopts, NULL)) != -1) {
		ret = cmd_select_option(sel, c, optarg);
		if (ret < 0)
			goto out;
		if (!ret)
			continue;
		switch (c) {
		case 'T':
			ctf = !strcmp(optarg, "ctf");
			if (!ctf && strcmp(optarg, "perfetto") && strcmp(optarg, "json") &&
			    strcmp(optarg, "chrome")) {
				cmd_error("unknown format '%s' (perfetto or ctf)", optarg);
				goto out;
			}
			break;
		case 'o':
			out = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 'D':
			opts.durations = true;
			break;
		case 'Z':
			errno = 0;
			freq = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || !freq || freq > 1000000000000ULL) {
				cmd_error("--clock-freq: '%s' is not a frequency (1..10^12 Hz)",
					  optarg);
				goto out;
			}
			break;
		case 'h':
			ex_usage(stdout);
			status = 0;
			goto out;
		default:
			ex_usage(stderr);
			goto out;
		}
	}
	if (argc - optind > 1) {
		ex_usage(stderr);
		goto out;
	}
	if (ctf && !out) {
		cmd_error("--format=ctf writes a directory: name it with -o DIR");
		goto out;
	}
	status = 1;
	path = optind < argc ? argv[optind] : "trace.dat";
	if (!strcmp(path, "-"))
		path = "/dev/stdin"; /* the reader reads a pipe whole */
	ret = rj_tracedat_open(path, &td, err, sizeof(err));
	if (ret) {
		cmd_error("%s: %s", path, err);
		goto out;
	}
	if (cmd_select_check(sel, td)) {
		/* a filter no event of the file can take: a usage error, as in report */
		status = 2;
		goto out;
	}
	if (ctf) {
		struct cmd_ctf_args a = { .dir = out, .source = path, .want = ex_want,
					  .want_ctx = sel, .freq = freq };

		/* the DATE option (record --date) puts the clock on the epoch */
		a.has_epoch = evt_tracedat_date(td, &a.epoch_offset_ns) == 1;
		status = cmd_ctf_write_dir(td, &a);
		goto out;
	}
	if (out) {
		fd = cmd_open_output(out);
		if (fd < 0)
			goto out;
	}
	opts.source = path;
	opts.want = ex_want;
	opts.want_ctx = sel;
	sink.write = ex_write;
	sink.ctx = &fd;
	ret = evt_tracedat_export_json(td, &opts, &sink, NULL);
	if (ret == -EBADMSG) {
		cmd_error("%s: %s", path, evt_error_detail());
	} else if (ret) {
		cmd_error("%s: %s", out ? out : "standard output", strerror(-ret));
		if (out)
			unlink(out);
	}
	if (out && close(fd) && !ret) {
		cmd_error("%s: %s", out, strerror(errno));
		unlink(out);
		ret = -EIO;
	}
	status = ret ? 1 : 0;
out:
	if (td)
		evt_tracedat_close(td);
	cmd_select_release(sel);
	free(sel);
	return status;
}
