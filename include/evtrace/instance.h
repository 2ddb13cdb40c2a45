/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/instance.h - tracing instances: the top one and named ones.
 *
 * An instance is what a directory of /sys/kernel/tracing (or of
 * instances/<name>/) holds: its own ring buffer (per CPU), tracing_on,
 * buffer size, trace_clock, set_event_pid, and for every registered event
 * its own enable state, soft-disable flag and filter (the kernel's
 * trace_event_file). The top instance always exists.
 *
 * Synchronization: every function here may be called from any thread,
 * concurrently with writers and with each other, except from a signal
 * handler. evt_instance_destroy() fails with -EBUSY while a trace
 * iterator of the instance is open.
 *
 * Errors: functions returning int give 0 (or a count) or a negative errno
 * value and never touch errno.
 */
#ifndef EVTRACE_INSTANCE_H
#define EVTRACE_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <evtrace/error.h>	/* evt_error_detail() */

#ifdef __cplusplus
extern "C" {
#endif

struct evt_instance;
struct evt_seq;

/* --- life ------------------------------------------------------------------------ */

/*
 * The top instance (allocated at first use; never destroyed: the pointer is valid for the
 * life of the process). NULL only on ENOMEM.
 */
struct evt_instance *evt_instance_top(void);

/**
 * evt_instance_create() - a new named instance, all events off, tracing on.
 * @name: [A-Za-z0-9_.-]{1,63}, not "." or "..".
 * Return: 0, -EEXIST, -EINVAL, -ENOMEM.
 */
int evt_instance_create(const char *name, struct evt_instance **instp);

/*
 * The instance called @name (NULL or "" = the top one), or NULL. Borrowed, not a
 * reference: valid until evt_instance_destroy() of it returns (never, for the top one),
 * which any thread, or another process through the control socket (rmdir
 * instances/NAME), may do. Where that can happen, take a reference instead.
 */
struct evt_instance *evt_instance_lookup(const char *name);

/**
 * evt_instance_get() - the instance called @name, with a reference.
 * @name:  as for evt_instance_lookup().
 * @instp: the instance, valid until evt_instance_put(): meanwhile
 *         evt_instance_destroy() of it (and rmdir) fails with -EBUSY.
 *
 * The kernel's trace_array_get_by_name() without the creation, and trace_array_put().
 * Context: any thread but signal handlers; takes the event lock.
 * Return: 0, -ENOENT (no such instance), -EINVAL.
 */
int evt_instance_get(const char *name, struct evt_instance **instp);
void evt_instance_put(struct evt_instance *inst);

/**
 * evt_instance_destroy() - remove a named instance and free its buffer.
 * Return: 0, -EINVAL for the top instance, -EBUSY while it is being read.
 */
int evt_instance_destroy(struct evt_instance *inst);

/* "" for the top instance. Borrowed from @inst: valid until @inst is destroyed. */
const char *evt_instance_name(const struct evt_instance *inst);

/*
 * Calls @fn for each named instance, sorted by name (not the top one), until it returns
 * non-zero. @fn runs under the event lock: it must not call lookup/create/destroy/enable.
 */
int evt_instance_foreach(int (*fn)(struct evt_instance *inst, void *arg), void *arg);

/* --- settings -------------------------------------------------------------------- */

int evt_instance_tracing_on(struct evt_instance *inst, bool on);
bool evt_instance_tracing_is_on(const struct evt_instance *inst);

/* buffer_size_kb: per CPU (cpu = -1: every CPU; reading -1 gives -EAGAIN
 * ("X" in the kernel) when the CPUs differ). Resizing keeps the data. */
int evt_instance_buffer_size_kb(struct evt_instance *inst, int cpu, unsigned long *kb);
int evt_instance_resize_kb(struct evt_instance *inst, int cpu, unsigned long kb);
unsigned long evt_instance_buffer_total_size_kb(struct evt_instance *inst);

/* trace_clock: the name of the current clock (a static string); set by name (-EINVAL if unknown).
 * evt_instance_clock_list() writes the `trace_clock` file ("[local] global ...\n"). */
const char *evt_instance_clock(const struct evt_instance *inst);
int evt_instance_set_clock(struct evt_instance *inst, const char *name);
int evt_instance_clock_list(const struct evt_instance *inst, char *buf, size_t size);

/* Empty the ring buffer (writing to `trace` with O_TRUNC). */
int evt_instance_reset(struct evt_instance *inst);

/*
 * The live ring buffer (for trace_pipe_raw and statistics). Borrowed, owned by the
 * instance: valid until @inst is destroyed; once a snapshot buffer exists, a snapshot may
 * make it the snapshot buffer, then valid until that is freed (`echo 0 > snapshot`).
 */
struct evt_ring_buffer *evt_instance_ring_buffer(struct evt_instance *inst);
int evt_instance_nr_cpus(const struct evt_instance *inst);

/* --- set_event_pid ---------------------------------------------------------------- */

#define EVT_PID_APPEND		(1u << 0)	/* add to the list (>>) instead of replacing it */
#define EVT_PID_PROCESS		(1u << 1)	/* these pids are processes: match common_tgid */

/**
 * evt_instance_set_event_pid() - which threads (or processes) record events.
 * @pids, @n: the ids; n = 0 without EVT_PID_APPEND clears the list (all record).
 * Return: 0, -EINVAL (a pid <= 0), -ENOMEM.
 */
int evt_instance_set_event_pid(struct evt_instance *inst, const pid_t *pids, size_t n,
			       unsigned int flags);

/* The `set_event_pid` file: one id per line, thread ids then process ids, each
 * sorted. Return: length as snprintf. */
int evt_instance_event_pid_text(struct evt_instance *inst, char *buf, size_t size);

/* Would the calling thread's events be recorded in @inst (pid filter only)? */
bool evt_instance_pid_allowed(struct evt_instance *inst, pid_t tid, pid_t tgid);

/* --- per-event state --------------------------------------------------------------- */

/**
 * evt_instance_event_enable() - enable or disable every event matching the globs.
 * @system, @name: globs (NULL = "*").
 * Return: the number of events matched, -EINVAL when none matched (the
 * kernel's answer to `echo nosuch > set_event`); when none could be enabled
 * because a TRACE_EVENT_FN() reg callback failed, its error.
 */
int evt_instance_event_enable(struct evt_instance *inst, const char *system, const char *name,
			      bool enable);

/**
 * evt_instance_event_state() - the read-back of an `enable` file.
 * @system, @name: exact names; NULL = all (events/enable, events/<sys>/enable).
 * Return: '0' all off, '1' all on, 'X' mixed, '?' no event; for one event in
 * soft mode '0'/'1' as well (see evt_instance_event_flags()).
 */
int evt_instance_event_state(struct evt_instance *inst, const char *system, const char *name);

/* Flags of one event in one instance (EVT_FILE_* below), or -ENOENT. */
int evt_instance_event_flags(struct evt_instance *inst, const char *system, const char *name);

#define EVT_FILE_ENABLED	(1u << 0)	/* enabled (the `enable` file says 1) */
#define EVT_FILE_SOFT_MODE	(1u << 1)	/* kept on for triggers even when "disabled" */
#define EVT_FILE_SOFT_DISABLED	(1u << 2)	/* on but records nothing (triggers run) */
#define EVT_FILE_FILTERED	(1u << 3)	/* has a filter */

/* Soft mode (for triggers): the event is on and writes nothing while soft-disabled. */
int evt_instance_event_soft(struct evt_instance *inst, const char *system, const char *name,
			    bool soft_mode, bool soft_disabled);

/**
 * evt_instance_event_filter() - compile @expr for each matching event and
 * publish it (events writing meanwhile see the old or the new filter).
 * @expr: filter expression; "0" or "" clears.
 * Return: number of events whose filter changed, or the compiler's error
 * (the previous filter stays; evt_error_detail() says "what (at N)", N the
 * offset in @expr).
 */
int evt_instance_event_filter(struct evt_instance *inst, const char *system, const char *name,
			      const char *expr);

/* The filter text of one event ("none" when there is none). Return: length as snprintf. */
int evt_instance_event_filter_text(struct evt_instance *inst, const char *system,
				   const char *name, char *buf, size_t size);

/* The events enabled in @inst as `set_event` lists them ("sys:name\n"). */
int evt_instance_set_event_text(struct evt_instance *inst, char *buf, size_t size);

/* --- trace_marker, saved_cmdlines ------------------------------------------------- */

/* Writes a ftrace:print event ("tracing_mark_write: <text>"). Return: len or -errno. */
int evt_instance_trace_marker(struct evt_instance *inst, const char *buf, size_t len);

/* saved_cmdlines: "tid comm\n" lines. Return: length as snprintf. */
int evt_saved_cmdlines_text(char *buf, size_t size);
/* The comm saved for @tid ("<...>" if none): copies at most 16 bytes with NUL. */
void evt_saved_cmdline(pid_t tid, char comm[16]);

/* --- reading the trace ------------------------------------------------------------ */

struct evt_trace_iter;

#define EVT_ITER_CONSUME	(1u << 0)	/* trace_pipe: records are removed */

/**
 * evt_trace_iter_open() - a reader of @inst's buffer, merged by time stamp.
 * @cpu: one CPU (per_cpu/cpuN/trace), or -1 for all.
 * @flags: EVT_ITER_*.
 */
int evt_trace_iter_open(struct evt_instance *inst, int cpu, unsigned int flags,
			struct evt_trace_iter **iterp);

/**
 * evt_trace_iter_next_line() - format the next record as a `trace` line.
 * Appends one line ending in "\n" to @s; on a full @s nothing is appended,
 * the record is kept for the next call and -ENOSPC is returned.
 * Return: 1 a line was added, 0 no more records, negative errno.
 */
int evt_trace_iter_next_line(struct evt_trace_iter *iter, struct evt_seq *s);

/* The `trace` file header (# tracer: nop, entries-in-buffer line, columns). */
int evt_trace_iter_print_header(struct evt_trace_iter *iter, struct evt_seq *s);

void evt_trace_iter_close(struct evt_trace_iter *iter);

/* The whole `trace` file of @inst (cpu -1) or of per_cpu/cpuN, header included.
 * Return: length as snprintf. */
int evt_instance_trace_text(struct evt_instance *inst, int cpu, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_INSTANCE_H */
