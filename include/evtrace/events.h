/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/events.h - trace events: descriptors, registration, lookup, formats.
 *
 * An event is defined once with TRACE_EVENT() (evtrace/trace_event.h) and
 * expanded in one .c file by evtrace/define_trace.h into a struct
 * evt_event_def: its record layout (struct evt_field per field), its print
 * format and the byte its call sites test. A constructor registers the
 * definitions of the object (program or shared library) when it loads and
 * a destructor unregisters them when it is unloaded (dlclose); the library
 * gives each a runtime event (struct evt_event) with an ID that stays the
 * same for the life of the process.
 *
 * Every record starts with the common fields of struct evt_trace_entry:
 * the kernel's four (common_type, common_flags, common_preempt_count,
 * common_pid = the thread id) and common_tgid (the process id), which
 * user space needs and the `format` text shows.
 *
 * Synchronization: registration, lookup, enabling and the format/listing
 * functions take the library's event mutex; they may run concurrently
 * with each other and with writers. Writers (trace_<name>() call sites)
 * take no lock: what they read is published with RCU.
 * Call sites may run in signal handlers; nothing else here may.
 *
 * Errors: functions returning int give 0 (or a count) or a negative errno
 * value and never touch errno.
 */
#ifndef EVTRACE_EVENTS_H
#define EVTRACE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- field descriptors (shared by the format text, the printer and filters) --- */

/*
 * What a field holds. The filter layer maps these onto the kernel's
 * filter types (FILTER_OTHER, FILTER_STATIC_STRING, FILTER_DYN_STRING,
 * FILTER_RDYN_STRING, FILTER_PTR_STRING).
 */
enum evt_field_kind {
	EVT_FIELD_INT,		/* integer of size 1, 2, 4 or 8; is_signed says how */
	EVT_FIELD_ARRAY,	/* fixed array: size = elem_size * count, "type name[count]" */
	EVT_FIELD_STRING,	/* char name[N]: NUL-terminated within its N bytes, or not */
	EVT_FIELD_DYN_STRING,	/* __data_loc char[] name: u32 (len << 16 | offset from record) */
	EVT_FIELD_DYN_ARRAY,	/* __data_loc T[] name: same encoding, elem_size per element */
	EVT_FIELD_REL_STRING,	/* __rel_loc char[] name: offset from the end of this field */
	EVT_FIELD_PTR,		/* a pointer (size 8 or 4); compared as an unsigned integer */
	EVT_FIELD_USTRING,	/* a char * into the traced program's memory (".ustring") */
};

/*
 * struct evt_field - one field of an event record.
 *
 * Offsets are from the start of the record (the ring buffer event's
 * payload), as in the kernel's `format` file: common_type is at 0.
 */
struct evt_field {
	const char *type;	/* C type as `format` shows it: "unsigned int", "char[16]",
				 * "__data_loc char[]", "const char *" */
	const char *name;	/* "common_pid", "prev_comm", ... */
	uint16_t offset;	/* bytes from the start of the record */
	uint16_t size;		/* bytes the field occupies in the fixed part (4 for
				 * __data_loc/__rel_loc) */
	uint16_t elem_size;	/* arrays: size of one element; else = size */
	uint8_t kind;		/* enum evt_field_kind */
	uint8_t is_signed;	/* integers and array elements */
};

/* The __data_loc word: the dynamic data's offset (from the record start) and length. */
static inline uint16_t evt_data_loc_offset(uint32_t loc)
{
	return (uint16_t)(loc & 0xffff);
}

static inline uint16_t evt_data_loc_len(uint32_t loc)
{
	return (uint16_t)(loc >> 16);
}

static inline uint32_t evt_data_loc_make(uint16_t offset, uint16_t len)
{
	return ((uint32_t)len << 16) | offset;
}

/*
 * struct evt_trace_entry - the common fields every record starts with
 * (12 bytes; the kernel's struct trace_entry plus common_tgid).
 * common_flags holds EVT_TRACE_FLAG_* (the kernel's bit values).
 */
struct evt_trace_entry {
	uint16_t common_type;
	uint8_t common_flags;
	uint8_t common_preempt_count;	/* signal-handler nesting depth of the writer */
	int32_t common_pid;		/* thread id */
	int32_t common_tgid;		/* process id */
};

#define EVT_TRACE_FLAG_IRQS_OFF		0x01	/* never set: no interrupts in user space */
#define EVT_TRACE_FLAG_NEED_RESCHED	0x04	/* never set in user space */
#define EVT_TRACE_FLAG_HARDIRQ		0x08	/* written from a signal handler */
#define EVT_TRACE_FLAG_SOFTIRQ		0x10	/* never set in user space */

/* The common fields as descriptors, in record order. */
#define EVT_NR_COMMON_FIELDS	5
extern const struct evt_field evt_common_fields[EVT_NR_COMMON_FIELDS];

/* --- definitions (what TRACE_EVENT() expands to) ------------------------------ */

struct evt_event;
struct evt_event_def;

/*
 * struct evt_event_def - one event as compiled into a program or library.
 * Filled by the TRACE_EVENT() machinery; do not build one by hand unless
 * you know the record layout rules (docs/events.md).
 *
 * @key is the byte the call site tests: non-zero while at least one
 * instance records the event (enabled or soft-enabled). It is written
 * only by the library, under its event mutex.
 */
struct evt_event_def {
	uint32_t abi;			/* EVT_EVENT_DEF_ABI */
	uint32_t size;			/* bytes of the fixed part of the record */
	const char *system;
	const char *name;
	const struct evt_field *fields;	/* event fields only (not the common ones) */
	uint32_t nr_fields;
	const char *print_fmt;		/* "\"fmt\", REC->a, __get_str(b)" */
	uint8_t *key;			/* read with a relaxed atomic load */
	void (*init)(struct evt_event_def *def);	/* fills fields before registering */
	struct evt_event *event;	/* set while registered (library-private) */
	/* ABI 2 (TRACE_EVENT_FN): run under the event mutex when the first instance
	 * starts recording the event (reg; < 0 refuses) and when the last stops. */
	int (*reg)(void);
	void (*unreg)(void);
};

/* 2 added reg/unreg; definitions of ABI 1 (without them) still register. */
#define EVT_EVENT_DEF_ABI	2

/**
 * evt_event_register() - register one definition (TRACE_EVENT() does it from
 * a constructor of the object that holds the definition).
 *
 * The event keeps the ID it had if system:name was registered before in
 * this process (IDs are never reused for another event); the library
 * copies what it prints from, so records of an unregistered event still
 * print. The events of EVTRACE_EVENTS that match are enabled in the top
 * instance.
 * Return: the event's ID, -EEXIST if system:name is registered by another
 * definition, -EINVAL (bad names or ABI), -ENOMEM, -ENOSPC (no ID left).
 */
int evt_event_register(struct evt_event_def *def);

/**
 * evt_event_unregister() - remove a definition (from the destructor of its
 * object: dlclose()). Disables the event in every instance; the caller
 * guarantees no thread is still inside one of its call sites.
 */
void evt_event_unregister(struct evt_event_def *def);

/* --- the writer path (called by the code TRACE_EVENT() generates) ------------- */

/*
 * struct evt_trace_event_buffer - state of one event being written, on the
 * writer's stack:
 *
 *	for (rec = evt_trace_event_reserve(&fb, def, len); rec;
 *	     rec = evt_trace_event_commit(&fb))
 *		fill rec;
 *
 * one iteration per instance recording the event. The loop must run to its
 * end (the thread is in an RCU read-side section until it does).
 */
struct evt_trace_event_buffer {
	void *entry;			/* the record being written */
	void *rbe;			/* its ring buffer event */
	void *file;			/* the instance's trace_event_file */
	void *set;			/* the event's active set (RCU) */
	uint32_t len;			/* bytes reserved for the record */
	uint32_t idx;			/* next instance to visit */
};

#define EVT_TRACE_EVENT_BUFFER_INIT	{ 0, 0, 0, 0, 0, 0 }

/**
 * evt_trace_event_reserve() - reserve the record in the first instance.
 * @fb:  the write's state (EVT_TRACE_EVENT_BUFFER_INIT or uninitialised).
 * @def: the event.
 * @len: bytes of the whole record (common fields, fixed part, dynamic data).
 *
 * Skips instances where tracing is off, the event is soft-disabled or the
 * thread is not in set_event_pid. Fills the common fields.
 * Return: the record, or NULL when no instance is left.
 */
void *evt_trace_event_reserve(struct evt_trace_event_buffer *fb, struct evt_event_def *def,
			      size_t len);

/**
 * evt_trace_event_commit() - run the instance's filter on the record and
 * commit it, or discard it if the filter rejects it; then reserve the record
 * in the next instance.
 * Return: the next record, or NULL when no instance is left.
 */
void *evt_trace_event_commit(struct evt_trace_event_buffer *fb);

/* --- the registry --------------------------------------------------------------- */

/* Accessors of a registered event (valid while it is registered). */
unsigned int evt_event_id(const struct evt_event *ev);
/*
 * An event's name and system are borrowed from the registry, which keeps every event it
 * ever registered until the process exits: valid as long as @ev, i.e. until exit. Its
 * definition is the caller's (the TRACE_EVENT() header's), NULL once unregistered.
 */
const char *evt_event_name(const struct evt_event *ev);
const char *evt_event_system(const struct evt_event *ev);
const struct evt_event_def *evt_event_def_of(const struct evt_event *ev);

/**
 * evt_event_foreach() - call @fn for each registered event matching the globs.
 * @system: glob on the subsystem name (NULL or "*" = any).
 * @name:   glob on the event name (NULL or "*" = any).
 *
 * Events are visited in (system, name) order, under the event mutex: @fn
 * may not register, unregister or enable events (it may read them).
 * A non-zero return from @fn stops the walk and is returned.
 * Return: 0, @fn's value, or -EINVAL.
 */
int evt_event_foreach(const char *system, const char *name,
		      int (*fn)(struct evt_event *ev, void *arg), void *arg);

/* Number of registered events matching the globs. */
int evt_event_count(const char *system, const char *name);

/**
 * evt_event_format_text() - the `format` file of an event.
 * @system, @name: the event (exact names).
 * @buf, @size:    where the text goes (NUL-terminated, truncated to fit).
 * Return: the length of the whole text (as snprintf), or -ENOENT.
 */
int evt_event_format_text(const char *system, const char *name, char *buf, size_t size);

/**
 * evt_available_events() - the `available_events` file: "system:name\n" per
 * event, sorted. Return: the length of the whole text (as snprintf).
 */
int evt_available_events(char *buf, size_t size);

/**
 * evt_events_from_env() - enable the events listed in EVTRACE_EVENTS in the
 * top instance (comma-separated, set_event syntax: "sys:ev", "sys:*", "sys:",
 * "*:*", a bare event or system name, "!..." to disable; for each event the
 * last entry naming it decides). The library applies it to each event as it
 * registers; call this after changing the variable.
 * Return: the number of events this call enabled.
 */
int evt_events_from_env(void);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_EVENTS_H */
