// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs/tfs_print.c - trace, trace_pipe, trace_pipe_raw, stats.
 *
 * The text is the kernel's (kernel/trace/trace.c print_trace_header(),
 * trace_output.c trace_print_lat_fmt(), print_trace_fmt()): a header, then
 * one line per record,
 *
 *            comm-pid     [cpu] flags   sec.usec: name: body
 *
 * the body being the event's print format applied to the record. `trace`
 * iterates without consuming (ring buffer iterators, merged by time stamp);
 * `trace_pipe` consumes; `trace_pipe_raw` hands out whole pages as
 * evt_ring_buffer_read_page() makes them.
 *
 * Writers never wake readers (they make no system call), so a blocking read
 * of trace_pipe polls the buffer every millisecond; it holds no lock while
 * it sleeps. The streaming reads take tfs_lock around each batch of records
 * they format (the event lookups need it) and never while waiting.
 *
 * Task names: records carry thread ids; the comm comes from a cache (the
 * kernel's saved_cmdlines) filled from /proc when a record of a thread not
 * seen yet is printed, and by trace_marker writers. A thread that exited
 * before its first record was printed shows as "<...>", as in the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/clock.h>
#include <evtrace/ring_buffer.h>

#include "tracefs/tfs_backend.h"
#include "tracefs/tfs_internal.h"
#include "tracefs/tfs_print.h"

#define BATCH_BYTES	(64u << 10)	/* text one batch of records makes at most */
#define POLL_NS		1000000		/* a blocking trace_pipe polls this often */
#define CMDLINE_SLOTS	1024		/* saved command lines (the kernel keeps 128) */
#define TASK_COMM_LEN	16

/* common fields (the kernel's struct trace_entry layout) */
#define REC_TYPE_OFF	0
#define REC_FLAGS_OFF	2
#define REC_PC_OFF	3
#define REC_PID_OFF	4
#define REC_MIN_LEN	8
#define PRINT_TEXT_OFF	20	/* ftrace:print: common fields (12), ip (8), the text */

#define FLAG_IRQS_OFF	0x01
#define FLAG_HARDIRQ	0x08
#define FLAG_SOFTIRQ	0x10

/* ---- saved command lines ----------------------------------------------------------------- */

static pthread_mutex_t cmdline_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int tid;	/* 0: free */
	char comm[TASK_COMM_LEN];
} cmdlines[CMDLINE_SLOTS];

void tfs_cmdline_save(int tid, const char *comm)
{
	unsigned int slot = (unsigned int)tid % CMDLINE_SLOTS;

	if (tid <= 0)
		return;
	pthread_mutex_lock(&cmdline_lock);
	cmdlines[slot].tid = tid;
	snprintf(cmdlines[slot].comm, TASK_COMM_LEN, "%s", comm);
	pthread_mutex_unlock(&cmdline_lock);
}

void tfs_cmdline_save_self(void)
{
	char comm[TASK_COMM_LEN + 1] = "";

	if (prctl(PR_GET_NAME, comm, 0, 0, 0) == 0)
		tfs_cmdline_save((int)gettid(), comm);
}

static bool comm_from_proc(int tid, char comm[TASK_COMM_LEN])
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/comm", tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return false;
	n = read(fd, comm, TASK_COMM_LEN - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	if (comm[n - 1] == '\n')
		comm[n - 1] = '\0';
	return true;
}

void tfs_cmdline_get(int tid, char comm[TASK_COMM_LEN])
{
	unsigned int slot = (unsigned int)tid % CMDLINE_SLOTS;
	bool found = false;

	if (tid == 0) {
		strcpy(comm, "<idle>");
		return;
	}
	pthread_mutex_lock(&cmdline_lock);
	if (tid > 0 && cmdlines[slot].tid == tid) {
		memcpy(comm, cmdlines[slot].comm, TASK_COMM_LEN);
		found = true;
	}
	pthread_mutex_unlock(&cmdline_lock);
	if (found)
		return;
	if (tid > 0 && comm_from_proc(tid, comm)) {
		tfs_cmdline_save(tid, comm);
		return;
	}
	strcpy(comm, "<...>");
}

int tfs_cmdline_show(struct tfs_seq *s)
{
	int ret = 0;

	pthread_mutex_lock(&cmdline_lock);
	for (unsigned int i = 0; i < CMDLINE_SLOTS && !ret; i++)
		if (cmdlines[i].tid)
			ret = tfs_seq_printf(s, "%d %s\n", cmdlines[i].tid, cmdlines[i].comm);
	pthread_mutex_unlock(&cmdline_lock);
	return ret;
}

/* ---- the text ----------------------------------------------------------------------------- */

static int nr_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

int tfs_trace_header(struct evt_instance *inst, struct tfs_seq *s)
{
	struct evt_ring_buffer *rb = tb_buffer(inst);
	unsigned long entries = 0, written = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		unsigned long e = evt_ring_buffer_entries_cpu(rb, cpu);

		entries += e;
		written += e + evt_ring_buffer_overrun_cpu(rb, cpu);
	}
	return tfs_seq_printf(s,
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: %lu/%lu   #P:%d\n"
		"#\n"
		"#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n",
		entries, written, nr_online_cpus());
}

static char hex_or_dot(unsigned int v)
{
	return v ? "0123456789abcdef"[v & 0xf] : '.';
}

int tfs_format_record(struct evt_instance *inst, int cpu, uint64_t ts, const void *rec,
		      size_t len, struct tfs_seq *s)
{
	enum evt_clock_id clock = evt_ring_buffer_clock(tb_buffer(inst));
	const unsigned char *r = rec;
	char comm[TASK_COMM_LEN];
	const struct tb_event *ev;
	uint8_t flags, pc;
	uint16_t type;
	int32_t pid;
	int ret;

	if (len < REC_MIN_LEN)
		return tfs_seq_printf(s, "CPU:%d [BAD RECORD: %zu bytes]\n", cpu, len);
	memcpy(&type, r + REC_TYPE_OFF, sizeof(type));
	flags = r[REC_FLAGS_OFF];
	pc = r[REC_PC_OFF];
	memcpy(&pid, r + REC_PID_OFF, sizeof(pid));
	if (TB.comm)
		TB.comm(pid, comm);
	else
		tfs_cmdline_get(pid, comm);
	ret = tfs_seq_printf(s, "%16s-%-7d [%03d] %c.%c%c%c ", comm, pid, cpu,
			     (flags & FLAG_IRQS_OFF) ? 'd' : '.',
			     (flags & FLAG_HARDIRQ) && (flags & FLAG_SOFTIRQ) ? 'H' :
			     (flags & FLAG_HARDIRQ) ? 'h' : (flags & FLAG_SOFTIRQ) ? 's' : '.',
			     hex_or_dot(pc & 0xf), hex_or_dot((pc >> 4) & 0xf));
	if (ret)
		return ret;
	if (evt_clock_is_ns(clock)) {
		/* the kernel's ns2usecs(): to the nearest microsecond */
		uint64_t us;

		evt_ring_buffer_normalize_time_stamp(tb_buffer(inst), cpu, &ts);
		us = (ts + 500) / 1000;
		ret = tfs_seq_printf(s, "%5llu.%06llu: ", (unsigned long long)(us / 1000000),
				     (unsigned long long)(us % 1000000));
	} else {
		ret = tfs_seq_printf(s, "%12llu: ", (unsigned long long)ts);
	}
	if (ret)
		return ret;
	ev = tb_event_by_id(type);
	if (!ev)
		return tfs_seq_printf(s, "Unknown type %u\n", type);
	if (!strcmp(tb_event_system(ev), "ftrace") && !strcmp(tb_event_name(ev), "print")) {
		/* the kernel prints the ip's symbol, tracing_mark_write, then the text */
		const char *text = (const char *)r + PRINT_TEXT_OFF;
		size_t max = len > PRINT_TEXT_OFF ? len - PRINT_TEXT_OFF : 0;

		ret = tfs_seq_printf(s, "tracing_mark_write: %.*s", (int)strnlen(text, max), text);
		if (!ret && (!s->len || s->buf[s->len - 1] != '\n'))
			ret = tfs_seq_putc(s, '\n');
		return ret;
	}
	ret = tfs_seq_printf(s, "%s: ", tb_event_name(ev));
	if (!ret) {
		size_t at = s->len;

		ret = tb_event_print(ev, rec, len, s);
		if (ret && ret != -EFBIG) {
			/* one record the printer cannot format does not stop the trace */
			s->len = at;
			ret = tfs_seq_printf(s, "<print error %d>", ret);
		}
	}
	if (!ret && (!s->len || s->buf[s->len - 1] != '\n'))
		ret = tfs_seq_putc(s, '\n');
	return ret;
}

/* ---- trace, trace_pipe: a stream of text -------------------------------------------------- */

struct stream {
	void *it;				/* the backend's iterator, if it has one */
	struct evt_ring_buffer *rb;
	int cpu_lo, cpu_hi;			/* CPUs [lo, hi) */
	struct evt_ring_buffer_iter **rit;	/* trace: one iterator per CPU */
	struct tfs_seq pend;			/* text made, not read yet */
	size_t off;
};

static void stream_free(struct stream *st)
{
	if (!st)
		return;
	if (st->it)
		TB.iter_close(st->it);
	if (st->rit)
		for (int c = st->cpu_lo; c < st->cpu_hi; c++)
			if (st->rit[c - st->cpu_lo])
				evt_ring_buffer_read_finish(st->rit[c - st->cpu_lo]);
	free(st->rit);
	tfs_seq_free(&st->pend);
	free(st);
}

static struct stream *stream_new_any(struct evt_tracefs_file *f, bool consume, bool snapshot)
{
	struct stream *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	/*
	 * trace and trace_pipe both use the event layer's iterator (its consuming
	 * mode shows what each consume reported lost, tracefs-torture's phase 2
	 * counts it exactly); the stream's own walk below is for a backend without
	 * one (the tests' fake).
	 */
	if (snapshot) {
		if (!TB.snapshot_open || TB.snapshot_open(f->node.inst, f->node.cpu, &st->it)) {
			free(st);
			return NULL;
		}
	} else if (TB.iter_open &&
	    TB.iter_open(f->node.inst, f->node.cpu, consume, &st->it)) {
		free(st);
		return NULL;
	}
	st->rb = tb_buffer(f->node.inst);
	if (f->node.cpu >= 0) {
		st->cpu_lo = f->node.cpu;
		st->cpu_hi = f->node.cpu + 1;
	} else {
		st->cpu_lo = 0;
		st->cpu_hi = evt_ring_buffer_nr_cpus(st->rb);
	}
	tfs_seq_init(&st->pend, BATCH_BYTES * 4);
	return st;
}

static struct stream *stream_new(struct evt_tracefs_file *f, bool consume)
{
	return stream_new_any(f, consume, false);
}

/* Copy what is pending to @buf. */
static size_t stream_copy(struct stream *st, char *buf, size_t len)
{
	size_t n = st->pend.len - st->off;

	if (n > len)
		n = len;
	memcpy(buf, st->pend.buf + st->off, n);
	st->off += n;
	if (st->off == st->pend.len) {
		tfs_seq_reset(&st->pend);
		st->off = 0;
	}
	return n;
}

int tfs_trace_open(struct evt_tracefs_file *f)
{
	struct stream *st;
	int ret;

	if (f->flags & EVT_TRACEFS_TRUNC) {
		ret = tb_reset(f->node.inst, f->node.cpu >= 0 ? f->node.cpu : -1);
		if (ret)
			return ret;
	}
	if (!(f->flags & EVT_TRACEFS_READ))
		return 0;
	st = stream_new(f, false);
	if (!st)
		return -ENOMEM;
	if (st->it) {
		ret = TB.iter_header(st->it, &st->pend);
		if (ret) {
			stream_free(st);
			return ret;
		}
		f->priv = st;
		return 0;
	}
	st->rit = calloc((size_t)(st->cpu_hi - st->cpu_lo), sizeof(*st->rit));
	if (!st->rit) {
		stream_free(st);
		return -ENOMEM;
	}
	for (int c = st->cpu_lo; c < st->cpu_hi; c++) {
		ret = evt_ring_buffer_read_start(st->rb, c, &st->rit[c - st->cpu_lo]);
		if (ret) {
			stream_free(st);
			return ret;
		}
	}
	ret = tfs_trace_header(f->node.inst, &st->pend);
	if (ret) {
		stream_free(st);
		return ret;
	}
	f->priv = st;
	return 0;
}

/* snapshot, per_cpu/cpuN/snapshot: the snapshot buffer as `trace` shows the live one. */
int tfs_snapshot_open(struct evt_tracefs_file *f)
{
	struct stream *st;
	int ret;

	if (!(f->flags & EVT_TRACEFS_READ))
		return 0;
	st = stream_new_any(f, false, true);
	if (!st)
		return -ENOMEM;
	ret = TB.iter_header(st->it, &st->pend);
	if (ret) {
		stream_free(st);
		return ret;
	}
	f->priv = st;
	return 0;
}

ssize_t tfs_snapshot_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	unsigned long val;
	int ret = tfs_parse_ulong(buf, len, &val);

	if (ret)
		return ret;
	if (!TB.snapshot_write)
		return -ENODEV;
	ret = TB.snapshot_write(f->node.inst, f->node.cpu, val);
	return ret ? ret : (ssize_t)len;
}

void tfs_trace_release(struct evt_tracefs_file *f)
{
	stream_free(f->priv);
	f->priv = NULL;
}

/* Lines from the backend's iterator until @want bytes are pending. Return: lines. */
static int backend_batch(struct stream *st, size_t want)
{
	int n = 0, ret;

	while (st->pend.len < want) {
		ret = TB.iter_next(st->it, &st->pend);
		if (ret <= 0)
			break;
		n++;
	}
	return n;
}

/* trace: format the next records in time order until a batch is made. Return: records. */
static int trace_batch(struct evt_tracefs_file *f, struct stream *st)
{
	struct evt_ring_buffer_event *e;
	int n = 0;

	if (st->it)
		return backend_batch(st, BATCH_BYTES);
	while (st->pend.len < BATCH_BYTES) {
		uint64_t ts, best_ts = 0;
		int best = -1;

		for (int c = st->cpu_lo; c < st->cpu_hi; c++) {
			if (!evt_ring_buffer_iter_peek(st->rit[c - st->cpu_lo], &ts))
				continue;
			if (best < 0 || ts < best_ts) {
				best = c;
				best_ts = ts;
			}
		}
		if (best < 0)
			break;
		e = evt_ring_buffer_read(st->rit[best - st->cpu_lo], &ts);
		if (!e)
			continue;
		if (tfs_format_record(f->node.inst, best, ts, evt_ring_buffer_event_data(e),
				      evt_ring_buffer_event_length(e), &st->pend))
			break;
		n++;
	}
	return n;
}

ssize_t tfs_trace_read(struct evt_tracefs_file *f, char *buf, size_t len)
{
	struct stream *st = f->priv;

	if (!st)
		return -EBADF;
	if (st->pend.len == 0) {
		tfs_lock();
		trace_batch(f, st);
		tfs_unlock();
	}
	return (ssize_t)stream_copy(st, buf, len);
}

int tfs_pipe_open(struct evt_tracefs_file *f)
{
	struct stream *st = stream_new(f, true);

	if (!st)
		return -ENOMEM;
	f->priv = st;
	return 0;
}

void tfs_pipe_release(struct evt_tracefs_file *f)
{
	stream_free(f->priv);
	f->priv = NULL;
}

/* trace_pipe: consume records in time order into the pending text. Return: records. */
static int pipe_batch(struct evt_tracefs_file *f, struct stream *st, size_t want)
{
	struct evt_ring_buffer_event *e;
	unsigned long lost;
	int n = 0;

	if (st->it)
		return backend_batch(st, want);
	while (st->pend.len < want) {
		uint64_t ts;
		/* the oldest record of all, each writer's in its order (across migrations) */
		int best = evt_ring_buffer_peek_oldest(st->rb, st->cpu_lo, st->cpu_hi, NULL, NULL,
						       NULL);

		if (best < 0)
			break;
		lost = 0;
		e = evt_ring_buffer_consume(st->rb, best, &ts, &lost);
		if (lost && tfs_seq_printf(&st->pend, "CPU:%d [LOST %lu EVENTS]\n", best, lost))
			break;
		if (!e)
			continue;
		n++;
		if (tfs_format_record(f->node.inst, best, ts, evt_ring_buffer_event_data(e),
				      evt_ring_buffer_event_length(e), &st->pend))
			break;
	}
	return n;
}

static void poll_sleep(void)
{
	struct timespec t = { 0, POLL_NS };

	nanosleep(&t, NULL);
}

ssize_t tfs_pipe_read(struct evt_tracefs_file *f, char *buf, size_t len)
{
	struct stream *st = f->priv;

	if (!st)
		return -EBADF;
	for (;;) {
		if (st->pend.len > st->off)
			return (ssize_t)stream_copy(st, buf, len);
		tfs_lock();
		/* a little more than asked: a record's line is never split across batches */
		pipe_batch(f, st, len < BATCH_BYTES ? len : BATCH_BYTES);
		tfs_unlock();
		if (st->pend.len > st->off)
			continue;
		if (f->flags & EVT_TRACEFS_NONBLOCK)
			return -EAGAIN;
		/* as the kernel: end of file once tracing is off and something was read */
		if (f->pos && !tb_tracing_on(f->node.inst))
			return 0;
		if (tfs_interrupted(f))
			return -EINTR;
		poll_sleep();
	}
}

/* ---- trace_pipe_raw ---------------------------------------------------------------------- */

struct raw {
	struct evt_ring_buffer *rb;
	unsigned char *page;
	size_t size;	/* page size */
	size_t off;	/* next byte to hand out; == size: none left */
};

int tfs_raw_open(struct evt_tracefs_file *f)
{
	struct raw *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->rb = tb_buffer(f->node.inst);
	r->size = evt_ring_buffer_page_size(r->rb);
	r->page = malloc(r->size);
	if (!r->page) {
		free(r);
		return -ENOMEM;
	}
	r->off = r->size;
	f->priv = r;
	return 0;
}

void tfs_raw_release(struct evt_tracefs_file *f)
{
	struct raw *r = f->priv;

	if (r) {
		free(r->page);
		free(r);
	}
	f->priv = NULL;
}

ssize_t tfs_raw_read(struct evt_tracefs_file *f, char *buf, size_t len)
{
	struct raw *r = f->priv;
	size_t n;
	int ret;

	if (!r)
		return -EBADF;
	while (r->off == r->size) {
		ret = evt_ring_buffer_read_page(r->rb, f->node.cpu, r->page, r->size);
		if (ret > 0) {
			r->off = 0;
			break;
		}
		if (ret != -EAGAIN)
			return ret;
		if (f->flags & EVT_TRACEFS_NONBLOCK)
			return -EAGAIN;
		if (f->pos && !tb_tracing_on(f->node.inst))
			return 0;
		if (tfs_interrupted(f))
			return -EINTR;
		poll_sleep();
	}
	/* one page per read at most, as the kernel's trace_pipe_raw */
	n = r->size - r->off;
	if (n > len)
		n = len;
	memcpy(buf, r->page + r->off, n);
	r->off += n;
	return (ssize_t)n;
}

/* ---- stats ------------------------------------------------------------------------------- */

static int print_ts(struct tfs_seq *s, const char *what, enum evt_clock_id clock, uint64_t ts)
{
	if (evt_clock_is_ns(clock))
		return tfs_seq_printf(s, "%s: %5llu.%06llu\n", what,
				      (unsigned long long)(ts / 1000000000),
				      (unsigned long long)(ts % 1000000000 / 1000));
	return tfs_seq_printf(s, "%s: %llu\n", what, (unsigned long long)ts);
}

int tfs_stats_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	struct evt_ring_buffer *rb = tb_buffer(f->node.inst);
	enum evt_clock_id clock = evt_ring_buffer_clock(rb);
	struct evt_ring_buffer_iter *it;
	struct evt_ring_buffer_event *e;
	unsigned long bytes = 0;
	uint64_t ts, oldest = 0;
	int cpu = f->node.cpu;
	bool first = true;
	int ret;

	/* bytes and the oldest time stamp: a walk over what the CPU buffer holds */
	if (!evt_ring_buffer_read_start(rb, cpu, &it)) {
		while ((e = evt_ring_buffer_read(it, &ts))) {
			if (first)
				oldest = ts;
			first = false;
			bytes += evt_ring_buffer_event_length(e);
		}
		evt_ring_buffer_read_finish(it);
	}
	ret = tfs_seq_printf(s, "entries: %lu\noverrun: %lu\ncommit overrun: %lu\nbytes: %lu\n",
			     evt_ring_buffer_entries_cpu(rb, cpu),
			     evt_ring_buffer_overrun_cpu(rb, cpu), 0ul, bytes);
	if (!ret)
		ret = print_ts(s, "oldest event ts", clock, oldest);
	if (!ret)
		ret = print_ts(s, "now ts", clock, evt_ring_buffer_time_stamp(rb));
	if (!ret)
		ret = tfs_seq_printf(s, "dropped events: %lu\nread events: %lu\n",
				     evt_ring_buffer_dropped_events_cpu(rb, cpu),
				     evt_ring_buffer_read_events_cpu(rb, cpu));
	/* not the kernel's: times another process wrote over this CPU buffer */
	if (!ret)
		ret = tfs_seq_printf(s, "corrupt: %lu\n", evt_ring_buffer_corrupt_cpu(rb, cpu));
	return ret;
}
