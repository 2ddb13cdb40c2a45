// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs/tfs_files.c - the files of an instance's tree.
 *
 * What each file reads back and what writing it does follows the kernel's
 * kernel/trace/trace.c and trace_events.c, checked against the kernel of the
 * build machine (tests/data/tracefs/ holds its answers, collect.sh the
 * commands). Where we differ on purpose, docs/tracefs.md says so.
 *
 * State the tree keeps itself, per instance: each event's filter text and last
 * error display, each system's last error display, the set_event_pid list. The
 * error_log hangs on the instance (instance_error_log(), events/error_log.h). The filters in
 * force and the enable bits live in the event layer (tfs_backend.h).
 *
 * Every function here runs under tfs_lock, except the streaming reads
 * (trace, trace_pipe, trace_pipe_raw), which take it around each batch and
 * never while they wait.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <evtrace/clock.h>
#include <evtrace/instance.h>
#include <evtrace/ring_buffer.h>

#include "events/error_log.h"
#include "filter/filter.h"
#include "tracefs/tfs_backend.h"
#include "tracefs/tfs_internal.h"
#include "tracefs/tfs_print.h"

#define SET_EVENT_WORD_MAX	127	/* the kernel's EVENT_BUF_SIZE */
#define PID_MAX			4194304	/* the kernel's PID_MAX_LIMIT */
#define MARKER_MAX		4096	/* the kernel's TRACE_MARKER_MAX_SIZE */
#define LIST_WRITE_MAX		(1u << 20)	/* set_event, set_event_pid */
#define SUBSYS_FILTER_ERR	"Couldn't find or set field in one of a subsystem's events"
#define FILTER_LOC		"event filter parse error"

/* ---- helpers ------------------------------------------------------------------------------ */

static const struct tb_event *node_event(const struct tfs_node *n)
{
	const struct tb_event *ev;

	if (n->event_id < 0)
		return NULL;
	ev = tb_event_by_id((unsigned int)n->event_id);
	return ev;
}

int tfs_node_event_id(const struct tfs_node *n)
{
	const struct tb_event *ev = node_event(n);

	return ev ? (int)tb_event_id(ev) : -ENODEV;
}

int tfs_event_text_show(struct evt_tracefs_file *f, struct tfs_seq *s,
			int (*text)(struct evt_instance *inst, unsigned int event_id, char **textp))
{
	int id = tfs_node_event_id(&f->node);
	char *t;
	int ret;

	if (id < 0)
		return -ENODEV;
	ret = text(f->node.inst, (unsigned int)id, &t);
	if (ret == -ENODEV)
		return 0; /* an event of another backend: none of what the layer keeps */
	if (ret)
		return ret;
	ret = tfs_seq_puts(s, t);
	free(t);
	return ret;
}

struct error_log *tfs_error_log(struct evt_instance *inst)
{
	return TB.error_log(inst);
}

void tfs_filter_error_log(struct error_log *elog, const struct filter_error *err, const char *expr)
{
	if (!elog)
		return;
	error_log_add(elog, FILTER_LOC,
		      err->log_msg ? err->log_msg : (err->msg ? err->msg : "Error"), expr,
		      (unsigned int)(err->log_pos > 0 ? err->log_pos : 0));
}

static ssize_t bool_write(const char *buf, size_t len, bool *val)
{
	unsigned long v;

	if (tfs_parse_ulong(buf, len, &v))
		return -EINVAL;
	if (v > 1)
		return -EINVAL;
	*val = v;
	return 0;
}

/* ---- available_events, set_event ---------------------------------------------------------- */

struct list_arg {
	struct evt_instance *inst;
	struct tfs_seq *s;
	const char *sys;	/* only this system, or NULL */
	bool only_enabled;
	int ret;
};

static int list_one(void *arg, const struct tb_event *ev)
{
	struct list_arg *a = arg;

	if (a->sys && strcmp(a->sys, tb_event_system(ev)))
		return 0;
	if (a->only_enabled && !tb_event_enabled(a->inst, ev))
		return 0;
	a->ret = tfs_seq_printf(a->s, "%s:%s\n", tb_event_system(ev), tb_event_name(ev));
	return a->ret ? 1 : 0;
}

static int available_events_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	struct list_arg a = { .inst = f->node.inst, .s = s };

	tb_event_for_each(list_one, &a);
	return a.ret;
}

static int set_event_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	struct list_arg a = { .inst = f->node.inst, .s = s, .only_enabled = true };

	tb_event_for_each(list_one, &a);
	return a.ret;
}

struct set_arg {
	struct evt_instance *inst;
	const struct tfs_event_spec *spec;
	const char *sys;	/* enable files: this system only */
	bool on;
	int matched;
	int ret;
};

static int set_one(void *arg, const struct tb_event *ev)
{
	struct set_arg *a = arg;
	int ret;

	if (a->spec && !tfs_event_spec_match(a->spec, tb_event_system(ev), tb_event_name(ev)))
		return 0;
	if (a->sys && strcmp(a->sys, tb_event_system(ev)))
		return 0;
	a->matched++;
	ret = tb_event_enable(a->inst, ev, a->on);
	if (ret && !a->ret)
		a->ret = ret;
	return 0;
}

/* Enable (or disable) every event @spec/@sys selects. Return: how many, or -errno. */
static int set_events(struct evt_instance *inst, const struct tfs_event_spec *spec,
		      const char *sys, bool on)
{
	struct set_arg a = { .inst = inst, .spec = spec, .sys = sys, .on = on };

	tb_event_for_each(set_one, &a);
	return a.ret ? a.ret : a.matched;
}

static int set_event_open(struct evt_tracefs_file *f)
{
	/* `> set_event`: every event off first, as ftrace_event_set_open() does */
	if (f->flags & EVT_TRACEFS_TRUNC) {
		int ret = set_events(f->node.inst, NULL, NULL, false);

		return ret < 0 ? ret : 0;
	}
	return 0;
}

static int set_event_word(void *arg, char *word)
{
	struct evt_tracefs_file *f = arg;
	struct tfs_event_spec spec;
	int ret;

	if (tfs_event_spec_parse(word, &spec))
		return -EINVAL;
	ret = set_events(f->node.inst, &spec, NULL, spec.enable);
	if (ret < 0)
		return ret;
	return ret ? 0 : -EINVAL;	/* nothing matched: the kernel's -EINVAL */
}

/*
 * One word per write, as the kernel's ftrace_event_write(): the bytes it took
 * are returned, and a writer that means the rest writes it again (echo and
 * stdio do; unit/tracefs-diff asks the kernel).
 */
static ssize_t set_event_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	char word[SET_EVENT_WORD_MAX + 1];
	size_t used;
	int ret;

	ret = tfs_first_word(buf, len, SET_EVENT_WORD_MAX, word, &used);
	if (!ret && word[0])
		ret = set_event_word(f, word);
	return ret ? ret : (ssize_t)used;
}

/* ---- set_event_pid ------------------------------------------------------------------------ */

static int pid_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int set_event_pid_open(struct evt_tracefs_file *f)
{
	if (!(f->flags & EVT_TRACEFS_TRUNC))
		return 0;
	return tb_set_pids(f->node.inst, NULL, 0);
}

static int set_event_pid_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	return tb_pids_show(f->node.inst, s);
}

struct pid_arg {
	int *pids;
	size_t n, size;
};

static int pid_add(struct pid_arg *a, unsigned long v)
{
	int *p;

	if (a->n == a->size) {
		a->size = a->size ? a->size * 2 : 16;
		p = realloc(a->pids, a->size * sizeof(*p));
		if (!p)
			return -ENOMEM;
		a->pids = p;
	}
	a->pids[a->n++] = (int)v;
	return 0;
}

static int pid_word(void *arg, char *word)
{
	unsigned long v;

	if (tfs_parse_ulong(word, strlen(word), &v) || v >= PID_MAX)
		return -EINVAL;
	return pid_add(arg, v);
}

/* the ids the file lists now */
static int pid_current(struct evt_instance *inst, struct pid_arg *a)
{
	struct tfs_seq s;
	char *p, *end;
	int ret;

	tfs_seq_init(&s, 0);
	ret = tb_pids_show(inst, &s);
	for (p = s.buf; !ret && p && *p; p = end) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		ret = pid_add(a, v);
		while (*end == '\n' || *end == ' ')
			end++;
	}
	tfs_seq_free(&s);
	return ret;
}

static ssize_t set_event_pid_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	struct pid_arg a = { 0 };
	size_t i, j;
	int ret;

	/* the ids written, checked before anything changes */
	ret = tfs_for_each_word(buf, len, 32, pid_word, &a);
	if (ret || !a.n)
		goto out;
	/* added to the ids there are: the truncation was done at open ('>') */
	ret = pid_current(f->node.inst, &a);
	if (ret)
		goto out;
	qsort(a.pids, a.n, sizeof(*a.pids), pid_cmp);
	for (i = j = 0; i < a.n; i++)
		if (!j || a.pids[j - 1] != a.pids[i])
			a.pids[j++] = a.pids[i];
	ret = tb_set_pids(f->node.inst, a.pids, j);
out:
	free(a.pids);
	return ret ? ret : (ssize_t)len;
}

/* ---- enable files ------------------------------------------------------------------------- */

struct count_arg {
	struct evt_instance *inst;
	const char *sys;
	int on, off;
};

static int count_one(void *arg, const struct tb_event *ev)
{
	struct count_arg *a = arg;

	if (a->sys && strcmp(a->sys, tb_event_system(ev)))
		return 0;
	if (tb_event_enabled(a->inst, ev))
		a->on++;
	else
		a->off++;
	return 0;
}

static int enable_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	const struct tb_event *ev;
	struct count_arg a = { .inst = f->node.inst };

	if (f->node.event_id >= 0) {
		ev = node_event(&f->node);
		if (!ev)
			return -ENODEV;
		if (tfs_backend == &tfs_backend_core) {
			/* soft mode (triggers): "0*" or "1*", as the kernel's event_enable_read */
			int fl = evt_instance_event_flags(f->node.inst, tb_event_system(ev),
							  tb_event_name(ev));

			if (fl > 0 && (fl & EVT_FILE_SOFT_MODE))
				return tfs_seq_puts(s, fl & EVT_FILE_SOFT_DISABLED ? "0*\n" : "1*\n");
		}
		return tfs_seq_puts(s, tb_event_enabled(f->node.inst, ev) ? "1\n" : "0\n");
	}
	a.sys = f->node.sys[0] ? f->node.sys : NULL;
	tb_event_for_each(count_one, &a);
	if (!a.on && !a.off)
		return tfs_seq_puts(s, "?\n");
	if (a.on && a.off)
		return tfs_seq_puts(s, "X\n");
	return tfs_seq_puts(s, a.on ? "1\n" : "0\n");
}

static ssize_t enable_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	const struct tb_event *ev;
	bool on;
	int ret;

	if (bool_write(buf, len, &on))
		return -EINVAL;
	if (f->node.event_id >= 0) {
		ev = node_event(&f->node);
		if (!ev)
			return -ENODEV;
		ret = tb_event_enable(f->node.inst, ev, on);
	} else {
		ret = set_events(f->node.inst, NULL, f->node.sys[0] ? f->node.sys : NULL, on);
		ret = ret < 0 ? ret : 0;
	}
	return ret ? ret : (ssize_t)len;
}

/* ---- filters ------------------------------------------------------------------------------ */

/*
 * The kernel's display of a rejected filter: its filter_string is the text,
 * a caret line and the message, and the file prints it with "%s\n" (hence
 * the blank line at the end).
 */
static char *filter_error_text(const char *expr, const struct filter_error *err)
{
	int n = filter_error_format(expr, err, NULL, 0);
	char *out;

	if (n < 0 || !(out = malloc((size_t)n + 2)))
		return NULL;
	filter_error_format(expr, err, out, (size_t)n + 1);
	out[n] = '\n';
	out[n + 1] = '\0';
	return out;
}

static int event_filter_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	const struct tb_event *ev = node_event(&f->node);

	return ev ? tb_event_filter_show(f->node.inst, ev, s) : -ENODEV;
}

/* Compile and install @expr on @ev. Return: 0 or -errno, with @err filled. */
static int filter_apply(struct evt_instance *inst, const struct tb_event *ev, const char *expr,
			struct filter_error *err)
{
	int ret;

	memset(err, 0, sizeof(*err));
	ret = tb_event_filter(inst, ev, expr, err);
	if (ret && !err->errnum)
		err->errnum = -ret;
	return ret;
}

static ssize_t event_filter_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	struct error_log *elog = TB.error_log(f->node.inst);
	const struct tb_event *ev = node_event(&f->node);
	struct filter_error err;
	char *expr, *shown;
	int ret;

	if (!elog)
		return -ENOMEM;
	if (!ev)
		return -ENODEV;
	if (!len)
		return 0;	/* the kernel ignores an empty write */
	expr = tfs_strdup_filter(buf, len);
	if (!expr)
		return -ENOMEM;
	ret = filter_apply(f->node.inst, ev, expr, &err);
	if (ret) {
		/*
		 * The kernel drops the filter in force here; we keep it (events.rst
		 * 5.2's promise) and show the error as the kernel does.
		 */
		shown = filter_error_text(expr, &err);
		if (shown)
			tb_event_filter_set_shown(f->node.inst, ev, shown);
		free(shown);
		tfs_filter_error_log(elog, &err, expr);
	}
	free(expr);
	return ret ? ret : (ssize_t)len;
}

static const char subsys_filter_msg[] =
	"### global filter ###\n"
	"# Use this to set filters for multiple events.\n"
	"# Only events with the given fields will be affected.\n"
	"# If no events are modified, an error message will be displayed here\n";

/*
 * As the kernel's create_system_filter(): a subsystem with events shows its
 * default text whatever was written; the errors are the events' (their own
 * `filter` files and error_log). Its error display is for a subsystem
 * without events, which has no directory here.
 */
static int subsys_filter_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	(void)f;
	return tfs_seq_puts(s, subsys_filter_msg);
}

struct subsys_arg {
	struct evt_instance *inst;
	struct error_log *elog;
	const char *sys;
	const char *expr;
	int ok, failed;
	int ret;
};

static int subsys_one(void *arg, const struct tb_event *ev)
{
	struct subsys_arg *a = arg;
	struct filter_error err;
	int ret;

	if (strcmp(a->sys, tb_event_system(ev)))
		return 0;
	ret = filter_apply(a->inst, ev, a->expr, &err);
	if (ret == -ENOMEM) {
		a->ret = ret;
		return 1;
	}
	if (ret) {
		/*
		 * As the kernel's process_system_preds(): the event's `filter` shows
		 * the subsystem error under the expression, and error_log has an
		 * entry per event. The event keeps its filter (events.rst 5.4; the
		 * kernel puts a disabled one in its place).
		 */
		struct filter_error serr = { 0 };
		char *shown;

		a->failed++;
		filter_error_subsystem(&serr);
		shown = filter_error_text(a->expr, &serr);
		if (shown)
			tb_event_filter_set_shown(a->inst, ev, shown);
		free(shown);
		error_log_add(a->elog, FILTER_LOC, SUBSYS_FILTER_ERR, a->expr, 0);
	} else {
		a->ok++;
	}
	return 0;
}

static ssize_t subsys_filter_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	struct error_log *elog = TB.error_log(f->node.inst);
	struct subsys_arg a = { .inst = f->node.inst, .elog = elog, .sys = f->node.sys };
	char *expr;

	if (!elog)
		return -ENOMEM;
	if (!len)
		return 0;
	expr = tfs_strdup_filter(buf, len);
	if (!expr)
		return -ENOMEM;
	a.expr = expr;
	tb_event_for_each(subsys_one, &a);
	free(expr);
	/* as the kernel: success even when some (or every) event kept its old filter */
	return a.ret ? a.ret : (ssize_t)len;
}

/* ---- format, id ------------------------------------------------------------------ */

static int format_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	const struct tb_event *ev = node_event(&f->node);

	return ev ? tb_event_format(ev, s) : -ENODEV;
}

static int id_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	const struct tb_event *ev = node_event(&f->node);

	return ev ? tfs_seq_printf(s, "%u\n", tb_event_id(ev)) : -ENODEV;
}

/* ---- tracing_on, trace_clock, buffer sizes ------------------------------------------------ */

static int tracing_on_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	return tfs_seq_printf(s, "%d\n", tb_tracing_on(f->node.inst) ? 1 : 0);
}

static ssize_t tracing_on_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	unsigned long v;
	int ret;

	if (tfs_parse_ulong(buf, len, &v))
		return -EINVAL;
	ret = tb_set_tracing_on(f->node.inst, v != 0);
	return ret ? ret : (ssize_t)len;
}

static int trace_clock_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	enum evt_clock_id cur = evt_ring_buffer_clock(tb_buffer(f->node.inst));
	int ret = 0;

	for (int id = 0; id < EVT_CLOCK__COUNT && !ret; id++)
		ret = tfs_seq_printf(s, id == (int)cur ? "%s[%s]" : "%s%s", id ? " " : "",
				     evt_clock_name((enum evt_clock_id)id));
	return ret ? ret : tfs_seq_putc(s, '\n');
}

static ssize_t trace_clock_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	char *name = tfs_strdup_stripped(buf, len);
	int id, ret;

	if (!name)
		return -ENOMEM;
	id = evt_clock_by_name(name);
	free(name);
	if (id < 0)
		return -EINVAL;
	ret = tb_set_clock(f->node.inst, (enum evt_clock_id)id);
	return ret ? ret : (ssize_t)len;
}

static int buffer_size_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	struct evt_ring_buffer *rb = tb_buffer(f->node.inst);
	int nr = evt_ring_buffer_nr_cpus(rb);
	unsigned long size;

	if (f->node.cpu >= 0)
		return tfs_seq_printf(s, "%lu\n", evt_ring_buffer_size(rb, f->node.cpu) >> 10);
	size = evt_ring_buffer_size(rb, 0);
	for (int cpu = 1; cpu < nr; cpu++)
		if (evt_ring_buffer_size(rb, cpu) != size)
			return tfs_seq_puts(s, "X\n");
	return tfs_seq_printf(s, "%lu\n", size >> 10);
}

static ssize_t buffer_size_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	unsigned long kb;
	int ret;

	if (tfs_parse_ulong(buf, len, &kb) || !kb || kb > (~0ul >> 11))
		return -EINVAL;
	ret = tb_resize_kb(f->node.inst, kb, f->node.cpu >= 0 ? f->node.cpu : EVT_RB_ALL_CPUS);
	return ret ? ret : (ssize_t)len;
}

static int buffer_total_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	struct evt_ring_buffer *rb = tb_buffer(f->node.inst);
	unsigned long total = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++)
		total += evt_ring_buffer_size(rb, cpu) >> 10;
	return tfs_seq_printf(s, "%lu\n", total);
}

/* ---- trace_marker, saved_cmdlines, error_log ---------------------------------------------- */

static ssize_t marker_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	size_t n = len > MARKER_MAX ? MARKER_MAX : len;
	int ret;

	if (!tb_tracing_on(f->node.inst))
		return -EBADF;	/* the kernel's answer when tracing is off */
	tfs_cmdline_save_self();
	ret = tb_marker_write(f->node.inst, buf, n);
	/* as the kernel: at most TRACE_MARKER_MAX_SIZE bytes per write, a short count */
	return ret ? ret : (ssize_t)n;
}

static int saved_cmdlines_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	(void)f;
	return TB.cmdlines_show ? TB.cmdlines_show(s) : tfs_cmdline_show(s);
}

static int error_log_open(struct evt_tracefs_file *f)
{
	struct error_log *elog = TB.error_log(f->node.inst);

	if (!elog)
		return -ENOMEM;
	if (f->flags & EVT_TRACEFS_TRUNC)
		error_log_clear(elog);
	return 0;
}

static int error_log_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	struct error_log *elog = TB.error_log(f->node.inst);
	size_t n;
	char *p;
	int ret;

	if (!elog)
		return -ENOMEM;
	n = error_log_format(elog, NULL, 0);
	p = malloc(n + 1);
	if (!p)
		return -ENOMEM;
	error_log_format(elog, p, n + 1);
	ret = tfs_seq_write(s, p, n);
	free(p);
	return ret;
}

static ssize_t ignore_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	(void)f;
	(void)buf;
	return (ssize_t)len;
}

/* ---- current_tracer, available_tracers: events only, the "nop" tracer ----------------------- */

static int tracers_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	(void)f;
	return tfs_seq_puts(s, "nop\n");
}

static ssize_t current_tracer_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	char *name = tfs_strdup_stripped(buf, len);
	bool nop;

	(void)f;
	if (!name)
		return -ENOMEM;
	nop = !strcmp(name, "nop");
	free(name);
	/* the kernel's answer to a tracer it does not have */
	return nop ? (ssize_t)len : -EINVAL;
}

/* ---- trace, trace_pipe, trace_pipe_raw, stats: tfs_print.c -------------------------------- */

/* ---- the tree ----------------------------------------------------------------------------- */

#define FILE_RO(id, nm, fn) \
	static const struct tfs_ops id = { .name = nm, .mode = TFS_MODE_RO, .show = fn }

FILE_RO(available_events_ops, "available_events", available_events_show);
FILE_RO(format_ops, "format", format_show);
FILE_RO(id_ops, "id", id_show);
FILE_RO(buffer_total_ops, "buffer_total_size_kb", buffer_total_show);
FILE_RO(available_tracers_ops, "available_tracers", tracers_show);

static const struct tfs_ops set_event_ops = {
	.name = "set_event", .mode = TFS_MODE_RW, .open = set_event_open,
	.show = set_event_show, .write = set_event_write, .max_write = LIST_WRITE_MAX,
};
static const struct tfs_ops set_event_pid_ops = {
	.name = "set_event_pid", .mode = TFS_MODE_RW, .open = set_event_pid_open,
	.show = set_event_pid_show, .write = set_event_pid_write, .max_write = LIST_WRITE_MAX,
};
static const struct tfs_ops enable_ops = {
	.name = "enable", .mode = TFS_MODE_RW, .show = enable_show, .write = enable_write,
};
/* filters: the kernel's event_filter_write() refuses cnt >= PAGE_SIZE */
static const struct tfs_ops event_filter_ops = {
	.name = "filter", .mode = TFS_MODE_RW, .show = event_filter_show,
	.write = event_filter_write, .max_write = TFS_WRITE_MAX - 1,
};
static const struct tfs_ops subsys_filter_ops = {
	.name = "filter", .mode = TFS_MODE_RW, .show = subsys_filter_show,
	.write = subsys_filter_write, .max_write = TFS_WRITE_MAX - 1,
};
static const struct tfs_ops current_tracer_ops = {
	.name = "current_tracer", .mode = TFS_MODE_RW, .show = tracers_show,
	.write = current_tracer_write,
};
static const struct tfs_ops tracing_on_ops = {
	.name = "tracing_on", .mode = TFS_MODE_RW, .show = tracing_on_show,
	.write = tracing_on_write,
};
static const struct tfs_ops trace_clock_ops = {
	.name = "trace_clock", .mode = TFS_MODE_RW, .show = trace_clock_show,
	.write = trace_clock_write,
};
static const struct tfs_ops buffer_size_ops = {
	.name = "buffer_size_kb", .mode = TFS_MODE_RW, .show = buffer_size_show,
	.write = buffer_size_write,
};
static const struct tfs_ops marker_ops = {
	.name = "trace_marker", .mode = TFS_MODE_WO, .write = marker_write, .max_write = 1u << 20,
};
static const struct tfs_ops error_log_ops = {
	.name = "error_log", .mode = TFS_MODE_RW, .open = error_log_open,
	.show = error_log_show, .write = ignore_write, .max_write = 1u << 20,
};
static const struct tfs_ops trace_ops = {
	.name = "trace", .mode = TFS_MODE_RW, .open = tfs_trace_open, .read = tfs_trace_read,
	.write = ignore_write, .release = tfs_trace_release, .max_write = 1u << 20,
};
static const struct tfs_ops trace_pipe_ops = {
	.name = "trace_pipe", .mode = TFS_MODE_RO, .open = tfs_pipe_open, .read = tfs_pipe_read,
	.release = tfs_pipe_release,
};
static const struct tfs_ops trace_pipe_raw_ops = {
	.name = "trace_pipe_raw", .mode = TFS_MODE_RO, .open = tfs_raw_open, .read = tfs_raw_read,
	.release = tfs_raw_release,
};
/* snapshot: a backend that has snapshot buffers */
static bool has_snapshot(const struct tfs_node *dir)
{
	(void)dir;
	return TB.snapshot_open != NULL;
}

static const struct tfs_ops snapshot_ops = {
	.name = "snapshot", .mode = TFS_MODE_RW, .open = tfs_snapshot_open, .read = tfs_trace_read,
	.write = tfs_snapshot_write, .release = tfs_trace_release, .visible = has_snapshot,
};
static const struct tfs_ops stats_ops = {
	.name = "stats", .mode = TFS_MODE_RO, .show = tfs_stats_show,
};

/* events/<sys>/<event>/: and `trigger` (trigger/), `hist` (hist/), registered at TFS_AT_EVENT */
static const struct tfs_ops *const event_children[] = {
	&enable_ops, &event_filter_ops, &format_ops, &id_ops, NULL,
};
static const struct tfs_ops event_dir_ops = {
	.name = "<event>", .mode = TFS_MODE_DIR, .children = event_children, .at = TFS_AT_EVENT,
};

/* events/<sys>/ */
struct find_arg {
	const char *sys;
	const char *name;
	const struct tb_event *found;
	tfs_fill_t fill;
	void *fill_arg;
	int ret;
	char last[TFS_SYS_MAX];
};

static int sys_lookup_one(void *arg, const struct tb_event *ev)
{
	struct find_arg *a = arg;

	if (strcmp(a->sys, tb_event_system(ev)) || strcmp(a->name, tb_event_name(ev)))
		return 0;
	a->found = ev;
	return 1;
}

static int sys_lookup(const struct tfs_node *dir, const char *name, struct tfs_node *child)
{
	struct find_arg a = { .sys = dir->sys, .name = name };

	tb_event_for_each(sys_lookup_one, &a);
	if (!a.found)
		return -ENOENT;
	*child = *dir;
	child->ops = &event_dir_ops;
	child->event_id = (int)tb_event_id(a.found);
	return 0;
}

static int sys_readdir_one(void *arg, const struct tb_event *ev)
{
	struct find_arg *a = arg;

	if (strcmp(a->sys, tb_event_system(ev)))
		return 0;
	a->ret = a->fill(a->fill_arg, tb_event_name(ev), TFS_MODE_DIR);
	return a->ret ? 1 : 0;
}

static int sys_readdir(const struct tfs_node *dir, tfs_fill_t fill, void *arg)
{
	struct find_arg a = { .sys = dir->sys, .fill = fill, .fill_arg = arg };

	tb_event_for_each(sys_readdir_one, &a);
	return a.ret;
}

static const struct tfs_ops *const sys_children[] = { &enable_ops, &subsys_filter_ops, NULL };
static const struct tfs_ops sys_dir_ops = {
	.name = "<system>", .mode = TFS_MODE_DIR, .children = sys_children,
	.lookup = sys_lookup, .readdir = sys_readdir,
};

/* events/ */
static int events_lookup_one(void *arg, const struct tb_event *ev)
{
	struct find_arg *a = arg;

	if (strcmp(a->name, tb_event_system(ev)))
		return 0;
	a->found = ev;
	return 1;
}

/*
 * events/ftrace/print/: the trace_marker event, as the kernel's (no enable, no filter; its
 * `hist` and `trigger` are the registered files of every event's directory)
 */
static const struct tfs_ops *const print_children[] = { &format_ops, &id_ops, NULL };
static const struct tfs_ops print_dir_ops = {
	.name = "print", .mode = TFS_MODE_DIR, .children = print_children, .at = TFS_AT_EVENT,
};

static const struct tb_event *marker_event(void)
{
	return TB.marker_event ? TB.marker_event() : NULL;
}

/* events/ftrace/kernel_stack/: the stacktrace trigger's records; the kernel shows its format only */
#define KERNEL_STACK_ID 4 /* the kernel's TRACE_STACK */
static const struct tfs_ops *const stack_children[] = { &format_ops, NULL };
static const struct tfs_ops stack_dir_ops = {
	.name = "kernel_stack", .mode = TFS_MODE_DIR, .children = stack_children,
};

static const struct tb_event *stack_event(void)
{
	const struct tb_event *ev = TB.event_by_id ? tb_event_by_id(KERNEL_STACK_ID) : NULL;

	if (!ev || strcmp(tb_event_system(ev), "ftrace") || strcmp(tb_event_name(ev), "kernel_stack"))
		return NULL;
	return ev;
}

static int ftrace_lookup(const struct tfs_node *dir, const char *name, struct tfs_node *child)
{
	const struct tb_event *ev = marker_event(), *st = stack_event();

	if (st && !strcmp(name, tb_event_name(st))) {
		*child = *dir;
		child->ops = &stack_dir_ops;
		child->event_id = (int)tb_event_id(st);
		return 0;
	}
	if (!ev || strcmp(name, tb_event_name(ev)))
		return -ENOENT;
	*child = *dir;
	child->ops = &print_dir_ops;
	child->event_id = (int)tb_event_id(ev);
	return 0;
}

static int ftrace_readdir(const struct tfs_node *dir, tfs_fill_t fill, void *arg)
{
	const struct tb_event *ev = marker_event(), *st = stack_event();
	int ret = 0;

	(void)dir;
	if (st)
		ret = fill(arg, tb_event_name(st), TFS_MODE_DIR);
	return !ret && ev ? fill(arg, tb_event_name(ev), TFS_MODE_DIR) : ret;
}

static const struct tfs_ops ftrace_dir_ops = {
	.name = "ftrace", .mode = TFS_MODE_DIR, .lookup = ftrace_lookup,
	.readdir = ftrace_readdir,
};

/* events/header_page and header_event: the ring buffer's page and event headers */
static int header_page_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	unsigned int psize = evt_ring_buffer_page_size(tb_buffer(f->node.inst));

	return tfs_seq_printf(s,
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n",
		psize - EVT_RB_PAGE_HDR_SIZE);
}

static int header_event_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	(void)f;
	return tfs_seq_puts(s,
		"# compressed entry header\n"
		"\ttype_len    :    5 bits\n"
		"\ttime_delta  :   27 bits\n"
		"\tarray       :   32 bits\n"
		"\n"
		"\tpadding     : type == 29\n"
		"\ttime_extend : type == 30\n"
		"\ttime_stamp : type == 31\n"
		"\tdata max type_len  == 28\n");
}

static const struct tfs_ops header_page_ops = {
	.name = "header_page", .mode = TFS_MODE_RO, .show = header_page_show,
};
static const struct tfs_ops header_event_ops = {
	.name = "header_event", .mode = TFS_MODE_RO, .show = header_event_show,
};

static int events_lookup(const struct tfs_node *dir, const char *name, struct tfs_node *child)
{
	struct find_arg a = { .name = name };

	if (strlen(name) >= TFS_SYS_MAX)
		return -ENOENT;
	if (!strcmp(name, "ftrace") && marker_event()) {
		*child = *dir;
		child->ops = &ftrace_dir_ops;
		snprintf(child->sys, sizeof(child->sys), "%s", name);
		return 0;
	}
	tb_event_for_each(events_lookup_one, &a);
	if (!a.found)
		return -ENOENT;
	*child = *dir;
	child->ops = &sys_dir_ops;
	snprintf(child->sys, sizeof(child->sys), "%s", name);
	return 0;
}

/* systems once each: the walk is in (system, name) order, but do not rely on it */
struct sys_list {
	char **names;
	size_t n, size;
};

static int events_readdir_one(void *arg, const struct tb_event *ev)
{
	struct sys_list *l = arg;
	const char *sys = tb_event_system(ev);
	char **p;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], sys))
			return 0;
	if (l->n == l->size) {
		l->size = l->size ? 2 * l->size : 16;
		p = realloc(l->names, l->size * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->names = p;
	}
	l->names[l->n] = strdup(sys);
	if (!l->names[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static int events_readdir(const struct tfs_node *dir, tfs_fill_t fill, void *arg)
{
	struct sys_list l = { 0 };
	int ret;

	(void)dir;
	ret = tb_event_for_each(events_readdir_one, &l);
	if (!ret && marker_event())
		ret = fill(arg, "ftrace", TFS_MODE_DIR);
	for (size_t i = 0; i < l.n; i++) {
		if (!ret)
			ret = fill(arg, l.names[i], TFS_MODE_DIR);
		free(l.names[i]);
	}
	free(l.names);
	return ret;
}

static const struct tfs_ops *const events_children[] = {
	&enable_ops, &header_event_ops, &header_page_ops, NULL,
};
static const struct tfs_ops events_dir_ops = {
	.name = "events", .mode = TFS_MODE_DIR, .children = events_children,
	.lookup = events_lookup, .readdir = events_readdir,
};

/* per_cpu/cpuN/ */
static const struct tfs_ops *const cpu_children[] = {
	&buffer_size_ops, &snapshot_ops, &stats_ops, &trace_ops, &trace_pipe_ops,
	&trace_pipe_raw_ops, NULL,
};
static const struct tfs_ops cpu_dir_ops = {
	.name = "<cpu>", .mode = TFS_MODE_DIR, .children = cpu_children,
};

static int per_cpu_lookup(const struct tfs_node *dir, const char *name, struct tfs_node *child)
{
	int nr = evt_ring_buffer_nr_cpus(tb_buffer(dir->inst));
	char *end;
	long cpu;

	if (strncmp(name, "cpu", 3) || name[3] < '0' || name[3] > '9' ||
	    (name[3] == '0' && name[4]))
		return -ENOENT;
	cpu = strtol(name + 3, &end, 10);
	if (*end || cpu < 0 || cpu >= nr)
		return -ENOENT;
	*child = *dir;
	child->ops = &cpu_dir_ops;
	child->cpu = (int)cpu;
	return 0;
}

static int per_cpu_readdir(const struct tfs_node *dir, tfs_fill_t fill, void *arg)
{
	int nr = evt_ring_buffer_nr_cpus(tb_buffer(dir->inst)), ret = 0;
	char name[32];

	for (int cpu = 0; cpu < nr && !ret; cpu++) {
		snprintf(name, sizeof(name), "cpu%d", cpu);
		ret = fill(arg, name, TFS_MODE_DIR);
	}
	return ret;
}

static const struct tfs_ops per_cpu_ops = {
	.name = "per_cpu", .mode = TFS_MODE_DIR, .lookup = per_cpu_lookup,
	.readdir = per_cpu_readdir,
};

/* instances/ (the top-level instance only, as in the kernel) */
static int instances_lookup(const struct tfs_node *dir, const char *name, struct tfs_node *child)
{
	struct evt_instance *inst = tb_instance_lookup(name);

	if (!inst)
		return -ENOENT;
	memset(child, 0, sizeof(*child));
	child->ops = &tfs_root_ops;
	child->inst = inst;
	child->cpu = -1;
	child->event_id = -1;
	(void)dir;
	return 0;
}

struct inst_fill {
	tfs_fill_t fill;
	void *arg;
};

static int instances_readdir_one(void *arg, const char *name)
{
	struct inst_fill *a = arg;

	return a->fill(a->arg, name, TFS_MODE_DIR);
}

static int instances_readdir(const struct tfs_node *dir, tfs_fill_t fill, void *arg)
{
	struct inst_fill a = { fill, arg };

	(void)dir;
	return tb_instance_for_each(instances_readdir_one, &a);
}

static int instances_mkdir(const struct tfs_node *dir, const char *name)
{
	(void)dir;
	return tb_instance_create(name);
}

static int instances_rmdir(const struct tfs_node *dir, const char *name)
{
	struct evt_instance *inst = tb_instance_lookup(name);

	(void)dir;
	if (!inst)
		return -ENOENT;
	if (tfs_inst_busy(inst))
		return -EBUSY;
	return tb_instance_destroy(inst);
}

bool tfs_top_only(const struct tfs_node *dir)
{
	return tb_is_top(dir->inst);
}

static const struct tfs_ops instances_ops = {
	.name = "instances", .mode = TFS_MODE_DIR, .lookup = instances_lookup,
	.readdir = instances_readdir, .mkdir = instances_mkdir, .rmdir = instances_rmdir,
	.visible = tfs_top_only,
};
static const struct tfs_ops saved_cmdlines_top_ops = {
	.name = "saved_cmdlines", .mode = TFS_MODE_RO, .show = saved_cmdlines_show,
	.visible = tfs_top_only,
};

static const struct tfs_ops *const root_children[] = {
	&available_events_ops,
	&available_tracers_ops,
	&buffer_size_ops,
	&buffer_total_ops,
	&current_tracer_ops,
	&error_log_ops,
	&events_dir_ops,
	&instances_ops,
	&per_cpu_ops,
	&saved_cmdlines_top_ops,
	&set_event_ops,
	&set_event_pid_ops,
	&snapshot_ops,
	&trace_ops,
	&trace_clock_ops,
	&marker_ops,
	&trace_pipe_ops,
	&tracing_on_ops,
	NULL,
};

/* and synthetic_events, dynamic_events, kprobe_events (synth/), registered at TFS_AT_TOP */
const struct tfs_ops tfs_root_ops = {
	.name = "", .mode = TFS_MODE_DIR, .children = root_children, .at = TFS_AT_TOP,
};

struct evt_instance *tfs_top_instance(void)
{
	return tb_top();
}
