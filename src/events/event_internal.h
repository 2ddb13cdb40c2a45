/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * events/event_internal.h - the event and instance core, for the layers
 * built on it inside the library (the tracing tree, triggers, tools).
 *
 * Objects:
 *   struct evt_event        one registered event (system, name, ID, fields,
 *                           parsed print format), library-owned copies; it
 *                           is never freed: after unregistration (dlclose)
 *                           it stays as a "zombie" that prints its old
 *                           records and comes back, same ID, if the same
 *                           definition registers again (docs/events.md).
 *   struct evt_instance     a tracing instance (the top one, named ones).
 *   struct trace_event_file an event in an instance: enable flags, filter,
 *                           (later) triggers. One per (instance, event),
 *                           created with whichever comes second.
 *
 * Locking: one mutex, event_mutex (event_lock()/event_unlock()), guards
 * the registry, the instance list, every file's flags and filter
 * pointer, and each event's active set. It is not recursive. Writers
 * never take it: they read an event's active set, a file's filter and an
 * instance's pid list under rcu_lock() (compat/rcu.h); updaters publish
 * with rcu_publish() (a release store) and queue what they replace on a
 * garbage list that event_unlock() frees after one synchronize_rcu(). So
 * event_unlock() may wait for a grace period: never call it (or anything
 * that locks) from inside a TP_fast_assign or a signal handler.
 * Functions named *_locked expect event_mutex held.
 */
#ifndef EVT_EVENTS_EVENT_INTERNAL_H
#define EVT_EVENTS_EVENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/seq.h>

#include "compat/atomic.h"
#include "events/field.h"

struct error_log;
struct filter_prog;
struct print_fmt;
struct trace_event_file;
struct trigger_data;
struct trigger_list;

/* The ID of ftrace:print (trace_marker), the kernel's TRACE_PRINT. */
#define EVENT_ID_PRINT		5
/*
 * The "ip" of its records. User space has no tracing_mark_write to point at; a
 * fixed placeholder that no code address equals (not 0: trace.dat files name
 * this address tracing_mark_write in their kallsyms, and a symbol at 0 would
 * also name every empty caller slot of a kernel_stack record, which
 * KernelShark prints; output/tracedat_write.c).
 */
#define EVENT_PRINT_IP		1
/* The ID of ftrace:kernel_stack (the stacktrace trigger's records), the kernel's TRACE_STACK. */
#define EVENT_ID_KERNEL_STACK	4
/* Its layout: common fields, int size (frames) at 12, u64 caller[size] from 16. */
#define EVENT_STACK_CALLER_OFF	16
/* Registered events get IDs from here up (the kernel's dynamic range starts near). */
#define EVENT_ID_FIRST		32
#define EVENT_ID_MAX		65535

/* The writers' view of which instances record an event (RCU-published). */
struct event_active {
	unsigned int nr;
	struct trace_event_file *files[];
};

struct evt_event {
	struct evt_event_def *def;		/* NULL for built-in events (ftrace:print) */
	unsigned int id;
	const char *system;
	const char *name;
	struct evt_field *fields;		/* common fields first, then the event's */
	unsigned int nr_fields;
	unsigned int nr_common;			/* EVT_NR_COMMON_FIELDS */
	unsigned int size;			/* fixed part of the record, common included */
	const char *print_fmt_text;		/* the `print fmt:` text */
	struct print_fmt *print_fmt;		/* parsed; NULL if it did not parse */
	struct event_active *active;		/* RCU; NULL = no instance records it */
	volatile uint8_t *key;			/* the call sites' byte */
	uint8_t key_local;			/* key of built-in events */
	bool live;				/* registered (not a zombie) */
	bool reg_on;				/* def->reg ran, unreg not yet (event_mutex) */
	/*
	 * How records print when not by the print format (synthetic events:
	 * the kernel's print_synth_event()); NULL = print_fmt. Set once under
	 * event_mutex after registration, kept by the zombie; must use only @ev.
	 */
	int (*print)(const struct evt_event *ev, const void *rec, size_t len, struct evt_seq *s);
};

/*
 * A layer above's state on each event file, typed by its ops (the kernel hangs
 * triggers on trace_event_file): one slot per user, set under event_mutex with
 * event_file_ext_set_locked(), read with event_file_ext_get().
 */
enum event_file_ext_id {
	EVENT_FILE_EXT_TRIGGER,	/* trigger/trigger.c: struct trigger_file */
	EVENT_FILE_EXT_MAX,
};

struct event_file_ext_ops {
	const char *name;
	/* Free @data when @file is freed: no lock held, no writer can see @file. */
	void (*free)(struct trace_event_file *file, void *data);
};

struct event_file_ext {
	const struct event_file_ext_ops *ops;
	void *data;		/* release/acquire: event_file_ext_set_locked()/_get() */
};

struct trace_event_file {
	struct evt_event *event;
	struct evt_instance *inst;
	unsigned int flags;			/* EVT_FILE_* (instance.h), event_mutex */
	struct filter_prog *filter;		/* RCU; NULL = none */
	/*
	 * What reading `filter` shows when it is not filter_prog_text(filter):
	 * a rejected expression, caret and parse_error (malloc'd, freed on
	 * the next filter change or with the file). Set by the tracing tree.
	 */
	char *filter_shown;
	/* The triggers the writer runs: RCU, published by the trigger layer (event_mutex). */
	struct trigger_list *triggers;
	/* A set of this file alone, for writers that target one instance
	 * (event_file_trace_reserve(): the synthetic event API). */
	struct event_active *self;
	struct event_file_ext ext[EVENT_FILE_EXT_MAX];	/* the layers above: their state */
};

/*
 * A file's triggers as the writer sees them: the trigger layer builds the list
 * (trigger/trigger.h, struct trigger_data) and publishes it in
 * trace_event_file.triggers; the writer reads @cond and hands the list to the
 * trigger hooks (event_set_trigger_hooks()). Immutable once published.
 */
struct trigger_list {
	unsigned int nr;
	bool cond;		   /* some trigger has a filter, reads the record or is post */
	struct trigger_data *td[]; /* newest first, as the kernel lists them */
};

/* The writer's view of @file's triggers: inside rcu_lock(). */
static inline struct trigger_list *event_file_triggers_rcu(struct trace_event_file *file)
{
	/* Acquire (rcu_deref): a published list and its triggers are complete (pairs with
	 * the trigger layer's rcu_publish). */
	return ld_acquire(&file->triggers);
}

/*
 * event_file_ext_get - the state a layer above keeps on @file in slot @id (NULL: none).
 * Context: event_mutex, or any thread for a slot whose owner publishes it once.
 */
static inline void *event_file_ext_get(const struct trace_event_file *file,
				       enum event_file_ext_id id)
{
	/* Acquire: the data is initialized before it is seen (event_file_ext_set_locked()). */
	return ld_acquire(&file->ext[id].data);
}

/*
 * event_file_ext_set_locked - hang @data, of type @ops, on @file in slot @id:
 * @ops->free(@file, @data) runs when the file is freed (its instance destroyed or
 * the library unloaded; no writer can reach the file then, no grace period).
 * Context: event_mutex.
 */
void event_file_ext_set_locked(struct trace_event_file *file, enum event_file_ext_id id,
			       const struct event_file_ext_ops *ops, void *data);

/* --- locking -------------------------------------------------------------------------- */

void event_lock(void);
void event_unlock(void);

/*
 * event_assert_locked - the kernel's lockdep_assert_held(&event_mutex): a function
 * named *_locked starts with it. In builds without NDEBUG (debug, the default
 * RelWithDebInfo, the sanitizer trees) a call without event_mutex held by this
 * thread prints the function and aborts; with NDEBUG (Release, make bench) it is
 * nothing.
 */
#ifndef NDEBUG
void event_assert_locked_fn(const char *func);
#define event_assert_locked() event_assert_locked_fn(__func__)
#else
#define event_assert_locked() do { } while (0)
#endif

/* --- registry ------------------------------------------------------------------------- */

/*
 * evt_event_register() and evt_event_unregister() with event_mutex held
 * (events the library defines itself at run time: synthetic events).
 */
int event_register_locked(struct evt_event_def *def);
void event_unregister_locked(struct evt_event_def *def);

/* Exact lookup. */
struct evt_event *event_find_locked(const char *system, const char *name);
struct evt_event *event_find_id_locked(unsigned int id);

/*
 * Calls @fn for every event matching the globs (NULL = any), sorted by
 * system then name. Stops at a non-zero return and gives it back.
 */
int event_foreach_locked(const char *system, const char *name,
			 int (*fn)(struct evt_event *ev, void *arg), void *arg);

/* Calls @fn for each distinct system name, sorted. */
int event_foreach_system_locked(int (*fn)(const char *system, void *arg), void *arg);

/* Shell-style glob as set_event uses it (`*`, `?`, `[...]`). */
bool event_glob_match(const char *glob, const char *str);

/* Event lookup for readers: by ID, without the mutex; the result is valid
 * inside rcu_read_lock() only. */
struct evt_event *event_find_id_rcu(unsigned int id);

/* --- files ---------------------------------------------------------------------------- */

/* The file of @ev in @inst (always exists for a registered event). */
struct trace_event_file *event_file_locked(struct evt_instance *inst, struct evt_event *ev);

/* Enable/disable, soft mode: update flags and the event's active set and key. */
int event_file_enable_locked(struct trace_event_file *file, bool enable);
/*
 * Run @ev's reg callback (TRACE_EVENT_FN) unless it ran already; the enabling
 * paths call it before an instance starts recording @ev, and fail with its
 * error. event_update_active_locked() runs unreg when no instance records it.
 */
int event_reg_locked(struct evt_event *ev);
int event_file_soft_locked(struct trace_event_file *file, bool soft_mode, bool soft_disabled);

/*
 * Publish @prog (NULL clears) as @file's filter; the old program is freed
 * after a grace period (this call waits for it: do not call it from a
 * writer). Clears filter_shown.
 */
void event_file_set_filter_locked(struct trace_event_file *file, struct filter_prog *prog);

/* Publish several at once with one grace period: files[i] gets progs[i]. */
void event_files_set_filters_locked(struct trace_event_file **files,
				    struct filter_prog **progs, size_t n);

/* --- instances ------------------------------------------------------------------------ */

#define INSTANCE_MAX		64	/* the top one and 63 named ones */
#define INSTANCE_NAME_MAX	64

/* set_event_pid, RCU-published: tids[0..nr_tid) then tgids, each sorted. */
struct pid_list {
	uint32_t nr_tid;
	uint32_t nr_tgid;
	pid_t ids[];
};

struct evt_instance {
	char name[INSTANCE_NAME_MAX];		/* "" for the top instance */
	/*
	 * The buffer writers record into: with a snapshot buffer allocated, one of
	 * snap_bufs[], and a snapshot (instance_snapshot_swap(), writer-safe)
	 * exchanges it for the other with one compare-and-swap, as the kernel's
	 * update_max_tr() swaps array_buffer and max_buffer. Writers load it once
	 * per record (acquire) and commit where they reserved (instance_rb_of()).
	 */
	struct evt_ring_buffer *rb;
	/* The two buffers while a snapshot buffer exists, else NULL (event_mutex;
	 * cleared a grace period after snap_allocated). */
	struct evt_ring_buffer *snap_bufs[2];
	uint8_t snap_allocated;			/* acquire: snapshots may swap rb */
	unsigned int snap_ref;			/* snapshot triggers (event_mutex) */
	uint8_t tracing_on;			/* relaxed atomic; writers skip when 0 */
	uint8_t dead;				/* being destroyed */
	struct pid_list *pids;			/* RCU; NULL = every thread */
	struct trace_event_file **files;	/* by event ID; event_mutex */
	unsigned int nr_files;			/* capacity of files[] */
	int readers;				/* open iterators (destroy gives -EBUSY) */
	int refs;				/* evt_instance_get() (destroy: -EBUSY) */
	unsigned long buffer_kb;		/* per CPU, as last set */
	struct error_log *elog;			/* its error_log (events/error_log.h) */
};

/* The buffer writers record into now (the snapshot buffer is the other one). */
static inline struct evt_ring_buffer *instance_live_rb(const struct evt_instance *inst)
{
	/* Acquire: a buffer swapped in is complete (pairs with the CAS's release). */
	return ld_acquire(&inst->rb);
}

/*
 * Snapshots (ftrace.rst "Snapshot"). instance_snapshot_swap() is the only
 * writer-safe one (the snapshot trigger): 0, or -ENODEV when no snapshot
 * buffer is allocated. Two swaps racing make one (the other sees its CAS
 * fail and counts the snapshot as taken). The rest take event_mutex:
 *   _alloc     allocate the snapshot buffer (same size and clock) if needed
 *   _free      free it: -EBUSY while a snapshot trigger or a reader uses it
 *   _write     what `echo @val > snapshot` (@cpu -1) or per_cpu/cpuN does:
 *              0 free, 1 alloc + swap (one CPU: swap that CPU's contents),
 *              else clear; -EINVAL for 0 on one CPU
 *   _get/_put  a snapshot trigger's reference (get allocates)
 *   _buffer    the snapshot buffer or NULL (valid while readers holds it)
 */
int instance_snapshot_swap(struct evt_instance *inst);
/* Empty the live buffer's @cpu (-1: all), waiting for a writer caught mid-event. */
int instance_reset_cpu(struct evt_instance *inst, int cpu);
int instance_snapshot_alloc_locked(struct evt_instance *inst);
int instance_snapshot_write(struct evt_instance *inst, int cpu, unsigned long val);
int instance_snapshot_get_locked(struct evt_instance *inst);
void instance_snapshot_put_locked(struct evt_instance *inst);
struct evt_ring_buffer *instance_snapshot_buffer_locked(struct evt_instance *inst);
/* The buffer of @inst that holds @rbe, reserved by a writer still in its RCU section. */
struct evt_ring_buffer *instance_rb_of(struct evt_instance *inst, const void *rbe);

struct evt_instance *instance_lookup_locked(const char *name);
int instance_foreach_locked(int (*fn)(struct evt_instance *inst, void *arg), void *arg);
struct evt_instance *instance_top_locked(void);
/*
 * instance_error_log - @inst's error_log (events/error_log.h), where filter, trigger,
 * hist, synthetic-event and probe commands report their errors; it lives and dies with
 * the instance. Context: any thread; the log has its own lock. Return: NULL for NULL.
 */
struct error_log *instance_error_log(struct evt_instance *inst);

/* Used by the registry (event_mutex held). */
unsigned int instance_active_files_locked(struct evt_event *ev,
					  struct trace_event_file **files, unsigned int max);
int instance_grow_files_locked(unsigned int nr_ids);
int instance_add_event_locked(struct evt_event *ev);
void instance_remove_event_locked(struct evt_event *ev);
void event_update_active_locked(struct evt_event *ev);
unsigned int event_id_limit_locked(void);

/* The writer's set_event_pid check (inside rcu_lock()). */
bool instance_pid_allowed_rcu(struct evt_instance *inst, pid_t tid, pid_t tgid);

/* Free @p with free() after the next grace period (when event_mutex is released). */
void event_gc_free(void *p);
/* Call @fn(@p) after the next grace period (when event_mutex is released). */
void event_gc_add(void *p, void (*fn)(void *));

/* Built-in events (ftrace:print). */
struct evt_event *event_new_builtin(const char *system, const char *name,
				    const struct evt_field *fields, unsigned int nr,
				    const char *print_fmt, unsigned int size);
int event_register_builtin_locked(struct evt_event *ev, unsigned int id);
extern struct evt_event *event_print;

/* EVTRACE_EVENTS applied to one new event (top instance). */
void events_env_apply_locked(struct evt_event *ev);

/*
 * event_file_trace_reserve() - evt_trace_event_reserve() into one file's
 * instance only (the kernel's trace_event_buffer_reserve() on a file); the
 * caller checked that the file records (enabled or soft mode). Continue
 * with evt_trace_event_commit() as usual. Writer context.
 */
void *event_file_trace_reserve(struct evt_trace_event_buffer *fb, struct trace_event_file *file,
			       size_t len);

/*
 * A write made from inside another write on the same thread (a trigger
 * action tracing a synthetic event, the kernel's ring_buffer_nest_start()):
 * it takes the outer write's context flags instead of looking like a
 * signal handler's. Returns whether a write was in progress; pass it to
 * event_trace_nest_end(). Writer context, signal safe.
 */
bool event_trace_nest_start(void);
void event_trace_nest_end(bool nested);

/*
 * The write path's hooks, installed by the layers above (registration, never a
 * call up): the trigger layer's runners, the kernel's event_triggers_call() and
 * event_triggers_post_call(), set once before it publishes its first list
 * (trigger_init()). Writer context for both: no lock, no allocation, signal safe.
 *   test   run @tl's triggers whose filter @rec matches (@rec NULL: a list that
 *          is not cond, before anything is reserved); return the post ones' mask
 *   post   run the post triggers of @tl in @mask, after the commit or discard
 */
struct event_trigger_hooks {
	unsigned long (*test)(const struct trigger_list *tl, const void *rec, size_t len);
	void (*post)(const struct trigger_list *tl, unsigned long mask);
};
void event_set_trigger_hooks(const struct event_trigger_hooks *hooks);

/*
 * event_set_stack_skip_hook() - @is_machinery(pc) tells a return address of the
 * layers above's own machinery (a probe's trampoline) that stack traces do not
 * show: frames above the traced call site up to the last such one, among the
 * first few, are skipped, as the kernel skips its kprobe frames. Set once (NULL:
 * none); @is_machinery runs in the writer's context: lock-free, no allocation.
 */
void event_set_stack_skip_hook(bool (*is_machinery)(uint64_t pc));

/*
 * The start-up hold (docs/control.md), owned by the control layer: while
 * @event_hold_armed is non-zero the first write of a thread, outside any other
 * write, calls the hook set by event_set_hold_hook() (a futex wait until a
 * client releases the program). The owner sets the hook, then arms with a
 * release store; writers test the flag relaxed, the hook re-reads it acquire.
 */
extern int event_hold_armed;
void event_set_hold_hook(void (*wait)(void));

/*
 * Library locks the calling thread holds that a releasing client needs
 * (event_lock(), tfs_lock()): while non-zero the start-up hold does not park
 * (an event fired from a program callback run under event_lock(), a
 * trace_marker write under tfs_lock()). Who takes such a lock counts it here;
 * only this thread reads its count.
 */
extern __thread unsigned int event_locks_held;

/* The writer's fork handler (events_init() installs it). */
void writer_init(void);

/*
 * Allocate the writers' scratch records (writer.c), once: a trigger list
 * whose triggers need the record calls it before it is published.
 * Context: event_mutex (not a writer). Return: 0 or -ENOMEM.
 */
int event_scratch_prepare(void);
/* Writes whose filtered triggers were skipped for want of a scratch record. */
unsigned long event_scratch_misses(void);

/*
 * Record the calling thread's stack above the traced call site as an
 * ftrace:kernel_stack record in @inst (the stacktrace trigger). Return: 0,
 * -EBADF (tracing off), -ENOBUFS (no room).
 * Context: writer (trigger fire): no lock, no allocation after events_init().
 */
int event_trace_stack(struct evt_instance *inst);

/*
 * The return addresses above the traced call site (at most @max) into @ips
 * (hist's stacktrace keys). Return: how many. Context: as event_trace_stack().
 */
int event_stack_frames(uint64_t *ips, int max);

/* The writer's thread identity (cached; reset in a fork child). */
pid_t event_current_tid(void);
pid_t event_current_tgid(void);

/* --- printing --------------------------------------------------------------------------- */

/*
 * The print-format interpreter. print_fmt_parse() compiles the text of a
 * `print fmt:` line against @fields; print_fmt_print() formats record
 * @rec of @len bytes (every read bounds-checked against @len).
 */
struct print_fmt *print_fmt_parse(const char *text, const struct evt_field *fields,
				  size_t nr_fields);
int print_fmt_print(const struct print_fmt *pf, const void *rec, size_t len, struct evt_seq *s);
void print_fmt_free(struct print_fmt *pf);

/* An iterator (evt_trace_iter_open's, non-consuming) on @inst's snapshot buffer, for the
 * `snapshot` file: its header is the kernel's snapshot help while the buffer is empty or not
 * allocated. */
int event_snapshot_iter_open(struct evt_instance *inst, int cpu, struct evt_trace_iter **iterp);

/* The print-format output of one record of @ev ("name: " not included). */
int event_print_record(const struct evt_event *ev, const void *rec, size_t len,
		       struct evt_seq *s);

/* The `format` file text of @ev. */
int event_format_seq(const struct evt_event *ev, struct evt_seq *s);

/* saved_cmdlines: remember the calling thread's comm (cheap after the first call). */
void cmdline_save_current(pid_t tid);
void cmdline_save(pid_t tid, const char *comm);

/* Start-up: top instance, built-in events, EVTRACE_EVENTS. Idempotent. */
void events_init(void);

#endif /* EVT_EVENTS_EVENT_INTERNAL_H */
