// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output/ctf_meta.c - the TSDL metadata of a CTF 1.8 trace made from a trace.dat
 * file (CTF 1.8 specification, diamon.org/ctf; read for facts, the text is ours).
 *
 *   trace   byte order of the host (the file's), the UUID, the packet header
 *   env     hostname, tracer_name "evtrace", its version, the input, the clock
 *   clock   the file's trace clock: 1 GHz (nanoseconds), or a counting clock's
 *           frequency when the caller knows it (x86-tsc), and its offset from the
 *           Unix epoch (offset_s + offset in counts, absolute) when the caller
 *           knows CLOCK_REALTIME at the clock's 0, so traces of several hosts
 *           line up
 *   stream  one class (id 0): packet context (timestamp_begin/end, sizes,
 *           packet_seq_num, events_discarded, cpu_id), event header (id, a
 *           64-bit time stamp), event context (tid, pid, comm)
 *   event   one per event format: name "system:name", the id of the file, and
 *           the fields after the common ones, each with its real type
 *           (ctf_field_plan()): integers with size and signedness, pointers in
 *           hex, char[N] as UTF-8 arrays, __data_loc strings as strings,
 *           dynamic arrays as sequences after a u32 length field
 *
 * Field names are written with a leading underscore, which CTF readers strip:
 * no field name can collide with a TSDL keyword ("string", "align", ...).
 * Anything else not an identifier character becomes '_'; a name repeated in
 * one event gets its index appended.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/tracedat.h>
#include <evtrace/version.h>

#include "output/ctf_internal.h"

struct tsdl {
	char *buf;
	size_t len, cap;
	int err;
};

static void tsdl_put(struct tsdl *t, const char *s, size_t n)
{
	if (t->err)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *nb = realloc(t->buf, cap);

		if (!nb) {
			t->err = -ENOMEM;
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = 0;
}

/* A string literal. */
#define tsdl_lit(t, s) tsdl_put(t, s, sizeof(s) - 1)

static void tsdl_printf(struct tsdl *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tsdl_printf(struct tsdl *t, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		tsdl_put(t, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* @s as the body of a TSDL string literal: printable ASCII, no quote or backslash. */
static void tsdl_str(struct tsdl *t, const char *s)
{
	for (; s && *s; s++) {
		char c = *s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\' ? *s : '_';

		tsdl_put(t, &c, 1);
	}
}

/* @s as identifier characters (the caller starts the identifier with a letter or '_'). */
static void tsdl_ident(struct tsdl *t, const char *s, size_t max)
{
	for (size_t i = 0; s && s[i] && i < max; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		tsdl_put(t, &c, 1);
	}
}

void ctf_field_plan(const struct evt_field *f, struct ctf_field *p)
{
	unsigned int es = f->elem_size;
	bool std = es == 1 || es == 2 || es == 4 || es == 8;

	memset(p, 0, sizeof(*p));
	p->es = 1;
	p->sgn = f->is_signed ? 1 : 0;
	switch (f->kind) {
	case EVT_FIELD_INT:
	case EVT_FIELD_PTR:
	case EVT_FIELD_USTRING:
		if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
			p->kind = f->kind == EVT_FIELD_INT ? CTF_INT : CTF_HEX;
			p->es = (uint8_t)f->size;
			if (p->kind == CTF_HEX)
				p->sgn = 0;
			return;
		}
		break;
	case EVT_FIELD_STRING:
		p->kind = f->size ? CTF_CHARS : CTF_REST_STRING;
		p->count = f->size;
		p->sgn = 0;
		return;
	case EVT_FIELD_ARRAY:
		if (std && f->size % es == 0) {
			p->es = (uint8_t)es;
			p->kind = f->size ? CTF_ARRAY : CTF_REST_SEQ;
			p->count = f->size / es;
			return;
		}
		break;
	case EVT_FIELD_DYN_STRING:
	case EVT_FIELD_REL_STRING:
		p->kind = CTF_STRING;
		p->sgn = 0;
		return;
	case EVT_FIELD_DYN_ARRAY:
		p->kind = CTF_SEQ;
		p->es = std ? (uint8_t)es : 1;
		if (!std)
			p->sgn = 0;
		return;
	default:
		break;
	}
	/* anything else: its bytes */
	p->kind = f->size ? CTF_ARRAY : CTF_REST_SEQ;
	p->count = f->size;
	p->es = 1;
	p->sgn = 0;
}

static void tsdl_int(struct tsdl *t, unsigned int bytes, bool sgn, int base, bool utf8)
{
	tsdl_printf(t, "integer { size = %u; align = 8; signed = %s; base = %d;%s }", bytes * 8,
		    sgn ? "true" : "false", base, utf8 ? " encoding = UTF8;" : "");
}

/* The field's identifier: "_" + its name, made an identifier and unique in @e. */
static void tsdl_field_name(struct tsdl *t, const struct evt_tracedat_event *e, unsigned int idx)
{
	const char *name = e->fields[idx].name;
	bool dup = false;

	for (unsigned int i = e->nr_common; i < idx && !dup; i++)
		dup = !strcmp(e->fields[i].name ? e->fields[i].name : "", name ? name : "");
	tsdl_lit(t, "_");
	tsdl_ident(t, name, 200);
	if (dup || !name || !*name)
		tsdl_printf(t, "_%u", idx);
}

static void tsdl_field(struct tsdl *t, const struct evt_tracedat_event *e, unsigned int idx)
{
	const struct evt_field *f = &e->fields[idx];
	struct ctf_field p;

	ctf_field_plan(f, &p);
	tsdl_lit(t, "\t\t");
	switch (p.kind) {
	case CTF_INT:
	case CTF_HEX:
		tsdl_int(t, p.es, p.sgn, p.kind == CTF_HEX ? 16 : 10, false);
		tsdl_lit(t, " ");
		tsdl_field_name(t, e, idx);
		break;
	case CTF_CHARS:
	case CTF_ARRAY:
		tsdl_int(t, p.es, p.sgn, 10, p.kind == CTF_CHARS);
		tsdl_lit(t, " ");
		tsdl_field_name(t, e, idx);
		tsdl_printf(t, "[%u]", p.count);
		break;
	case CTF_STRING:
	case CTF_REST_STRING:
		tsdl_lit(t, "string ");
		tsdl_field_name(t, e, idx);
		break;
	case CTF_SEQ:
	case CTF_REST_SEQ:
		tsdl_int(t, 4, false, 10, false);
		tsdl_lit(t, " _");
		tsdl_field_name(t, e, idx);
		tsdl_lit(t, "_length;\n\t\t");
		tsdl_int(t, p.es, p.sgn, 10, false);
		tsdl_lit(t, " ");
		tsdl_field_name(t, e, idx);
		tsdl_lit(t, "[_");
		tsdl_field_name(t, e, idx);
		tsdl_lit(t, "_length]");
		break;
	}
	tsdl_lit(t, ";\n");
}

int ctf_event_is_first(struct evt_tracedat *td, const struct evt_tracedat_event *e)
{
	return evt_tracedat_event_by_id(td, e->id) == e;
}

static void tsdl_event(struct tsdl *t, const struct evt_tracedat_event *e)
{
	tsdl_lit(t, "event {\n\tname = \"");
	tsdl_str(t, e->system);
	tsdl_lit(t, ":");
	tsdl_str(t, e->name);
	tsdl_printf(t, "\";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n", e->id);
	for (unsigned int i = e->nr_common; i < e->nr_fields; i++)
		tsdl_field(t, e, i);
	tsdl_lit(t, "\t};\n};\n\n");
}

/*
 * The clock: its frequency (a counting clock's, when known; else 1 GHz, the
 * nanosecond clocks), and where its 0 lies on the epoch: offset_s seconds and
 * offset counts of the clock (so the nanoseconds below the second are scaled).
 */
static void tsdl_clock(struct tsdl *t, const char *clock, const struct evt_ctf_opts *o)
{
	unsigned long long freq = o->freq ? o->freq : 1000000000ULL;
	long long s = 0, ns = 0;

	if (o->has_epoch) {
		s = o->epoch_offset_ns / 1000000000LL;
		ns = o->epoch_offset_ns % 1000000000LL;
		if (ns < 0) {
			ns += 1000000000LL;
			s--;
		}
		ns = (long long)((unsigned __int128)ns * freq / 1000000000ULL);
	}
	tsdl_lit(t, "clock {\n\tname = evt_");
	tsdl_ident(t, *clock ? clock : "clock", 64);
	tsdl_lit(t, ";\n\tdescription = \"evtrace trace clock ");
	tsdl_str(t, *clock ? clock : "(unnamed)");
	tsdl_printf(t, "\";\n\tfreq = %llu;\n\tprecision = 1;\n"
		       "\toffset_s = %lld;\n\toffset = %lld;\n\tabsolute = %s;\n};\n\n",
		    freq, s, ns, o->has_epoch ? "true" : "false");
	tsdl_lit(t, "typealias integer { size = 64; align = 8; signed = false; "
		    "map = clock.evt_");
	tsdl_ident(t, *clock ? clock : "clock", 64);
	tsdl_lit(t, ".value; } := evt_clock_t;\n\n");
}

static const char tsdl_stream[] =
	"stream {\n"
	"\tid = 0;\n"
	"\tpacket.context := struct {\n"
	"\t\tevt_clock_t timestamp_begin;\n"
	"\t\tevt_clock_t timestamp_end;\n"
	"\t\tevt_u64 content_size;\n"
	"\t\tevt_u64 packet_size;\n"
	"\t\tevt_u64 packet_seq_num;\n"
	"\t\tevt_u64 events_discarded;\n"
	"\t\tevt_u32 cpu_id;\n"
	"\t};\n"
	"\tevent.header := struct {\n"
	"\t\tevt_u32 id;\n"
	"\t\tevt_clock_t timestamp;\n"
	"\t};\n"
	"\tevent.context := struct {\n"
	"\t\tevt_s32 _tid;\n"
	"\t\tevt_s32 _pid;\n"
	"\t\tstring _comm;\n"
	"\t};\n"
	"};\n\n";

static void tsdl_head(struct tsdl *t, const struct evt_ctf_opts *o)
{
	const unsigned char *u = o->uuid;

	tsdl_lit(t, "/* CTF 1.8 */\n\n");
	tsdl_lit(t, "typealias integer { size = 8; align = 8; signed = false; } := evt_u8;\n"
		    "typealias integer { size = 32; align = 8; signed = false; } := evt_u32;\n"
		    "typealias integer { size = 32; align = 8; signed = true; } := evt_s32;\n"
		    "typealias integer { size = 64; align = 8; signed = false; } := evt_u64;\n\n");
	tsdl_printf(t, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%02x%02x%02x%02x-%02x%02x-"
		       "%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\";\n\tbyte_order = %s;\n",
		    u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		    u[12], u[13], u[14], u[15],
		    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "le" : "be");
	tsdl_lit(t, "\tpacket.header := struct {\n\t\tevt_u32 magic;\n\t\tevt_u8 uuid[16];\n"
		    "\t\tevt_u32 stream_id;\n\t\tevt_u64 stream_instance_id;\n\t};\n};\n\n");
}

int ctf_metadata(struct evt_tracedat *td, const struct evt_ctf_opts *o, char **out, size_t *lenp)
{
	const char *clock = evt_tracedat_clock(td);
	struct tsdl t = { 0 };

	tsdl_head(&t, o);
	tsdl_printf(&t, "env {\n\ttracer_name = \"evtrace\";\n\ttracer_major = %d;\n"
			"\ttracer_minor = %d;\n\ttracer_patchlevel = %d;\n",
		    EVTRACE_VERSION_MAJOR, EVTRACE_VERSION_MINOR, EVTRACE_VERSION_PATCH);
	if (o->hostname) {
		tsdl_lit(&t, "\thostname = \"");
		tsdl_str(&t, o->hostname);
		tsdl_lit(&t, "\";\n");
	}
	if (o->source) {
		tsdl_lit(&t, "\tinput_file = \"");
		tsdl_str(&t, o->source);
		tsdl_lit(&t, "\";\n");
	}
	tsdl_lit(&t, "\ttrace_clock = \"");
	tsdl_str(&t, clock);
	tsdl_printf(&t, "\";\n\tpage_size = %u;\n};\n\n", evt_tracedat_page_size(td));
	tsdl_clock(&t, clock, o);
	tsdl_put(&t, tsdl_stream, sizeof(tsdl_stream) - 1);
	for (int i = 0; i < evt_tracedat_nr_events(td); i++) {
		const struct evt_tracedat_event *e = evt_tracedat_event(td, i);

		if (ctf_event_is_first(td, e))
			tsdl_event(&t, e);
	}
	if (t.err) {
		free(t.buf);
		return t.err;
	}
	*out = t.buf;
	*lenp = t.len;
	return 0;
}
