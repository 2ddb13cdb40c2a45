/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output/ctf_internal.h - what the CTF metadata writer (ctf_meta.c) and the
 * stream writer (ctf_write.c) share: how each trace.dat field is laid out in
 * CTF, decided once by ctf_field_plan(), so the TSDL and the bytes agree.
 *
 * Every CTF type here is byte-aligned (align = 8 bits): the packets are
 * packed, no padding is ever computed.
 */
#ifndef EVT_OUTPUT_CTF_INTERNAL_H
#define EVT_OUTPUT_CTF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <evtrace/events.h>

#include <evtrace/export.h>

enum ctf_kind {
	CTF_INT,	 /* integer of @es bytes, @sgn, base 10 */
	CTF_HEX,	 /* unsigned integer of @es bytes, base 16 (pointers) */
	CTF_CHARS,	 /* char[@count]: UTF-8 bytes, shown up to the first NUL */
	CTF_ARRAY,	 /* @count integers of @es bytes */
	CTF_STRING,	 /* __data_loc / __rel_loc char[]: a NUL-terminated string */
	CTF_SEQ,	 /* __data_loc T[]: u32 count, then count integers of @es bytes */
	CTF_REST_STRING, /* char name[] at the end: the rest of the record as a string */
	CTF_REST_SEQ,	 /* T name[] at the end: the rest of the record as a sequence */
};

struct ctf_field {
	uint8_t kind;	/* enum ctf_kind */
	uint8_t es;	/* integer bytes: 1, 2, 4 or 8 */
	uint8_t sgn;
	uint32_t count; /* CTF_CHARS, CTF_ARRAY */
};

/* How @f is written (every field gets a plan; odd ones become byte arrays). */
void ctf_field_plan(const struct evt_field *f, struct ctf_field *p);

/* Packet header (32 bytes) and context (52 bytes) offsets, as ctf_meta.c declares them. */
#define CTF_PH_MAGIC		0
#define CTF_PH_UUID		4
#define CTF_PH_STREAM_ID	20
#define CTF_PH_INSTANCE		24
#define CTF_PC_TS_BEGIN		32
#define CTF_PC_TS_END		40
#define CTF_PC_CONTENT		48
#define CTF_PC_PACKET		56
#define CTF_PC_SEQ		64
#define CTF_PC_DISCARDED	72
#define CTF_PC_CPU		80
#define CTF_PACKET_HDR		84
#define CTF_MAGIC		0xc1fc1fc1u

/**
 * ctf_metadata() - the TSDL text of @td's trace.
 * @out/@lenp: a malloc'd text and its length.
 * Context: any; allocates. Return: 0, -ENOMEM.
 */
int ctf_metadata(struct evt_tracedat *td, const struct evt_ctf_opts *o, char **out, size_t *lenp);

/* Does @td's event table give @e its id (the first of any duplicates)? */
struct evt_tracedat_event;
int ctf_event_is_first(struct evt_tracedat *td, const struct evt_tracedat_event *e);

#endif /* EVT_OUTPUT_CTF_INTERNAL_H */
