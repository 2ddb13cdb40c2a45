/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * synth/synth.h - synthetic events inside the library: the definitions, the
 * command parsers of `synthetic_events` and `dynamic_events`, and the hook
 * histogram actions (onmatch().trace(), onmax().trace(), ...) call.
 *
 * A synthetic event is a struct synth_event (this file) and, while it
 * exists, a registered event of system "synthetic" (events/event_internal.h)
 * that the synth_event owns: its struct evt_event_def, field descriptors,
 * print format and key byte. Deleting it unregisters the event (which stays
 * a zombie that prints its old records, as any unregistered event) and frees
 * the synth_event after an RCU grace period.
 *
 * Record layout, the kernel's (struct synth_trace_event): the common fields,
 * then one 8-byte slot per field in order (a value of 1, 2 or 4 bytes at
 * the start of its slot, the rest zero), except a char[N] field, which has a
 * slot of SYNTH_STR_LEN_MAX (256) bytes holding up to 255 bytes and a NUL;
 * a char[] or u64[] field's slot holds its __data_loc word (offset from the
 * record start, length) in its first 4 bytes, the data following the slots.
 *
 * Locking: the list of synthetic events is guarded by event_mutex
 * (event_lock()). Functions named *_locked expect it held; the others take
 * it (so they must not be called with it held). References (synth_event_get
 * and _put) are atomic and may be taken and dropped anywhere but in a
 * writer; synth_event_trace_vals() is writer-context safe.
 */
#ifndef EVT_SYNTH_SYNTH_H
#define EVT_SYNTH_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/events.h>
#include <evtrace/seq.h>
#include <evtrace/synth.h>

#define SYNTH_SYSTEM	  EVT_SYNTH_SYSTEM
#define SYNTH_FIELDS_MAX  EVT_SYNTH_FIELDS_MAX
#define SYNTH_STR_LEN_MAX EVT_SYNTH_STR_LEN_MAX /* slot of a char[N] field */
#define SYNTH_DYN_STR_MAX EVT_SYNTH_DYN_STR_MAX /* a char[] value, NUL included */
#define SYNTH_ARRAY_MAX	  EVT_SYNTH_ARRAY_MAX	/* elements of a u64[] value */
#define SYNTH_STACK_MAX	  EVT_SYNTH_STACK_MAX	/* entries of a long[] stacktrace */

struct synth_field {
	char *type; /* as the user wrote it: "u64", "unsigned int", "char[16]",
				 * "char[]", "u64[]" (what synthetic_events lists) */
	char *name;
	unsigned int size;   /* of the value: 1, 2, 4, 8; N for char[N]; 8 if dynamic */
	unsigned int offset; /* of its slot, from the record start */
	bool is_signed;
	bool is_string;	 /* char[N] or char[]: the value is a char * */
	bool is_dynamic; /* char[] or u64[]: __data_loc */
	bool is_array;	 /* u64[]: the value is a struct evt_synth_u64_array * */
	bool is_stack;	 /* long[]: the value is an unsigned long * ending at a 0 or
			  * after SYNTH_STACK_MAX entries (a stacktrace) */
};

struct synth_event {
	char *name;
	struct synth_field *fields;
	unsigned int n_fields;
	unsigned int n_dynamic; /* fields with is_dynamic */
	unsigned int size;	/* the record without dynamic data */
	int ref;		/* holders (atomic): delete gives -EBUSY while > 0 */
	/* the registered event */
	struct evt_event_def def;
	struct evt_field *efields;
	char *print_fmt;
	uint8_t key;
};

/*
 * synth_event_find() - the synthetic event called @name, with a reference
 * taken (drop it with synth_event_put()); NULL if there is none. While the
 * reference is held the event cannot be deleted (-EBUSY) and the pointer,
 * its name and its fields stay valid.
 * Context: takes event_mutex; synth_event_find_locked() expects it held.
 */
struct synth_event *synth_event_find(const char *name);
struct synth_event *synth_event_find_locked(const char *name);

/* Take another reference on @se (one is already held). Any context but a writer. */
void synth_event_get(struct synth_event *se);
/* Drop a reference (NULL: nothing). Any context but a writer; never frees. */
void synth_event_put(struct synth_event *se);

/*
 * synth_event_trace_vals() - record one event of @se in every instance that
 * records it (enabled, or soft mode for its triggers), with @n values, one
 * per field in order: integers as they are, strings (char[N], char[]) as
 * (uint64_t)(uintptr_t) of a NUL-terminated string (NULL records "(fault)"),
 * u64[] as a pointer to a struct evt_synth_u64_array, long[] as an unsigned long *
 * (a stacktrace: up to the first 0, at most SYNTH_STACK_MAX entries).
 *
 * Called from inside another event's write (a trigger's fire()), the record
 * takes that write's context flags (the kernel's ring_buffer_nest_start()).
 * Context: writer context: no lock, no allocation, no system call,
 * async-signal-safe; the caller holds a reference on @se.
 * Return: 0 (also when no instance records the event), -EINVAL if @n is
 * not se->n_fields.
 */
int synth_event_trace_vals(struct synth_event *se, const uint64_t *vals, unsigned int n);

/* The registered event of @se (its ID: evt_event_id()); NULL if not registered. */
struct evt_event *synth_event_event(struct synth_event *se);

/*
 * The command parsers. Each takes one line (no newline) as written to the
 * file, logs errors to the top instance's error_log as the kernel does
 * ("synthetic_events: error: Illegal name"), and returns 0 or -errno.
 * synth_run_command: a `synthetic_events` line (create, or "!name" delete).
 * dynevent_run_command: a `dynamic_events` line ("s:[synthetic/]name
 * fields", "-:[synthetic/]name", "!s:..."); other event kinds: -EINVAL.
 * Context: take event_mutex.
 */
int synth_run_command(const char *line);
int dynevent_run_command(const char *line);

/* A whole write (lines separated by '\n', '#' starts a comment): the kernel's
 * trace_parse_run_command(). Return: @len or the first line's error. */
long synth_parse_run(const char *buf, size_t len, int (*fn)(const char *line));

/* `>` on synthetic_events (@all false) or dynamic_events (@all true): delete every
 * synthetic event, or none and -EBUSY if one is in use. */
int synth_release_all(void);

/* The text of `synthetic_events` (@dyn false) or `dynamic_events` (@dyn true) into
 * a malloc'd string (*@textp). Return: its length or -ENOMEM. */
long synth_show(bool dyn, char **textp);

/*
 * struct dyn_event_ops - another kind of dynamic event (the kernel's
 * dyn_event_operations), registered by the layer that implements it (probe
 * events, src/probe/) with dyn_event_register(): `dynamic_events` offers each
 * line that is not a synthetic event's to every registered type in turn, and
 * the type's own file (`kprobe_events`) runs dyn_event_type_run().
 * Every callback runs with event_mutex held and must not take it.
 * @name:	 the type ("kprobe"), as dyn_event_type_run() names it
 * @create:	 one definition line; -ECANCELED when the line is not of this type
 *		 (the next type is tried), else 0 or -errno (errors logged by the type)
 * @release:	 delete @event (of group @system, NULL: any); -ENOENT if none is its
 * @release_all: delete every event of the type; with @dry_run only check:
 *		 -EBUSY if one is in use (so `>` deletes all or none)
 * @show:	 append the type's `dynamic_events` lines to @s
 */
struct dyn_event_ops {
	const char *name;
	int (*create)(const char *line);
	int (*release)(const char *system, const char *event);
	int (*release_all)(bool dry_run);
	void (*show)(struct evt_seq *s);
};

/*
 * dyn_event_register() - add a type (at most DYN_EVENT_TYPES_MAX; a type
 * registered twice stays once). Context: takes event_mutex.
 * Return: 0, -ENOSPC.
 */
#define DYN_EVENT_TYPES_MAX 4
int dyn_event_register(const struct dyn_event_ops *ops);

/*
 * The file of one type (`kprobe_events`): run a line with that type only
 * ("-:[GRP/]EVENT" deletes one of its events), `>` (release all of it), its
 * text. -ENODEV when no such type is registered. Context: take event_mutex.
 */
int dyn_event_type_run(const char *type, const char *line);
int dyn_event_type_release_all(const char *type);
long dyn_event_type_show(const char *type, char **textp);

/* `>` on dynamic_events: every dynamic event of every type, or none and -EBUSY. */
int dyn_event_release_all(void);

/**
 * synth_init() - the synth layer's start: its files in the tracing tree
 *
 * `synthetic_events`, `dynamic_events` and `kprobe_events` in the top instance's tree
 * (synth_files.c), registered with tfs_register_file().
 *
 * Context: takes tfs_lock; called once by the library's start (src/init.c).
 * Return: 0 or a negative errno of tfs_register_file().
 */
int synth_init(void);

/* --- for synth/api.c ------------------------------------------------------------------- */

/* The kernel's synth_field_size(): bytes of @type, 0 (dynamic or unknown), -EINVAL. */
int synth_field_size(const char *type);
/* Bytes of dynamic data @vals need in a record of @se. Writer context. */
size_t synth_dyn_size(const struct synth_event *se, const uint64_t *vals);
/* Fill the fields of record @rec (reserved with that many dynamic bytes). Writer context. */
void synth_fill(const struct synth_event *se, char *rec, const uint64_t *vals);
/* Store one value in a static field's slot (piecewise tracing). Writer context. */
void synth_put_val(char *rec, const struct synth_field *f, uint64_t val);

#endif /* EVT_SYNTH_SYNTH_H */
