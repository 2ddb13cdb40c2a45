// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs/tfs_backend.c - the tree's view of the event registry and the
 * instances (tfs_backend.h), mapped onto evtrace/instance.h and
 * events/event_internal.h.
 *
 * Events are handed to the files as immortal snapshots (struct tb_event: ID,
 * system, name), one per ID, made the first time an ID is seen: IDs are never
 * reused for another system:name (events.h), so a snapshot stays true. Every
 * operation on an event looks the live event up by ID under event_lock(), and
 * gives -ENODEV when its library has been unloaded. No callback of the files
 * runs under event_lock(): event_for_each() copies the list first.
 *
 * Lock order: tfs_lock, then event_lock (never the other way round: the event
 * layer does not call the tree).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/seq.h>

#include "events/event_internal.h"
#include "filter/filter.h"
#include "tracefs/tfs_backend.h"

#define TEXT_MAX	(256u << 10)	/* the longest format or record text we take */

struct tb_event {
	unsigned int id;
	char *sys;
	char *name;
};

static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tb_event *snaps[EVENT_ID_MAX + 1];

/* The snapshot of @ev (caller holds event_lock). NULL on ENOMEM. */
static const struct tb_event *snap_of(const struct evt_event *ev)
{
	struct tb_event *t;

	if (ev->id > EVENT_ID_MAX)
		return NULL;
	pthread_mutex_lock(&snap_lock);
	t = snaps[ev->id];
	if (!t && (t = calloc(1, sizeof(*t)))) {
		t->id = ev->id;
		t->sys = strdup(ev->system);
		t->name = strdup(ev->name);
		if (!t->sys || !t->name) {
			free(t->sys);
			free(t->name);
			free(t);
			t = NULL;
		} else {
			snaps[ev->id] = t;
		}
	}
	pthread_mutex_unlock(&snap_lock);
	return t;
}

/* ---- instances ---- */

static struct evt_instance *core_top(void)
{
	return evt_instance_top();
}

static struct evt_instance *core_instance_lookup(const char *name)
{
	if (!name || !*name)
		return NULL;
	return evt_instance_lookup(name);
}

static int core_instance_create(const char *name)
{
	struct evt_instance *inst;

	return evt_instance_create(name, &inst);
}

static int core_instance_destroy(struct evt_instance *inst)
{
	return evt_instance_destroy(inst);
}

struct inst_arg {
	tb_inst_fn fn;
	void *arg;
};

static int inst_one(struct evt_instance *inst, void *arg)
{
	struct inst_arg *a = arg;

	return a->fn(a->arg, evt_instance_name(inst));
}

static int core_instance_for_each(tb_inst_fn fn, void *arg)
{
	struct inst_arg a = { fn, arg };

	return evt_instance_foreach(inst_one, &a);
}

static struct evt_ring_buffer *core_buffer(struct evt_instance *inst)
{
	return evt_instance_ring_buffer(inst);
}

static bool core_tracing_on(struct evt_instance *inst)
{
	return evt_instance_tracing_is_on(inst);
}

static int core_set_tracing_on(struct evt_instance *inst, bool on)
{
	return evt_instance_tracing_on(inst, on);
}

static int core_set_clock(struct evt_instance *inst, enum evt_clock_id clock)
{
	return evt_instance_set_clock(inst, evt_clock_name(clock));
}

static int core_resize_kb(struct evt_instance *inst, unsigned long kb, int cpu)
{
	return evt_instance_resize_kb(inst, cpu, kb);
}

static int core_reset(struct evt_instance *inst, int cpu)
{
	return instance_reset_cpu(inst, cpu);
}

static int core_marker_write(struct evt_instance *inst, const char *text, size_t len)
{
	int ret = evt_instance_trace_marker(inst, text, len);

	return ret < 0 ? ret : 0;
}

static int core_set_pids(struct evt_instance *inst, const int *pids, size_t n)
{
	return evt_instance_set_event_pid(inst, (const pid_t *)pids, n, 0);
}

/* Text an snprintf-like function of the layer below makes, into @s. */
static int snprintf_into(struct tfs_seq *s, int n, int (*again)(char *buf, size_t size, void *arg),
			 void *arg)
{
	char *buf;
	int ret;

	if (n < 0)
		return n;
	buf = malloc((size_t)n + 1);
	if (!buf)
		return -ENOMEM;
	n = again(buf, (size_t)n + 1, arg);
	ret = n < 0 ? n : tfs_seq_write(s, buf, strnlen(buf, (size_t)n));
	free(buf);
	return ret;
}

static int pids_again(char *buf, size_t size, void *arg)
{
	return evt_instance_event_pid_text(arg, buf, size);
}

static int core_pids_show(struct evt_instance *inst, struct tfs_seq *s)
{
	return snprintf_into(s, evt_instance_event_pid_text(inst, NULL, 0), pids_again, inst);
}

static void core_comm(int tid, char comm[16])
{
	evt_saved_cmdline((pid_t)tid, comm);
}

static int cmdlines_again(char *buf, size_t size, void *arg)
{
	(void)arg;
	return evt_saved_cmdlines_text(buf, size);
}

static int core_cmdlines_show(struct tfs_seq *s)
{
	return snprintf_into(s, evt_saved_cmdlines_text(NULL, 0), cmdlines_again, NULL);
}

/* ---- the trace text: the event layer's iterator ---- */

#define LINE_MAX_BYTES	(64u << 10)	/* a line of `trace` is never longer (events.h bounds) */

struct iter {
	struct evt_trace_iter *it;
	char *buf;
};

static int iter_open_any(struct evt_instance *inst, int cpu, bool consume, bool snapshot,
			 void **itp)
{
	struct iter *w = calloc(1, sizeof(*w));
	int ret;

	if (!w)
		return -ENOMEM;
	w->buf = malloc(LINE_MAX_BYTES);
	if (!w->buf) {
		free(w);
		return -ENOMEM;
	}
	ret = snapshot ? event_snapshot_iter_open(inst, cpu, &w->it) :
			 evt_trace_iter_open(inst, cpu, consume ? EVT_ITER_CONSUME : 0, &w->it);
	if (ret) {
		free(w->buf);
		free(w);
		return ret;
	}
	*itp = w;
	return 0;
}

static int core_iter_open(struct evt_instance *inst, int cpu, bool consume, void **itp)
{
	return iter_open_any(inst, cpu, consume, false, itp);
}

static int core_snapshot_open(struct evt_instance *inst, int cpu, void **itp)
{
	return iter_open_any(inst, cpu, false, true, itp);
}

static int core_iter_header(void *p, struct tfs_seq *s)
{
	struct iter *w = p;
	struct evt_seq es;
	int ret;

	evt_seq_init(&es, w->buf, LINE_MAX_BYTES);
	ret = evt_trace_iter_print_header(w->it, &es);
	if (ret < 0)
		return ret;
	return tfs_seq_write(s, es.buf, es.len);
}

static int core_iter_next(void *p, struct tfs_seq *s)
{
	struct iter *w = p;
	struct evt_seq es;
	int ret;

	evt_seq_init(&es, w->buf, LINE_MAX_BYTES);
	ret = evt_trace_iter_next_line(w->it, &es);
	if (ret <= 0)
		return ret;
	ret = tfs_seq_write(s, es.buf, es.len);
	return ret ? ret : 1;
}

static void core_iter_close(void *p)
{
	struct iter *w = p;

	evt_trace_iter_close(w->it);
	free(w->buf);
	free(w);
}

/* ---- events ---- */

struct ev_list {
	const struct tb_event **ev;
	size_t n, size;
	int ret;
};

static int collect_one(struct evt_event *ev, void *arg)
{
	struct ev_list *l = arg;
	const struct tb_event **p;

	if (ev->id < EVENT_ID_FIRST)
		return 0; /* ftrace:print, kernel_stack are not events one enables */
	if (l->n == l->size) {
		l->size = l->size ? 2 * l->size : 64;
		p = realloc(l->ev, l->size * sizeof(*p));
		if (!p) {
			l->ret = -ENOMEM;
			return 1;
		}
		l->ev = p;
	}
	l->ev[l->n] = snap_of(ev);
	if (!l->ev[l->n]) {
		l->ret = -ENOMEM;
		return 1;
	}
	l->n++;
	return 0;
}

static int core_event_for_each(tb_event_fn fn, void *arg)
{
	struct ev_list l = { 0 };
	int ret = 0;

	event_lock();
	event_foreach_locked(NULL, NULL, collect_one, &l);
	event_unlock();
	for (size_t i = 0; i < l.n && !ret; i++)
		ret = fn(arg, l.ev[i]);
	free(l.ev);
	return l.ret ? l.ret : ret;
}

static const struct tb_event *core_event_by_id(unsigned int id);

static const struct tb_event *core_marker_event(void)
{
	return core_event_by_id(EVENT_ID_PRINT);
}

static const struct tb_event *core_event_by_id(unsigned int id)
{
	const struct tb_event *t = NULL;
	struct evt_event *ev;

	event_lock();
	ev = event_find_id_locked(id);
	if (ev)
		t = snap_of(ev);
	event_unlock();
	return t;
}

static const char *core_event_system(const struct tb_event *ev)
{
	return ev->sys;
}

static const char *core_event_name(const struct tb_event *ev)
{
	return ev->name;
}

static unsigned int core_event_id(const struct tb_event *ev)
{
	return ev->id;
}

/* Run @fn on the live event of @t with an evt_seq, under event_lock; copy the text to @s. */
static int with_event_seq(const struct tb_event *t, struct tfs_seq *s, size_t size,
			  int (*fn)(const struct evt_event *ev, struct evt_seq *es, void *arg),
			  void *arg)
{
	struct evt_event *ev;
	struct evt_seq es;
	char small[4096];
	char *buf = size <= sizeof(small) ? small : malloc(size);
	int ret;

	if (!buf)
		return -ENOMEM;
	evt_seq_init(&es, buf, size);
	event_lock();
	ev = event_find_id_locked(t->id);
	ret = ev ? fn(ev, &es, arg) : -ENODEV;
	event_unlock();
	if (ret >= 0 || es.len)
		ret = tfs_seq_write(s, es.buf, es.len);
	if (buf != small)
		free(buf);
	return ret;
}

static int format_fn(const struct evt_event *ev, struct evt_seq *es, void *arg)
{
	(void)arg;
	return event_format_seq(ev, es);
}

static int core_event_format(const struct tb_event *t, struct tfs_seq *s)
{
	return with_event_seq(t, s, 64u << 10, format_fn, NULL);
}

struct rec {
	const void *rec;
	size_t len;
};

static int print_fn(const struct evt_event *ev, struct evt_seq *es, void *arg)
{
	struct rec *r = arg;

	return event_print_record(ev, r->rec, r->len, es);
}

static int core_event_print(const struct tb_event *t, const void *rec, size_t len,
			    struct tfs_seq *s)
{
	struct rec r = { rec, len };
	size_t size = len * 4 + 512;	/* records of up to ~900 bytes print from the stack */

	return with_event_seq(t, s, size > TEXT_MAX ? TEXT_MAX : size, print_fn, &r);
}

static bool core_event_enabled(struct evt_instance *inst, const struct tb_event *t)
{
	int flags = evt_instance_event_flags(inst, t->sys, t->name);

	/* As the kernel's EVENT_FILE_FL_ENABLED: an event kept on for its triggers
	 * (soft mode) counts, in set_event and in a system's `enable` (1 or X). */
	return flags > 0 && (flags & (EVT_FILE_ENABLED | EVT_FILE_SOFT_MODE));
}

static int core_event_enable(struct evt_instance *inst, const struct tb_event *t, bool on)
{
	int ret = evt_instance_event_enable(inst, t->sys, t->name, on);

	return ret < 0 ? ret : 0;
}

static int core_event_filter(struct evt_instance *inst, const struct tb_event *t,
			     const char *expr, struct filter_error *err)
{
	struct trace_event_file *file;
	struct filter_prog *prog = NULL;
	struct evt_event *ev;
	int ret;

	event_lock();
	ev = event_find_id_locked(t->id);
	if (!ev) {
		ret = -ENODEV;
		goto out;
	}
	file = event_file_locked(inst, ev);
	if (!file) {
		ret = -ENOMEM;
		goto out;
	}
	ret = filter_compile(ev->fields, ev->nr_fields, expr, &prog, err);
	if (ret)
		goto out;
	/* publishes, waits for the writers to leave the old one, frees it; clears filter_shown */
	event_file_set_filter_locked(file, prog);
out:
	event_unlock();
	return ret;
}

static int core_event_filter_show(struct evt_instance *inst, const struct tb_event *t,
				  struct tfs_seq *s)
{
	struct trace_event_file *file;
	struct evt_event *ev;
	int ret;

	event_lock();
	ev = event_find_id_locked(t->id);
	file = ev ? event_file_locked(inst, ev) : NULL;
	if (!file)
		ret = ev ? -ENOMEM : -ENODEV;
	else if (file->filter_shown)
		ret = tfs_seq_puts(s, file->filter_shown);
	else if (file->filter)
		ret = tfs_seq_printf(s, "%s\n", filter_prog_text(file->filter));
	else
		ret = tfs_seq_puts(s, "none\n");
	event_unlock();
	return ret;
}

static int core_event_filter_set_shown(struct evt_instance *inst, const struct tb_event *t,
				       const char *text)
{
	struct trace_event_file *file;
	struct evt_event *ev;
	char *copy = strdup(text);
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	event_lock();
	ev = event_find_id_locked(t->id);
	file = ev ? event_file_locked(inst, ev) : NULL;
	if (file) {
		free(file->filter_shown);
		file->filter_shown = copy;
		copy = NULL;
	} else {
		ret = ev ? -ENOMEM : -ENODEV;
	}
	event_unlock();
	free(copy);
	return ret;
}

const struct tfs_backend_ops tfs_backend_core = {
	.top = core_top,
	.instance_lookup = core_instance_lookup,
	.instance_create = core_instance_create,
	.instance_destroy = core_instance_destroy,
	.instance_for_each = core_instance_for_each,
	.buffer = core_buffer,
	.tracing_on = core_tracing_on,
	.set_tracing_on = core_set_tracing_on,
	.set_clock = core_set_clock,
	.resize_kb = core_resize_kb,
	.reset = core_reset,
	.marker_write = core_marker_write,
	.set_pids = core_set_pids,
	.pids_show = core_pids_show,
	.comm = core_comm,
	.cmdlines_show = core_cmdlines_show,
	.iter_open = core_iter_open,
	.iter_header = core_iter_header,
	.iter_next = core_iter_next,
	.iter_close = core_iter_close,
	.snapshot_open = core_snapshot_open,
	.snapshot_write = instance_snapshot_write,
	.marker_event = core_marker_event,
	.event_for_each = core_event_for_each,
	.event_by_id = core_event_by_id,
	.event_system = core_event_system,
	.event_name = core_event_name,
	.event_id = core_event_id,
	.event_format = core_event_format,
	.event_print = core_event_print,
	.event_enabled = core_event_enabled,
	.event_enable = core_event_enable,
	.event_filter = core_event_filter,
	.event_filter_show = core_event_filter_show,
	.event_filter_set_shown = core_event_filter_set_shown,
	.error_log = instance_error_log,
};

const struct tfs_backend_ops *tfs_backend = &tfs_backend_core;
