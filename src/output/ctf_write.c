// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output/ctf_write.c - the streams of a CTF 1.8 trace made from a trace.dat file
 * (evtrace/export.h; the metadata that describes these bytes is ctf_meta.c).
 *
 * One pass over the records (evt_tracedat_next: CPUs merged by time). Each CPU
 * has a packet being filled in memory; a packet is closed and handed to the
 * sink when its content passes the packet size, when the CPU's next record
 * follows lost events, and at the end. Closing fills in the packet context:
 * timestamp_end (the last event's time), content_size = packet_size (bits; no
 * padding), and events_discarded, the stream's running count of lost events.
 *
 * Lost events: a record whose page says N events were lost before it starts a
 * new packet whose events_discarded is N more than the packet before, which is
 * what babeltrace2 turns into a discarded-events message between the two. When
 * the first record of a CPU already follows a loss, an empty packet (no events,
 * events_discarded 0) comes first so that there is a packet before it. An unknown
 * count (~0) counts as 1.
 *
 * Every event: header (u32 id, u64 time stamp), context (tid = common_pid,
 * pid = common_tgid or -1 when the file has none, comm: the saved comm of the
 * tid), then the fields after the common ones, as ctf_field_plan() says. Each
 * read is bounds-checked against the record: a field outside it is written
 * as zeros (an empty string, an empty sequence).
 *
 * A stream's time stamps must not go backwards in CTF: one lower than the
 * stream's last is raised to it and counted (evt_ctf_stats.clamped).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/tracedat.h>

#include "core/detail.h"
#include "output/ctf_internal.h"
#include "output/out_field.h"

#define CTF_PACKET_DEFAULT (64u << 10)
#define CTF_MAX_CPUS	   4096 /* streams one trace may have */

struct ctf_stream {
	unsigned char *buf;
	size_t len, cap;
	uint64_t seq;	    /* packets written */
	uint64_t discarded; /* lost events so far */
	uint64_t last_ts;   /* of the last event (or the packet's begin) */
	uint64_t pending;   /* lost before records that were not wanted */
	bool open;	    /* a packet is being filled */
	bool started;	    /* a packet was opened before */
};

struct ctf_writer {
	struct evt_tracedat *td;
	const struct evt_ctf_opts *o;
	struct evt_ctf_sink *sink;
	struct evt_ctf_stats st;
	struct ctf_stream *streams;
	int nr_streams;
	size_t packet_bytes;
	int err;
};

static int cw_reserve(struct ctf_writer *w, struct ctf_stream *s, size_t n)
{
	if (s->len + n <= s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 4096;
	unsigned char *nb;

	while (cap < s->len + n)
		cap *= 2;
	nb = realloc(s->buf, cap);
	if (!nb) {
		w->err = -ENOMEM;
		return -ENOMEM;
	}
	s->buf = nb;
	s->cap = cap;
	return 0;
}

static void cw_put(struct ctf_writer *w, struct ctf_stream *s, const void *p, size_t n)
{
	if (w->err || cw_reserve(w, s, n))
		return;
	if (p)
		memcpy(s->buf + s->len, p, n);
	else
		memset(s->buf + s->len, 0, n);
	s->len += n;
}

static void cw_u32(struct ctf_writer *w, struct ctf_stream *s, uint32_t v)
{
	cw_put(w, s, &v, 4);
}

static void cw_u64(struct ctf_writer *w, struct ctf_stream *s, uint64_t v)
{
	cw_put(w, s, &v, 8);
}

static void cw_set64(struct ctf_stream *s, size_t off, uint64_t v)
{
	memcpy(s->buf + off, &v, 8);
}

static void cw_open_packet(struct ctf_writer *w, struct ctf_stream *s, int cpu, uint64_t ts)
{
	s->len = 0;
	cw_u32(w, s, CTF_MAGIC);
	cw_put(w, s, w->o->uuid, 16);
	cw_u32(w, s, 0);		   /* stream_id: the one stream class */
	cw_u64(w, s, (uint64_t)cpu);	   /* stream_instance_id */
	cw_u64(w, s, ts);		   /* timestamp_begin */
	cw_put(w, s, NULL, 8 * 5);	   /* end, content, packet, seq, discarded: at close */
	cw_u32(w, s, (uint32_t)cpu);
	s->open = !w->err;
	s->started = true;
	s->last_ts = ts;
}

static void cw_close_packet(struct ctf_writer *w, struct ctf_stream *s, int cpu)
{
	int ret;

	if (!s->open || w->err)
		return;
	s->open = false;
	cw_set64(s, CTF_PC_TS_END, s->last_ts);
	cw_set64(s, CTF_PC_CONTENT, (uint64_t)s->len * 8);
	cw_set64(s, CTF_PC_PACKET, (uint64_t)s->len * 8);
	cw_set64(s, CTF_PC_SEQ, s->seq++);
	cw_set64(s, CTF_PC_DISCARDED, s->discarded);
	ret = w->sink->write(w->sink->ctx, cpu, s->buf, s->len);
	if (ret)
		w->err = ret < 0 ? ret : -EIO;
	w->st.packets++;
	s->len = 0;
}

static struct ctf_stream *cw_stream(struct ctf_writer *w, int cpu)
{
	if (cpu < 0 || cpu >= CTF_MAX_CPUS) {
		w->err = -ERANGE;
		return NULL;
	}
	if (cpu >= w->nr_streams) {
		int n = cpu + 1;
		struct ctf_stream *ns = realloc(w->streams, (size_t)n * sizeof(*ns));

		if (!ns) {
			w->err = -ENOMEM;
			return NULL;
		}
		memset(ns + w->nr_streams, 0, (size_t)(n - w->nr_streams) * sizeof(*ns));
		w->streams = ns;
		w->nr_streams = n;
	}
	return &w->streams[cpu];
}

/* The integer field named @name of @rec's event, or @dflt when it has none in the record. */
static long long cw_common(const struct evt_tracedat_record *rec, const char *name, long long dflt)
{
	const struct evt_tracedat_event *e = rec->event;

	for (unsigned int i = 0; i < e->nr_fields; i++) {
		const struct evt_field *f = &e->fields[i];

		if (strcmp(f->name, name) || f->kind != EVT_FIELD_INT)
			continue;
		if ((f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
		    (size_t)f->offset + f->size > rec->size)
			return dflt;
		uint64_t v = out_rd_uint((const unsigned char *)rec->data + f->offset, f->size);

		if (f->is_signed && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
			v |= ~0ULL << (f->size * 8);
		return (long long)v;
	}
	return dflt;
}

/* @n bytes at @p up to the first NUL, then a NUL. */
static void cw_cstr(struct ctf_writer *w, struct ctf_stream *s, const void *p, size_t n)
{
	const void *nul = p ? memchr(p, 0, n) : NULL;

	if (nul)
		n = (size_t)((const char *)nul - (const char *)p);
	if (p && n)
		cw_put(w, s, p, n);
	cw_put(w, s, "", 1);
}

/* Where the __data_loc/__rel_loc data of @f lie in @rec; false when outside it. */
static bool cw_dyn(const struct evt_tracedat_record *rec, const struct evt_field *f, size_t *doff,
		   size_t *dlen)
{
	size_t off = f->offset, end = rec->size;
	uint32_t loc;

	if (f->size < 4 || off + 4 > end)
		return false;
	memcpy(&loc, (const unsigned char *)rec->data + off, 4);
	*doff = evt_data_loc_offset(loc);
	*dlen = evt_data_loc_len(loc);
	if (f->kind == EVT_FIELD_REL_STRING)
		*doff += off + f->size; /* relative to the end of the field */
	return *doff <= end && *dlen <= end - *doff;
}

static void cw_field(struct ctf_writer *w, struct ctf_stream *s,
		     const struct evt_tracedat_record *rec, const struct evt_field *f)
{
	const unsigned char *d = rec->data;
	size_t off = f->offset, end = rec->size, doff = 0, dlen = 0;
	struct ctf_field p;
	bool in;

	ctf_field_plan(f, &p);
	switch (p.kind) {
	case CTF_INT:
	case CTF_HEX:
	case CTF_CHARS:
	case CTF_ARRAY: {
		size_t n = p.kind == CTF_INT || p.kind == CTF_HEX ? p.es : (size_t)p.count * p.es;

		cw_put(w, s, off + n <= end ? d + off : NULL, n);
		break;
	}
	case CTF_STRING:
		in = cw_dyn(rec, f, &doff, &dlen);
		cw_cstr(w, s, in ? d + doff : NULL, in ? dlen : 0);
		break;
	case CTF_REST_STRING:
		cw_cstr(w, s, off <= end ? d + off : NULL, off <= end ? end - off : 0);
		break;
	case CTF_SEQ:
	case CTF_REST_SEQ:
		if (p.kind == CTF_SEQ) {
			in = cw_dyn(rec, f, &doff, &dlen);
		} else {
			in = off <= end;
			doff = off;
			dlen = in ? end - off : 0;
		}
		if (!in)
			dlen = 0;
		cw_u32(w, s, (uint32_t)(dlen / p.es));
		cw_put(w, s, d + doff, dlen / p.es * p.es);
		break;
	}
}

static void cw_event(struct ctf_writer *w, struct ctf_stream *s,
		     const struct evt_tracedat_record *rec, uint64_t ts)
{
	const struct evt_tracedat_event *e = rec->event;
	long long tid = cw_common(rec, "common_pid", -1);
	const char *comm = evt_tracedat_comm(w->td, (int)tid);

	cw_u32(w, s, e->id);
	cw_u64(w, s, ts);
	cw_u32(w, s, (uint32_t)(int32_t)tid);
	cw_u32(w, s, (uint32_t)(int32_t)cw_common(rec, "common_tgid", -1));
	cw_cstr(w, s, comm, strlen(comm));
	for (unsigned int i = e->nr_common; i < e->nr_fields; i++)
		cw_field(w, s, rec, &e->fields[i]);
}

static void cw_record(struct ctf_writer *w, const struct evt_tracedat_record *rec)
{
	struct ctf_stream *s = cw_stream(w, rec->cpu);
	uint64_t ts = rec->ts;

	if (!s)
		return;
	if (s->started && ts < s->last_ts) {
		ts = s->last_ts;
		w->st.clamped++;
	}
	if (rec->missed || s->pending) {
		uint64_t n = (rec->missed == ~0ULL ? 1 : rec->missed) + s->pending;

		if (!s->started) {
			cw_open_packet(w, s, rec->cpu, ts); /* an empty packet before the loss */
			cw_close_packet(w, s, rec->cpu);
		}
		cw_close_packet(w, s, rec->cpu);
		s->discarded += n;
		s->pending = 0;
		w->st.discarded += n;
	} else if (s->open && s->len >= w->packet_bytes) {
		cw_close_packet(w, s, rec->cpu);
	}
	if (!s->open)
		cw_open_packet(w, s, rec->cpu, ts);
	cw_event(w, s, rec, ts);
	s->last_ts = ts;
	w->st.records++;
}

int evt_tracedat_export_ctf(struct evt_tracedat *td, const struct evt_ctf_opts *o, struct evt_ctf_sink *sink,
	       struct evt_ctf_stats *st)
{
	static const struct evt_ctf_opts dflt;
	struct ctf_writer w = { .td = td, .o = o ? o : &dflt, .sink = sink };
	struct evt_tracedat_record rec;
	size_t mlen = 0;
	char *meta;
	int ret;

	detail_clear();
	w.packet_bytes = w.o->packet_bytes ? w.o->packet_bytes : CTF_PACKET_DEFAULT;
	ret = ctf_metadata(td, w.o, &meta, &mlen);
	if (ret)
		return ret;
	ret = sink->write(sink->ctx, EVT_CTF_FILE_METADATA, meta, mlen);
	free(meta);
	if (ret)
		return ret < 0 ? ret : -EIO;
	while (!w.err && (ret = evt_tracedat_next(td, &rec)) == 1) {
		if (!rec.event || !ctf_event_is_first(td, rec.event) ||
		    (w.o->want && !w.o->want(w.o->want_ctx, &rec))) {
			struct ctf_stream *s = rec.missed ? cw_stream(&w, rec.cpu) : NULL;

			if (s) /* the loss comes with the next record written */
				s->pending += rec.missed == ~0ULL ? 1 : rec.missed;
			w.st.skipped++;
			continue;
		}
		cw_record(&w, &rec);
	}
	for (int cpu = 0; cpu < w.nr_streams; cpu++) {
		cw_close_packet(&w, &w.streams[cpu], cpu);
		free(w.streams[cpu].buf);
	}
	free(w.streams);
	if (st)
		*st = w.st;
	if (w.err)
		return w.err;
	return ret < 0 ? -EBADMSG : 0;
}
