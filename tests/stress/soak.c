// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * soak: a traced program, its control socket, a recorder and a trace_pipe
 * reader, all at once for a long time, with exact accounting (issue 11).
 *
 * Actors:
 *   traced   a forked child serving its tracing tree (evt_control_start()),
 *            with 4 writer threads firing soak:soak_ev (writer id, sequence
 *            number, and fields derived from the two) in bursts;
 *   control  this process's main thread, through the control socket, at
 *            random: enable/disable and filters of soak_ev (changes of its
 *            fate), `> trace`, equivalent filter rewrites, buffer_size_kb,
 *            instances made and removed with soak_ev enabled, filtered and
 *            triggered in them, hist triggers on soak_ev, reads of `trace`
 *            (an iterator under fire) and of the per-CPU stats;
 *   recorder `evtrace record -e soak:soak_ev -p PID`, the buffer's consumer;
 *   pipe     a thread of this process reading trace_pipe (a second consumer
 *            of the same buffers: it takes what the recorder has not).
 *
 * Exact accounting. A change of what soak_ev's records become (enable,
 * filter, clearing the buffer) is made while the writers are parked at a
 * known sequence number (pause_gen below), so every event was written under
 * one known configuration; each writer counts the events that
 * configuration filters or disables, and the checker recomputes the same
 * from the table of changes. Everything else races with the writers. In
 * the end, with everything drained:
 *   - nobody crashed: the traced child, the recorder (exit 0), us;
 *   - every record (file and trace_pipe) is a well-formed soak_ev whose
 *     cls/chk/tag match its (writer, seq), of a seq that was written and
 *     that its configuration let through;
 *   - per writer, in the file and in the pipe's text, sequence numbers
 *     strictly increase (merged by time); no event is in both or twice;
 *   - per writer: written = filtered/disabled (the writer's own count, and
 *     the checker's) + kept; and over all writers
 *       recorded + piped = read events
 *       kept = recorded + piped + overruns + refused
 *     the ring buffer's counters summed over every CPU and every epoch
 *     between two `> trace` (which zeroes them; it is done drained), where
 *     refused <= dropped_events: a reservation is made before the filter
 *     runs (the record is filled in the ring), so a refused one may be of
 *     an event the filter would have removed, which the writer counted as
 *     filtered. With no filter removing anything, refused = dropped_events.
 *
 * Usage: soak [-d SECONDS] (T_SEED=N repeats a run's random choices);
 * `make check-stress SOAK=600` runs it for 10 minutes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/control.h>
#include <evtrace/tracedat.h>

#define CREATE_TRACE_POINTS
#include "soak-tp.h"

#include "control/ctl_client.h"
#include "helpers.h"

/*
 * ThreadSanitizer runs 16-byte atomics under a lock of its own, in each
 * process: the claims of read_pos by the recorder (another process) and by
 * the writers and trace_pipe here are then not atomic with each other, and
 * a chunk can go to both consumers (stress/rb-torture skips its consumer
 * in another process under TSan for the same reason). Under TSan the soak
 * checks everything but what that breaks: an event in both outputs, and
 * the sums (printed, not checked).
 */
#if defined(__SANITIZE_THREAD__)
#define SOAK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SOAK_TSAN 1
#endif
#endif
#ifndef SOAK_TSAN
#define SOAK_TSAN 0
#endif

#define WRITERS		4
#define MAX_EPOCHS	100000
#define NR_FILTERS	4
#define TAGS		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"	/* 40 */

/* The filters of soak_ev that decide its records' fate, and an equivalent spelling of each. */
static const char *const filters[NR_FILTERS][2] = {
	{ "0", "cls < 8" },
	{ "cls != 3", "cls < 3 || cls > 3" },
	{ "cls < 4", "cls <= 3" },
	{ "writer == 1 || cls >= 6", "cls > 5 || writer == 1" },
};

/* ---- what the writers and the checker both compute ------------------------------------ */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static int soak_cls(int w, uint64_t seq)
{
	return (int)(mix64(((uint64_t)w << 56) ^ seq) % 8);
}

static uint64_t soak_chk(int w, uint64_t seq)
{
	return mix64(((uint64_t)w << 56) ^ seq ^ 0x5eed5eed5eedULL);
}

static const char *soak_tag(uint64_t seq)
{
	return &TAGS[seq % 41];	/* 40 down to 0 characters */
}

static bool soak_pass(int enabled, int filter, int w, int cls)
{
	if (!enabled)
		return false;
	switch (filter) {
	case 1:
		return cls != 3;
	case 2:
		return cls < 4;
	case 3:
		return w == 1 || cls >= 6;
	default:
		return true;
	}
}

/* ---- shared with the traced child (MAP_SHARED, inherited by fork) ---------------------- */

struct epoch {
	uint64_t from[WRITERS];	/* the first seq of each writer under this configuration */
	int enabled, filter;
};

struct soak_shm {
	/*
	 * Odd: the writers must park. A writer acknowledges generation g in
	 * ack[w] once it is between two events; the controller changes things
	 * only when every ack equals the current odd generation.
	 */
	atomic_uint pause_gen;
	atomic_uint ack[WRITERS];
	atomic_int stop;
	/* events written so far, per writer (published after each event) */
	atomic_ullong seq[WRITERS];
	/* written by writer w only; read by the controller while it is parked */
	unsigned long long out[WRITERS];
	/* the configuration, written only while every writer is parked */
	int enabled, filter;
	unsigned int nr_epochs;
	struct epoch epochs[MAX_EPOCHS];
};

static struct soak_shm *sh;

/* ---- the traced child ------------------------------------------------------------------ */

/* Between two events: park while the controller changes the configuration. */
static void writer_park(int w, int *enabled, int *filter)
{
	/* Acquire: pairs with the controller's release of an even generation (config first). */
	unsigned int g = atomic_load_explicit(&sh->pause_gen, memory_order_acquire);

	if (!(g & 1))
		return;
	/* Release: our events (and out[w]) before the controller reads them. */
	atomic_store_explicit(&sh->ack[w], g, memory_order_release);
	while (atomic_load_explicit(&sh->pause_gen, memory_order_acquire) == g &&
	       !atomic_load_explicit(&sh->stop, memory_order_relaxed))
		usleep(100);
	*enabled = sh->enabled;
	*filter = sh->filter;
}

static void *writer_main(void *arg)
{
	int w = (int)(long)arg, enabled = 0, filter = 0;
	uint64_t seq = 0, rnd = mix64((uint64_t)w + 1);

	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		unsigned int burst;
		struct timespec pause;

		rnd = mix64(rnd);
		burst = 1 + (unsigned int)(rnd % 64);
		for (unsigned int i = 0; i < burst; i++) {
			int cls = soak_cls(w, seq);

			writer_park(w, &enabled, &filter);
			if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
				break;
			trace_soak_ev(w, seq, cls, soak_chk(w, seq), soak_tag(seq));
			if (!soak_pass(enabled, filter, w, cls))
				sh->out[w]++;
			seq++;
			/*
			 * Seq_cst (a full barrier on x86): the count is published
			 * before this thread's next loads - the pause generation and
			 * the event's enable and filter - so a controller that read
			 * the count after a change knows every later event saw it.
			 */
			atomic_store(&sh->seq[w], seq);
		}
		pause.tv_sec = 0;
		pause.tv_nsec = (long)(rnd >> 40) % 8000000;	/* up to 8 ms */
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static int child_main(void)
{
	pthread_t t[WRITERS];
	int ret = evt_control_start(0);

	if (ret < 0) {
		fprintf(stderr, "soak child: evt_control_start: %d\n", ret);
		return 1;
	}
	for (long i = 0; i < WRITERS; i++)
		if (pthread_create(&t[i], NULL, writer_main, (void *)i))
			return 1;
	for (int i = 0; i < WRITERS; i++)
		pthread_join(t[i], NULL);
	evt_control_stop();
	return 0;
}

/* ---- the controller ------------------------------------------------------------------- */

struct stats {
	unsigned long long entries, overrun, dropped, read;
};

static pid_t child = -1, rec = -1;
static struct ctl_client *ctl;
static int nr_cpus;
static struct t_rand rnd;
static struct stats acc;		/* summed over the epochs between two clears */
static unsigned long ops[10], refused;	/* per kind of operation; answered with an errno */
static char recfile[300], dir[300];
static unsigned int skip_ops;
/* The last control operations, for a failure's report: what, and the writers' seqs then. */
#define OPLOG 65536
static struct {
	char what[96];
	uint64_t seq[WRITERS];
} oplog[OPLOG];
static unsigned long oplog_n;

static void oplog_add(const char *fmt, const char *a, const char *b)
{
	unsigned long i = oplog_n++ % OPLOG;

	snprintf(oplog[i].what, sizeof(oplog[i].what), fmt, a, b);
	for (int w = 0; w < WRITERS; w++)
		oplog[i].seq[w] = atomic_load_explicit(&sh->seq[w], memory_order_relaxed);
}

static void epoch_show(int w, uint64_t seq);

/* The operations logged around seq @seq of writer @w, and its configuration. */
static void oplog_show(int w, uint64_t seq)
{
	epoch_show(w, seq);
	unsigned long from = oplog_n > OPLOG ? oplog_n - OPLOG : 0;

	for (unsigned long i = from; i < oplog_n; i++) {
		unsigned long k = i % OPLOG;

		if (oplog[k].seq[w] + 300 >= seq && oplog[k].seq[w] <= seq + 300)
			fprintf(stderr, "  op at writer %d seq %llu: %s\n", w,
				(unsigned long long)oplog[k].seq[w], oplog[k].what);
	}
}		/* $SOAK_SKIP: a mask of operations not to do (1 << op) */

static const char *const op_names[10] = {
	"fate", "clear", "refilter", "size", "instance", "hist", "read trace", "stats", "sleep",
	"inst-trigger",
};

/* A control write that must succeed. */
static void must_write(const char *path, const char *data)
{
	char err[256] = "";
	ssize_t ret = ctl_write(ctl, path, data, strlen(data), CTL_WF_TRUNC, err, sizeof(err));

	oplog_add("'%s' > %s", data, path);
	if (ret < 0)
		t_fail("write '%s' to %s: %zd (%s)", data, path, ret, err);
}

/* A control write that may be refused (-EBUSY, -ENOMEM, -ENOENT after a racing rmdir...). */
static void may_write(const char *path, const char *data)
{
	char err[256];
	ssize_t ret = ctl_write(ctl, path, data, strlen(data), CTL_WF_TRUNC, err, sizeof(err));

	oplog_add(ret < 0 ? "'%s' > %s (refused)" : "'%s' > %s", data, path);
	if (ret == -ETIMEDOUT || ret == -EPIPE || ret == -ECONNRESET)
		t_fail("write '%s' to %s: the control socket broke (%zd)", data, path, ret);
	if (ret < 0)
		refused++;
}

static unsigned long long stat_field(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	if (!p)
		t_fail("stats without '%s': %s", name, text);
	return strtoull(p + strlen(name), NULL, 10);
}

/* The ring buffer's counters of the top instance, summed over the CPUs. */
static void stats_read(struct stats *s)
{
	memset(s, 0, sizeof(*s));
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		char path[64], *buf = NULL;
		ssize_t n;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		n = ctl_read(ctl, path, &buf);
		if (n < 0)
			t_fail("read %s: %zd", path, n);
		s->entries += stat_field(buf, "entries: ");
		s->overrun += stat_field(buf, "overrun: ");
		s->dropped += stat_field(buf, "dropped events: ");
		s->read += stat_field(buf, "read events: ");
		free(buf);
	}
}

static void check_alive(void)
{
	int st;

	if (child > 0 && waitpid(child, &st, WNOHANG) == child)
		t_fail("the traced program ended (status %#x)", st);
	if (rec > 0 && waitpid(rec, &st, WNOHANG) == rec)
		t_fail("evtrace record ended (status %#x)", st);
}

/* Wait until every writer has parked for the odd generation @g. */
static void writers_wait(unsigned int g)
{
	double t0 = t_seconds_now();

	for (int w = 0; w < WRITERS; w++)
		/* Acquire: pairs with the writer's ack; its events and out[w] are done. */
		while (atomic_load_explicit(&sh->ack[w], memory_order_acquire) != g) {
			if (t_seconds_now() - t0 > 60)
				t_fail("writer %d does not park", w);
			check_alive();
			usleep(100);
		}
}

/* Park every writer between two events. */
static void writers_pause(void)
{
	/* Seq_cst: the odd generation is visible before we look at the acks. */
	writers_wait(atomic_fetch_add(&sh->pause_gen, 1) + 1);
}

static void writers_resume(void)
{
	/* Release: the configuration (sh->enabled, filter) before the even generation. */
	atomic_fetch_add_explicit(&sh->pause_gen, 1, memory_order_release);
}

/* With the writers parked: wait until the consumers have taken everything. */
static void wait_drained(struct stats *s)
{
	double t0 = t_seconds_now();

	for (;;) {
		stats_read(s);
		if (!s->entries)
			return;
		if (t_seconds_now() - t0 > 60)
			t_fail("%llu entries never read", s->entries);
		check_alive();
		usleep(2000);
	}
}

/* A new fate for soak_ev's records, made while the writers are parked (@first: they are). */
static void change_fate(int enabled, int filter, bool first)
{
	struct epoch *e;

	if (sh->nr_epochs >= MAX_EPOCHS)
		return;
	if (!first)
		writers_pause();
	must_write("events/soak/soak_ev/filter", filters[filter][0]);
	must_write("events/soak/soak_ev/enable", enabled ? "1" : "0");
	e = &sh->epochs[sh->nr_epochs];
	for (int w = 0; w < WRITERS; w++)
		e->from[w] = atomic_load(&sh->seq[w]);
	e->enabled = sh->enabled = enabled;
	e->filter = sh->filter = filter;
	sh->nr_epochs++;
	writers_resume();
}

/* `> trace`, drained first so that it throws nothing away uncounted; it zeroes the counters. */
static void clear_trace(void)
{
	struct stats s;

	writers_pause();
	wait_drained(&s);
	acc.overrun += s.overrun;
	acc.dropped += s.dropped;
	acc.read += s.read;
	must_write("trace", "");
	writers_resume();
}

/* An instance of its own: made (soak_ev enabled, filtered, triggered there) or removed. */
static void instance_op(void)
{
	char path[128];
	unsigned int mode;
	int k = (int)t_rand_range(&rnd, 0, 2);

	snprintf(path, sizeof(path), "instances/soak%d", k);
	if (ctl_stat(ctl, path, &mode) == 0) {
		oplog_add("rmdir %s%s", path, "");
		if (ctl_rmdir(ctl, path) < 0)
			refused++;
		return;
	}
	oplog_add("mkdir %s%s", path, "");
	if (ctl_mkdir(ctl, path) < 0) {
		refused++;
		return;
	}
	snprintf(path, sizeof(path), "instances/soak%d/buffer_size_kb", k);
	may_write(path, t_rand_range(&rnd, 0, 1) ? "4" : "16");
	snprintf(path, sizeof(path), "instances/soak%d/events/soak/soak_ev/filter", k);
	may_write(path, filters[t_rand_range(&rnd, 0, NR_FILTERS - 1)][t_rand_range(&rnd, 0, 1)]);
	snprintf(path, sizeof(path), "instances/soak%d/events/soak/soak_ev/enable", k);
	may_write(path, "1");
}

/* A trigger in an instance (traceoff there, or a hist), or its removal. */
static void instance_trigger(void)
{
	static const char *const trig[] = { "traceoff:50", "!traceoff:50", "hist:keys=cls",
					    "!hist:keys=cls", "traceon" };
	char path[128];

	snprintf(path, sizeof(path), "instances/soak%d/events/soak/soak_ev/trigger",
		 (int)t_rand_range(&rnd, 0, 2));
	may_write(path, trig[t_rand_range(&rnd, 0, 4)]);
}

/* One random operation. */
static void control_op(void)
{
	static const int sizes[] = { 4, 8, 16, 64, 256 };
	static bool hist_on;
	int op = (int)t_rand_range(&rnd, 0, 99);
	char buf[32], *text = NULL;

	op = op < 8 ? 0 : op < 10 ? 1 : op < 25 ? 2 : op < 37 ? 3 : op < 55 ? 4 : op < 62 ? 5 :
	     op < 70 ? 6 : op < 78 ? 7 : op < 90 ? 8 : 9;
	if (skip_ops & (1u << op))
		op = 8;
	ops[op]++;
	switch (op) {
	case 0: {
		bool on = t_rand_range(&rnd, 0, 4) != 0;

		change_fate(on, (int)t_rand_range(&rnd, 0, NR_FILTERS - 1), false);
		break;
	}
	case 1:
		clear_trace();
		break;
	case 2:	/* the same fate, spelled otherwise: races with the writers */
		may_write("events/soak/soak_ev/filter", filters[sh->filter][t_rand_range(&rnd, 0, 1)]);
		break;
	case 3:
		snprintf(buf, sizeof(buf), "%d", sizes[t_rand_range(&rnd, 0, 4)]);
		may_write("buffer_size_kb", buf);
		break;
	case 4:
		instance_op();
		break;
	case 5:
		may_write("events/soak/soak_ev/trigger", hist_on ? "!hist:keys=writer:vals=cls" :
								   "hist:keys=writer:vals=cls");
		hist_on = !hist_on;
		break;
	case 6:	/* a non-consuming read: iterators beside the writers */
		if (ctl_pread(ctl, "trace", 0, 65536, &text) < 0)
			refused++;
		free(text);
		break;
	case 7: {
		struct stats s;

		stats_read(&s);
		break;
	}
	case 8:
		usleep((useconds_t)t_rand_range(&rnd, 1000, 20000));
		break;
	default:
		instance_trigger();
		break;
	}
}

/* ---- the trace_pipe reader ------------------------------------------------------------ */

struct seqs {
	uint64_t *v;
	size_t n, cap;
};

static struct seqs piped[WRITERS];	/* the pipe thread's until it is joined */
static atomic_ulong piped_count;	/* records parsed, for the end's wait */
static atomic_int pipe_stop;
static unsigned long pipe_bad, pipe_lost_lines;
static char pipe_why[512];

static void pipe_bad_line(const char *why, const char *line, size_t len)
{
	if (!pipe_bad++)
		snprintf(pipe_why, sizeof(pipe_why), "%s: %.*s", why, (int)(len > 300 ? 300 : len),
			 line);
}

/* One line of trace_pipe's text. */
static void pipe_line(const char *line, size_t len)
{
	const char *p = memmem(line, len, "soak_ev: ", 9), *tag;
	unsigned long long seq, chk;
	int w, cls;
	struct seqs *s;

	if (!p) {
		if (memmem(line, len, "[LOST ", 6))
			pipe_lost_lines++;
		else
			pipe_bad_line("not a soak_ev line", line, len);
		return;
	}
	tag = memmem(line, len, " tag=", 5);
	if (sscanf(p, "soak_ev: writer=%d seq=%llu cls=%d chk=%llx", &w, &seq, &cls, &chk) != 4 ||
	    !tag || w < 0 || w >= WRITERS) {
		pipe_bad_line("malformed", line, len);
		return;
	}
	tag += 5;
	if (cls != soak_cls(w, seq) || chk != soak_chk(w, seq) ||
	    (size_t)(line + len - tag) != strlen(soak_tag(seq)) ||
	    memcmp(tag, soak_tag(seq), strlen(soak_tag(seq)))) {
		pipe_bad_line("fields that do not match its writer and seq", line, len);
		return;
	}
	s = &piped[w];
	if (s->n && seq <= s->v[s->n - 1]) {
		pipe_bad_line("a seq not above its writer's last one", line, len);
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			t_fail("out of memory");
	}
	s->v[s->n++] = seq;
	atomic_fetch_add_explicit(&piped_count, 1, memory_order_relaxed);	/* a counter */
}

static void *pipe_main(void *arg)
{
	static char buf[1 << 16], line[4096];
	struct ctl_client *c;
	size_t ll = 0;
	int ret;

	(void)arg;
	ret = ctl_connect_pid(child, &c);
	if (ret < 0 || (ret = ctl_stream_open(c, "trace_pipe")) < 0)
		t_fail("trace_pipe: %d", ret);
	while (!atomic_load_explicit(&pipe_stop, memory_order_relaxed)) {
		ssize_t n = ctl_stream_read(c, buf, sizeof(buf), 100);

		if (n == -EAGAIN)
			continue;
		if (n <= 0)
			t_fail("trace_pipe ended: %zd", n);
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (ll < sizeof(line))
					line[ll++] = buf[i];
				continue;
			}
			pipe_line(line, ll);
			ll = 0;
		}
	}
	ctl_stream_stop(c);
	ctl_close(c);
	return NULL;
}

/* ---- the end: the recorder's file and the sums ------------------------------------------ */

static uint64_t final_seq[WRITERS];
static bool filtered_any;		/* some event was written while a filter removed it */
static unsigned char *fate[WRITERS];	/* per seq: 1 kept, 2 recorded, 4 piped */

/* The bytes of field @name of @rec, by the file's format; false if it has none such. */
static bool field(const struct evt_tracedat_record *r, const char *name, void *out, size_t size)
{
	const struct evt_tracedat_event *ev = r->event;

	for (unsigned int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name) && ev->fields[i].size == size &&
		    (size_t)ev->fields[i].offset + size <= r->size) {
			memcpy(out, (const char *)r->data + ev->fields[i].offset, size);
			return true;
		}
	return false;
}

/* Is record @r a well-formed soak_ev? Its writer and seq then. */
static const char *record_check(const struct evt_tracedat_record *r, int *w, uint64_t *seq)
{
	unsigned long long s, chk;
	uint32_t loc;
	int cls;
	const char *tag;

	if (!r->event || strcmp(r->event->system, "soak") || strcmp(r->event->name, "soak_ev"))
		return "a record that is not a soak_ev";
	if (!field(r, "writer", w, 4) || !field(r, "seq", &s, 8) || !field(r, "cls", &cls, 4) ||
	    !field(r, "chk", &chk, 8) || !field(r, "tag", &loc, 4))
		return "a soak_ev without its fields";
	*seq = s;
	if (*w < 0 || *w >= WRITERS || s >= final_seq[*w])
		return "a writer or seq that never was";
	tag = soak_tag(s);
	if (cls != soak_cls(*w, s) || chk != soak_chk(*w, s) ||
	    evt_data_loc_len(loc) != strlen(tag) + 1 ||
	    (size_t)evt_data_loc_offset(loc) + evt_data_loc_len(loc) > r->size ||
	    memcmp((const char *)r->data + evt_data_loc_offset(loc), tag, strlen(tag) + 1))
		return "fields that do not match its writer and seq";
	return NULL;
}

/* The recorder's file: every record checked and marked. Return: records. */
static unsigned long long read_recording(void)
{
	struct evt_tracedat_record r;
	unsigned long long n = 0;
	struct evt_tracedat *td;
	int64_t last[WRITERS];
	int ret;

	for (int w = 0; w < WRITERS; w++)
		last[w] = -1;
	ret = evt_tracedat_open(recfile, &td);
	if (ret)
		t_fail("%s: %d %s", recfile, ret, evt_error_detail());
	while ((ret = evt_tracedat_next(td, &r)) == 1) {
		const char *why;
		uint64_t seq;
		int w;

		why = record_check(&r, &w, &seq);
		if (why)
			t_fail("%s: record %llu: %s", recfile, n, why);
		if ((int64_t)seq <= last[w])
			t_fail("writer %d: seq %llu recorded after %lld", w, (unsigned long long)seq,
			       (long long)last[w]);
		last[w] = (int64_t)seq;
		if (!(fate[w][seq] & 1)) {
			oplog_show(w, seq);
			t_fail("writer %d seq %llu was filtered or disabled, yet recorded", w,
			       (unsigned long long)seq);
		}
		fate[w][seq] |= 2;
		n++;
	}
	if (ret < 0)
		t_fail("%s: read error %d after %llu records", recfile, ret, n);
	evt_tracedat_close(td);
	return n;
}

/* The epoch of seq @seq of writer @w, and the fates of its neighbours (1 kept, 2 rec, 4 pipe). */
static void epoch_show(int w, uint64_t seq)
{
	for (unsigned int e = 0; e < sh->nr_epochs; e++) {
		const struct epoch *ep = &sh->epochs[e];

		if (ep->from[w] <= seq && (e + 1 == sh->nr_epochs || sh->epochs[e + 1].from[w] > seq))
			fprintf(stderr, "  writer %d seq %llu: epoch %u from seq %llu: enable %d, "
				"filter '%s'\n", w, (unsigned long long)seq, e,
				(unsigned long long)ep->from[w], ep->enabled, filters[ep->filter][0]);
	}
	fprintf(stderr, "  fates of writer %d from seq %llu:", w,
		(unsigned long long)(seq > 8 ? seq - 8 : 0));
	for (uint64_t q = seq > 8 ? seq - 8 : 0; q < seq + 8 && q < final_seq[w]; q++)
		fprintf(stderr, " %d", fate[w][q]);
	fprintf(stderr, "\n");
}

/* Each writer's events: the fate their epoch gave them; checked against the writer's count. */
static unsigned long long mark_fates(void)
{
	unsigned long long kept = 0;

	for (int w = 0; w < WRITERS; w++) {
		unsigned long long out = 0;

		fate[w] = calloc(final_seq[w] + 1, 1);
		if (!fate[w])
			t_fail("out of memory");
		for (unsigned int e = 0; e < sh->nr_epochs; e++) {
			const struct epoch *ep = &sh->epochs[e];
			uint64_t end = e + 1 < sh->nr_epochs ? sh->epochs[e + 1].from[w] :
							       final_seq[w];

			for (uint64_t q = ep->from[w]; q < end; q++) {
				bool pass = soak_pass(ep->enabled, ep->filter, w, soak_cls(w, q));

				fate[w][q] = pass;
				kept += pass;
				out += !pass;
				filtered_any |= !pass && ep->enabled;
			}
		}
		if (out != sh->out[w])
			t_fail("writer %d: it counted %llu events filtered or disabled, the epochs %llu",
			       w, sh->out[w], out);
	}
	return kept;
}

/* The pipe's records: none recorded too, none filtered. Return: how many. */
static unsigned long long mark_piped(void)
{
	unsigned long long n = 0;

	for (int w = 0; w < WRITERS; w++)
		for (size_t i = 0; i < piped[w].n; i++) {
			uint64_t q = piped[w].v[i];

			if (q >= final_seq[w])
				t_fail("writer %d: piped seq %llu never written", w, (unsigned long long)q);
			if ((fate[w][q] & 2) && !SOAK_TSAN)
				t_fail("writer %d seq %llu both recorded and piped", w,
				       (unsigned long long)q);
			if (!(fate[w][q] & 1)) {
				oplog_show(w, q);
				t_fail("writer %d seq %llu was filtered or disabled, yet piped", w,
				       (unsigned long long)q);
			}
			fate[w][q] |= 4;
			n++;
		}
	return n;
}

/* Where the unaccounted events are: runs of kept events nobody read. */
static void show_unread(void)
{
	for (int w = 0; w < WRITERS; w++)
		for (uint64_t q = 0, run = 0; q <= final_seq[w]; q++) {
			if (q < final_seq[w] && fate[w][q] == 1) {
				run++;
				continue;
			}
			if (run >= 8)
				fprintf(stderr, "  writer %d: %llu kept events never read from seq %llu\n",
					w, (unsigned long long)run, (unsigned long long)(q - run));
			run = 0;
		}
}

/* ---- main ------------------------------------------------------------------------------- */

static int count_entry(void *arg, const char *name, unsigned int mode)
{
	(void)mode;
	if (!strncmp(name, "cpu", 3))
		(*(int *)arg)++;
	return 0;
}

/* The traced child, its control socket answering; our connection to it. */
static void start_child(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		t_fail("mmap");
	atomic_store(&sh->pause_gen, 1);	/* the writers wait for the first configuration */
	fflush(NULL);
	child = fork();
	if (child < 0)
		t_fail("fork");
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* a failed run leaves nobody behind */
		_exit(child_main());
	}
	for (int i = 0; ctl_connect_pid(child, &ctl) < 0; i++) {
		if (i > 2000)
			t_fail("the traced program's control socket never answered");
		check_alive();
		usleep(5000);
	}
	if (ctl_readdir(ctl, "per_cpu", count_entry, &nr_cpus) < 0 || nr_cpus < 1)
		t_fail("per_cpu: %d CPUs", nr_cpus);
}

/* `evtrace record -e soak:soak_ev -p PID`, once it holds the buffer. */
static void start_recorder(const char *dir)
{
	char pid[16], log[300];

	snprintf(pid, sizeof(pid), "%d", (int)child);
	snprintf(recfile, sizeof(recfile), "%s/soak.dat", dir);
	snprintf(log, sizeof(log), "%s/record.log", dir);
	fflush(NULL);
	rec = fork();
	if (rec < 0)
		t_fail("fork");
	if (rec == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(EVT_TOOL, "evtrace", "record", "-q", "-e", "soak:soak_ev", "-p", pid, "-o",
		      recfile, (char *)NULL);
		_exit(127);
	}
	for (int i = 0;; i++) {
		int fd, ret = ctl_get_buffer(ctl, NULL, &fd, NULL);

		if (ret == -EBUSY)
			return;
		if (ret == 0) {
			close(fd);
			ctl_put_buffer(ctl);
		}
		if (i > 2000)
			t_fail("evtrace record never took the buffer (%d)", ret);
		check_alive();
		usleep(5000);
	}
}

/* Stop the recorder (it drains to the end) and the pipe reader; park the writers for good. */
static void finish(pthread_t pipe_th, unsigned long long *recorded, unsigned long long *kept)
{
	unsigned long long want;
	struct stats s;
	double t0;
	int st;

	writers_pause();
	for (int w = 0; w < WRITERS; w++)
		final_seq[w] = atomic_load(&sh->seq[w]);
	wait_drained(&s);
	acc.overrun += s.overrun;
	acc.dropped += s.dropped;
	acc.read += s.read;
	kill(rec, SIGINT);
	if (waitpid(rec, &st, 0) != rec || !WIFEXITED(st) || WEXITSTATUS(st))
		t_fail("evtrace record: status %#x (its log: %s/record.log)", st, dir);
	rec = -1;
	*kept = mark_fates();
	*recorded = read_recording();
	/* what the pipe has taken is on its way to us: wait for all of it */
	want = acc.read > *recorded ? acc.read - *recorded : 0;
	for (t0 = t_seconds_now(); atomic_load(&piped_count) < want && !SOAK_TSAN;) {
		if (t_seconds_now() - t0 > 60)
			t_fail("trace_pipe gave %lu of the %llu records it read (%lu bad lines%s%s)",
			       atomic_load(&piped_count), want, pipe_bad, pipe_bad ? "; the first: " : "",
			       pipe_why);
		usleep(10000);
	}
	atomic_store(&pipe_stop, 1);
	pthread_join(pipe_th, NULL);
	atomic_store(&sh->stop, 1);
	writers_resume();
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
		t_fail("the traced program: status %#x", st);
	child = -1;
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 4), t0, run;
	unsigned long long recorded, kept, piped_n, unread, total = 0, out = 0;
	char tmpl[] = "/tmp/evt-soak-XXXXXX", sock[300], cmd[400];
	pthread_t pipe_th;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	if (!mkdtemp(tmpl))
		t_fail("mkdtemp");
	snprintf(dir, sizeof(dir), "%s", tmpl);	/* kept on failure, for a look */
	snprintf(sock, sizeof(sock), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", sock, 1);
	t_rand_init(&rnd, 0);
	if (secure_getenv("SOAK_SKIP"))
		skip_ops = (unsigned int)strtoul(secure_getenv("SOAK_SKIP"), NULL, 0);
	start_child();
	start_recorder(tmpl);
	writers_wait(1);
	change_fate(1, 0, true);	/* the writers start */
	if (pthread_create(&pipe_th, NULL, pipe_main, NULL))
		t_fail("pthread_create");
	/* the start and the end take up to 2 s (under TSan): the whole run keeps to -d */
	run = secs > 3 ? secs - 2 : 1;
	for (t0 = t_seconds_now(); t_seconds_now() - t0 < run;) {
		control_op();
		check_alive();
	}
	finish(pipe_th, &recorded, &kept);
	if (pipe_bad)
		t_fail("trace_pipe: %lu bad lines; the first: %s", pipe_bad, pipe_why);
	piped_n = mark_piped();
	for (int w = 0; w < WRITERS; w++) {
		total += final_seq[w];
		out += sh->out[w];
	}

	printf("soak: %.0f s, %d CPUs: %llu events written by %d writers, %llu filtered or "
	       "disabled, %llu kept: %llu recorded + %llu piped + %llu overwritten + %llu dropped; "
	       "%u configurations\n", t_seconds_now() - t0, nr_cpus, total, WRITERS, out, kept,
	       recorded, piped_n, acc.overrun, acc.dropped, sh->nr_epochs);
	printf("soak: operations:");
	for (int i = 0; i < 10; i++)
		printf(" %s %lu,", op_names[i], ops[i]);
	printf(" refused %lu; trace_pipe LOST lines %lu\n", refused, pipe_lost_lines);
	if (SOAK_TSAN) {
		printf("soak: under ThreadSanitizer the sums are not checked (SOAK_TSAN)\n");
		goto out;
	}
	if (total != kept + out)
		t_fail("written %llu != kept %llu + filtered/disabled %llu", total, kept, out);
	if (recorded + piped_n != acc.read)
		t_fail("recorded %llu + piped %llu != read events %llu", recorded, piped_n, acc.read);
	unread = kept - recorded - piped_n;
	printf("soak: %llu kept events never read: %llu overwritten + %llu refused (of the %llu "
	       "refused reservations, %llu were of events the filter removed)\n", unread,
	       acc.overrun, unread - acc.overrun, acc.dropped,
	       acc.dropped - (unread - acc.overrun));
	if (unread < acc.overrun || unread - acc.overrun > acc.dropped) {
		show_unread();
		t_fail("kept %llu != recorded %llu + piped %llu + overruns %llu + dropped (of %llu)",
		       kept, recorded, piped_n, acc.overrun, acc.dropped);
	}
	if (!filtered_any && unread != acc.overrun + acc.dropped)
		t_fail("no filter ever removed an event, yet kept %llu != recorded %llu + piped %llu "
		       "+ overruns %llu + dropped %llu", kept, recorded, piped_n, acc.overrun,
		       acc.dropped);
out:
	ctl_close(ctl);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	if (system(cmd))
		t_fail("%s", cmd);
	printf("soak: PASS\n");
	return 0;
}
