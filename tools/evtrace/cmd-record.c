// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record.c - `evtrace record [-e EVENT]... [-f FILTER] [-T TRIGGER]
 * [-o FILE] [-p PID | -- CMD ARGS]`: record a traced process into a
 * trace.dat file (version 6, the one trace-cmd and `evtrace report` read).
 * evtrace-record(1).
 *
 * How: the command is started with EVTRACE_CONTROL=1 (its library serves
 * the control socket, docs/control.md) and EVTRACE_EVENTS set to the -e
 * list (so events are on from their registration), or the process -p is
 * attached to. Through the socket: the events, filters and triggers are
 * set, and the ring buffer's memfd is taken (GETBUF) and mapped. The pages
 * are drained with evt_ring_buffer_read_page() from the mapping, nothing
 * but control goes through the socket, into one spool file per CPU. At the
 * end (Ctrl-C, the command's exit, or the process's exit which waits for
 * us) everything left is drained, the event formats, thread names and
 * clock are fetched, and the file is written: tracedat_header() then each
 * CPU's spooled pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"
#include "output/tracedat_internal.h"

#define REC_MAX_EVENTS	128
#define REC_POLL_MS	50

struct rec_event {
	char *spec;		/* as given: sys:name, sys:*, sys, name */
	char *filter;		/* -f after it, or NULL */
	char *trigger[8];	/* -T after it */
	int ntrig;
};

struct rec_fmt {
	char *system, *name, *text;
	size_t len;
};

struct rec {
	struct rec_event ev[REC_MAX_EVENTS];
	int nev;
	const char *output;
	pid_t pid;		/* -p */
	pid_t child;		/* started by us */
	bool stats, quiet;
	struct ctl_client *c;
	struct evt_ring_buffer *rb;
	struct ctl_bufinfo bi;
	int *spool;		/* per CPU spool file */
	uint64_t *spool_bytes;
	unsigned char *page;
	/* what the file needs from the process, fetched while it lives */
	struct rec_fmt *fmts;
	size_t nfmts;
	char *cmdlines, *clock_list;
	/* counters */
	uint64_t records, bytes, missed;
	double start, last_status;
	uint64_t last_records;
	double rate;
	int status_on;		/* 1 terminal, 2 --stats */
	/* undo, when attached */
	char **undo_path, **undo_data;
	int nundo;
};

static void rec_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace record [-e EVENT [-f FILTER] [-T TRIGGER]...]... [-o FILE]\n"
		"                      [-p PID | -- CMD ARGS...]\n"
		"Record a traced process's events into a trace.dat file (trace-cmd's version 6).\n"
		"  -e, --event EVENT     sys:name, sys:*, sys or name (repeatable; default: all)\n"
		"  -f, --filter EXPR     filter for the -e before it (the kernel's grammar)\n"
		"  -T, --trigger CMD     trigger for the -e before it (repeatable)\n"
		"  -o, --output FILE     the file (default trace.dat)\n"
		"  -p, --pid PID         attach to a running process (it serves a control socket)\n"
		"  --stats               print the final status line when stderr is not a terminal\n"
		"  -q, --quiet           no status line\n"
		"Ctrl-C stops; with CMD, its exit stops too. Everything in the buffers is drained.\n");
}

/* --- fetching what the file needs --------------------------------------------------- */

struct names {
	char **v;
	int n;
};

static int add_dir(void *arg, const char *name, unsigned int mode)
{
	struct names *l = arg;
	char **nv;

	if (!S_ISDIR(mode))
		return 0;
	nv = realloc(l->v, (size_t)(l->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	l->v = nv;
	l->v[l->n] = strdup(name);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static void free_names(struct names *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void free_fmts(struct rec_fmt *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		free(f[i].system);
		free(f[i].name);
		free(f[i].text);
	}
	free(f);
}

static int fmt_cmp(const void *a, const void *b)
{
	const struct rec_fmt *x = a, *y = b;
	int d = strcmp(x->system, y->system);

	return d ? d : strcmp(x->name, y->name);
}

/*
 * Every event's format, the saved cmdlines and the clock list, from the
 * process (kept only when all of it came: a process that went away
 * midway leaves the previous fetch in place).
 */
static int fetch_meta(struct rec *r)
{
	struct names sys = { 0 };
	struct rec_fmt *fmts = NULL;
	size_t nfmts = 0, cap = 0;
	char *cmdlines = NULL, *clocks = NULL;
	ssize_t n;
	int ret;

	ret = ctl_readdir(r->c, "events", add_dir, &sys);
	for (int i = 0; !ret && i < sys.n; i++) {
		struct names ev = { 0 };
		char dir[300];

		snprintf(dir, sizeof(dir), "events/%s", sys.v[i]);
		ret = ctl_readdir(r->c, dir, add_dir, &ev);
		for (int j = 0; !ret && j < ev.n; j++) {
			char path[600], *text = NULL;

			snprintf(path, sizeof(path), "%s/%s/format", dir, ev.v[j]);
			n = ctl_read(r->c, path, &text);
			if (n == -ENOENT || n == -ENODEV) {	/* gone meanwhile */
				free(text);
				continue;
			}
			if (n < 0) {
				ret = (int)n;
				break;
			}
			if (nfmts == cap) {
				struct rec_fmt *nf = realloc(fmts, (cap ? cap * 2 : 32) * sizeof(*nf));

				if (!nf) {
					free(text);
					ret = -ENOMEM;
					break;
				}
				fmts = nf;
				cap = cap ? cap * 2 : 32;
			}
			fmts[nfmts].system = strdup(sys.v[i]);
			fmts[nfmts].name = strdup(ev.v[j]);
			fmts[nfmts].text = text;
			fmts[nfmts].len = (size_t)n;
			nfmts++;
			if (!fmts[nfmts - 1].system || !fmts[nfmts - 1].name)
				ret = -ENOMEM;
		}
		free_names(&ev);
	}
	free_names(&sys);
	if (!ret) {
		n = ctl_read(r->c, "saved_cmdlines", &cmdlines);
		if (n < 0)
			ret = (int)n;
	}
	if (!ret) {
		n = ctl_read(r->c, "trace_clock", &clocks);
		if (n < 0)
			ret = (int)n;
	}
	if (ret) {
		free_fmts(fmts, nfmts);
		free(cmdlines);
		free(clocks);
		return ret;
	}
	if (nfmts)
		qsort(fmts, nfmts, sizeof(*fmts), fmt_cmp);
	free_fmts(r->fmts, r->nfmts);
	free(r->cmdlines);
	free(r->clock_list);
	r->fmts = fmts;
	r->nfmts = nfmts;
	r->cmdlines = cmdlines;
	r->clock_list = clocks;
	return 0;
}

/* Only the thread names: they change while the program runs. */
static void fetch_cmdlines(struct rec *r)
{
	char *text = NULL;

	if (ctl_read(r->c, "saved_cmdlines", &text) >= 0) {
		free(r->cmdlines);
		r->cmdlines = text;
	} else {
		free(text);
	}
}

/* --- draining ---------------------------------------------------------------------- */

static int spool_open(const char *output)
{
	char dir[4096];
	const char *slash = strrchr(output, '/');
	int fd;

	if (slash && (size_t)(slash - output) < sizeof(dir)) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - output), output);
		if (!*dir)
			strcpy(dir, "/");
	} else {
		strcpy(dir, ".");
	}
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	{
		char tmpl[] = "/tmp/evtrace-record-XXXXXX";

		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	return fd;
}

/* Count a page's records and the losses it reports. */
static void page_account(struct rec *r, const unsigned char *page)
{
	struct evt_rb_page_iter it;
	uint64_t commit;

	if (evt_rb_page_iter_init(&it, page, r->bi.page_size))
		return;
	while (evt_rb_page_iter_next(&it, NULL, NULL) > 0)
		r->records++;
	memcpy(&commit, page + 8, sizeof(commit));
	if (commit & EVT_RB_PAGE_MISSED_STORED) {
		uint64_t len = commit & EVT_RB_PAGE_COMMIT_MASK, n;

		if (EVT_RB_PAGE_HDR_SIZE + len + 8 <= r->bi.page_size) {
			memcpy(&n, page + EVT_RB_PAGE_HDR_SIZE + len, sizeof(n));
			r->missed += n;
		}
	} else if (commit & EVT_RB_PAGE_MISSED_EVENTS) {
		r->missed++;
	}
}

/* Every page that can be read now, of every CPU. Return: pages read, or -errno. */
static long drain(struct rec *r)
{
	long pages = 0;

	for (unsigned int cpu = 0; cpu < r->bi.nr_cpus; cpu++) {
		/* at most a ring's worth per call, so that Ctrl-C is heard under a flood */
		uint64_t max = r->bi.size / r->bi.page_size + 2;

		for (uint64_t i = 0; i < max; i++) {
			int ret = evt_ring_buffer_read_page(r->rb, (int)cpu, r->page,
							    r->bi.page_size);

			if (ret == -EAGAIN || ret == 0)
				break;
			if (ret < 0)
				return ret;
			page_account(r, r->page);
			if (cmd_write_all(r->spool[cpu], r->page, r->bi.page_size) < 0)
				return -errno;
			r->spool_bytes[cpu] += r->bi.page_size;
			r->bytes += r->bi.page_size;
			pages++;
		}
	}
	return pages;
}

static uint64_t losses(const struct rec *r)
{
	return r->missed > 0 ? r->missed :
			       evt_ring_buffer_dropped_events(r->rb) + evt_ring_buffer_overruns(r->rb);
}

static void status(struct rec *r, bool final)
{
	double now = status_now();
	char bytes[32];

	if (!r->status_on || (!final && now - r->last_status < 0.5))
		return;
	if (final)
		r->rate = now > r->start ? (double)r->records / (now - r->start) : 0;
	else if (now > r->last_status)
		r->rate = (double)(r->records - r->last_records) / (now - r->last_status);
	r->last_status = now;
	r->last_records = r->records;
	if (r->status_on == 2 && !final)
		return;
	if (r->bytes >= 1000000)
		snprintf(bytes, sizeof(bytes), "%.1f MB", (double)r->bytes / 1e6);
	else
		snprintf(bytes, sizeof(bytes), "%.1f kB", (double)r->bytes / 1e3);
	fprintf(stderr, "%srecord: %.0f events/s, %s, %llu events, %llu lost%s",
		r->status_on == 1 ? "\r" : "", r->rate, bytes, (unsigned long long)r->records,
		(unsigned long long)losses(r),
		r->status_on == 1 ? (final ? "\033[K\n" : "\033[K") : "\n");
	fflush(stderr);
}

/* --- the file -------------------------------------------------------------------------- */

static int write_output(struct rec *r)
{
	struct tracedat_format *tf = NULL;
	struct tracedat_desc d = { 0 };
	unsigned char *hdr = NULL;
	size_t hlen = 0;
	int fd, ret;

	if (r->nfmts) {
		tf = calloc(r->nfmts, sizeof(*tf));
		if (!tf)
			return -ENOMEM;
	}
	for (size_t i = 0; i < r->nfmts; i++) {
		tf[i].system = r->fmts[i].system;
		tf[i].text = r->fmts[i].text;
		tf[i].len = r->fmts[i].len;
	}
	d.page_size = r->bi.page_size;
	d.nr_cpus = (int)r->bi.nr_cpus;
	d.clock = r->bi.clock;
	d.clock_list = r->clock_list;
	d.formats = tf;
	d.nr_formats = r->nfmts;
	d.cmdlines = r->cmdlines;
	d.cmdlines_len = r->cmdlines ? strlen(r->cmdlines) : 0;
	d.cpu_bytes = r->spool_bytes;
	ret = tracedat_header(&d, &hdr, &hlen);
	free(tf);
	if (ret)
		return ret;
	fd = open(r->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		free(hdr);
		return ret;
	}
	if (cmd_write_all(fd, hdr, hlen) < 0)
		ret = -errno;
	free(hdr);
	for (unsigned int cpu = 0; !ret && cpu < r->bi.nr_cpus; cpu++) {
		off_t off = 0;
		uint64_t left = r->spool_bytes[cpu];
		char buf[65536];

		while (!ret && left) {
			ssize_t n = pread(r->spool[cpu], buf,
					  left < sizeof(buf) ? (size_t)left : sizeof(buf), off);

			if (n <= 0)
				ret = n < 0 ? -errno : -EIO;
			else if (cmd_write_all(fd, buf, (size_t)n) < 0)
				ret = -errno;
			off += n;
			left -= (uint64_t)(n > 0 ? n : 0);
		}
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

/* --- setting events up ------------------------------------------------------------------- */

/* The event files (events/SYS/NAME) that @spec names, from available_events. */
static int resolve(const char *avail, const char *spec, struct names *out)
{
	char sys[256], name[256];
	const char *colon = strchr(spec, ':');
	char *copy = strdup(avail);
	int found = 0;

	if (!copy)
		return -ENOMEM;
	if (colon) {
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
		snprintf(name, sizeof(name), "%s", colon[1] ? colon + 1 : "*");
	} else {
		snprintf(sys, sizeof(sys), "%s", spec);
		snprintf(name, sizeof(name), "%s", spec);
	}
	for (char *l = strtok(copy, "\n"); l; l = strtok(NULL, "\n")) {
		char *c = strchr(l, ':');
		bool match;

		if (!c)
			continue;
		*c = '\0';
		if (colon)
			match = (!strcmp(sys, "*") || !strcmp(sys, l)) &&
				(!strcmp(name, "*") || !strcmp(name, c + 1));
		else
			match = !strcmp(spec, "all") || !strcmp(spec, l) || !strcmp(spec, c + 1);
		if (match) {
			char path[600], **nv = realloc(out->v, (size_t)(out->n + 1) * sizeof(*nv));

			if (!nv)
				break;
			out->v = nv;
			snprintf(path, sizeof(path), "events/%s/%s", l, c + 1);
			out->v[out->n++] = strdup(path);
			found++;
		}
	}
	free(copy);
	return found;
}

static void add_undo(struct rec *r, const char *path, const char *data)
{
	char **np = realloc(r->undo_path, (size_t)(r->nundo + 1) * sizeof(*np));
	char **nd = np ? realloc(r->undo_data, (size_t)(r->nundo + 1) * sizeof(*nd)) : NULL;

	if (np)
		r->undo_path = np;
	if (!np || !nd)
		return;
	r->undo_data = nd;
	r->undo_path[r->nundo] = strdup(path);
	r->undo_data[r->nundo] = strdup(data);
	r->nundo++;
}

static int put(struct rec *r, const char *path, const char *data, unsigned int flags)
{
	char err[4096];
	ssize_t n = ctl_write(r->c, path, data, strlen(data), flags, err, sizeof(err));

	if (n < 0) {
		cmd_ctl_error("record: write", path, (int)n, err);
		return -1;
	}
	return 0;
}

/* Events on, filters and triggers set; what attaching changed is noted to undo. */
static int setup_events(struct rec *r)
{
	char *avail = NULL;
	int ret = 0;

	if (ctl_read(r->c, "available_events", &avail) < 0) {
		cmd_error("record: cannot read available_events");
		return -1;
	}
	if (r->nev == 0) {
		ret = put(r, "events/enable", "1", CTL_WF_TRUNC);
		if (!ret && r->pid)
			add_undo(r, "events/enable", "0");
	}
	for (int i = 0; !ret && i < r->nev; i++) {
		struct names files = { 0 };
		int n = resolve(avail, r->ev[i].spec, &files);

		if (n <= 0) {
			/* with CMD, it may register later: EVTRACE_EVENTS enables it then */
			if (r->pid || r->ev[i].filter || r->ev[i].ntrig) {
				cmd_error("record: no event matches '%s' in process %d", r->ev[i].spec,
					  (int)ctl_client_info(r->c)->pid);
				ret = -1;
			}
			free_names(&files);
			continue;
		}
		for (int j = 0; !ret && j < files.n; j++) {
			char path[700];

			if (r->ev[i].filter) {
				snprintf(path, sizeof(path), "%s/filter", files.v[j]);
				ret = put(r, path, r->ev[i].filter, CTL_WF_TRUNC);
				if (!ret && r->pid)
					add_undo(r, path, "0");
			}
			for (int t = 0; !ret && t < r->ev[i].ntrig; t++) {
				char undo[4200];

				snprintf(path, sizeof(path), "%s/trigger", files.v[j]);
				ret = put(r, path, r->ev[i].trigger[t], CTL_WF_APPEND);
				snprintf(undo, sizeof(undo), "!%s", r->ev[i].trigger[t]);
				if (!ret && r->pid)
					add_undo(r, path, undo);
			}
			snprintf(path, sizeof(path), "%s/enable", files.v[j]);
			if (!ret)
				ret = put(r, path, "1", CTL_WF_TRUNC);
			if (!ret && r->pid)
				add_undo(r, path, "0");
		}
		free_names(&files);
	}
	free(avail);
	return ret;
}

static void undo(struct rec *r)
{
	for (int i = r->nundo; i-- > 0;) {
		if (r->c)
			ctl_write(r->c, r->undo_path[i], r->undo_data[i], strlen(r->undo_data[i]),
				  strstr(r->undo_path[i], "/trigger") ? CTL_WF_APPEND : CTL_WF_TRUNC,
				  NULL, 0);
		free(r->undo_path[i]);
		free(r->undo_data[i]);
	}
	free(r->undo_path);
	free(r->undo_data);
	r->nundo = 0;
}

/* --- starting the command ----------------------------------------------------------------- */

static pid_t start_child(struct rec *r, char **argv)
{
	char events[8192] = "";
	size_t len = 0;
	pid_t pid;

	for (int i = 0; i < r->nev; i++) {
		int n = snprintf(events + len, sizeof(events) - len, "%s%s", len ? "," : "",
				 r->ev[i].spec);

		if (n < 0 || (size_t)n >= sizeof(events) - len)
			break;
		len += (size_t)n;
	}
	pid = fork();
	if (pid != 0)
		return pid;
	setenv("EVTRACE_CONTROL", "1", 1);
	setenv("EVTRACE_CONTROL_AWAIT", "1", 1);
	if (!getenv("EVTRACE_CONTROL_EXIT_WAIT"))
		setenv("EVTRACE_CONTROL_EXIT_WAIT", "10", 1);
	setenv("EVTRACE_EVENTS", r->nev ? events : "*", 1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "evtrace: record: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for the child's socket; NULL if it exited first or never served one. */
static struct ctl_client *connect_child(struct rec *r, int *child_status)
{
	double deadline = status_now() + 10;

	while (!cmd_stop) {
		struct ctl_client *c;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		int st;

		if (ctl_connect_pid(r->child, &c) == 0)
			return c;
		if (waitpid(r->child, &st, WNOHANG) == r->child) {
			*child_status = st;
			r->child = 0;
			cmd_error("record: the command exited before it served a control socket "
				  "(is it linked with libevtrace?)");
			return NULL;
		}
		if (status_now() > deadline) {
			cmd_error("record: no control socket from process %d after 10 s (is it "
				  "linked with libevtrace?)", (int)r->child);
			return NULL;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* --- main ---------------------------------------------------------------------------- */

static int record_loop(struct rec *r)
{
	double last_meta = status_now();
	bool exiting = false;
	int child_st = 0;
	long got;

	for (;;) {
		struct timespec ts = { 0, REC_POLL_MS * 1000 * 1000 };
		bool end = cmd_stop != 0;

		got = drain(r);
		if (got < 0) {
			cmd_error("record: reading the buffer: %s", strerror((int)-got));
			return -1;
		}
		status(r, false);
		if (r->child && waitpid(r->child, &child_st, WNOHANG) == r->child) {
			r->child = 0;
			end = true;
		}
		if (status_now() - last_meta >= 1 || end) {
			struct ctl_ping ping;

			last_meta = status_now();
			if (r->c && ctl_ping(r->c, &ping) == 0) {
				exiting = ping.exiting;
				if (exiting || end)
					fetch_meta(r);
				else
					fetch_cmdlines(r);
			} else if (r->c) {
				/* the process is gone: what is mapped is still ours to drain */
				ctl_close(r->c);
				r->c = NULL;
				end = true;
			}
		}
		if (exiting)
			end = true;
		if (end)
			break;
		if (got == 0)
			nanosleep(&ts, NULL);
	}
	/* the last pages: whatever writers committed until now */
	while ((got = drain(r)) > 0)
		;
	if (got < 0) {
		cmd_error("record: reading the buffer: %s", strerror((int)-got));
		return -1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec *r = calloc(1, sizeof(*r));
	int opt, fd = -1, ret = 1, child_st = 0;
	bool have_fd = false;

	if (!r)
		return 1;
	r->output = "trace.dat";
	while ((opt = getopt_long(argc, argv, "+e:f:T:o:p:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (r->nev == REC_MAX_EVENTS) {
				cmd_error("record: at most %d -e", REC_MAX_EVENTS);
				goto usage;
			}
			r->ev[r->nev++].spec = optarg;
			break;
		case 'f':
		case 'T':
			if (!r->nev) {
				cmd_error("record: -%c applies to the -e before it: give -e first", opt);
				goto usage;
			}
			if (opt == 'f') {
				r->ev[r->nev - 1].filter = optarg;
			} else {
				if (r->ev[r->nev - 1].ntrig == 8) {
					cmd_error("record: at most 8 -T per -e");
					goto usage;
				}
				r->ev[r->nev - 1].trigger[r->ev[r->nev - 1].ntrig++] = optarg;
			}
			break;
		case 'o':
			r->output = optarg;
			break;
		case 'p':
			if (r->pid) {
				cmd_error("record: one -p only (merging several processes into one "
					  "file is not done yet: record each to its own file)");
				goto usage;
			}
			if (cmd_parse_pid(optarg, &r->pid))
				goto usage;
			break;
		case 's':
			r->stats = true;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'h':
			rec_usage(stdout);
			free(r);
			return 0;
		default:
			goto usage;
		}
	}
	if ((r->pid != 0) == (optind < argc)) {
		cmd_error("record: give either -p PID or -- CMD ARGS");
		goto usage;
	}
	for (int i = 0; i < r->nev; i++)
		if (strchr(r->ev[i].spec, ',') || strchr(r->ev[i].spec, ' ')) {
			cmd_error("record: one event per -e, not '%s'", r->ev[i].spec);
			goto usage;
		}
	/* fail early on an output we cannot write */
	fd = open(r->output, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		cmd_error("record: %s: %s", r->output, strerror(errno));
		free(r);
		return 1;
	}
	close(fd);
	fd = -1;
	r->status_on = r->quiet ? 0 : isatty(STDERR_FILENO) ? 1 : r->stats ? 2 : 0;
	cmd_catch_signals();

	if (r->pid) {
		r->c = cmd_ctl_connect(r->pid);
	} else {
		r->child = start_child(r, argv + optind);
		if (r->child < 0) {
			cmd_error("record: fork: %s", strerror(errno));
			goto out;
		}
		r->c = connect_child(r, &child_st);
	}
	if (!r->c)
		goto out;
	/*
	 * Attached: start from an empty buffer, as trace-cmd record does (what
	 * was there belongs to no request of ours). A started command keeps
	 * what its events wrote before we connected.
	 */
	if (r->pid)
		ctl_write(r->c, "trace", "", 0, CTL_WF_TRUNC, NULL, 0);
	if (setup_events(r)) {
		ret = 1;
		goto out;
	}
	ret = ctl_get_buffer(r->c, NULL, &fd, &r->bi);
	if (ret) {
		cmd_error("record: process %d: the ring buffer: %s%s", (int)ctl_client_info(r->c)->pid,
			  strerror(-ret), ret == -EBUSY ? " (another consumer has it)" : "");
		ret = 1;
		goto out;
	}
	have_fd = true;
	ret = evt_ring_buffer_map(fd, &r->rb);
	if (ret) {
		cmd_error("record: mapping the ring buffer: %s", strerror(-ret));
		ret = 1;
		goto out;
	}
	r->page = malloc(r->bi.page_size);
	r->spool = calloc(r->bi.nr_cpus, sizeof(*r->spool));
	r->spool_bytes = calloc(r->bi.nr_cpus, sizeof(*r->spool_bytes));
	if (!r->page || !r->spool || !r->spool_bytes) {
		ret = 1;
		goto out;
	}
	for (unsigned int cpu = 0; cpu < r->bi.nr_cpus; cpu++) {
		r->spool[cpu] = spool_open(r->output);
		if (r->spool[cpu] < 0) {
			cmd_error("record: a spool file: %s", strerror(errno));
			for (unsigned int j = 0; j < cpu; j++)
				close(r->spool[j]);
			free(r->spool);
			r->spool = NULL;
			ret = 1;
			goto out;
		}
	}
	if (fetch_meta(r)) {
		ret = 1;
		goto out;
	}
	r->start = r->last_status = status_now();
	ret = record_loop(r) ? 1 : 0;
	status(r, true);
	if (r->c)
		undo(r);
	if (r->c) {
		fetch_meta(r);
		/* let the process finish its exit (it waits for its consumer) */
		ctl_put_buffer(r->c);
	}
	if (!ret) {
		int w = write_output(r);

		if (w) {
			cmd_error("record: writing %s: %s", r->output, strerror(-w));
			ret = 1;
		} else if (!r->quiet) {
			fprintf(stderr, "evtrace: record: %s: %llu events on %u CPUs, %llu lost\n",
				r->output, (unsigned long long)r->records, r->bi.nr_cpus,
				(unsigned long long)losses(r));
		}
	}
out:
	if (r->c)
		ctl_close(r->c);
	if (r->child > 0) {
		/* Ctrl-C reached the command too (same terminal); else tell it */
		if (cmd_stop)
			kill(r->child, SIGINT);
		waitpid(r->child, &child_st, 0);
	}
	if (r->rb)
		evt_ring_buffer_free(r->rb);
	if (have_fd)
		close(fd);
	if (r->spool)
		for (unsigned int cpu = 0; cpu < r->bi.nr_cpus; cpu++)
			close(r->spool[cpu]);
	free(r->spool);
	free(r->spool_bytes);
	free(r->page);
	free_fmts(r->fmts, r->nfmts);
	free(r->cmdlines);
	free(r->clock_list);
	free(r);
	return ret;
usage:
	rec_usage(stderr);
	free(r);
	return 2;
}
