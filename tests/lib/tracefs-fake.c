/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/tracefs-fake.c - the fake backend under the tracing tree (tracefs-fake.h).
 * Its struct evt_instance is its own: the tree sees instances only through
 * tfs_backend's operations, and the programs that install this fake link no event layer
 * into the tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#include "tracefs-fake.h"
#include "events/error_log.h"
#include "filter/filter.h"
#include "tracefs/tfs_backend.h"

#define FAKE_MARKER	FAKE_NR_EVENTS	/* ftrace:print, not listed */
#define FAKE_MAX_INST	8
#define FAKE_ID_BASE	400

#define COMMON_FIELDS							\
	{ "unsigned short", "common_type", 0, 2, 2, EVT_FIELD_INT, 0 },	\
	{ "unsigned char", "common_flags", 2, 1, 1, EVT_FIELD_INT, 0 },	\
	{ "unsigned char", "common_preempt_count", 3, 1, 1, EVT_FIELD_INT, 0 }, \
	{ "int", "common_pid", 4, 4, 4, EVT_FIELD_INT, 1 },		\
	{ "int", "common_tgid", 8, 4, 4, EVT_FIELD_INT, 1 }

static const struct evt_field fake_switch_fields[] = {
	COMMON_FIELDS,
	{ "char[16]", "prev_comm", 12, 16, 1, EVT_FIELD_STRING, 0 },
	{ "int", "prev_pid", 28, 4, 4, EVT_FIELD_INT, 1 },
	{ "int", "next_pid", 32, 4, 4, EVT_FIELD_INT, 1 },
};
static const struct evt_field fake_wakeup_fields[] = {
	COMMON_FIELDS,
	{ "char[16]", "comm", 12, 16, 1, EVT_FIELD_STRING, 0 },
	{ "int", "pid", 28, 4, 4, EVT_FIELD_INT, 1 },
};
static const struct evt_field fake_irq_fields[] = {
	COMMON_FIELDS,
	{ "int", "irq", 12, 4, 4, EVT_FIELD_INT, 1 },
};
static const struct evt_field fake_softirq_fields[] = {
	COMMON_FIELDS,
	{ "unsigned int", "vec", 12, 4, 4, EVT_FIELD_INT, 0 },
};
static const struct evt_field fake_app_fields[] = {
	COMMON_FIELDS,
	{ "int", "value", 12, 4, 4, EVT_FIELD_INT, 1 },
};
static const struct evt_field fake_print_fields[] = {
	COMMON_FIELDS,
	{ "unsigned long", "ip", 12, 8, 8, EVT_FIELD_INT, 0 },
	{ "char[]", "buf", 20, 0, 1, EVT_FIELD_STRING, 0 },
};

struct tb_event {
	const char *sys, *name;
	const struct evt_field *fields;
	size_t nr;
	unsigned int size;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct tb_event fake_events[FAKE_NR_EVENTS + 1] = {
	{ "sched", "sched_switch", fake_switch_fields, N(fake_switch_fields), 36 },
	{ "sched", "sched_wakeup", fake_wakeup_fields, N(fake_wakeup_fields), 32 },
	{ "irq", "irq_handler_entry", fake_irq_fields, N(fake_irq_fields), 16 },
	{ "irq", "softirq_entry", fake_softirq_fields, N(fake_softirq_fields), 16 },
	{ "app", "sched", fake_app_fields, N(fake_app_fields), 16 },
	{ "ftrace", "print", fake_print_fields, N(fake_print_fields), 20 },
};

struct evt_instance {
	char name[64];
	int used;
	struct evt_ring_buffer *rb;
	bool on;
	bool enabled[FAKE_NR_EVENTS];
	struct filter_prog *filter[FAKE_NR_EVENTS];
	char *shown[FAKE_NR_EVENTS];
	int pids[256];
	size_t nr_pids;
	struct error_log *elog;	/* the real one (events/error_log.c), made at first use */
};

static struct evt_instance fake_inst[FAKE_MAX_INST];	/* [0] is the top */
int fake_nr_events = FAKE_NR_EVENTS;
unsigned long fake_buf_size = 64 << 10;

static int fake_idx(const struct tb_event *ev)
{
	return (int)(ev - fake_events);
}

static int fake_inst_init(struct evt_instance *in, const char *name)
{
	int ret;

	memset(in, 0, sizeof(*in));
	snprintf(in->name, sizeof(in->name), "%s", name);
	ret = evt_ring_buffer_alloc(fake_buf_size, EVT_RB_FL_OVERWRITE, &in->rb);
	if (ret)
		return ret;
	in->on = true;
	in->used = 1;
	return 0;
}

struct evt_instance *fake_top(void)
{
	return &fake_inst[0];
}

static struct evt_instance *fake_instance_lookup(const char *name)
{
	for (int i = 1; i < FAKE_MAX_INST; i++)
		if (fake_inst[i].used && !strcmp(fake_inst[i].name, name))
			return &fake_inst[i];
	return NULL;
}

static int fake_instance_create(const char *name)
{
	if (fake_instance_lookup(name))
		return -EEXIST;
	for (int i = 1; i < FAKE_MAX_INST; i++)
		if (!fake_inst[i].used)
			return fake_inst_init(&fake_inst[i], name);
	return -ENOSPC;
}

static int fake_instance_destroy(struct evt_instance *in)
{
	error_log_free(in->elog);
	evt_ring_buffer_free(in->rb);
	for (int e = 0; e < FAKE_NR_EVENTS; e++) {
		filter_free(in->filter[e]);
		free(in->shown[e]);
	}
	memset(in, 0, sizeof(*in));
	return 0;
}

static int fake_instance_for_each(tb_inst_fn fn, void *arg)
{
	int ret;

	for (int i = 1; i < FAKE_MAX_INST; i++)
		if (fake_inst[i].used && (ret = fn(arg, fake_inst[i].name)))
			return ret;
	return 0;
}

static struct error_log *fake_error_log(struct evt_instance *in)
{
	if (!in->elog && error_log_alloc(&in->elog))
		return NULL;
	return in->elog;
}

static struct evt_ring_buffer *fake_buffer(struct evt_instance *in)
{
	return in->rb;
}

static int fake_reset(struct evt_instance *in, int cpu)
{
	return cpu >= 0 ? evt_ring_buffer_reset_cpu(in->rb, cpu) : evt_ring_buffer_reset(in->rb);
}

static bool fake_tracing_on(struct evt_instance *in)
{
	return in->on;
}

static int fake_set_tracing_on(struct evt_instance *in, bool on)
{
	in->on = on;
	return 0;
}

static int fake_set_clock(struct evt_instance *in, enum evt_clock_id clock)
{
	int ret = evt_ring_buffer_set_clock(in->rb, clock);

	return ret ? ret : evt_ring_buffer_reset(in->rb);
}

static int fake_resize_kb(struct evt_instance *in, unsigned long kb, int cpu)
{
	return evt_ring_buffer_resize(in->rb, kb << 10, cpu);
}

struct fake_rec {
	uint16_t type;
	uint8_t flags;
	uint8_t pc;
	int32_t pid;
	int32_t tgid;
	union {
		struct {
			char comm[16];
			int32_t pid;
			int32_t next;
		} sw;
		int32_t value;
		struct {
			uint64_t ip;
			char text[4096 + 1];
		} __attribute__((packed)) print;
	} u;
};

static int fake_marker_write(struct evt_instance *in, const char *text, size_t len)
{
	struct fake_rec r = { .type = FAKE_ID_BASE + FAKE_MARKER };

	r.pid = (int32_t)gettid();
	r.tgid = (int32_t)getpid();
	memcpy(r.u.print.text, text, len);
	r.u.print.text[len] = '\0';
	return evt_ring_buffer_write(in->rb, 20 + len + 1, &r);
}

static int fake_set_pids(struct evt_instance *in, const int *pids, size_t n)
{
	if (n > N(in->pids))
		return -ENOSPC;
	if (n)
		memcpy(in->pids, pids, n * sizeof(*pids));
	in->nr_pids = n;
	return 0;
}

static int fake_pids_show(struct evt_instance *in, struct tfs_seq *s)
{
	for (size_t i = 0; i < in->nr_pids; i++)
		tfs_seq_printf(s, "%d\n", in->pids[i]);
	return 0;
}

static int fake_event_for_each(tb_event_fn fn, void *arg)
{
	int ret;

	for (int e = 0; e < fake_nr_events; e++)
		if ((ret = fn(arg, &fake_events[e])))
			return ret;
	return 0;
}

static const struct tb_event *fake_event_by_id(unsigned int id)
{
	if (id < FAKE_ID_BASE || id > FAKE_ID_BASE + FAKE_MARKER)
		return NULL;
	return &fake_events[id - FAKE_ID_BASE];
}

static const char *fake_event_system(const struct tb_event *ev)
{
	return ev->sys;
}

static const char *fake_event_name(const struct tb_event *ev)
{
	return ev->name;
}

static unsigned int fake_event_id(const struct tb_event *ev)
{
	return FAKE_ID_BASE + (unsigned int)fake_idx(ev);
}

static int fake_event_format(const struct tb_event *ev, struct tfs_seq *s)
{
	tfs_seq_printf(s, "name: %s\nID: %u\nformat:\n", ev->name, fake_event_id(ev));
	for (size_t i = 0; i < ev->nr; i++)
		tfs_seq_printf(s, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%u;\n%s",
			       ev->fields[i].type, ev->fields[i].name, ev->fields[i].offset,
			       ev->fields[i].size, ev->fields[i].is_signed, i == 4 ? "\n" : "");
	return tfs_seq_puts(s, "\nprint fmt: \"fake\"\n");
}

static int fake_event_print(const struct tb_event *ev, const void *rec, size_t len,
			    struct tfs_seq *s)
{
	const unsigned char *r = rec;

	for (size_t i = 5; i < ev->nr; i++) {
		const struct evt_field *f = &ev->fields[i];
		int32_t v;

		if (f->kind == EVT_FIELD_STRING) {
			size_t max = f->size ? f->size : len - f->offset;

			const char *str = (const char *)r + f->offset;

			tfs_seq_printf(s, "%s%.*s", i > 5 ? " " : "", (int)strnlen(str, max), str);
			continue;
		}
		if ((size_t)f->offset + 4 > len)
			return tfs_seq_puts(s, "<short>");
		memcpy(&v, r + f->offset, 4);
		tfs_seq_printf(s, "%s%s=%d", i > 5 ? " " : "", f->name, v);
	}
	return 0;
}

static bool fake_event_enabled(struct evt_instance *in, const struct tb_event *ev)
{
	return in->enabled[fake_idx(ev)];
}

static int fake_event_enable(struct evt_instance *in, const struct tb_event *ev, bool on)
{
	in->enabled[fake_idx(ev)] = on;
	return 0;
}

static int fake_event_filter(struct evt_instance *in, const struct tb_event *ev,
			     const char *expr, struct filter_error *err)
{
	struct filter_prog *prog = NULL;
	int ret, e = fake_idx(ev);

	ret = filter_compile(ev->fields, ev->nr, expr, &prog, err);
	if (ret)
		return ret;
	filter_free(in->filter[e]);
	in->filter[e] = prog;
	free(in->shown[e]);
	in->shown[e] = NULL;
	return 0;
}

static int fake_event_filter_show(struct evt_instance *in, const struct tb_event *ev,
				  struct tfs_seq *s)
{
	int e = fake_idx(ev);

	if (in->shown[e])
		return tfs_seq_puts(s, in->shown[e]);
	if (in->filter[e])
		return tfs_seq_printf(s, "%s\n", filter_prog_text(in->filter[e]));
	return tfs_seq_puts(s, "none\n");
}

static int fake_event_filter_set_shown(struct evt_instance *in, const struct tb_event *ev,
				       const char *text)
{
	int e = fake_idx(ev);

	free(in->shown[e]);
	in->shown[e] = strdup(text);
	return in->shown[e] ? 0 : -ENOMEM;
}

static const struct tb_event *fake_marker_event(void)
{
	return &fake_events[FAKE_MARKER];
}

static const struct tfs_backend_ops fake_backend = {
	.marker_event = fake_marker_event,
	.top = fake_top,
	.instance_lookup = fake_instance_lookup,
	.instance_create = fake_instance_create,
	.instance_destroy = fake_instance_destroy,
	.instance_for_each = fake_instance_for_each,
	.buffer = fake_buffer,
	.tracing_on = fake_tracing_on,
	.set_tracing_on = fake_set_tracing_on,
	.set_clock = fake_set_clock,
	.resize_kb = fake_resize_kb,
	.reset = fake_reset,
	.marker_write = fake_marker_write,
	.set_pids = fake_set_pids,
	.pids_show = fake_pids_show,
	.event_for_each = fake_event_for_each,
	.event_by_id = fake_event_by_id,
	.event_system = fake_event_system,
	.event_name = fake_event_name,
	.event_id = fake_event_id,
	.event_format = fake_event_format,
	.event_print = fake_event_print,
	.event_enabled = fake_event_enabled,
	.event_enable = fake_event_enable,
	.event_filter = fake_event_filter,
	.event_filter_show = fake_event_filter_show,
	.event_filter_set_shown = fake_event_filter_set_shown,
	.error_log = fake_error_log,
};

void fake_install(void)
{
	if (fake_inst_init(&fake_inst[0], "")) {
		fprintf(stderr, "fake: ring buffer alloc failed\n");
		abort();
	}
	tfs_backend = &fake_backend;
}

int fake_fire(struct evt_instance *in, int e, int pid, int value, const char *comm)
{
	struct fake_rec r = { 0 };
	size_t len = fake_events[e].size;
	bool pid_ok = !in->nr_pids;

	if (!in->on || !in->enabled[e])
		return 0;
	for (size_t i = 0; i < in->nr_pids; i++)
		if (in->pids[i] == pid || in->pids[i] == getpid())
			pid_ok = true;
	if (!pid_ok)
		return 0;
	r.type = (uint16_t)(FAKE_ID_BASE + e);
	r.pid = pid;
	r.tgid = getpid();
	if (e == EV_SWITCH || e == EV_WAKEUP) {
		snprintf(r.u.sw.comm, sizeof(r.u.sw.comm), "%s", comm ? comm : "");
		r.u.sw.pid = value;
		r.u.sw.next = value + 1;
	} else {
		r.u.value = value;
	}
	if (in->filter[e] && !filter_match(in->filter[e], &r, len))
		return 0;
	return evt_ring_buffer_write(in->rb, len, &r) ? -EIO : 1;
}
