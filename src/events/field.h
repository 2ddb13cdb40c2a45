/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * events/field.h - how a field of an event record is described.
 *
 * One descriptor per field of an event, common fields included: the
 * event layer builds them from TRACE_EVENT() definitions, the filter
 * compiler resolves `field op value` against them, the printer and the
 * `format` file read them. It is the one contract between those layers:
 * nothing here knows about instances, ring buffers or filters.
 *
 * Offsets are from the start of the record (the ring buffer event's
 * payload), as in the kernel's `format` file: common_type is at 0.
 */
#ifndef EVT_EVENTS_FIELD_H
#define EVT_EVENTS_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif /* EVT_EVENTS_FIELD_H */
