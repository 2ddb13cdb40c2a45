// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report-raw.c - `evtrace report -R`: each record as its fields, not its print
 * format (as `trace-cmd report -R` does), one line per record:
 *
 *   TS [CPU] SYSTEM:NAME: tid=T pid=P comm=C field=value field=value ...
 *
 * TS is the raw time stamp (clock units), pid -1 when the file has no
 * common_tgid; integers in decimal with their signedness, pointers 0x-hex,
 * char arrays and __data_loc strings as their text up to the first NUL (bytes
 * outside printable ASCII as \xHH), arrays and dynamic arrays as [a,b,c]. A
 * field that lies outside its record prints as "?". This is the layout the CTF
 * test (tests/unit/ctf-bt2.py) prints from babeltrace2's view of the same trace.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <evtrace/tracedat.h>

#include "evtrace-report.h"

/* Field @fl of @rec, a signed or unsigned integer; '?' when it cannot be read. */
static void rr_int(FILE *f, const struct evt_tracedat_record *rec, const struct evt_field *fl)
{
	unsigned long long v;

	if (evt_tracedat_field_read(rec, fl, &v))
		fputc('?', f);
	else if (fl->is_signed)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%llu", v);
}

static void rr_text(FILE *f, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n && p[i]; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			fputc(p[i], f);
		else
			fprintf(f, "\\x%02x", p[i]);
	}
}

/* @n bytes at @off of @rec as an array of @es-byte integers (else bytes). */
static void rr_array(FILE *f, const struct evt_tracedat_record *rec, size_t off, size_t n,
		     unsigned int es, bool sgn)
{
	struct evt_field el = { .kind = EVT_FIELD_INT };

	if (es != 1 && es != 2 && es != 4 && es != 8) {
		es = 1;
		sgn = false;
	}
	el.size = (uint16_t)es;
	el.is_signed = sgn;
	fputc('[', f);
	for (size_t i = 0; i + es <= n; i += es) {
		if (i)
			fputc(',', f);
		/* a field's offset is 16 bits: what lies beyond (a record of big pages) shows '?' */
		el.offset = (uint16_t)(off + i);
		if (off + i > UINT16_MAX)
			fputc('?', f);
		else
			rr_int(f, rec, &el);
	}
	fputc(']', f);
}

static bool rr_dyn(const struct evt_tracedat_record *rec, const struct evt_field *fl,
		   size_t *doff, size_t *dlen)
{
	size_t off = fl->offset, end = rec->size;
	uint32_t loc;

	if (fl->size < 4 || off + 4 > end)
		return false;
	memcpy(&loc, (const unsigned char *)rec->data + off, 4);
	*doff = evt_data_loc_offset(loc);
	*dlen = evt_data_loc_len(loc);
	if (fl->kind == EVT_FIELD_REL_STRING)
		*doff += off + fl->size;
	return *doff <= end && *dlen <= end - *doff;
}

static void rr_field(FILE *f, const struct evt_tracedat_record *rec, const struct evt_field *fl)
{
	const unsigned char *d = rec->data;
	size_t off = fl->offset, size = fl->size, end = rec->size, doff, dlen;
	unsigned long long v;
	bool std = size == 1 || size == 2 || size == 4 || size == 8;

	if (!size && off <= end)
		size = end - off; /* a flexible array at the end: the rest of the record */
	if (off + size > end) {
		fputc('?', f);
		return;
	}
	switch (fl->kind) {
	case EVT_FIELD_INT:
		if (std)
			rr_int(f, rec, fl);
		else
			rr_array(f, rec, off, size, 1, false);
		return;
	case EVT_FIELD_PTR:
	case EVT_FIELD_USTRING:
		if (std && !evt_tracedat_field_read(rec, fl, &v))
			fprintf(f, "0x%llx", v);
		else
			rr_array(f, rec, off, size, 1, false);
		return;
	case EVT_FIELD_STRING:
		rr_text(f, d + off, size);
		return;
	case EVT_FIELD_ARRAY:
		rr_array(f, rec, off, size, fl->elem_size, fl->is_signed);
		return;
	case EVT_FIELD_DYN_STRING:
	case EVT_FIELD_REL_STRING:
	case EVT_FIELD_DYN_ARRAY:
		if (!rr_dyn(rec, fl, &doff, &dlen))
			dlen = 0, doff = 0;
		if (fl->kind == EVT_FIELD_DYN_ARRAY)
			rr_array(f, rec, doff, dlen, fl->elem_size, fl->is_signed);
		else
			rr_text(f, d + doff, dlen);
		return;
	default:
		rr_array(f, rec, off, size, 1, false);
	}
}

/* The integer common field @name of @rec, or -1. */
static long long rr_common(const struct evt_tracedat_record *rec, const char *name)
{
	const struct evt_tracedat_event *e = rec->event;

	for (unsigned int i = 0; i < e->nr_common; i++) {
		const struct evt_field *fl = &e->fields[i];
		unsigned long long v;

		if (!strcmp(fl->name, name) && fl->kind == EVT_FIELD_INT &&
		    !evt_tracedat_field_read(rec, fl, &v))
			return (long long)v;
	}
	return -1;
}

void cmd_report_raw(struct evt_tracedat *td, const struct evt_tracedat_record *rec, FILE *f)
{
	const struct evt_tracedat_event *e = rec->event;
	long long tid;

	if (!e) {
		fprintf(f, "%llu [%03d] <unknown event>: %u bytes\n", (unsigned long long)rec->ts,
			rec->cpu, rec->size);
		return;
	}
	tid = rr_common(rec, "common_pid");
	fprintf(f, "%llu [%03d] %s:%s: tid=%lld pid=%lld comm=", (unsigned long long)rec->ts,
		rec->cpu, e->system, e->name, tid, rr_common(rec, "common_tgid"));
	rr_text(f, (const unsigned char *)evt_tracedat_comm(td, (int)tid), 4096);
	for (unsigned int i = e->nr_common; i < e->nr_fields; i++) {
		fprintf(f, " %s=", e->fields[i].name);
		rr_field(f, rec, &e->fields[i]);
	}
	fputc('\n', f);
}
