// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events/control.c - per-instance event state, formats, listings,
 * EVTRACE_EVENTS, and the library's start-up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/seq.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "core/detail.h"
#include "events/event_internal.h"
#include "filter/filter.h"

/* snprintf-style accumulation into (buf, size) at *len. */
static void text_add(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void text_add(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf && *len < size ? buf + *len : NULL, *len < size ? size - *len : 0,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

/* --- ftrace:print (trace_marker) -------------------------------------------------------- */

struct evt_event *event_print;

static const struct evt_field print_fields[] = {
	{ "unsigned long", "ip", 12, 8, 8, EVT_FIELD_INT, 0 },
	{ "char[]", "buf", 20, 0, 1, EVT_FIELD_STRING, 0 },
};

/* ftrace:kernel_stack: the stacktrace trigger's records (the kernel's layout from
 * caller on: its `size` is at 8, ours after common_tgid; both callers at 16). */
static const struct evt_field stack_fields[] = {
	{ "int", "size", 12, 4, 4, EVT_FIELD_INT, 1 },
	{ "unsigned long[8]", "caller", 16, 64, 8, EVT_FIELD_ARRAY, 0 },
};

static const char stack_print_fmt[] =
	"\"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
	"\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "
	"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]";

/* --- start-up ------------------------------------------------------------------------- */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void events_init_once(void)
{
	struct evt_event *ev;

	/*
	 * The top instance (its buffers, the clock's calibration) is created at
	 * first use, not here: a program whose events are never enabled pays nothing.
	 */
	writer_init();
	event_lock();
	ev = event_new_builtin("ftrace", "print", print_fields, ARRAY_SIZE(print_fields),
			       "\"%ps: %s\", (void *)REC->ip, REC->buf", 20);
	if (ev && event_register_builtin_locked(ev, EVENT_ID_PRINT) == 0)
		event_print = ev;
	ev = event_new_builtin("ftrace", "kernel_stack", stack_fields, ARRAY_SIZE(stack_fields),
			       stack_print_fmt, 80);
	if (ev)
		event_register_builtin_locked(ev, EVENT_ID_KERNEL_STACK);
	event_unlock();
}

void events_init(void)
{
	pthread_once(&init_once, events_init_once);
}

/* --- the event table ----------------------------------------------------------------------- */

/* @fn(event, @arg) for each event matching @system:@name (NULL: all), under the lock. */
static void foreach_event(const char *system, const char *name,
			  int (*fn)(struct evt_event *ev, void *arg), void *arg)
{
	events_init();
	event_lock();
	event_foreach_locked(system, name, fn, arg);
	event_unlock();
}

/* Take the lock and find @inst's file of event @system:@name (NULL if none); unlock after. */
static struct trace_event_file *lock_event_file(struct evt_instance *inst, const char *system,
						const char *name)
{
	events_init();
	event_lock();
	return event_file_locked(inst, event_find_locked(system, name));
}

/* --- enabling --------------------------------------------------------------------------- */

struct enable_arg {
	struct evt_instance *inst;
	bool enable;
	int matched;
	int err; /* a reg callback's error (TRACE_EVENT_FN) */
};

static int enable_one(struct evt_event *ev, void *p)
{
	struct enable_arg *a = p;
	struct trace_event_file *file = event_file_locked(a->inst, ev);
	int ret;

	if (!file || !ev->def)		/* built-in events are not switched on and off */
		return 0;
	ret = event_file_enable_locked(file, a->enable);
	if (ret < 0)
		a->err = ret;
	else
		a->matched++;
	return 0;
}

int evt_instance_event_enable(struct evt_instance *inst, const char *system, const char *name,
			      bool enable)
{
	struct enable_arg a = { inst, enable, 0, 0 };

	if (!inst)
		return -EINVAL;
	foreach_event(system, name, enable_one, &a);
	/* as the kernel's __ftrace_set_clr_event(): an error only if nothing was switched */
	return a.matched ? a.matched : a.err ? a.err : -EINVAL;
}

struct state_arg {
	struct evt_instance *inst;
	bool on, off;
};

static int state_one(struct evt_event *ev, void *p)
{
	struct state_arg *a = p;
	struct trace_event_file *file = event_file_locked(a->inst, ev);

	if (!file || !ev->def)
		return 0;
	if (ld_relaxed(&file->flags) & EVT_FILE_ENABLED)
		a->on = true;
	else
		a->off = true;
	return 0;
}

int evt_instance_event_state(struct evt_instance *inst, const char *system, const char *name)
{
	struct state_arg a = { inst, false, false };

	if (!inst)
		return -EINVAL;
	foreach_event(system, name, state_one, &a);
	if (a.on && a.off)
		return 'X';
	if (a.on)
		return '1';
	if (a.off)
		return '0';
	return '?';
}

int evt_instance_event_flags(struct evt_instance *inst, const char *system, const char *name)
{
	struct trace_event_file *file;
	int ret = -ENOENT;

	if (!inst)
		return -EINVAL;
	file = lock_event_file(inst, system, name);
	if (file)
		ret = (int)ld_relaxed(&file->flags);
	event_unlock();
	return ret;
}

int evt_instance_event_soft(struct evt_instance *inst, const char *system, const char *name,
			    bool soft_mode, bool soft_disabled)
{
	struct trace_event_file *file;
	int ret = -ENOENT;

	if (!inst)
		return -EINVAL;
	file = lock_event_file(inst, system, name);
	if (file)
		ret = event_file_soft_locked(file, soft_mode, soft_disabled);
	event_unlock();
	return ret;
}

/* --- filters ---------------------------------------------------------------------------- */

struct filter_arg {
	struct evt_instance *inst;
	const char *expr;
	int changed;
	int err;
	struct filter_error ferr;
};

static int filter_one(struct evt_event *ev, void *p)
{
	struct filter_arg *a = p;
	struct trace_event_file *file = event_file_locked(a->inst, ev);
	struct filter_prog *prog = NULL;
	struct filter_error ferr;
	int ret;

	if (!file)
		return 0;
	ret = filter_compile(ev->fields, ev->nr_fields, a->expr, &prog, &ferr);
	if (ret) {
		if (!a->err) {
			a->err = ret;
			a->ferr = ferr;
		}
		return 0;
	}
	event_file_set_filter_locked(file, prog);
	a->changed++;
	return 0;
}

int evt_instance_event_filter(struct evt_instance *inst, const char *system, const char *name,
			      const char *expr)
{
	struct filter_arg a = { .inst = inst, .expr = expr ? expr : "0" };

	detail_clear();
	if (!inst)
		return -EINVAL;
	foreach_event(system, name, filter_one, &a);
	if (a.err && !a.changed) {
		detail_set("%s (at %d)", a.ferr.msg ? a.ferr.msg : "no such fields in this event",
			   a.ferr.pos);
		return a.err;
	}
	return a.changed ? a.changed : -ENOENT;
}

int evt_instance_event_filter_text(struct evt_instance *inst, const char *system,
				   const char *name, char *buf, size_t size)
{
	struct trace_event_file *file;
	size_t len = 0;
	int ret;

	if (!inst)
		return -EINVAL;
	file = lock_event_file(inst, system, name);
	if (!file) {
		ret = -ENOENT;
	} else {
		if (file->filter_shown)
			text_add(buf, size, &len, "%s", file->filter_shown);
		else if (file->filter)
			text_add(buf, size, &len, "%s\n", filter_prog_text(file->filter));
		else
			text_add(buf, size, &len, "none\n");
		ret = (int)len;
	}
	event_unlock();
	return ret;
}

struct list_arg {
	struct evt_instance *inst;
	char *buf;
	size_t size, len;
};

static int set_event_one(struct evt_event *ev, void *p)
{
	struct list_arg *a = p;
	struct trace_event_file *file = event_file_locked(a->inst, ev);

	if (file && ev->def && (ld_relaxed(&file->flags) & EVT_FILE_ENABLED))
		text_add(a->buf, a->size, &a->len, "%s:%s\n", ev->system, ev->name);
	return 0;
}

int evt_instance_set_event_text(struct evt_instance *inst, char *buf, size_t size)
{
	struct list_arg a = { inst, buf, size, 0 };

	if (!inst)
		return -EINVAL;
	if (size)
		buf[0] = '\0';
	foreach_event(NULL, NULL, set_event_one, &a);
	return (int)a.len;
}

static int available_one(struct evt_event *ev, void *p)
{
	struct list_arg *a = p;

	if (ev->def)
		text_add(a->buf, a->size, &a->len, "%s:%s\n", ev->system, ev->name);
	return 0;
}

int evt_available_events(char *buf, size_t size)
{
	struct list_arg a = { NULL, buf, size, 0 };

	if (size)
		buf[0] = '\0';
	foreach_event(NULL, NULL, available_one, &a);
	return (int)a.len;
}

/* --- format ------------------------------------------------------------------------------ */

static int format_field(struct evt_seq *s, const struct evt_field *f)
{
	const char *br = strchr(f->type, '[');

	/* "char[16]" shows as "char comm[16]"; "__data_loc char[]" as "__data_loc char[] name". */
	if (br && strncmp(f->type, "__data_loc", 10) && strncmp(f->type, "__rel_loc", 9))
		return evt_seq_printf(s, "\tfield:%.*s %s%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
				      (int)(br - f->type), f->type, f->name, br, f->offset, f->size,
				      f->is_signed);
	return evt_seq_printf(s, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%u;\n", f->type,
			      f->name, f->offset, f->size, f->is_signed);
}

int event_format_seq(const struct evt_event *ev, struct evt_seq *s)
{
	evt_seq_printf(s, "name: %s\nID: %u\nformat:\n", ev->name, ev->id);
	for (unsigned int i = 0; i < ev->nr_fields; i++) {
		if (i == ev->nr_common)
			evt_seq_putc(s, '\n');
		format_field(s, &ev->fields[i]);
	}
	evt_seq_printf(s, "\nprint fmt: %s\n", ev->print_fmt_text);
	return s->full ? -ENOSPC : 0;
}

int evt_event_format_text(const char *system, const char *name, char *buf, size_t size)
{
	struct evt_event *ev;
	struct evt_seq s;
	char *tmp;
	int ret;

	events_init();
	event_lock();
	ev = event_find_locked(system, name);
	if (!ev) {
		event_unlock();
		return -ENOENT;
	}
	/* Measure with a big enough scratch buffer, then copy what fits (snprintf-style). */
	tmp = malloc(65536);
	if (!tmp) {
		event_unlock();
		return -ENOMEM;
	}
	evt_seq_init(&s, tmp, 65536);
	event_format_seq(ev, &s);
	event_unlock();
	if (size) {
		size_t n = s.len < size - 1 ? s.len : size - 1;

		memcpy(buf, tmp, n);
		buf[n] = '\0';
	}
	ret = (int)s.len;
	free(tmp);
	return ret;
}

/* --- EVTRACE_EVENTS --------------------------------------------------------------------- */

/*
 * Does set_event token @tok (no '!') select @ev? The kernel's rules:
 * "sys:ev", "sys:*", "sys:", "*:ev", "*:*", "*:", "ev" (a bare word is an
 * event name or a system name), "*".
 */
static bool token_selects(const char *tok, size_t len, const struct evt_event *ev)
{
	char buf[512];
	char *colon, *sys, *name;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	colon = strchr(buf, ':');
	if (!colon) {
		if (!strcmp(buf, "*"))
			return true;
		return !strcmp(buf, ev->name) || !strcmp(buf, ev->system);
	}
	*colon = '\0';
	sys = buf;
	name = colon + 1;
	if (*sys && strcmp(sys, "*") && strcmp(sys, ev->system))
		return false;
	if (*name && strcmp(name, "*") && strcmp(name, ev->name))
		return false;
	return true;
}

/* Apply EVTRACE_EVENTS to @ev: the last token that selects it decides. */
void events_env_apply_locked(struct evt_event *ev)
{
	const char *env = secure_getenv("EVTRACE_EVENTS");
	const char *p;
	int decision = -1;

	event_assert_locked();
	if (!env || !ev->def)
		return;
	for (p = env; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool neg = len && *p == '!';

		while (len && (p[len - 1] == ' ' || p[len - 1] == '\n'))
			len--;
		if (token_selects(p + neg, len - neg, ev))
			decision = !neg;
		if (!end)
			break;
		p = end + 1;
		while (*p == ' ')
			p++;
	}
	if (decision >= 0) {
		struct trace_event_file *file = event_file_locked(instance_top_locked(), ev);

		if (file)
			event_file_enable_locked(file, decision);
	}
}

static int env_one(struct evt_event *ev, void *arg)
{
	struct trace_event_file *file = event_file_locked(instance_top_locked(), ev);
	bool was = file && (ld_relaxed(&file->flags) & EVT_FILE_ENABLED);

	events_env_apply_locked(ev);
	if (!was && file && (ld_relaxed(&file->flags) & EVT_FILE_ENABLED))
		(*(int *)arg)++;
	return 0;
}

int evt_events_from_env(void)
{
	int n = 0;

	foreach_event(NULL, NULL, env_one, &n);
	return n;
}
