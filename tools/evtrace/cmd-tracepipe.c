// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-tracepipe.c - `evtrace tracepipe list|cat|record`: the consumer of
 * tracepipe channels (include/evtrace/tracepipe.h). evtrace-tracepipe(1).
 *
 *   list   [-D DIR]                          the channels (FIFOs) of DIR, with missed
 *   cat    [-D DIR] [--raw|--ns|--cycles] [opts] CHANNEL  records as text (time in
 *                      seconds.microseconds, ns or cycles), or the raw stream
 *   record [-D DIR] [-o FILE] [opts] CHANNEL  the raw stream to FILE (splice)
 *   opts: -c COUNT (stop after COUNT records), -t SECONDS, --stats
 *
 * CHANNEL is a name in DIR (default $XDG_RUNTIME_DIR/evtrace, as the
 * library's) or a path with a '/'. The command stops at end of stream
 * (the traced program exited), at -c/-t, or on SIGINT/SIGTERM.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <evtrace/tracepipe.h>

#include "evtrace-cmd.h"

#define TP_BUF (1u << 20)

struct tp_opts {
	const char *dir;
	const char *out;
	uint64_t count; /* 0: no limit */
	double seconds; /* 0: no limit */
	int raw, stats, ns, cycles;
};

struct tp_stream {
	unsigned char *buf;
	size_t have;
	uint64_t cpu_missed[4096]; /* highest in-band missed seen per CPU */
	uint64_t bad;
};

static void tp_usage(FILE *f)
{
	fprintf(f, "usage: evtrace tracepipe list [-D DIR]\n"
		   "       evtrace tracepipe cat [-D DIR] [--raw|--ns|--cycles] [-c COUNT] [-t SECONDS]"
		   " [--stats] CHANNEL\n"
		   "       evtrace tracepipe record [-D DIR] [-o FILE] [-c COUNT] [-t SECONDS]"
		   " [--stats] CHANNEL\n"
		   "CHANNEL: a name in DIR (default $XDG_RUNTIME_DIR/evtrace) or a path.\n");
}

static int tp_default_dir(char *buf, size_t len)
{
	const char *xdg = secure_getenv("XDG_RUNTIME_DIR");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/evtrace", xdg);
	else
		n = snprintf(buf, len, "/tmp/evtrace-%u", (unsigned int)getuid());
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int tp_resolve(const struct tp_opts *o, const char *chan, char *path, size_t len)
{
	char dir[PATH_MAX];
	int n;

	if (strchr(chan, '/')) {
		n = snprintf(path, len, "%s", chan);
	} else {
		if (o->dir)
			snprintf(dir, sizeof(dir), "%s", o->dir);
		else if (tp_default_dir(dir, sizeof(dir)))
			return -1;
		n = snprintf(path, len, "%s/%s", dir, chan);
	}
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static uint64_t tp_read_missed_file(const char *fifo)
{
	char path[PATH_MAX + 8], buf[32] = { 0 };
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s.missed", fifo);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtoull(buf, NULL, 10) : 0;
}

static int cmd_tp_list(const struct tp_opts *o)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (o->dir)
		snprintf(dir, sizeof(dir), "%s", o->dir);
	else if (tp_default_dir(dir, sizeof(dir)))
		return 1;
	d = opendir(dir);
	if (!d) {
		cmd_error("%s: %s", dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) || !S_ISFIFO(st.st_mode))
			continue;
		printf("%-24s missed %-12" PRIu64 " %s\n", de->d_name, tp_read_missed_file(path),
		       path);
		n++;
	}
	closedir(d);
	if (!n)
		fprintf(stderr, "no tracepipe channels in %s\n", dir);
	return 0;
}

/* How times are shown: seconds.microseconds (default), nanoseconds, or raw cycles. */
enum { TP_TIME_US, TP_TIME_NS, TP_TIME_CYCLES };
static int tp_time = TP_TIME_US;
/* The scale from the stream page (the writer's calibration); none seen yet: raw cycles. */
static struct evt_tracepipe_stream_info tp_info;
static int tp_have_info;

static void tp_print_record(const struct evt_tracepipe_record *rec)
{
	const unsigned char *p = rec->payload;
	uint32_t shown = rec->len < 32 ? rec->len : 32;

	if (tp_time != TP_TIME_CYCLES && tp_have_info && tp_info.mult) {
		uint64_t ns = EVT_TRACEPIPE_CYCLES_TO_NS(&tp_info, rec->cycles);

		if (tp_time == TP_TIME_NS)
			printf("[%03u] %10" PRIu64 ".%09" PRIu64 " %4u:", rec->cpu,
			       ns / 1000000000u, ns % 1000000000u, rec->len);
		else
			printf("[%03u] %6" PRIu64 ".%06" PRIu64 " %4u:", rec->cpu,
			       ns / 1000000000u, ns % 1000000000u / 1000u, rec->len);
	} else {
		printf("[%03u] %20" PRIu64 " %4u:", rec->cpu, rec->cycles, rec->len);
	}
	for (uint32_t i = 0; i < shown; i++)
		printf(" %02x", p[i]);
	printf("%s\n", shown < rec->len ? " ..." : "");
}

/*
 * Parse the complete pages at the start of s->buf: count records (up to
 * @limit left, 0 = all), print them if @print. Returns the bytes of whole
 * pages consumed; *@stop set when @limit was reached (the page that
 * reached it is included) or the stream is not a tracepipe stream.
 */
static size_t tp_parse(struct tp_stream *s, struct cmd_status *st, uint64_t limit, int print,
		       int *stop)
{
	size_t off = 0;

	for (;;) {
		struct evt_tracepipe_page pg;
		struct evt_tracepipe_record rec;
		int n = evt_tracepipe_page_parse(s->buf + off, s->have - off, &pg), r;

		if (n == -EAGAIN)
			return off;
		if (n < 0) {
			cmd_error("not a tracepipe stream (bad page header at byte %" PRIu64 ")",
				  st->bytes - s->have + off);
			s->bad++;
			*stop = 1;
			return s->have;
		}
		if (pg.stream) {
			tp_info = pg.info;
			tp_have_info = 1;
		}
		if (pg.hdr.cpu < 4096 && pg.hdr.missed > s->cpu_missed[pg.hdr.cpu]) {
			st->missed += pg.hdr.missed - s->cpu_missed[pg.hdr.cpu];
			s->cpu_missed[pg.hdr.cpu] = pg.hdr.missed;
		}
		while ((r = evt_tracepipe_record_next(&pg, &rec)) == 1) {
			if (print) {
				if (limit && st->records >= limit)
					break;
				tp_print_record(&rec);
			}
			st->records++;
		}
		if (r < 0)
			s->bad++;
		off += (size_t)n;
		if (limit && st->records >= limit) {
			*stop = 1;
			return off;
		}
	}
}

static int tp_open_fifo(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st)) {
		cmd_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISFIFO(st.st_mode)) {
		cmd_error("%s: not a tracepipe channel (not a FIFO)", path);
		return -1;
	}
	/* Blocks until the traced program's flusher opens its end (it waits for us). */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && !(errno == EINTR && cmd_stop))
		cmd_error("%s: %s", path, strerror(errno));
	return fd;
}

/* Wait for data until the deadline; 1 readable, 0 stop (deadline or signal). */
static int tp_wait(int fd, double deadline)
{
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int ms = 500, r;

		if (cmd_stop)
			return 0;
		if (deadline) {
			double left = deadline - status_now();

			if (left <= 0)
				return 0;
			if (left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		r = poll(&p, 1, ms);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return 0;
		return -1; /* timeout: let the caller refresh its line */
	}
}

static int cmd_tp_drain(const struct tp_opts *o, const char *chan, int record)
{
	struct tp_stream *s = calloc(1, sizeof(*s));
	char path[PATH_MAX];
	struct cmd_status st;
	double deadline;
	int fd, ofd = STDOUT_FILENO, ret = 1, stop = 0;
	int decode = !record && !o->raw;
	int use_splice;

	if (!s || !(s->buf = malloc(TP_BUF))) {
		cmd_error("out of memory");
		goto out;
	}
	if (tp_resolve(o, chan, path, sizeof(path))) {
		cmd_error("%s: name too long", chan);
		goto out;
	}
	if (record) {
		char def[PATH_MAX + 8];
		const char *out = o->out;

		if (!out) {
			const char *base = strrchr(path, '/');

			snprintf(def, sizeof(def), "%s.tp", base ? base + 1 : path);
			out = def;
		}
		if (strcmp(out, "-")) {
			ofd = cmd_open_output(out);
			if (ofd < 0)
				goto out;
		}
	}
	status_init(&st, chan, o->stats);
	/* Records are counted when they are parsed: with the line on, a limit, or decoding. */
	use_splice = !decode && !st.on && !o->count;
	st.records_known = !use_splice;
	cmd_catch_signals();
	fd = tp_open_fifo(path);
	if (fd < 0) {
		if (cmd_stop)
			ret = 0; /* SIGINT while waiting for the program: fine */
		goto out_close;
	}
	deadline = cmd_deadline(o->seconds);
	for (;;) {
		ssize_t n;
		int w = tp_wait(fd, deadline);

		if (w == 0)
			break;
		if (w < 0) {
			st.missed = st.missed > tp_read_missed_file(path) ?
					    st.missed :
					    tp_read_missed_file(path);
			status_update(&st, 0);
			continue;
		}
		if (use_splice) {
			n = splice(fd, NULL, ofd, NULL, TP_BUF, SPLICE_F_MOVE);
			if (n < 0 && errno == EINVAL) {
				use_splice = 0; /* the output cannot take a splice: copy */
				continue;
			}
			if (n > 0)
				st.bytes += (uint64_t)n;
		} else {
			size_t used;

			n = read(fd, s->buf + s->have, TP_BUF - s->have);
			if (n > 0) {
				s->have += (size_t)n;
				st.bytes += (uint64_t)n;
				used = tp_parse(s, &st, o->count, decode, &stop);
				if (!decode && cmd_write_all(ofd, s->buf, used)) {
					cmd_error("write: %s", strerror(errno));
					break;
				}
				memmove(s->buf, s->buf + used, s->have - used);
				s->have -= used;
			}
		}
		if (n == 0)
			break; /* no writer: the traced program closed the channel */
		if (n < 0 && errno != EINTR && errno != EAGAIN) {
			cmd_error("read %s: %s", path, strerror(errno));
			break;
		}
		status_update(&st, 0);
		if (stop)
			break;
	}
	if (decode)
		fflush(stdout);
	{
		uint64_t f = tp_read_missed_file(path);

		if (f > st.missed)
			st.missed = f;
	}
	status_update(&st, 1);
	ret = s->bad ? 1 : 0;
	close(fd);
out_close:
	if (ofd != STDOUT_FILENO)
		close(ofd);
out:
	if (s)
		free(s->buf);
	free(s);
	return ret;
}

int cmd_tracepipe(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dir", required_argument, NULL, 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 't' },
		{ "raw", no_argument, NULL, 'r' },
		{ "stats", no_argument, NULL, 's' },
		{ "ns", no_argument, NULL, 'n' },
		{ "cycles", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tp_opts o = { 0 };
	const char *verb;
	char *end;
	int c = cmd_verb_or_help(argc, argv, tp_usage);

	if (c >= 0)
		return c;
	verb = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "D:o:c:t:rsnCh", lo, NULL)) != -1) {
		switch (c) {
		case 'D':
			o.dir = optarg;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'c':
			o.count = strtoull(optarg, &end, 10);
			if (*end || !o.count) {
				cmd_error("-c: a positive count, not '%s'", optarg);
				return 2;
			}
			break;
		case 't':
			if (cmd_parse_seconds(optarg, &o.seconds))
				return 2;
			break;
		case 'r':
			o.raw = 1;
			break;
		case 's':
			o.stats = 1;
			break;
		case 'n':
			o.ns = 1;
			break;
		case 'C':
			o.cycles = 1;
			break;
		case 'h':
			tp_usage(stdout);
			return 0;
		default:
			tp_usage(stderr);
			return 2;
		}
	}
	if (!strcmp(verb, "list")) {
		if (optind != argc) {
			tp_usage(stderr);
			return 2;
		}
		return cmd_tp_list(&o);
	}
	if (strcmp(verb, "cat") && strcmp(verb, "record")) {
		cmd_error("tracepipe: '%s' is not list, cat or record", verb);
		return 2;
	}
	if (optind != argc - 1) {
		tp_usage(stderr);
		return 2;
	}
	tp_time = o.cycles ? TP_TIME_CYCLES : o.ns ? TP_TIME_NS : TP_TIME_US;
	return cmd_tp_drain(&o, argv[optind], !strcmp(verb, "record"));
}
