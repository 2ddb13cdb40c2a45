// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-relay.c - `evtrace relay cat|record`: drain relay buffers (a relay
 * channel's base0..baseN-1, or a GTSC trace directory's trace0..traceN)
 * through the relay reader API (include/evtrace/relay.h).
 * evtrace-relay(1).
 *
 *   cat    [opts] SOURCE...            the data, padding stripped, to stdout
 *   record [opts] [-o OUTDIR] SOURCE...  each buffer FILE to OUTDIR/FILE (splice)
 *   opts: -t SECONDS, --once (what is there now, then exit), --stats
 *
 * A SOURCE is a relay file, or a directory: every file in it that opens
 * as a relay buffer (a GTSC directory's control files - state, dropped,
 * rewind, nr_sub, sub_size - do not, and are skipped). The command ends
 * when every buffer is finished (its channel closed) and read, at -t, on
 * SIGINT/SIGTERM, or with --once when nothing is left to read.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/error.h>
#include <evtrace/relay.h>

#include "evtrace-cmd.h"

#define RL_MAX 1024

struct rl_buf {
	struct evt_relay_reader *r;
	char name[NAME_MAX + 1];
	int out; /* record: the output file */
	int eof;
};

struct rl_opts {
	const char *outdir;
	double seconds;
	int once, stats;
};

static void rl_usage(FILE *f)
{
	fprintf(f, "usage: evtrace relay cat [-t SECONDS] [--once] [--stats] SOURCE...\n"
		   "       evtrace relay record [-o OUTDIR] [-t SECONDS] [--once] [--stats]"
		   " SOURCE...\n"
		   "SOURCE: a relay buffer file, or a directory of them (a relay channel's or a\n"
		   "GTSC trace's: its control files are skipped).\n");
}

static int rl_add(struct rl_buf *b, int *n, const char *path, int quiet)
{
	const char *base = strrchr(path, '/');
	int ret;

	if (*n >= RL_MAX) {
		cmd_error("more than %d buffers", RL_MAX);
		return -1;
	}
	ret = evt_relay_reader_open(path, &b[*n].r);
	if (ret < 0) {
		if (!quiet)
			cmd_error("%s: %s", path, evt_strerror(ret));
		return quiet ? 0 : -1;
	}
	snprintf(b[*n].name, sizeof(b[*n].name), "%s", base ? base + 1 : path);
	b[*n].out = -1;
	b[*n].eof = 0;
	(*n)++;
	return 0;
}

static int rl_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	/* trace2 before trace10: shorter first, then by bytes */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/*
 * GTSC control files are never opened: evt_relay_reader_open() opens
 * O_RDWR, and closing a control file opened for writing is, to the
 * traced program's watcher (inotify IN_CLOSE_WRITE), a write: "rewind"
 * would rewind the reader, "state" be read again.
 */
static int rl_control_file(const char *name)
{
	static const char *const control[] = { "state", "dropped", "rewind", "nr_sub", "sub_size" };

	for (size_t i = 0; i < sizeof(control) / sizeof(control[0]); i++)
		if (!strcmp(name, control[i]))
			return 1;
	return 0;
}

/*
 * Every relay buffer of @dir, in name order. Files that are not buffers are
 * skipped: GTSC control files by name, and what evt_relay_reader_open()
 * refuses.
 */
static int rl_add_dir(struct rl_buf *b, int *n, const char *dir)
{
	char *names[RL_MAX];
	struct dirent *de;
	int k = 0, before = *n, ret = 0;
	DIR *d = opendir(dir);

	if (!d) {
		cmd_error("%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) && k < RL_MAX) {
		if (de->d_name[0] == '.')
			continue;
		names[k] = strdup(de->d_name);
		if (names[k])
			k++;
	}
	closedir(d);
	qsort(names, (size_t)k, sizeof(names[0]), rl_cmp);
	for (int i = 0; i < k; i++) {
		char path[PATH_MAX];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!ret && !rl_control_file(names[i]) && !stat(path, &st) && S_ISREG(st.st_mode))
			ret = rl_add(b, n, path, 1);
		free(names[i]);
	}
	if (!ret && *n == before) {
		cmd_error("%s: no relay buffer in this directory", dir);
		return -1;
	}
	return ret;
}

static uint64_t rl_dropped(struct rl_buf *b, int n)
{
	uint64_t sum = 0;

	for (int i = 0; i < n; i++) {
		struct evt_relay_info info;

		if (evt_relay_reader_info(b[i].r, &info) == 0)
			sum += info.dropped + info.lost;
	}
	return sum;
}

static int rl_run(const struct rl_opts *o, struct rl_buf *b, int n, int record)
{
	static char buf[1 << 16];
	struct cmd_status st;
	double deadline = cmd_deadline(o->seconds);
	int ret = 0, live;

	status_init(&st, n == 1 ? b[0].name : "relay", o->stats);
	st.records_known = 0; /* relay data has no framing of ours: bytes only */
	cmd_catch_signals();
	for (;;) {
		int moved = 0;

		live = 0;
		for (int i = 0; i < n; i++) {
			ssize_t r;

			if (b[i].eof)
				continue;
			live++;
			if (record)
				r = evt_relay_reader_splice(b[i].r, b[i].out, 1 << 20);
			else
				r = evt_relay_reader_read(b[i].r, buf, sizeof(buf));
			if (r > 0) {
				if (!record && cmd_write_all(STDOUT_FILENO, buf, (size_t)r)) {
					if (errno != EPIPE)
						cmd_error("write: %s", strerror(errno));
					cmd_stop = 1;
					break;
				}
				st.bytes += (uint64_t)r;
				moved = 1;
			} else if (r == 0) {
				b[i].eof = 1; /* the channel is closed and all of it was read */
			} else if (r != -EAGAIN) {
				cmd_error("%s: %s", b[i].name, evt_strerror((int)r));
				b[i].eof = 1;
				ret = 1;
			}
		}
		if (cmd_stop || !live || (deadline && status_now() >= deadline))
			break;
		if (!moved) {
			if (o->once)
				break;
			st.missed = rl_dropped(b, n);
			status_update(&st, 0);
			/* wait on the first live buffer, briefly: the others are polled */
			for (int i = 0; i < n; i++)
				if (!b[i].eof) {
					evt_relay_reader_poll(b[i].r, n == 1 ? 200 : 20);
					break;
				}
		} else {
			status_update(&st, 0);
		}
	}
	st.missed = rl_dropped(b, n);
	status_update(&st, 1);
	return ret;
}

int cmd_relay(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "time", required_argument, NULL, 't' },
		{ "once", no_argument, NULL, '1' },
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rl_opts o = { 0 };
	struct rl_buf *b;
	const char *verb;
	int c, n = 0, ret = 1, record;

	c = cmd_verb_or_help(argc, argv, rl_usage);
	if (c >= 0)
		return c;
	verb = argv[1];
	if (strcmp(verb, "cat") && strcmp(verb, "record")) {
		cmd_error("relay: '%s' is not cat or record", verb);
		return 2;
	}
	record = !strcmp(verb, "record");
	optind = 2;
	while ((c = getopt_long(argc, argv, "o:t:sh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.outdir = optarg;
			break;
		case 't':
			if (cmd_parse_seconds(optarg, &o.seconds))
				return 2;
			break;
		case '1':
			o.once = 1;
			break;
		case 's':
			o.stats = 1;
			break;
		case 'h':
			rl_usage(stdout);
			return 0;
		default:
			rl_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || (o.outdir && !record)) {
		rl_usage(stderr);
		return 2;
	}
	b = calloc(RL_MAX, sizeof(*b));
	if (!b)
		return 1;
	for (int i = optind; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			cmd_error("%s: %s", argv[i], strerror(errno));
			goto out;
		}
		if (S_ISDIR(st.st_mode) ? rl_add_dir(b, &n, argv[i]) : rl_add(b, &n, argv[i], 0))
			goto out;
	}
	if (record) {
		const char *dir = o.outdir ? o.outdir : ".";

		if (o.outdir && mkdir(dir, 0755) && errno != EEXIST) {
			cmd_error("%s: %s", dir, strerror(errno));
			goto out;
		}
		for (int i = 0; i < n; i++) {
			char path[PATH_MAX + NAME_MAX + 2];

			snprintf(path, sizeof(path), "%s/%s", dir, b[i].name);
			b[i].out = cmd_open_output(path);
			if (b[i].out < 0)
				goto out;
		}
	}
	ret = rl_run(&o, b, n, record);
out:
	for (int i = 0; i < n; i++) {
		if (b[i].out >= 0)
			close(b[i].out);
		evt_relay_reader_close(b[i].r);
	}
	free(b);
	return ret;
}
