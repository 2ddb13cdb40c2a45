// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record.c - `evtrace record [-e EVENT]... [-f FILTER] [-T TRIGGER]
 * [-o FILE] [-p PID]... | -- CMD ARGS`: record traced processes into a
 * trace.dat file (version 6, the one trace-cmd and `evtrace report` read).
 * evtrace-record(1).
 *
 * How: the command is started with EVTRACE_CONTROL=1 (its library serves
 * the control socket, docs/control.md) and EVTRACE_EVENTS set to the -e
 * list (so events are on from their registration) and EVTRACE_CONTROL_HOLD
 * (its first event waits for us), or each process -p is attached to.
 * Through the socket: the events, filters and triggers are set, and the
 * ring buffer's memfd is taken (GETBUF) and mapped; a started command is
 * then released (RELEASE), so that nothing it writes escapes the settings. The pages
 * are drained with evt_ring_buffer_read_page() from the mapping, nothing
 * but control goes through the socket, into one spool file per CPU. At the
 * end (Ctrl-C, the command's exit, or the process's exit which waits for
 * us) everything left is drained, the event formats, thread names and
 * clock are fetched, and the file is written: tracedat_header() then each
 * CPU's spooled pages.
 *
 * -- CMD records the command's whole tree: it runs with EVTRACE_CONTROL_DIR
 * set to a directory of this record's own, which is watched (inotify, a
 * rescan every second); every process of the tree that serves a socket
 * there becomes a source, held at its first event (EVTRACE_CONTROL_HOLD=all)
 * until it is set up, as the command is. The record ends when the command
 * has exited and every source has ended (or on Ctrl-C).
 *
 * Several -p, or several processes of a tree: each process's CPUs become
 * CPUs of their own in the file (process k's CPU c is CPU base_k + c), so
 * the readers' merge by time
 * stamp merges the processes. Their event ids differ (each process numbers
 * its own events): the file gets one table, an event with the same format
 * text keeps one id, and the records' common_type is rewritten in the
 * pages where a process's id had to change.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"
#include "evtrace-ctf.h"
#include "evtrace-journal.h"
#include "evtrace-net.h"
#include "evtrace-rectime.h"
#include "session-dir.h"

#define REC_MAX_EVENTS 128
#define REC_MAX_SRC    16   /* -p */
#define REC_MAX_TREE   1024 /* processes of a command's tree */
#define REC_POLL_MS    50
#define REC_ID_MAX     65536

struct rec_event {
	char *spec;	  /* as given: sys:name, sys:*, sys, name */
	char *filter;	  /* -f after it, or NULL */
	char *trigger[8]; /* -T after it */
	int ntrig;
};

/*
 * A socket file: its pid, inode and modification time (a new endpoint of
 * the same pid, after exec, may get the inode number of the old one back;
 * not the change time: the server's chmod after bind() changes it).
 */
struct rec_sock {
	pid_t pid;
	ino_t ino;
	struct timespec mtim;
};

enum rec_state {
	SRC_WAIT,   /* connected; waiting for it to park at its first event (the hold) */
	SRC_ACTIVE, /* set up, its buffer ours: drained */
	SRC_SHARED, /* ended, but fork() children that did not exec still write into its buffer */
	SRC_DONE,   /* ended (drained to the end), or dropped before it was set up */
};

/* One traced process (one program image: an exec'd one is a new source). */
struct rec_src {
	pid_t pid;
	struct rec_sock id;   /* its socket file (a command's tree) */
	struct ctl_client *c; /* NULL once the process is gone or done */
	struct evt_ring_buffer *rb;
	struct ctl_bufinfo bi;
	int fd; /* the memfd, -1 */
	enum rec_state state;
	unsigned int idx; /* its index in the journal */
	bool attached;	  /* set up: the journal has its metadata */
	bool meta_dirty;  /* its names changed since they were journaled */
	double last_ping;
	uint64_t lost_at_end; /* dropped + overruns when its buffer was let go */
	dev_t mem_dev;	      /* the memfd's identity, as /proc/PID/maps shows it */
	ino_t mem_ino;
	char *names;  /* "tid comm" lines of the fork() children that share the buffer */
	pid_t *shpids; /* the processes found sharing it */
	int nshpids;
	char date[40]; /* --date: the DATE option's text for its clock, or "" */
	pid_t *tids;  /* the threads seen in its pages whose names we looked for */
	int ntids, tidcap;
	/* what the file needs from the process, fetched while it lives */
	struct rj_fmt *fmts;
	size_t nfmts;
	char *cmdlines, *clock_list;
	uint64_t records, missed;
	/* undo, when attached */
	char **undo_path, **undo_data;
	int nundo;
};

/* A socket file of the session directory that is not (yet) a source. */
struct rec_seen {
	struct rec_sock id;
	bool retry;	 /* refused while its pid lives: bound, not listening yet */
	double next_try; /* then: 5 ms, twice as long each time, up to 1 s */
	double delay;
};

struct rec {
	struct rec_event ev[REC_MAX_EVENTS];
	int matched[REC_MAX_EVENTS]; /* a command's tree: processes that had the -e */
	int nev;
	const char *output;
	bool output_created;	 /* by us: removed when nothing is written */
	pid_t pids[REC_MAX_SRC]; /* -p */
	int npids;
	pid_t child; /* started by us, until reaped */
	bool tree;   /* -- CMD: every process of its tree that serves a socket */
	bool stats, quiet;
	bool date; /* --date: the file gets a DATE option (record-time.c) */
	const char *net;  /* -N HOST:PORT: the file is sent to trace-cmd listen (record-net.c) */
	bool net_failed;
	const char *ctf; /* --format=ctf: the directory (-o); the recording is ctf_dat in it */
	char *ctf_dat;
	struct rec_src **src;
	int nsrc, srccap;
	struct rec_src *first; /* the first source set up: page size, clock */
	/* a command's tree: the session's socket directory (session-dir.c), watched */
	struct session_dir sess;
	int ino_fd; /* inotify on @dir, -1 */
	struct rec_seen *seen;
	int nseen, seencap;
	double last_scan;
	struct rlimit nofile; /* as we were started: the command gets it back */
	unsigned char *page;
	unsigned int page_size;
	/* counters, over every process */
	uint64_t records, bytes;
	double start, last_status;
	uint64_t last_records;
	double rate;
	int status_on; /* 1 terminal, 2 --stats */
	bool extract;  /* evtrace extract: what the buffers hold now; nothing is set */
	/*
	 * The journal (evtrace-journal.h) the pages and metadata go to as they
	 * come: the output file itself (made a trace.dat at the end), or an
	 * unnamed file when the output is not a regular file.
	 */
	struct rj j;
	bool jtemp;
	bool fault;	  /* a process's buffer failed midway: the exit status says so */
	pid_t child_pid;  /* the command (the first of r->child), for its exit status */
	int child_status; /* its wait status once it ended, else -1 */
};

static void rec_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace record [-e EVENT [-f FILTER] [-T TRIGGER]...]... [-o FILE]\n"
		"                      [-p PID]... | -- CMD ARGS...\n"
		"Record traced processes' events into a trace.dat file (trace-cmd's version 6).\n"
		"  -e, --event EVENT     sys:name, sys:*, sys or name (repeatable; default: all)\n"
		"  -f, --filter EXPR     filter for the -e before it (the kernel's grammar)\n"
		"  -T, --trigger CMD     trigger for the -e before it (repeatable)\n"
		"  -o, --output FILE     the file (default trace.dat)\n"
		"  --format=ctf          a CTF trace in the directory -o names (record-ctf.c)\n"
		"  -p, --pid PID         attach to a running process (repeatable: one file, the\n"
		"                        processes merged by time stamp)\n"
		"  -N HOST:PORT          then send the file to trace-cmd listen -p PORT there\n"
		"                        (-o names the local copy, kept whatever happens)\n"
		"  --date                put the CLOCK_REALTIME offset in the file (DATE option,\n"
		"                        as trace-cmd record --date): files of several hosts merge\n"
		"  --stats               the final status line also when stderr is no terminal\n"
		"  -q, --quiet           no status line\n"
		"Ctrl-C stops; with CMD, its exit stops too. The buffers are drained to the\n"
		"end.\n");
}

/* --- fetching what the file needs --------------------------------------------------- */

static int fmt_cmp(const void *a, const void *b)
{
	const struct rj_fmt *x = a, *y = b;
	int d = strcmp(x->system, y->system);

	return d ? d : strcmp(x->name, y->name);
}

/*
 * Every event's format, the saved cmdlines and the clock list, from the
 * process (kept only when all of it came: a process that went away
 * midway leaves the previous fetch in place).
 */
static int fetch_meta(struct rec_src *s)
{
	struct cmd_names sys = { 0 };
	struct rj_fmt *fmts = NULL;
	size_t nfmts = 0, cap = 0;
	char *cmdlines = NULL, *clocks = NULL;
	ssize_t n;
	int ret;

	if (!s->c)
		return -ENOTCONN;
	ret = ctl_readdir(s->c, "events", cmd_names_add_dir, &sys);
	for (int i = 0; !ret && i < sys.n; i++) {
		struct cmd_names ev = { 0 };
		char dir[300];

		snprintf(dir, sizeof(dir), "events/%s", sys.v[i]);
		ret = ctl_readdir(s->c, dir, cmd_names_add_dir, &ev);
		for (int j = 0; !ret && j < ev.n; j++) {
			char path[600], *text = NULL;

			snprintf(path, sizeof(path), "%s/%s/format", dir, ev.v[j]);
			n = ctl_read(s->c, path, &text);
			if (n == -ENOENT || n == -ENODEV) { /* gone meanwhile */
				free(text);
				continue;
			}
			if (n < 0) {
				ret = (int)n;
				break;
			}
			if (nfmts == cap) {
				struct rj_fmt *nf =
					realloc(fmts, (cap ? cap * 2 : 32) * sizeof(*nf));

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
			fmts[nfmts].id = rj_fmt_id(text);
			nfmts++;
			if (!fmts[nfmts - 1].system || !fmts[nfmts - 1].name)
				ret = -ENOMEM;
		}
		cmd_names_free(&ev);
	}
	cmd_names_free(&sys);
	if (!ret) {
		n = ctl_read(s->c, "saved_cmdlines", &cmdlines);
		if (n < 0)
			ret = (int)n;
	}
	if (!ret) {
		n = ctl_read(s->c, "trace_clock", &clocks);
		if (n < 0)
			ret = (int)n;
	}
	if (ret) {
		rj_fmts_free(fmts, nfmts);
		free(cmdlines);
		free(clocks);
		return ret;
	}
	if (nfmts)
		qsort(fmts, nfmts, sizeof(*fmts), fmt_cmp);
	rj_fmts_free(s->fmts, s->nfmts);
	free(s->cmdlines);
	free(s->clock_list);
	s->fmts = fmts;
	s->nfmts = nfmts;
	s->cmdlines = cmdlines;
	s->clock_list = clocks;
	s->meta_dirty = true;
	return 0;
}

/* Only the thread names: they change while the program runs. */
static void fetch_cmdlines(struct rec_src *s)
{
	char *text = NULL;

	if (s->c && ctl_read(s->c, "saved_cmdlines", &text) >= 0) {
		if (!s->cmdlines || strcmp(s->cmdlines, text))
			s->meta_dirty = true;
		free(s->cmdlines);
		s->cmdlines = text;
	} else {
		free(text);
	}
}

/* --- draining ---------------------------------------------------------------------- */

/* The journal when the output is not a regular file: an unnamed file of /tmp. */
static int journal_temp(void)
{
	char tmpl[] = "/tmp/evtrace-record-XXXXXX";
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

/* Journal @s's metadata (at its set-up, and when its names changed). */
static int put_meta(struct rec *r, struct rec_src *s)
{
	struct rj_meta m = {
		.pid = s->pid,
		.nr_cpus = s->bi.nr_cpus,
		.page_size = s->bi.page_size,
		.clock = s->bi.clock,
		.clock_list = s->clock_list,
		.cmdlines = s->cmdlines,
		.names = s->names,
		.date = s->date[0] ? s->date : NULL,
		.fmts = s->fmts,
		.nfmts = s->nfmts,
	};
	int ret = r->j.size ? 0 : rj_start(&r->j, r->j.fd);

	if (!ret)
		ret = rj_put_meta(&r->j, s->idx, &m);

	if (!ret)
		s->meta_dirty = false;
	return ret;
}

/*
 * The name of thread @tid of @s, from /proc while it lives (a program that
 * crashes or exits early cannot be asked for its saved_cmdlines later).
 * Each thread is looked for once.
 */
static void name_tid(struct rec_src *s, pid_t tid)
{
	char path[64], comm[64] = "", *nn;
	int lo = 0, hi = s->ntids, fd;
	size_t len;
	ssize_t n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (s->tids[mid] == tid)
			return;
		if (s->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->ntids == s->tidcap) {
		int cap = s->tidcap ? s->tidcap * 2 : 64;
		pid_t *nt;

		if (cap > 1 << 20)
			return; /* a million threads: the rest keep the names the process saved */
		nt = realloc(s->tids, (size_t)cap * sizeof(*nt));
		if (!nt)
			return;
		s->tids = nt;
		s->tidcap = cap;
	}
	memmove(s->tids + lo + 1, s->tids + lo, (size_t)(s->ntids - lo) * sizeof(*s->tids));
	s->tids[lo] = tid;
	s->ntids++;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	if (!comm[0])
		return;
	len = s->names ? strlen(s->names) : 0;
	nn = realloc(s->names, len + 16 + strlen(comm) + 2);
	if (!nn)
		return;
	s->names = nn;
	sprintf(s->names + len, "%d %s\n", (int)tid, comm);
	s->meta_dirty = true;
}

/* Count a page's records and the losses it reports. */
static void page_account(struct rec *r, struct rec_src *s, const unsigned char *page)
{
	struct evt_rb_page_iter it;
	uint64_t commit;

	const struct evt_ring_buffer_event *ev;
	pid_t last = 0;

	if (evt_rb_page_iter_init(&it, page, r->page_size))
		return;
	while (evt_rb_page_iter_next(&it, &ev, NULL) > 0) {
		const unsigned char *data =
			evt_ring_buffer_event_data((struct evt_ring_buffer_event *)ev);
		int32_t tid;

		s->records++;
		r->records++;
		/* common_pid: bytes 4-7 of every event's common header */
		if (evt_ring_buffer_event_length(ev) < 8)
			continue;
		memcpy(&tid, data + 4, sizeof(tid));
		if (tid > 0 && tid != last)
			name_tid(s, tid);
		last = tid;
	}
	memcpy(&commit, page + 8, sizeof(commit));
	if (commit & EVT_RB_PAGE_MISSED_STORED) {
		uint64_t len = commit & EVT_RB_PAGE_COMMIT_MASK, n;

		if (EVT_RB_PAGE_HDR_SIZE + len + 8 <= r->page_size) {
			memcpy(&n, page + EVT_RB_PAGE_HDR_SIZE + len, sizeof(n));
			s->missed += n;
		}
	} else if (commit & EVT_RB_PAGE_MISSED_EVENTS) {
		s->missed++;
	}
}

/* @s's mapping and memfd let go (its losses kept in lost_at_end): the source is done. */
static void src_release(struct rec_src *s)
{
	if (s->rb) {
		s->lost_at_end =
			evt_ring_buffer_dropped_events(s->rb) + evt_ring_buffer_overruns(s->rb);
		evt_ring_buffer_free(s->rb);
		s->rb = NULL;
	}
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
	s->state = SRC_DONE;
}

/*
 * @s's buffer failed (@err: -EBADMSG, a page that fails the reader's
 * checks: something wrote into the shared memory): said, and the process
 * is let go; what was drained of it before stays in the file.
 */
static void src_fault(struct rec *r, struct rec_src *s, int cpu, int err)
{
	cmd_error("record: process %d: its ring buffer (CPU %d) cannot be read: %s%s; its "
		  "recording stops here, the %llu events drained before are kept",
		  (int)s->pid, cpu, strerror(-err),
		  err == -EBADMSG ? " (a corrupted page: something wrote into the shared buffer)" :
				    "",
		  (unsigned long long)s->records);
	r->fault = true;
	if (s->c) {
		ctl_put_buffer(s->c);
		ctl_close(s->c);
		s->c = NULL;
	}
	src_release(s);
}

/*
 * Every page of @s that can be read now, of every CPU, into the journal.
 * A buffer that fails ends @s (src_fault()).
 * Return: pages read, or -errno: the journal could not be written (r->j.err).
 */
static long drain(struct rec *r, struct rec_src *s)
{
	long pages = 0;

	if (r->j.err)
		return r->j.err;
	for (unsigned int cpu = 0; s->rb && cpu < s->bi.nr_cpus; cpu++) {
		/* at most a ring's worth per call, so that Ctrl-C is heard under a flood */
		uint64_t max = s->bi.size / r->page_size + 2;

		for (uint64_t i = 0; i < max; i++) {
			int ret = evt_ring_buffer_read_page(s->rb, (int)cpu, r->page, r->page_size);

			if (ret == -EAGAIN || ret == 0)
				break;
			if (ret < 0) {
				src_fault(r, s, (int)cpu, ret);
				return pages;
			}
			if (rj_put_page(&r->j, s->idx, cpu, r->page, r->page_size))
				return r->j.err;
			page_account(r, s, r->page);
			r->bytes += r->page_size;
			pages++;
		}
	}
	return pages;
}

static uint64_t losses(const struct rec *r)
{
	uint64_t n = 0;

	for (int i = 0; i < r->nsrc; i++) {
		const struct rec_src *s = r->src[i];

		if (s->missed)
			n += s->missed;
		else if (s->rb)
			n += evt_ring_buffer_dropped_events(s->rb) +
			     evt_ring_buffer_overruns(s->rb);
		else
			n += s->lost_at_end;
	}
	return n;
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

/* --- setting events up ------------------------------------------------------------------- */

/* The event files (events/SYS/NAME) that @spec names, from available_events. */
static int resolve(const char *avail, const char *spec, struct cmd_names *out)
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
			char path[600];

			snprintf(path, sizeof(path), "events/%s/%s", l, c + 1);
			if (cmd_names_push(out, path))
				break;
			found++;
		}
	}
	free(copy);
	return found;
}

static void add_undo(struct rec_src *s, const char *path, const char *data)
{
	char **np = realloc(s->undo_path, (size_t)(s->nundo + 1) * sizeof(*np));
	char **nd;

	if (!np)
		return;
	s->undo_path = np;
	nd = realloc(s->undo_data, (size_t)(s->nundo + 1) * sizeof(*nd));
	if (!nd)
		return;
	s->undo_data = nd;
	s->undo_path[s->nundo] = strdup(path);
	s->undo_data[s->nundo] = strdup(data);
	if (!s->undo_path[s->nundo] || !s->undo_data[s->nundo]) {
		free(s->undo_path[s->nundo]);
		free(s->undo_data[s->nundo]);
		return;
	}
	s->nundo++;
}

static int put(struct rec_src *s, const char *path, const char *data, unsigned int flags)
{
	char err[4096];
	ssize_t n = ctl_write(s->c, path, data, strlen(data), flags, err, sizeof(err));

	if (n < 0) {
		cmd_ctl_error("record: write", path, (int)n, err);
		return -1;
	}
	return 0;
}

/* Events on, filters and triggers set; what attaching changed is noted to undo. */
static int setup_events(struct rec *r, struct rec_src *s)
{
	bool attached = !r->tree;
	char *avail = NULL;
	int ret = 0;

	if (ctl_read(s->c, "available_events", &avail) < 0) {
		cmd_error("record: cannot read available_events");
		free(avail);
		return -1;
	}
	if (r->nev == 0) {
		ret = put(s, "events/enable", "1", CTL_WF_TRUNC);
		if (!ret && attached)
			add_undo(s, "events/enable", "0");
	}
	for (int i = 0; !ret && i < r->nev; i++) {
		struct cmd_names files = { 0 };
		int n = resolve(avail, r->ev[i].spec, &files);

		if (n > 0)
			r->matched[i]++;
		if (n <= 0) {
			/*
			 * With CMD, it may register later (EVTRACE_EVENTS enables it
			 * then), or be another program's of the tree: said at the end
			 * if no process had it (rec_unmatched()).
			 */
			if (attached) {
				cmd_error("record: no event matches '%s' in process %d",
					  r->ev[i].spec, (int)ctl_client_info(s->c)->pid);
				ret = -1;
			}
			cmd_names_free(&files);
			continue;
		}
		for (int j = 0; !ret && j < files.n; j++) {
			char path[700];

			if (r->ev[i].filter) {
				snprintf(path, sizeof(path), "%s/filter", files.v[j]);
				ret = put(s, path, r->ev[i].filter, CTL_WF_TRUNC);
				if (!ret && attached)
					add_undo(s, path, "0");
			}
			for (int t = 0; !ret && t < r->ev[i].ntrig; t++) {
				char undo[4200];

				snprintf(path, sizeof(path), "%s/trigger", files.v[j]);
				ret = put(s, path, r->ev[i].trigger[t], CTL_WF_APPEND);
				snprintf(undo, sizeof(undo), "!%s", r->ev[i].trigger[t]);
				if (!ret && attached)
					add_undo(s, path, undo);
			}
			snprintf(path, sizeof(path), "%s/enable", files.v[j]);
			if (!ret)
				ret = put(s, path, "1", CTL_WF_TRUNC);
			if (!ret && attached)
				add_undo(s, path, "0");
		}
		cmd_names_free(&files);
	}
	free(avail);
	return ret;
}

/* Undo what setup changed (if the process is still there); free the list. */
static void undo(struct rec_src *s)
{
	for (int i = s->nundo; i-- > 0;) {
		if (s->c)
			ctl_write(s->c, s->undo_path[i], s->undo_data[i], strlen(s->undo_data[i]),
				  strstr(s->undo_path[i], "/trigger") ? CTL_WF_APPEND :
									CTL_WF_TRUNC,
				  NULL, 0);
		free(s->undo_path[i]);
		free(s->undo_data[i]);
	}
	free(s->undo_path);
	free(s->undo_data);
	s->undo_path = s->undo_data = NULL;
	s->nundo = 0;
}

static struct rec_src *src_new(struct rec *r, pid_t pid)
{
	struct rec_src *s;

	if (r->nsrc == r->srccap) {
		int cap = r->srccap ? r->srccap * 2 : 16;
		struct rec_src **ns = realloc(r->src, (size_t)cap * sizeof(*ns));

		if (!ns)
			return NULL;
		r->src = ns;
		r->srccap = cap;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = -1;
	s->pid = pid;
	s->idx = (unsigned int)r->nsrc;
	r->src[r->nsrc++] = s;
	return s;
}

static bool sock_eq(const struct rec_sock *a, const struct rec_sock *b)
{
	return a->pid == b->pid && a->ino == b->ino && a->mtim.tv_sec == b->mtim.tv_sec &&
	       a->mtim.tv_nsec == b->mtim.tv_nsec;
}

static struct rec_seen *seen_find(struct rec *r, const struct rec_sock *id)
{
	for (int i = 0; i < r->nseen; i++)
		if (sock_eq(&r->seen[i].id, id))
			return &r->seen[i];
	return NULL;
}

/*
 * Try the socket @path of @pid (inode @ino): a new source (waiting for the
 * hold) when it answers; else remembered, to try again while its pid lives
 * (a socket is bound before it listens) or never again (a stale one).
 */
static void try_socket(struct rec *r, const struct rec_sock *id, const char *path)
{
	struct rec_seen *seen = seen_find(r, id);
	pid_t pid = id->pid;
	struct ctl_client *c = NULL;
	struct rec_src *s;
	int ret;

	if (r->nsrc >= REC_MAX_TREE) {
		cmd_error("record: more than %d processes: process %d is not recorded",
			  REC_MAX_TREE, (int)pid);
		ret = -ENOSPC;
	} else {
		ret = ctl_connect_path(path, &c);
	}
	/*
	 * The endpoint of a source we have already (the same socket seen under
	 * another identity)? Then that source's connection still answers; after
	 * an exec, the old image's is closed.
	 */
	for (int k = 0; !ret && k < r->nsrc; k++) {
		struct ctl_ping ping;

		s = r->src[k];
		if (s->pid == pid && s->state != SRC_DONE && s->c && ctl_ping(s->c, &ping) == 0) {
			ctl_close(c);
			ret = -EEXIST;
		}
	}
	if (!ret) {
		s = src_new(r, pid);
		if (!s) {
			ctl_close(c);
			ret = -ENOMEM;
		} else {
			s->c = c;
			s->id = *id;
			s->state = SRC_WAIT;
			if (seen)
				seen->retry = false;
			return;
		}
	}
	if (!seen) {
		if (r->nseen == r->seencap) {
			int cap = r->seencap ? r->seencap * 2 : 16;
			struct rec_seen *ns = realloc(r->seen, (size_t)cap * sizeof(*ns));

			if (!ns)
				return; /* tried again at the next scan */
			r->seen = ns;
			r->seencap = cap;
		}
		seen = &r->seen[r->nseen++];
		seen->id = *id;
		seen->delay = 0.005;
	} else if (seen->delay < 1) {
		seen->delay *= 2;
	}
	seen->retry = (ret == -ECONNREFUSED || ret == -ENOENT || ret == -ECONNRESET) &&
		      !(kill(pid, 0) < 0 && errno == ESRCH);
	seen->next_try = status_now() + seen->delay;
}

/* Every <pid>.sock of the session directory that is neither a source nor known dead. */
static void scan(struct rec *r)
{
	struct dirent *de;
	int fd = dup(r->sess.fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	r->last_scan = status_now();
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		char path[400], *end;
		long pid = strtol(de->d_name, &end, 10);
		struct rec_seen *seen;
		struct rec_sock id;
		struct stat st;
		bool known = false;

		if (end == de->d_name || strcmp(end, ".sock") || pid <= 0 || pid > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->sess.path, de->d_name);
		/* through the directory's descriptor: the entry itself, not what it points to */
		if (fstatat(r->sess.fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISSOCK(st.st_mode))
			continue;
		id = (struct rec_sock){ .pid = (pid_t)pid, .ino = st.st_ino, .mtim = st.st_mtim };
		for (int k = 0; k < r->nsrc && !known; k++)
			known = sock_eq(&r->src[k]->id, &id);
		seen = seen_find(r, &id);
		if (known || (seen && (!seen->retry || status_now() < seen->next_try)))
			continue;
		try_socket(r, &id, path);
	}
	closedir(d);
}

/*
 * New sockets: scan when inotify says the directory changed, when a
 * socket refused us (it listens soon), and every second anyway (the
 * fallback: no inotify, an overflowed queue). @force: now.
 */
static void discover(struct rec *r, bool force)
{
	bool due = force || status_now() - r->last_scan >= 1;

	if (r->ino_fd >= 0) {
		char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

		while (read(r->ino_fd, buf, sizeof(buf)) > 0)
			due = true;
	}
	for (int i = 0; i < r->nseen && !due; i++)
		due = r->seen[i].retry && status_now() >= r->seen[i].next_try;
	if (due)
		scan(r);
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
	if (r->ino_fd >= 0)
		close(r->ino_fd);
	setrlimit(RLIMIT_NOFILE, &r->nofile);
	setenv("EVTRACE_CONTROL", "1", 1);
	/* every process of the tree serves its socket there, and only there */
	setenv("EVTRACE_CONTROL_DIR", r->sess.path, 1);
	{
		char me[24];

		/* only this process waits at exit for a consumer that has not come */
		snprintf(me, sizeof(me), "%d", (int)getpid());
		setenv("EVTRACE_CONTROL_AWAIT", me, 1);
	}
	/* every program of the tree: its first event waits until our settings are in */
	setenv("EVTRACE_CONTROL_HOLD", "all", 1);
	if (!secure_getenv("EVTRACE_CONTROL_EXIT_WAIT"))
		setenv("EVTRACE_CONTROL_EXIT_WAIT", "10", 1);
	setenv("EVTRACE_EVENTS", r->nev ? events : "*", 1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "evtrace: record: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* --- one process: attach, end ---------------------------------------------------------- */

/* Is the process behind @s gone (its connection closed)? */
static bool src_gone(struct rec_src *s)
{
	struct ctl_ping ping;

	return !s->c || ctl_ping(s->c, &ping) < 0;
}

/*
 * Set @s up: events, filters, triggers, its buffer taken and mapped.
 * Return: 0, -1 an error that ends the record, -2 (a command's tree) the
 * process went away meanwhile or cannot be recorded with the others: it is
 * left out.
 */
static void add_names(struct rec_src *s, pid_t pid);

static int src_attach(struct rec *r, struct rec_src *s)
{
	int ret = 0;

	/*
	 * Attached: start from an empty buffer, as trace-cmd record does (what
	 * was there belongs to no request of ours). A started command keeps
	 * what its events wrote before we connected.
	 */
	if (!r->tree && !r->extract)
		ctl_write(s->c, "trace", "", 0, CTL_WF_TRUNC, NULL, 0);
	if (!r->extract && setup_events(r, s))
		return r->tree && src_gone(s) ? -2 : -1;
	/* another consumer that is about to let go (a previous record) gets 2 s */
	for (int i = 0; i < 100; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		ret = ctl_get_buffer(s->c, NULL, &s->fd, &s->bi);
		if (ret != -EBUSY || cmd_stop)
			break;
		nanosleep(&ts, NULL);
	}
	if (ret) {
		if (r->tree && (ret == -ECONNRESET || ret == -EPIPE))
			return -2;
		cmd_error("record: process %d: the ring buffer: %s%s%s",
			  (int)ctl_client_info(s->c)->pid, strerror(-ret),
			  ret == -EBUSY ? " (another consumer has it)" : "",
			  r->tree ? ": it is not recorded" : "");
		/* one process of a tree that another recorder has does not end the others' */
		return r->tree ? -2 : -1;
	}
	ret = evt_ring_buffer_map(s->fd, &s->rb);
	if (ret) {
		cmd_error("record: mapping the ring buffer of %d: %s", (int)s->pid, strerror(-ret));
		return -1;
	}
	{
		struct stat st;

		if (fstat(s->fd, &st) == 0) {
			s->mem_dev = st.st_dev;
			s->mem_ino = st.st_ino;
		}
	}
	if (!r->first) {
		r->page_size = s->bi.page_size;
		free(r->page);
		r->page = malloc(r->page_size ? r->page_size : 1);
		if (!r->page)
			return -1;
	}
	if (s->bi.page_size != r->page_size || s->bi.nr_cpus == 0) {
		cmd_error("record: process %d has pages of %u bytes, process %d of %u: one file "
			  "cannot hold both%s",
			  (int)s->pid, s->bi.page_size, r->first ? (int)r->first->pid : 0,
			  r->page_size, r->tree ? ": it is not recorded" : "");
		return r->tree ? -2 : -1;
	}
	if (r->first && strcmp(s->bi.clock, r->first->bi.clock))
		fprintf(stderr,
			"evtrace: record: warning: process %d uses clock %s, process %d %s:"
			" their time stamps do not compare\n",
			(int)s->pid, s->bi.clock, (int)r->first->pid, r->first->bi.clock);
	if (fetch_meta(s))
		return r->tree && src_gone(s) ? -2 : -1;
	add_names(s, s->pid);
	/* --date: the wall clock's offset read now, beside the process's own clock */
	if (r->date && cmd_date_option(s->bi.clock, s->date, sizeof(s->date))) {
		s->date[0] = '\0';
		if (!r->first)
			cmd_error("record: --date: the %s clock is not time: no DATE option",
				  s->bi.clock);
	}
	ret = put_meta(r, s);
	if (ret) {
		cmd_error("record: writing %s: %s", r->output, strerror(-ret));
		return -1;
	}
	if (!r->first)
		r->first = s;
	s->attached = true;
	return 0;
}

/* "tid comm" of every thread of process @pid, in @s->names if not there yet. */
static void add_names(struct rec_src *s, pid_t pid)
{
	struct dirent *de;
	char path[300];
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);
		char comm[64] = "", key[32], nkey[34], *nn;
		size_t len = s->names ? strlen(s->names) : 0;
		FILE *f;

		if (tid <= 0)
			continue;
		snprintf(key, sizeof(key), "%ld ", tid);
		snprintf(nkey, sizeof(nkey), "\n%s", key);
		if (s->names && (!strncmp(s->names, key, strlen(key)) || strstr(s->names, nkey)))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm", (int)pid, tid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		if (!comm[0])
			continue;
		nn = realloc(s->names, len + strlen(key) + strlen(comm) + 2);
		if (!nn)
			break;
		s->names = nn;
		sprintf(s->names + len, "%s%s\n", key, comm);
		s->meta_dirty = true;
	}
	closedir(d);
}

/*
 * The processes other than @s's own that map its buffer (its memfd, by the
 * device and inode /proc/PID/maps shows): fork() children of it that did
 * not exec, which write into it. Their threads' names are added to
 * @s->names (its saved_cmdlines has only its own). Return: how many.
 */
struct rec_proc {
	pid_t pid, ppid;
};

static int proc_cmp(const void *a, const void *b)
{
	const struct rec_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every process and its parent (/proc/PID/stat), sorted by pid; malloc'd. */
static int proc_table(struct rec_proc **tp)
{
	struct rec_proc *t = NULL;
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *d = opendir("/proc");

	*tp = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long pid = strtol(de->d_name, NULL, 10), ppid;
		char path[64], buf[512], *rp;
		ssize_t len;
		int fd;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "pid (comm) S ppid ...": the comm may hold anything, the last ')' ends it */
		rp = strrchr(buf, ')');
		if (!rp || sscanf(rp + 1, " %*c %ld", &ppid) != 1)
			continue;
		if (n == cap) {
			struct rec_proc *nt =
				realloc(t, (size_t)(cap ? cap * 2 : 256) * sizeof(*nt));

			if (!nt)
				break;
			t = nt;
			cap = cap ? cap * 2 : 256;
		}
		t[n].pid = (pid_t)pid;
		t[n].ppid = (pid_t)ppid;
		n++;
	}
	closedir(d);
	if (n)
		qsort(t, (size_t)n, sizeof(*t), proc_cmp);
	*tp = t;
	return n;
}

/* Is @pid @s's process or one that was found sharing its buffer? */
static bool share_root(const struct rec_src *s, pid_t pid)
{
	if (pid == s->pid)
		return true;
	for (int i = 0; i < s->nshpids; i++)
		if (s->shpids[i] == pid)
			return true;
	return false;
}

/* Does process @pid map @s's memfd (/proc/PID/maps)? */
static bool maps_buffer(const struct rec_src *s, pid_t pid)
{
	char path[64], line[600];
	bool maps = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!maps && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long ino;

		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %lu", &maj, &min, &ino) == 3 &&
		    ino == (unsigned long)s->mem_ino && maj == major(s->mem_dev) &&
		    min == minor(s->mem_dev))
			maps = true;
	}
	fclose(f);
	return maps;
}

static int sharers(struct rec *r, struct rec_src *s)
{
	struct rec_proc *t;
	int n = 0, np;

	(void)r;
	if (!s->mem_ino)
		return 0;
	/*
	 * Only the descendants of the process, or of one found sharing before
	 * (its parent may have ended since: it was reparented), are looked at:
	 * not every process's maps.
	 */
	np = proc_table(&t);
	for (int i = 0; i < np; i++) {
		struct rec_proc key = { .ppid = 0 }, *p = &t[i];
		bool below = false;

		if (p->pid == s->pid || p->pid == getpid())
			continue;
		for (int depth = 0; depth < 64 && p && p->ppid > 1 && !below; depth++) {
			below = share_root(s, p->ppid);
			key.pid = p->ppid;
			p = bsearch(&key, t, (size_t)np, sizeof(*t), proc_cmp);
		}
		if (!below && !share_root(s, t[i].pid))
			continue;
		if (!maps_buffer(s, t[i].pid))
			continue;
		n++;
		add_names(s, t[i].pid);
		if (!share_root(s, t[i].pid)) {
			pid_t *ns = realloc(s->shpids, (size_t)(s->nshpids + 1) * sizeof(*ns));

			if (ns) {
				s->shpids = ns;
				s->shpids[s->nshpids++] = t[i].pid;
			}
		}
	}
	free(t);
	return n;
}

static int src_unmap(struct rec *r, struct rec_src *s);

/*
 * The end of one process: the last pages, the names once more, what we
 * set undone, the buffer given back (an exiting process goes on).
 */
static int src_finish(struct rec *r, struct rec_src *s)
{
	int shared;
	long got;

	/*
	 * A journal that cannot be written ends the record: rec_end() says so.
	 * extract: what was there when it began (a live writer never runs dry).
	 */
	while ((got = drain(r, s)) > 0 && !r->extract)
		;
	/*
	 * Its fork() children (no exec) that write into this buffer, looked for
	 * while it still waits for us in exit(): one that waits for it to end
	 * cannot have ended yet (and its name is taken now).
	 */
	shared = r->tree && !cmd_stop ? sharers(r, s) : 0;
	if (s->c) {
		fetch_meta(s);
		if (s->meta_dirty)
			put_meta(r, s);
		undo(s);
		ctl_put_buffer(s->c);
		ctl_close(s->c);
		s->c = NULL;
	}
	/* go on draining it until none is left (a command's tree; not after Ctrl-C) */
	if (shared > 0) {
		s->state = SRC_SHARED;
		s->last_ping = status_now();
		return 0;
	}
	return src_unmap(r, s);
}

/* The last pages of an ended source's buffer, then the buffer let go. */
static int src_unmap(struct rec *r, struct rec_src *s)
{
	long got;

	while ((got = drain(r, s)) > 0 && !r->extract)
		;
	/*
	 * Its pages are in the journal: let the buffer go (a big tree's ended
	 * processes would otherwise keep all their buffers' memory alive).
	 */
	src_release(s);
	return 0;
}

/* A process left out (gone before it was set up, or not recordable with the others). */
static void src_drop(struct rec_src *s)
{
	if (s->c) {
		ctl_release(s->c); /* harmless when it is not held */
		ctl_close(s->c);   /* gives the buffer back if it had been taken */
		s->c = NULL;
	}
	if (s->rb) {
		evt_ring_buffer_free(s->rb);
		s->rb = NULL;
	}
	s->state = SRC_DONE;
}

static void src_free(struct rec_src *s)
{
	undo(s);
	if (s->c)
		ctl_close(s->c);
	if (s->rb)
		evt_ring_buffer_free(s->rb);
	if (s->fd >= 0)
		close(s->fd);
	free(s->tids);
	rj_fmts_free(s->fmts, s->nfmts);
	free(s->cmdlines);
	free(s->names);
	free(s->shpids);
	free(s->clock_list);
	free(s);
}

/* --- main ---------------------------------------------------------------------------- */

/*
 * A source waiting for the hold: once its program is parked at its first
 * event (its constructors registered their events by then) or will not
 * park (it exits, the hold timed out, it was not held), set it up and
 * release it. Return: 1 still waiting, 0 set up or dropped, -1 an error.
 */
static int src_wait(struct rec *r, struct rec_src *s, bool stop)
{
	int h = stop ? -1 : ctl_hold_state(s->c), ret;

	if (h == 1)
		return 1;
	if (h < 0) { /* gone, or Ctrl-C before it was set up: nothing of it is recorded */
		src_drop(s);
		return 0;
	}
	ret = src_attach(r, s);
	/* set up or not, it must not wait for the hold's timeout */
	if (s->c)
		ctl_release(s->c);
	if (ret == -2) {
		src_drop(s);
		return 0;
	}
	if (ret)
		return -1;
	s->state = SRC_ACTIVE;
	return 0;
}

/*
 * Has the command ended? It is reaped only once its own buffer is drained:
 * until then its name can still be read from /proc (name_tid()), which a
 * program that crashed at once needs.
 */
static bool child_ended(struct rec *r)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)r->child, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
	    si.si_pid != r->child)
		return false;
	for (int k = 0; k < r->nsrc; k++)
		if (r->src[k]->pid == r->child &&
		    (r->src[k]->state == SRC_ACTIVE || r->src[k]->state == SRC_WAIT))
			return false;
	if (waitpid(r->child, &r->child_status, 0) != r->child)
		r->child_status = -1;
	return true;
}

static int record_loop(struct rec *r)
{
	double last_meta = status_now();
	long idle_ms = 1, wait_ms = 1;

	for (;;) {
		bool stop = cmd_stop != 0, meta = false, waiting = false;
		long got = 0;
		int live = 0, nsrc = r->nsrc;

		if (r->tree)
			discover(r, false);
		if (r->child && child_ended(r)) {
			/* the command is gone: what it started and did not see yet, now */
			r->child = 0;
			meta = true;
			if (r->tree)
				discover(r, true);
		}
		if (status_now() - last_meta >= 1) {
			last_meta = status_now();
			meta = true;
		}
		if (r->nsrc != nsrc)
			wait_ms = 1; /* a new process: look at its hold soon */
		for (int k = 0; k < r->nsrc; k++) {
			struct rec_src *s = r->src[k];
			bool end = stop || r->extract;
			long n;

			if (s->state == SRC_DONE)
				continue;
			if (s->state == SRC_SHARED) {
				/* its fork() children: drained until none maps the buffer */
				n = drain(r, s);
				if (n < 0)
					return 0; /* the journal failed: rec_end() says so */
				got += n;
				if (stop || (status_now() - s->last_ping >= 0.05 &&
					     (s->last_ping = status_now(), sharers(r, s) == 0))) {
					if (src_unmap(r, s))
						return -1;
				} else {
					live++;
				}
				continue;
			}
			if (s->state == SRC_WAIT) {
				int w = src_wait(r, s, stop);

				if (w < 0)
					return -1;
				if (w > 0) {
					waiting = true;
					live++;
					continue;
				}
				if (s->state != SRC_ACTIVE)
					continue;
				got++; /* set up: round again at once */
			}
			n = drain(r, s);
			if (n < 0)
				return 0; /* the journal failed: rec_end() says so */
			got += n;
			if (s->state == SRC_DONE)
				continue; /* its buffer failed (src_fault()) */
			/*
			 * Is it exiting (waiting for us in exit())? Asked every 20 ms:
			 * an exiting process waits until we let go of its buffer.
			 */
			if (meta || stop || status_now() - s->last_ping >= 0.02) {
				struct ctl_ping ping;

				s->last_ping = status_now();
				if (s->c && ctl_ping(s->c, &ping) == 0) {
					if (ping.exiting) {
						end = true; /* it waits for us in exit() */
					} else if (meta) {
						fetch_cmdlines(s);
						/* the names of its fork() children while they live */
						if (r->tree)
							sharers(r, s);
					}
					/* at most once a second: a kill loses a second of names */
					if (meta && s->meta_dirty && put_meta(r, s))
						return 0;
				} else if (s->c) {
					/* gone: what is mapped is still ours to drain */
					ctl_close(s->c);
					s->c = NULL;
					end = true;
				}
			}
			if (end) {
				if (src_finish(r, s))
					return -1;
				if (s->state == SRC_SHARED)
					live++;
			} else {
				live++;
			}
		}
		status(r, false);
		/*
		 * The end: Ctrl-C; every process ended (-p); a command's tree: the
		 * command exited and every process of it we know of ended.
		 */
		if (stop || (live == 0 && (!r->tree || r->child == 0)) || r->extract)
			break;
		/*
		 * Nothing came: sleep, 1 ms after a busy round, twice as long after
		 * each idle one, up to REC_POLL_MS (4 ms while a process is to be
		 * set up: it waits for us). A buffer that fills in tens of
		 * milliseconds under a flood is read every millisecond or so. A
		 * new socket in the session directory wakes us at once.
		 */
		if (got == 0) {
			struct pollfd p = { .fd = r->ino_fd, .events = POLLIN };
			long ms = waiting && wait_ms < idle_ms ? wait_ms : idle_ms;

			poll(&p, r->ino_fd >= 0 ? 1 : 0, (int)ms);
			if (idle_ms < REC_POLL_MS)
				idle_ms *= 2;
			if (waiting && wait_ms < 4)
				wait_ms *= 2;
		} else {
			idle_ms = 1;
		}
	}
	return 0;
}

/* A -f/-T whose event no process of the tree had: said, not an error (it may not have run). */
static void rec_unmatched(const struct rec *r)
{
	for (int i = 0; r->tree && i < r->nev; i++)
		if (!r->matched[i] && (r->ev[i].filter || r->ev[i].ntrig))
			fprintf(stderr,
				"evtrace: record: warning: no process had an event matching '%s': "
				"its filter and triggers were never set\n",
				r->ev[i].spec);
}

/*
 * The output: created (or, if it exists, opened) now, so that an output we
 * cannot write fails before anything runs; a regular file becomes the
 * journal, anything else (a pipe, /dev/stdout) gets the trace.dat at the
 * end and the journal is an unnamed file.
 */
static int rec_open_output(struct rec *r)
{
	struct stat st;
	int fd, ret;

	fd = open(r->output, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0)
		r->output_created = true;
	else if (errno == EEXIST)
		fd = open(r->output, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == EEXIST) /* removed meanwhile: once more */
		fd = open(r->output, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 && (errno == EACCES || errno == ENXIO || errno == EISDIR))
		fd = open(r->output, O_WRONLY | O_CLOEXEC); /* a FIFO or a write-only file */
	if (fd < 0) {
		cmd_error("record: %s: %s", r->output, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR) {
		/* a file that was there is left as it was until something is recorded */
		r->j.fd = fd;
		ret = r->output_created ? rj_start(&r->j, fd) : 0;
	} else {
		close(fd);
		r->jtemp = true;
		fd = journal_temp();
		ret = fd < 0 ? -errno : rj_start(&r->j, fd);
	}
	if (ret) {
		cmd_error("record: %s: %s", r->jtemp ? "a temporary file in /tmp" : r->output,
			  strerror(-ret));
		if (fd >= 0)
			close(fd);
		r->j.fd = -1;
		return -1;
	}
	return 0;
}

/* The journal made the trace.dat. Return: 0, or -1 (said). */
static int rec_convert(struct rec *r, struct rj_summary *sum)
{
	char err[300];
	int ret, ofd;

	/* the names taken since the last second */
	for (int k = 0; k < r->nsrc && !r->j.err; k++)
		if (r->src[k]->attached && r->src[k]->meta_dirty)
			put_meta(r, r->src[k]);
	if (!r->jtemp) {
		ret = rj_convert_in_place(r->output, sum, err, sizeof(err));
	} else {
		ofd = open(r->output, O_WRONLY | O_TRUNC | O_CLOEXEC);
		ret = ofd < 0 ? -errno : rj_convert(r->j.fd, ofd, sum, err, sizeof(err));
		if (ofd < 0)
			snprintf(err, sizeof(err), "%s", strerror(-ret));
		if (ofd >= 0 && close(ofd) < 0 && !ret) {
			ret = -errno;
			snprintf(err, sizeof(err), "%s", strerror(-ret));
		}
	}
	if (!ret)
		return 0;
	if (r->jtemp)
		cmd_error("record: writing %s: %s", r->output, err);
	else
		cmd_error("record: %s: making the trace.dat: %s%s; the recording is kept there as "
			  "a journal: `evtrace report %s` reads it, `evtrace recover %s` makes it "
			  "a trace.dat%s",
			  r->output, err, ret == -ENOSPC ? " (its file system is full)" : "",
			  r->output, r->output, ret == -ENOSPC ? " once there is room" : "");
	return -1;
}

/*
 * The end: the journal made the trace.dat, what happened said.
 * Return: 0, or 1 (an error, said).
 */
static int rec_end(struct rec *r, int ret)
{
	struct rj_summary sum = { 0 };
	const char *verb = r->extract ? "extract" : "record";

	if (!ret && !r->first) {
		/* nothing of the tree served a socket: no file, rather than one that is wrong */
		if (r->nsrc)
			cmd_error("record: %d process%s of the command served a control socket "
				  "but ended before it could be set up: nothing recorded, %s %s",
				  r->nsrc, r->nsrc > 1 ? "es" : "", r->output,
				  r->output_created ? "not written" : "left as it was");
		else
			cmd_error("record: no process of the command served a control socket (is "
				  "it linked with libevtrace?): nothing recorded, %s %s",
				  r->output, r->output_created ? "not written" : "left as it was");
		return 1;
	}
	if (!r->first)
		return 1;
	status(r, true);
	if (r->j.err)
		cmd_error("%s: writing %s: %s%s: recording stopped there; the %llu events drained "
			  "before are kept", verb, r->jtemp ? "a temporary file in /tmp" : r->output,
			  strerror(-r->j.err),
			  r->j.err == -ENOSPC ? " (its file system is full)" : "",
			  (unsigned long long)r->records);
	if (rec_convert(r, &sum)) {
		rj_summary_free(&sum);
		return 1;
	}
	if (r->net) {
		struct cmd_net_file nf = { r->output, sum.meta_len, sum.data_at, sum.cpu_bytes,
					   (int)sum.cpus, sum.page_size };

		r->net_failed = cmd_net_send(r->net, &nf) != 0; /* the local file stays */
	}
	if (r->ctf && cmd_record_ctf(r->ctf, r->output, RECORD_CTF_JOURNAL))
		r->net_failed = true; /* the trace.dat stays, said */
	rj_summary_free(&sum);
	rec_unmatched(r);
	if (!r->quiet)
		fprintf(stderr,
			"evtrace: %s: %s: %llu events of %d process%s on %u CPUs, %llu lost\n",
			verb, r->ctf ? r->ctf : r->output, (unsigned long long)sum.records, sum.in_file,
			sum.in_file > 1 ? "es" : "", sum.cpus, (unsigned long long)losses(r));
	return ret || r->j.err || r->fault || r->net_failed ? 1 : 0;
}

/* @r and what it holds; the command waited for; the session directory removed. */
static void rec_free(struct rec *r, bool keep_output)
{
	/* an error before anything was recorded: the empty file we made goes */
	if (!keep_output && r->output_created)
		unlink(r->output);
	for (int k = 0; k < r->nsrc; k++)
		src_free(r->src[k]);
	free(r->src);
	free(r->seen);
	/*
	 * The session directory goes before the command is waited for: a
	 * record that ended early (a full disk) leaves it running untraced, and
	 * what it starts from now on must not wait for a recorder.
	 */
	session_dir_remove(&r->sess);
	if (r->child > 0) {
		/* Ctrl-C reached the command too (same terminal); else tell it */
		if (cmd_stop)
			kill(r->child, SIGINT);
		if (waitpid(r->child, &r->child_status, 0) != r->child)
			r->child_status = -1;
	}
	if (r->ino_fd >= 0)
		close(r->ino_fd);
	if (r->j.fd >= 0)
		close(r->j.fd);
	free(r->page);
}

/*
 * The exit status: the command's, as strace and time give it (its own, or
 * 128 + N when signal N killed it); a failed record gives 1 where the
 * command gave 0. Without a command: the record's.
 */
static int rec_status(const struct rec *r, int ret)
{
	int cs = r->child_status, code;

	if (!r->child_pid || cs < 0)
		return ret;
	code = WIFEXITED(cs) ? WEXITSTATUS(cs) : WIFSIGNALED(cs) ? 128 + WTERMSIG(cs) : 1;
	return code ? code : ret;
}

static int rec_parse(struct rec *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "date", no_argument, NULL, 'D' },
		{ "net", required_argument, NULL, 'N' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+e:f:T:o:p:qhN:", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (r->nev == REC_MAX_EVENTS) {
				cmd_error("record: at most %d -e", REC_MAX_EVENTS);
				return 2;
			}
			r->ev[r->nev++].spec = optarg;
			break;
		case 'f':
		case 'T':
			if (!r->nev) {
				cmd_error("record: -%c applies to the -e before it: give -e first",
					  opt);
				return 2;
			}
			if (opt == 'f') {
				r->ev[r->nev - 1].filter = optarg;
			} else {
				if (r->ev[r->nev - 1].ntrig == 8) {
					cmd_error("record: at most 8 -T per -e");
					return 2;
				}
				r->ev[r->nev - 1].trigger[r->ev[r->nev - 1].ntrig++] = optarg;
			}
			break;
		case 'o':
			r->output = optarg;
			break;
		case 'p':
			if (r->npids == REC_MAX_SRC) {
				cmd_error("record: at most %d -p", REC_MAX_SRC);
				return 2;
			}
			if (cmd_parse_pid(optarg, &r->pids[r->npids]))
				return 2;
			for (int i = 0; i < r->npids; i++)
				if (r->pids[i] == r->pids[r->npids]) {
					cmd_error("record: -p %d twice", (int)r->pids[i]);
					return 2;
				}
			r->npids++;
			break;
		case 's':
			r->stats = true;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'D':
			r->date = true;
			break;
		case 'N':
			r->net = optarg;
			break;
		case 'F':
			if (strcmp(optarg, "ctf") && strcmp(optarg, "tracedat")) {
				cmd_error("record: unknown format '%s' (tracedat or ctf)", optarg);
				return 2;
			}
			r->ctf = optarg[0] == 'c' ? "" : NULL;
			break;
		case 'h':
			rec_usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if ((r->npids != 0) == (optind < argc)) {
		cmd_error("record: give either -p PID or -- CMD ARGS");
		return 2;
	}
	for (int i = 0; i < r->nev; i++)
		if (strchr(r->ev[i].spec, ',') || strchr(r->ev[i].spec, ' ')) {
			cmd_error("record: one event per -e, not '%s'", r->ev[i].spec);
			return 2;
		}
	if (r->ctf && !strcmp(r->output, "trace.dat")) {
		cmd_error("record: --format=ctf writes a directory: name it with -o DIR");
		return 2;
	}
	if (r->ctf) { /* the recording goes into the directory, exported at the end */
		r->ctf = r->output;
		r->ctf_dat = malloc(strlen(r->ctf) + sizeof(RECORD_CTF_JOURNAL) + 1);
		if (!r->ctf_dat || cmd_record_ctf_setup(r->ctf, r->ctf_dat, strlen(r->ctf) +
							sizeof(RECORD_CTF_JOURNAL) + 1))
			return 1;
		r->output = r->ctf_dat;
	}
	return -1;
}

/* -p PID...: each process connected and set up. Return: 0, or -1 (said). */
static int rec_attach_pids(struct rec *r)
{
	for (int i = 0; i < r->npids; i++) {
		struct rec_src *s = src_new(r, r->pids[i]);

		if (!s)
			return -1;
		s->c = cmd_ctl_connect(s->pid);
		if (!s->c)
			return -1;
	}
	for (int k = 0; k < r->nsrc; k++) {
		if (src_attach(r, r->src[k]))
			return -1;
		r->src[k]->state = SRC_ACTIVE;
	}
	return 0;
}

/* -- CMD: the session directory, watched; the command started. Return: 0, or -1 (said). */
static int rec_start_tree(struct rec *r, char **argv)
{
	int err;

	r->tree = true;
	/* the journal is one descriptor; each process's buffer and socket are two more */
	if (getrlimit(RLIMIT_NOFILE, &r->nofile) == 0) {
		struct rlimit more = r->nofile;

		more.rlim_cur = more.rlim_max;
		setrlimit(RLIMIT_NOFILE, &more);
	}
	err = session_dir_create(&r->sess);
	if (err) {
		cmd_error("record: a socket directory for the command: %s", strerror(-err));
		return -1;
	}
	r->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	/* a wake-up hint only: what is found is checked through the directory's fd */
	if (r->ino_fd >= 0 &&
	    inotify_add_watch(r->ino_fd, r->sess.path,
			      IN_CREATE | IN_ATTRIB | IN_MOVED_TO | IN_DONT_FOLLOW) < 0) {
		close(r->ino_fd);
		r->ino_fd = -1; /* the rescan every second does it */
	}
	r->child = start_child(r, argv);
	if (r->child < 0) {
		cmd_error("record: fork: %s", strerror(errno));
		r->child = 0;
		return -1;
	}
	r->child_pid = r->child;
	return 0;
}

/* record and extract, once their options are parsed. */
static int rec_run(struct rec *r, char **cmd)
{
	int ret = 1;

	if (rec_open_output(r))
		return 1;
	r->status_on = r->quiet || r->extract ? 0 : isatty(STDERR_FILENO) ? 1 : r->stats ? 2 : 0;
	cmd_catch_signals();
	if (r->npids ? rec_attach_pids(r) : rec_start_tree(r, cmd))
		goto out;
	r->start = r->last_status = status_now();
	ret = rec_end(r, record_loop(r) ? 1 : 0);
out:
	rec_free(r, r->first != NULL);
	return rec_status(r, ret);
}

static struct rec *rec_new(void)
{
	struct rec *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->output = "trace.dat";
	r->ino_fd = -1;
	r->sess.fd = r->sess.parent_fd = -1;
	r->j.fd = -1;
	r->child_status = -1;
	return r;
}

int cmd_record(int argc, char **argv)
{
	struct rec *r = rec_new();
	int ret;

	if (!r)
		return 1;
	ret = rec_parse(r, argc, argv);
	if (ret >= 0) {
		if (ret == 2)
			rec_usage(stderr);
		free(r->ctf_dat);
		free(r);
		return ret;
	}
	ret = rec_run(r, argv + optind);
	free(r->ctf_dat);
	free(r);
	return ret;
}

static void ext_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace extract -p PID [-o FILE] [-q]\n"
		"Write what a traced process's ring buffer holds now (in overwrite mode: its last\n"
		"events) into a trace.dat file, without stopping it or changing its settings.\n"
		"  -p, --pid PID         the process\n"
		"  -o, --output FILE     the file (default trace.dat)\n"
		"  -q, --quiet           no summary line\n");
}

int cmd_extract(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec *r = rec_new();
	int opt, ret;

	if (!r)
		return 1;
	r->extract = true;
	r->quiet = false;
	while ((opt = getopt_long(argc, argv, "o:p:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			r->output = optarg;
			break;
		case 'p':
			if (r->npids == 1) {
				cmd_error("extract: one -p");
				goto usage;
			}
			if (cmd_parse_pid(optarg, &r->pids[0]))
				goto usage;
			r->npids = 1;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'h':
			ext_usage(stdout);
			free(r);
			return 0;
		default:
			goto usage;
		}
	}
	if (!r->npids || optind < argc) {
		cmd_error("extract: give -p PID (and nothing else)");
		goto usage;
	}
	ret = rec_run(r, NULL);
	free(r);
	return ret;
usage:
	ext_usage(stderr);
	free(r);
	return 2;
}
