// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-export.c - `evtrace export [--format=perfetto] [-o OUT.json] [FILE]`:
 * a trace.dat file (ours, or a kernel one, version 6) as Chrome/Perfetto JSON
 * trace events, for ui.perfetto.dev and chrome://tracing. evtrace-export(1);
 * the converter is src/output/trace_json.c.
 *
 *   -f, --format perfetto   the only format (also "json", "chrome")
 *   -o, --output FILE       write there (default: standard output; "-" too)
 *   --durations             X_begin/X_end, X_enter/X_exit, sys_enter_X/sys_exit_X
 *                           pairs as duration (B/E) events
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

#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "output/trace_json.h"

static void ex_usage(FILE *f)
{
	fprintf(f, "usage: evtrace export [--format=perfetto] [-o OUT.json] [--durations] [FILE]\n"
		   "Convert a trace.dat file (default trace.dat) to the JSON trace event format\n"
		   "that ui.perfetto.dev and chrome://tracing open.\n"
		   "  -f, --format FMT    perfetto (the only one; also: json, chrome)\n"
		   "  -o, --output FILE   write to FILE (default: standard output)\n"
		   "  --durations         X_begin/X_end, X_enter/X_exit, sys_enter_X/sys_exit_X\n"
		   "                      pairs (both halves in the file) as duration events\n");
}

static int ex_write(void *ctx, const void *buf, size_t len)
{
	return cmd_write_all(*(int *)ctx, buf, len) ? -errno : 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "durations", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tjson_opts opts = { 0 };
	struct tjson_sink sink;
	struct evt_tracedat *td;
	const char *path, *out = NULL;
	char err[256];
	int c, ret, fd = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "perfetto") && strcmp(optarg, "json") &&
			    strcmp(optarg, "chrome")) {
				cmd_error("unknown format '%s' (perfetto is the one there is)",
					  optarg);
				return 2;
			}
			break;
		case 'o':
			out = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 'D':
			opts.durations = true;
			break;
		case 'h':
			ex_usage(stdout);
			return 0;
		default:
			ex_usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		ex_usage(stderr);
		return 2;
	}
	path = optind < argc ? argv[optind] : "trace.dat";
	ret = evt_tracedat_open(path, &td, err, sizeof(err));
	if (ret) {
		cmd_error("%s: %s", path, err);
		return 1;
	}
	if (out) {
		fd = cmd_open_output(out);
		if (fd < 0) {
			evt_tracedat_close(td);
			return 1;
		}
	}
	opts.source = path;
	sink.write = ex_write;
	sink.ctx = &fd;
	ret = tjson_export(td, &opts, &sink, NULL);
	if (ret == -EBADMSG) {
		cmd_error("%s: %s", path, evt_tracedat_error(td));
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
	evt_tracedat_close(td);
	return ret ? 1 : 0;
}
