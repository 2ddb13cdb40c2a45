/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs/tfs_backend.h - what the tracing tree needs from the layers below.
 *
 * The files (tfs_files.c) are written against this small interface; one
 * file (tfs_backend.c) maps it onto the event registry and the instances
 * (events/, events/instance.c). Every function is called with tfs_lock held.
 *
 * Events are named by an opaque pointer that stays valid while the event is
 * registered; a file that was opened on an event looks it up again at each
 * read and write (an event of an unloaded library gives -ENODEV).
 */
#ifndef EVT_TRACEFS_TFS_BACKEND_H
#define EVT_TRACEFS_TFS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/clock.h>
#include <evtrace/ring_buffer.h>

#include "tracefs/tfs_internal.h"

struct tb_event;
struct error_log;
struct filter_error;

/*
 * The layers below, as a table: tfs_backend_core (tfs_backend.c) maps it onto
 * the event registry and the instances; tests put a small fake in its place
 * (tfs_backend is the table in use).
 */
typedef int (*tb_inst_fn)(void *arg, const char *name);
typedef int (*tb_event_fn)(void *arg, const struct tb_event *ev);

struct tfs_backend_ops {
	/* instances */
	struct evt_instance *(*top)(void);
	struct evt_instance *(*instance_lookup)(const char *name);
	int (*instance_create)(const char *name);
	int (*instance_destroy)(struct evt_instance *inst);
	int (*instance_for_each)(tb_inst_fn fn, void *arg);
	struct evt_ring_buffer *(*buffer)(struct evt_instance *inst);
	bool (*tracing_on)(struct evt_instance *inst);
	int (*set_tracing_on)(struct evt_instance *inst, bool on);
	int (*set_clock)(struct evt_instance *inst, enum evt_clock_id clock);
	int (*resize_kb)(struct evt_instance *inst, unsigned long kb, int cpu);
	/* `> trace`: empty the buffer's @cpu (-1: all) */
	int (*reset)(struct evt_instance *inst, int cpu);
	/* trace_marker: record a print event with @len bytes of text (no NUL) */
	int (*marker_write)(struct evt_instance *inst, const char *text, size_t len);
	/* set_event_pid: @n sorted ids (0: no pid filtering); threads or processes */
	int (*set_pids)(struct evt_instance *inst, const int *pids, size_t n);
	/* the `set_event_pid` file's text: one id per line, sorted */
	int (*pids_show)(struct evt_instance *inst, struct tfs_seq *s);

	/* saved_cmdlines: the comm of @tid ("<...>" if unknown), the file's text (NULL: ours) */
	void (*comm)(int tid, char comm[16]);
	int (*cmdlines_show)(struct tfs_seq *s);

	/*
	 * The trace text (NULL: tfs_print.c formats records itself): an iterator
	 * over @cpu (-1: all), consuming or not; the header; the next line (1),
	 * none (0) or -errno; close.
	 */
	int (*iter_open)(struct evt_instance *inst, int cpu, bool consume, void **itp);
	int (*iter_header)(void *it, struct tfs_seq *s);
	int (*iter_next)(void *it, struct tfs_seq *s);
	void (*iter_close)(void *it);
	/*
	 * The `snapshot` files (NULL: none): an iterator like iter_open's on the
	 * snapshot buffer (its header is the kernel's help when it is empty or not
	 * allocated); `echo @val > snapshot` on @cpu (-1: all).
	 */
	int (*snapshot_open)(struct evt_instance *inst, int cpu, void **itp);
	int (*snapshot_write)(struct evt_instance *inst, int cpu, unsigned long val);

	/* ftrace:print, the trace_marker event (not in event_for_each); NULL: none */
	const struct tb_event *(*marker_event)(void);

	/* events: for_each visits every registered event; a non-zero @fn return stops it */
	int (*event_for_each)(tb_event_fn fn, void *arg);
	const struct tb_event *(*event_by_id)(unsigned int id);
	const char *(*event_system)(const struct tb_event *ev);
	const char *(*event_name)(const struct tb_event *ev);
	unsigned int (*event_id)(const struct tb_event *ev);
	/* the `format` file's text */
	int (*event_format)(const struct tb_event *ev, struct tfs_seq *s);
	/* the event's print format applied to record @rec of @len bytes (no newline) */
	int (*event_print)(const struct tb_event *ev, const void *rec, size_t len,
			   struct tfs_seq *s);
	bool (*event_enabled)(struct evt_instance *inst, const struct tb_event *ev);
	int (*event_enable)(struct evt_instance *inst, const struct tb_event *ev, bool on);
	/*
	 * Compile @expr against @ev's fields and publish it as @ev's filter in
	 * @inst ("0" clears); clears the error display. On an error (@err filled,
	 * filter/filter.h) nothing changes: the filter in force stays.
	 */
	int (*event_filter)(struct evt_instance *inst, const struct tb_event *ev, const char *expr,
			    struct filter_error *err);
	/* what reading `filter` shows: the error display if set, else the filter or "none" */
	int (*event_filter_show)(struct evt_instance *inst, const struct tb_event *ev,
				 struct tfs_seq *s);
	/* set the error display (a copy of @text is kept until the next filter change) */
	int (*event_filter_set_shown)(struct evt_instance *inst, const struct tb_event *ev,
				      const char *text);
	/* The instance's error_log (it lives and dies with the instance); NULL: no memory. */
	struct error_log *(*error_log)(struct evt_instance *inst);
};

extern const struct tfs_backend_ops tfs_backend_core;
extern const struct tfs_backend_ops *tfs_backend;

#define TB (*tfs_backend)

static inline bool tb_is_top(const struct evt_instance *inst)
{
	return inst == TB.top();
}

#define tb_top()			TB.top()
#define tb_instance_lookup(n)		TB.instance_lookup(n)
#define tb_instance_create(n)		TB.instance_create(n)
#define tb_instance_destroy(i)		TB.instance_destroy(i)
#define tb_instance_for_each(f, a)	TB.instance_for_each(f, a)
#define tb_buffer(i)			TB.buffer(i)
#define tb_tracing_on(i)		TB.tracing_on(i)
#define tb_set_tracing_on(i, on)	TB.set_tracing_on(i, on)
#define tb_set_clock(i, c)		TB.set_clock(i, c)
#define tb_resize_kb(i, kb, c)		TB.resize_kb(i, kb, c)
#define tb_reset(i, c)			TB.reset(i, c)
#define tb_marker_write(i, t, l)	TB.marker_write(i, t, l)
#define tb_set_pids(i, p, n)		TB.set_pids(i, p, n)
#define tb_pids_show(i, s)		TB.pids_show(i, s)
#define tb_event_for_each(f, a)		TB.event_for_each(f, a)
#define tb_event_by_id(id)		TB.event_by_id(id)
#define tb_event_system(e)		TB.event_system(e)
#define tb_event_name(e)		TB.event_name(e)
#define tb_event_id(e)			TB.event_id(e)
#define tb_event_format(e, s)		TB.event_format(e, s)
#define tb_event_print(e, r, l, s)	TB.event_print(e, r, l, s)
#define tb_event_enabled(i, e)		TB.event_enabled(i, e)
#define tb_event_enable(i, e, on)	TB.event_enable(i, e, on)
#define tb_event_filter(i, e, x, r)	TB.event_filter(i, e, x, r)
#define tb_event_filter_show(i, e, s)	TB.event_filter_show(i, e, s)
#define tb_event_filter_set_shown(i, e, t) TB.event_filter_set_shown(i, e, t)

#endif /* EVT_TRACEFS_TFS_BACKEND_H */
