/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/synth.h - synthetic events (events.rst 7.1, 7.2; histogram.rst 2.2.2).
 *
 * A synthetic event is an event defined at run time by a name and a list of
 * fields, in system "synthetic": it has an ID, a format, enable, filter and
 * trigger files, is listed in available_events, records into the buffers of
 * the instances that enable it and prints in `trace`, like any other event.
 * Define one with evt_synth_event_create(), the gen_cmd calls, or a line
 * written to the `synthetic_events` or `dynamic_events` file; trace it with
 * evt_synth_event_trace() (all the values at once) or piecewise.
 *
 * Field types (the kernel's synth_field_size()): s8 u8 s16 u16 s32 u32 s64
 * u64, char, unsigned char, int, unsigned int, long, unsigned long, bool,
 * pid_t, gfp_t; char[N] (a string, N <= 256), char[] (a string of its own
 * length, __data_loc), long[] (a stacktrace: an array of addresses ending
 * at a 0, at most EVT_SYNTH_STACK_MAX), and, an evtrace addition, u64[] (a
 * dynamic array; its value points to a struct evt_synth_u64_array).
 *
 * Values are passed as uint64_t: integers converted, strings as the address
 * of a NUL-terminated string ((uint64_t)(uintptr_t)"text").
 *
 * Synchronization: creation, deletion, evt_trace_get_event_file() and
 * evt_trace_array_set_clr_event() take the event mutex (not from a signal
 * handler). The tracing calls take no lock, allocate nothing and are
 * async-signal-safe; a file got with evt_trace_get_event_file() keeps its
 * event from being deleted (-EBUSY) and its instance from being destroyed.
 * Errors: negative errno values; errno is never touched.
 */
#ifndef EVTRACE_SYNTH_H
#define EVTRACE_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/dynevent.h>
#include <evtrace/events.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EVT_SYNTH_SYSTEM      "synthetic"
#define EVT_SYNTH_FIELDS_MAX  64   /* the kernel's SYNTH_FIELDS_MAX */
#define EVT_SYNTH_STR_LEN_MAX 256  /* STR_VAR_LEN_MAX: a char[N] slot */
#define EVT_SYNTH_DYN_STR_MAX 1024 /* a char[] value is cut here (NUL included) */
#define EVT_SYNTH_ARRAY_MAX   128  /* elements of a u64[] value */
#define EVT_SYNTH_STACK_MAX   16   /* entries of a long[] value (HIST_STACKTRACE_DEPTH) */

/* One field: .type = "u64", .name = "ts_ns" (the kernel's struct synth_field_desc). */
struct evt_synth_field_desc {
	const char *type;
	const char *name;
};

/* The value of a u64[] field: (uint64_t)(uintptr_t)&array. */
struct evt_synth_u64_array {
	const uint64_t *vals;
	unsigned int nr; /* at most EVT_SYNTH_ARRAY_MAX are recorded */
};

struct evt_instance;

/*
 * An event in one instance, held (the kernel's trace_event_file that
 * trace_get_event_file() returns): opaque.
 */
struct evt_event_file;

/*
 * State of one piecewise trace (evt_synth_event_trace_start() .. _end()),
 * on the caller's stack. Opaque: do not touch the members.
 */
struct evt_synth_event_trace_state {
	struct evt_trace_event_buffer fb;
	void *entry;
	const void *event;
	unsigned int cur_field;
	bool disabled;
	bool add_next;
	bool add_name;
	bool nested;
};

/* --- defining ------------------------------------------------------------------ */

/**
 * evt_synth_event_create() - define synthetic event @name with @n_fields fields.
 * Return: 0, -EEXIST (the name is taken), -EINVAL (bad name, type or field;
 * more than EVT_SYNTH_FIELDS_MAX), -E2BIG (the command is too long), -ENOMEM.
 */
int evt_synth_event_create(const char *name, const struct evt_synth_field_desc *fields,
			   unsigned int n_fields);

/**
 * evt_synth_event_delete() - remove synthetic event @name.
 * Return: 0, -ENOENT, -EBUSY (enabled in an instance, held by
 * evt_trace_get_event_file() or by a histogram action).
 */
int evt_synth_event_delete(const char *name);

/* Start a synthetic event command in @buf (EVT_MAX_DYNEVENT_CMD_LEN bytes is enough). */
void evt_synth_event_cmd_init(struct evt_dynevent_cmd *cmd, char *buf, int maxlen);

/*
 * evt_synth_event_gen_cmd_start_args() - start the command for event @name, with
 * (type, name) pairs of const char * ending at a NULL. Use the macro
 * evt_synth_event_gen_cmd_start(cmd, name, "u64", "lat", ...), which adds
 * the NULL. Return: 0, -EINVAL (wrong cmd type, bad type, too many
 * fields), -E2BIG.
 */
int evt_synth_event_gen_cmd_start_args(struct evt_dynevent_cmd *cmd, const char *name, ...);
#define evt_synth_event_gen_cmd_start(...) \
	evt_synth_event_gen_cmd_start_args(__VA_ARGS__, (const char *)0)

/* The same with the fields from an array. Errors as above. */
int evt_synth_event_gen_cmd_array_start(struct evt_dynevent_cmd *cmd, const char *name,
					const struct evt_synth_field_desc *fields,
					unsigned int n_fields);

/* Add one field "type name;". -EINVAL (wrong cmd type, NULL, unknown type), -E2BIG. */
int evt_synth_event_add_field(struct evt_dynevent_cmd *cmd, const char *type, const char *name);

/* Add @n_fields fields; stops at the first error. */
int evt_synth_event_add_fields(struct evt_dynevent_cmd *cmd,
			       const struct evt_synth_field_desc *fields, unsigned int n_fields);

/* Add "type name" as it is, then ';' (no check). */
int evt_synth_event_add_field_str(struct evt_dynevent_cmd *cmd, const char *type_name);

/* Run the command: the event exists after a 0 return. Errors as evt_synth_event_create(). */
int evt_synth_event_gen_cmd_end(struct evt_dynevent_cmd *cmd);

/* --- event files ----------------------------------------------------------------- */

/**
 * evt_trace_get_event_file() - hold @system:@event in instance @instance
 * (NULL or "": the top one). The event cannot be deleted and the instance
 * cannot be destroyed (-EBUSY) until evt_trace_put_event_file().
 * Return: 0 and *@filep, -EINVAL, -ENOENT (no such instance or event), -ENOMEM.
 */
int evt_trace_get_event_file(const char *instance, const char *system, const char *event,
			     struct evt_event_file **filep);

/* Let go of @file (NULL: nothing). */
void evt_trace_put_event_file(struct evt_event_file *file);

/* The instance of @file. */
struct evt_instance *evt_event_file_instance(const struct evt_event_file *file);

/**
 * evt_trace_array_set_clr_event() - enable (@enable) or disable one event
 * @system:@event in @inst (NULL: the top instance); no globs.
 * Return: 0, -EINVAL, -ENOENT.
 */
int evt_trace_array_set_clr_event(struct evt_instance *inst, const char *system, const char *event,
				  bool enable);

/* --- tracing ------------------------------------------------------------------- */

/**
 * evt_synth_event_trace() - record one event of @file with @n_vals uint64_t
 * values, one per field in order. Nothing is recorded (0) when the event is
 * not enabled in the file's instance.
 * Return: 0, -EINVAL (not a synthetic event, @n_vals is not the number of
 * fields), -ENOSPC (no room: counted as dropped).
 */
int evt_synth_event_trace(struct evt_event_file *file, unsigned int n_vals, ...);

/* The same with the values in an array. */
int evt_synth_event_trace_array(struct evt_event_file *file, const uint64_t *vals,
				unsigned int n_vals);

/**
 * evt_synth_event_trace_start() - reserve a record to fill field by field.
 * Whatever it returns, call evt_synth_event_trace_end() after.
 * Return: 0, -EINVAL, -EOPNOTSUPP (the event has a char[], long[] or u64[] field),
 * -ENOSPC (no room).
 */
int evt_synth_event_trace_start(struct evt_event_file *file,
				struct evt_synth_event_trace_state *state);

/* Set the next field. -EINVAL: past the last field, mixed with add_val, NULL string. */
int evt_synth_event_add_next_val(uint64_t val, struct evt_synth_event_trace_state *state);

/* Set field @field_name. -EINVAL: no such field, mixed with add_next_val, NULL string. */
int evt_synth_event_add_val(const char *field_name, uint64_t val,
			    struct evt_synth_event_trace_state *state);

/* Commit the record (fields never set are 0). Return: 0, -EINVAL (NULL state). */
int evt_synth_event_trace_end(struct evt_synth_event_trace_state *state);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_SYNTH_H */
