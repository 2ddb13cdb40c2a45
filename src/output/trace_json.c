// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output/trace_json.c - trace.dat records as Chrome/Perfetto JSON trace events.
 *
 * The output, one event per line:
 *
 *   {"traceEvents":[
 *   {"ph":"M","name":"process_name","pid":P,"tid":P,"ts":T,"args":{"name":"comm"}},
 *   {"ph":"M","name":"thread_name","pid":P,"tid":T,"ts":T,"args":{"name":"comm"}},
 *   {"ph":"i","s":"t","name":"sched_switch","cat":"sched","ts":5098270171.000,
 *    "pid":P,"tid":T,"args":{"prev_comm":"man",...}},
 *   ...
 *   ],
 *   "displayTimeUnit":"ns",
 *   "metadata":{"source":...,"clock":...,"records":N,...,"error":"offset N: ..."}}
 *
 * "ts" is in microseconds with the nanoseconds as three decimals, printed
 * from the integer (no floating point). The metadata object comes last so that
 * it can hold the counts and the error that ended the records: whatever
 * happens while reading, the JSON is closed. Metadata events (thread and
 * process names, from the file's saved cmdlines) are written before the first
 * record of each thread, with that record's time stamp.
 *
 * Every field read is bounds-checked against the record: a field or
 * __data_loc that points outside it is written as null.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/tracedat.h>
#include <evtrace/version.h>

#include "core/detail.h"
#include "output/out_field.h"
#include "output/trace_json.h"

/* --- the buffered writer ------------------------------------------------------------ */

struct tjw {
	struct evt_json_sink *sink;
	int err;
	size_t len;
	char buf[1 << 16];
};

static void tjw_flush(struct tjw *w)
{
	if (!w->err && w->len) {
		int ret = w->sink->write(w->sink->ctx, w->buf, w->len);

		if (ret)
			w->err = ret < 0 ? ret : -EIO;
	}
	w->len = 0;
}

static void tjw_put(struct tjw *w, const void *p, size_t n)
{
	const char *c = p;

	while (n && !w->err) {
		size_t room = sizeof(w->buf) - w->len, k = n < room ? n : room;

		memcpy(w->buf + w->len, c, k);
		w->len += k;
		c += k;
		n -= k;
		if (w->len == sizeof(w->buf))
			tjw_flush(w);
	}
}

static void tjw_str(struct tjw *w, const char *s)
{
	tjw_put(w, s, strlen(s));
}

static void tjw_printf(struct tjw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tjw_printf(struct tjw *w, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		tjw_put(w, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* --- JSON strings ------------------------------------------------------------------- */

typedef void (*tj_put_fn)(void *ctx, const char *p, size_t n);

/*
 * The length of the valid UTF-8 sequence at @s (@n bytes left, s[0] >= 0x80),
 * or 0 when it is invalid; *@skip: the bytes of its maximal invalid subpart
 * (replaced by one U+FFFD, as Unicode recommends).
 */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *skip)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0; /* no overlong forms */
		else if (c == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f; /* nothing above U+10FFFF */
	} else {
		*skip = 1;
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*skip = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

static void tj_escape(tj_put_fn put, void *ctx, const unsigned char *s, size_t n, bool nul)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run = 0;

	while (i < n) {
		unsigned char c = s[i];
		char esc[8];
		size_t k, skip;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (run) {
			put(ctx, (const char *)s + i - run, run);
			run = 0;
		}
		if (c >= 0x80) {
			k = utf8_seq(s + i, n - i, &skip);
			if (k) {
				put(ctx, (const char *)s + i, k);
				i += k;
			} else {
				put(ctx, "\xef\xbf\xbd", 3);
				i += skip;
			}
			continue;
		}
		if (!c && nul)
			return;
		esc[0] = '\\';
		switch (c) {
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\t':
			esc[1] = 't';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		default: /* other control characters and DEL */
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			put(ctx, esc, 6);
			i++;
			continue;
		}
		put(ctx, esc, 2);
		i++;
	}
	if (run)
		put(ctx, (const char *)s + n - run, run);
}

struct tj_membuf {
	char *out;
	size_t cap, len;
};

static void tj_mem_put(void *ctx, const char *p, size_t n)
{
	struct tj_membuf *m = ctx;

	if (m->cap && m->len < m->cap - 1) {
		size_t k = m->cap - 1 - m->len;

		memcpy(m->out + m->len, p, n < k ? n : k);
	}
	m->len += n;
}

size_t tjson_escape(const void *s, size_t len, bool stop_at_nul, char *out, size_t cap)
{
	struct tj_membuf m = { .out = out, .cap = cap };

	tj_escape(tj_mem_put, &m, s, len, stop_at_nul);
	if (cap)
		out[m.len < cap - 1 ? m.len : cap - 1] = '\0';
	return m.len;
}

static void tjw_put_cb(void *ctx, const char *p, size_t n)
{
	tjw_put(ctx, p, n);
}

/* "text", escaped; @n bytes, or to the first NUL when @nul. */
static void tjw_jstr(struct tjw *w, const void *s, size_t n, bool nul)
{
	tjw_put(w, "\"", 1);
	tj_escape(tjw_put_cb, w, s, n, nul);
	tjw_put(w, "\"", 1);
}

static void tjw_cstr(struct tjw *w, const char *s)
{
	tjw_jstr(w, s, strlen(s), true);
}

/* --- field values ------------------------------------------------------------------- */

static void tjw_int(struct tjw *w, const unsigned char *p, unsigned int size, bool sgn)
{
	unsigned long long v = out_rd_uint(p, size);

	if (sgn && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8); /* sign-extend */
	if (sgn)
		tjw_printf(w, "%lld", (long long)v);
	else
		tjw_printf(w, "%llu", v);
}

/* @n bytes as [e0,e1,...] of @es-byte integers; other element sizes as a hex string. */
static void tjw_array(struct tjw *w, const unsigned char *p, size_t n, unsigned int es, bool sgn)
{
	if (es != 1 && es != 2 && es != 4 && es != 8) {
		tjw_put(w, "\"", 1);
		for (size_t i = 0; i < n; i++)
			tjw_printf(w, "%02x", p[i]);
		tjw_put(w, "\"", 1);
		return;
	}
	tjw_put(w, "[", 1);
	for (size_t i = 0; i + es <= n; i += es) {
		if (i)
			tjw_put(w, ",", 1);
		tjw_int(w, p + i, es, sgn);
	}
	tjw_put(w, "]", 1);
}

static void tjw_field(struct tjw *w, const struct evt_tracedat_record *rec,
		      const struct evt_field *f)
{
	const unsigned char *d = rec->data;
	size_t off = f->offset, size = f->size, end = rec->size;
	unsigned int es = f->elem_size ? f->elem_size : 1;

	/* a flexible array at the end ("char buf[]", size 0): the rest of the record */
	if (!size && off <= end && (f->kind == EVT_FIELD_STRING || f->kind == EVT_FIELD_ARRAY))
		size = end - off;
	else if (!size)
		off = end + 1;
	if (off + size > end) {
		tjw_str(w, "null");
		return;
	}
	switch (f->kind) {
	case EVT_FIELD_INT:
		if (size == 1 || size == 2 || size == 4 || size == 8)
			tjw_int(w, d + off, (unsigned int)size, f->is_signed);
		else
			tjw_array(w, d + off, size, 1, false);
		break;
	case EVT_FIELD_PTR:
	case EVT_FIELD_USTRING:
		if (size == 4 || size == 8)
			tjw_printf(w, "\"0x%llx\"", out_rd_uint(d + off, (unsigned int)size));
		else
			tjw_array(w, d + off, size, 1, false);
		break;
	case EVT_FIELD_STRING:
		tjw_jstr(w, d + off, size, true);
		break;
	case EVT_FIELD_ARRAY:
		tjw_array(w, d + off, size, es, f->is_signed);
		break;
	case EVT_FIELD_DYN_STRING:
	case EVT_FIELD_DYN_ARRAY:
	case EVT_FIELD_REL_STRING: {
		uint32_t loc;
		size_t doff, dlen;

		if (size < 4) {
			tjw_str(w, "null");
			break;
		}
		memcpy(&loc, d + off, 4);
		doff = evt_data_loc_offset(loc);
		dlen = evt_data_loc_len(loc);
		if (f->kind == EVT_FIELD_REL_STRING)
			doff += off + size; /* relative to the end of the field */
		if (doff > end || dlen > end - doff) {
			tjw_str(w, "null");
			break;
		}
		if (f->kind == EVT_FIELD_DYN_ARRAY)
			tjw_array(w, d + doff, dlen, es, f->is_signed);
		else
			tjw_jstr(w, d + doff, dlen, true);
		break;
	}
	default:
		tjw_array(w, d + off, size, 1, false);
		break;
	}
}

/* --- threads and processes ---------------------------------------------------------- */

/*
 * An open-addressing table of ints (tids; pids) with a little per key: what was done
 * for it, and a comm learned from a record's fields. key + 2^32 stored, 0 = empty.
 */
struct tj_slot {
	long long key;
	unsigned char seen;  /* a record of this thread was written */
	unsigned char named; /* its name metadata was written */
	char comm[16];	     /* learned from sched_switch & co (kernel files), "" none */
};

struct tj_set {
	struct tj_slot *slot;
	size_t cap, n;
};

static size_t tj_hash(long long k, size_t cap)
{
	return (size_t)((unsigned long long)k * 0x9e3779b97f4a7c15ULL >> 17) & (cap - 1);
}

/* The slot of @key, added (zeroed) if new. Return: it, or NULL (no memory). */
static struct tj_slot *tj_set_get(struct tj_set *s, int key)
{
	long long k = (long long)key + (1LL << 32); /* never 0 */
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 256;
		struct tj_slot *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (size_t j = 0; j < s->cap; j++) {
			if (!s->slot[j].key)
				continue;
			for (i = tj_hash(s->slot[j].key, ncap); ns[i].key; i = (i + 1) & (ncap - 1))
				;
			ns[i] = s->slot[j];
		}
		free(s->slot);
		s->slot = ns;
		s->cap = ncap;
	}
	for (i = tj_hash(k, s->cap); s->slot[i].key; i = (i + 1) & (s->cap - 1))
		if (s->slot[i].key == k)
			return &s->slot[i];
	s->slot[i].key = k;
	s->n++;
	return &s->slot[i];
}

struct tj_state {
	struct evt_tracedat *td;
	const struct evt_json_opts *o;
	struct tjw *w;
	struct tj_set tids, pids;
	bool tgid; /* the current record's event has common_tgid */
	/* --durations, per event ID: 0 not looked up, 1 none, else
	 * stem length << 9 | stem at the end << 8 | 'B' or 'E' */
	uint32_t *pair;
	unsigned long long events;
	bool first;
};

static void tj_begin_event(struct tj_state *s)
{
	tjw_str(s->w, s->first ? "\n{" : ",\n{");
	s->first = false;
	s->events++;
}

/* "ts":us.nnn from nanoseconds, exact. */
static void tjw_ts(struct tjw *w, unsigned long long ts)
{
	tjw_printf(w, "\"ts\":%llu.%03u", ts / 1000, (unsigned int)(ts % 1000));
}

static void tj_name_meta(struct tj_state *s, const char *what, int pid, int tid,
			 unsigned long long ts, const char *name)
{
	tj_begin_event(s);
	tjw_printf(s->w, "\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,", what, pid, tid);
	tjw_ts(s->w, ts);
	tjw_str(s->w, ",\"args\":{\"name\":");
	tjw_cstr(s->w, name);
	tjw_str(s->w, "}}");
}

static bool tj_known_comm(const char *c)
{
	return strcmp(c, "<...>") != 0;
}

/* Name thread @tid (of process @pid) @comm; when @pid == @tid, its process too. */
static void tj_name_thread(struct tj_state *s, struct tj_slot *t, int pid, int tid,
			   unsigned long long ts, const char *comm)
{
	if (pid == tid && !s->tgid) {
		/* a kernel file: each thread is its own process, named as the thread */
		tj_name_meta(s, "process_name", pid, pid, ts, comm);
	}
	tj_name_meta(s, "thread_name", pid, tid, ts, comm);
	t->named = 1;
}

/* Before the first record of @tid: name the thread (and its process). */
static int tj_thread(struct tj_state *s, int pid, int tid, unsigned long long ts)
{
	struct tj_slot *t = tj_set_get(&s->tids, tid), *p;
	const char *comm;

	if (!t)
		return -ENOMEM;
	if (t->seen)
		return 0;
	t->seen = 1;
	if (s->tgid) {
		p = tj_set_get(&s->pids, pid);
		if (!p)
			return -ENOMEM;
		if (!p->seen) {
			/* the process: its main thread's comm, else this thread's */
			p->seen = 1;
			comm = evt_tracedat_comm(s->td, pid);
			if (!tj_known_comm(comm))
				comm = evt_tracedat_comm(s->td, tid);
			if (tj_known_comm(comm))
				tj_name_meta(s, "process_name", pid, pid, ts, comm);
		}
	}
	comm = evt_tracedat_comm(s->td, tid);
	if (!tj_known_comm(comm) && t->comm[0])
		comm = t->comm;
	if (tj_known_comm(comm))
		tj_name_thread(s, t, pid, tid, ts, comm);
	return 0;
}

/*
 * Kernel files (no tgid): names the saved cmdlines lack, from the record's own
 * (comm, pid), (prev_comm, prev_pid), (next_comm, next_pid) fields, as sched_switch
 * and sched_wakeup have them. A thread seen already is named now, another at its
 * first record.
 */
static int tj_learn_comms(struct tj_state *s, const struct evt_tracedat_record *rec)
{
	static const char *const pairs[][2] = { { "comm", "pid" },
						{ "prev_comm", "prev_pid" },
						{ "next_comm", "next_pid" } };
	const struct evt_tracedat_event *e = rec->event;
	const unsigned char *d = rec->data;

	for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
		const struct evt_field *fc = NULL, *fp = NULL;
		struct tj_slot *t;
		char comm[16];
		int pid;

		for (unsigned int i = e->nr_common; i < e->nr_fields; i++) {
			if (!strcmp(e->fields[i].name, pairs[k][0]))
				fc = &e->fields[i];
			else if (!strcmp(e->fields[i].name, pairs[k][1]))
				fp = &e->fields[i];
		}
		if (!fc || !fp || fc->kind != EVT_FIELD_STRING || fp->kind != EVT_FIELD_INT ||
		    fp->size != 4 || !fc->size || (size_t)fc->offset + fc->size > rec->size ||
		    (size_t)fp->offset + 4 > rec->size)
			continue;
		pid = (int)out_rd_uint(d + fp->offset, 4);
		memset(comm, 0, sizeof(comm));
		memcpy(comm, d + fc->offset, fc->size < sizeof(comm) ? fc->size : sizeof(comm) - 1);
		if (!comm[0] || tj_known_comm(evt_tracedat_comm(s->td, pid)))
			continue;
		t = tj_set_get(&s->tids, pid);
		if (!t)
			return -ENOMEM;
		if (t->named || t->comm[0])
			continue;
		memcpy(t->comm, comm, sizeof(comm));
		if (t->seen)
			tj_name_thread(s, t, pid, pid, rec->ts, t->comm);
	}
	return 0;
}

/* --- records ------------------------------------------------------------------------ */

static int tj_common_int(const struct evt_tracedat_record *rec, const char *name, int *v)
{
	const struct evt_tracedat_event *e = rec->event;

	for (unsigned int i = 0; e && i < e->nr_fields; i++) {
		const struct evt_field *f = &e->fields[i];

		if (strcmp(f->name, name))
			continue;
		if (f->size != 4 || (size_t)f->offset + 4 > rec->size)
			return -1;
		*v = (int)out_rd_uint((const unsigned char *)rec->data + f->offset, 4);
		return 0;
	}
	return -1;
}

/*
 * --durations: is @e one half of a pair whose other half the file has (same system)?
 * X_begin/X_end, X_enter/X_exit, X_entry/X_exit, sys_enter_X/sys_exit_X.
 * Return: the length of the name's stem (0: not a pair); *@ph 'B' or 'E', *@stem.
 */
static size_t tj_pair_find(struct evt_tracedat *td, const struct evt_tracedat_event *e, char *ph,
			   const char **stem)
{
	static const struct {
		const char *a, *b; /* a suffix (or prefix) and its partner */
		char ph;
		bool prefix;
	} pairs[] = {
		{ "sys_enter_", "sys_exit_", 'B', true }, { "sys_exit_", "sys_enter_", 'E', true },
		{ "_begin", "_end", 'B', false },	  { "_end", "_begin", 'E', false },
		{ "_enter", "_exit", 'B', false },	  { "_entry", "_exit", 'B', false },
		{ "_exit", "_enter", 'E', false },	  { "_exit", "_entry", 'E', false },
	};
	size_t n = strlen(e->name);
	char partner[512];

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		size_t k = strlen(pairs[i].a), sl;
		const char *st;

		if (n <= k || n - k + strlen(pairs[i].b) >= sizeof(partner))
			continue;
		if (pairs[i].prefix) {
			if (strncmp(e->name, pairs[i].a, k))
				continue;
			st = e->name + k;
			sl = n - k;
			snprintf(partner, sizeof(partner), "%s%s", pairs[i].b, st);
		} else {
			if (strcmp(e->name + n - k, pairs[i].a))
				continue;
			st = e->name;
			sl = n - k;
			snprintf(partner, sizeof(partner), "%.*s%s", (int)sl, st, pairs[i].b);
		}
		for (int j = 0; j < evt_tracedat_nr_events(td); j++) {
			const struct evt_tracedat_event *o = evt_tracedat_event(td, j);

			if (!strcmp(o->name, partner) && !strcmp(o->system, e->system)) {
				*ph = pairs[i].ph;
				*stem = st;
				return sl;
			}
		}
	}
	return 0;
}

/* The same, cached per event ID (looked up at the first record of each). */
static size_t tj_pair(struct tj_state *s, const struct evt_tracedat_event *e, char *ph,
		      const char **stem)
{
	unsigned int id = e->id & 0xffff;

	if (!s->pair) {
		s->pair = calloc(65536, sizeof(*s->pair));
		if (!s->pair)
			return 0;
	}
	if (!s->pair[id]) {
		char p = 0;
		const char *st = NULL;
		size_t sl = tj_pair_find(s->td, e, &p, &st);

		/* a prefix pair's stem is the end of the name, a suffix pair's its start */
		s->pair[id] = sl ? (uint32_t)(sl << 9 | (uint32_t)(st != e->name) << 8 |
					      (unsigned char)p) :
				   1;
	}
	if (s->pair[id] == 1)
		return 0;
	*ph = (char)(s->pair[id] & 0xff);
	*stem = s->pair[id] & 0x100 ? e->name + strlen(e->name) - (s->pair[id] >> 9) : e->name;
	return s->pair[id] >> 9;
}

static int tj_record(struct tj_state *s, const struct evt_tracedat_record *rec)
{
	const struct evt_tracedat_event *e = rec->event;
	struct tjw *w = s->w;
	int tid = -1, pid = -1, ret;
	const char *stem = NULL;
	size_t stem_len = 0;
	char ph = 'i';
	bool any = false;

	if (rec->missed) {
		tj_begin_event(s);
		tjw_str(w, "\"ph\":\"i\",\"s\":\"g\",\"name\":\"events dropped\",");
		tjw_str(w, "\"cat\":\"evtrace\",");
		tjw_ts(w, rec->ts);
		tjw_printf(w, ",\"args\":{\"cpu\":%d,\"count\":", rec->cpu);
		if (rec->missed == ~0ULL)
			tjw_str(w, "null}}");
		else
			tjw_printf(w, "%llu}}", rec->missed);
	}
	s->tgid = false;
	if (e) {
		tj_common_int(rec, "common_pid", &tid);
		s->tgid = !tj_common_int(rec, "common_tgid", &pid);
		if (!s->tgid)
			pid = tid;
	} else if (rec->size >= 8) {
		/* no format: the kernel's common header (type, flags, preempt count, pid) */
		tid = (int)out_rd_uint((const unsigned char *)rec->data + 4, 4);
		pid = tid;
	}
	if (tid != -1) {
		ret = tj_thread(s, pid, tid, rec->ts);
		if (ret)
			return ret;
	}
	if (e && !s->tgid) {
		ret = tj_learn_comms(s, rec);
		if (ret)
			return ret;
	}
	if (e && s->o->durations)
		stem_len = tj_pair(s, e, &ph, &stem);

	tj_begin_event(s);
	tjw_printf(w, "\"ph\":\"%c\",", ph);
	if (ph == 'i')
		tjw_str(w, "\"s\":\"t\",");
	tjw_str(w, "\"name\":");
	if (stem_len)
		tjw_jstr(w, stem, stem_len, false);
	else if (e)
		tjw_cstr(w, e->name);
	else
		tjw_str(w, "\"unknown\"");
	tjw_str(w, ",\"cat\":");
	tjw_cstr(w, e ? e->system : "unknown");
	tjw_put(w, ",", 1);
	tjw_ts(w, rec->ts);
	if (tid != -1)
		tjw_printf(w, ",\"pid\":%d,\"tid\":%d", pid, tid);
	tjw_str(w, ",\"args\":{");
	if (!e) {
		unsigned int type = rec->size >= 2 ? (unsigned int)out_rd_uint(rec->data, 2) : 0;

		tjw_printf(w, "\"common_type\":%u,\"size\":%u", type, rec->size);
		any = true;
	}
	for (unsigned int i = e ? e->nr_common : 0; e && i < e->nr_fields; i++) {
		const struct evt_field *f = &e->fields[i];

		if (any)
			tjw_put(w, ",", 1);
		any = true;
		tjw_cstr(w, f->name);
		tjw_put(w, ":", 1);
		tjw_field(w, rec, f);
	}
	tjw_str(w, "}}");
	return w->err;
}

/* --- the file ----------------------------------------------------------------------- */

int evt_tracedat_export_json(struct evt_tracedat *td, const struct evt_json_opts *o, struct evt_json_sink *sink,
		 struct evt_json_stats *st)
{
	static const struct evt_json_opts defaults;
	struct tjw *w = malloc(sizeof(*w));
	struct evt_tracedat_record rec;
	struct tj_state s = { .td = td, .o = o ? o : &defaults, .w = w, .first = true };
	unsigned long long records = 0, skipped = 0, dropped = 0, lost_unknown = 0;
	const char *clock;
	int ret = 0, rd;

	detail_clear();
	if (!w)
		return -ENOMEM;
	w->sink = sink;
	w->err = 0;
	w->len = 0;
	tjw_str(w, "{\"traceEvents\":[");
	while ((rd = evt_tracedat_next(td, &rec)) == 1) {
		if (s.o->want && !s.o->want(s.o->want_ctx, &rec)) {
			skipped++;
			continue;
		}
		records++;
		if (rec.missed == ~0ULL)
			lost_unknown++;
		else
			dropped += rec.missed;
		ret = tj_record(&s, &rec);
		if (ret)
			goto out;
	}
	clock = evt_tracedat_clock(td);
	tjw_str(w, "\n],\n\"displayTimeUnit\":\"ns\",\n");
	tjw_str(w, "\"metadata\":{\"generator\":\"evtrace " EVTRACE_VERSION "\"");
	if (s.o->source) {
		tjw_str(w, ",\"source\":");
		tjw_cstr(w, s.o->source);
	}
	tjw_str(w, ",\"clock\":");
	tjw_cstr(w, clock);
	/* the clocks whose time stamps are not nanoseconds: ts then counts clock units */
	tjw_printf(w, ",\"ts_unit\":\"%s\"",
		   !strcmp(clock, "counter") || !strcmp(clock, "x86-tsc") ? "clock counts" : "ns");
	tjw_printf(w, ",\"cpus\":%d,\"page_size\":%u,\"records\":%llu,\"dropped_events\":%llu",
		   evt_tracedat_nr_cpus(td), evt_tracedat_page_size(td), records, dropped);
	if (skipped)
		tjw_printf(w, ",\"skipped\":%llu", skipped);
	if (lost_unknown)
		tjw_printf(w, ",\"drops_of_unknown_count\":%llu", lost_unknown);
	if (rd < 0) {
		tjw_str(w, ",\"error\":");
		tjw_cstr(w, detail_get());	/* evt_tracedat_next()'s text */
	}
	tjw_str(w, "}}\n");
	tjw_flush(w);
	ret = w->err ? w->err : rd < 0 ? rd : 0;
out:
	if (st) {
		st->records = records;
		st->events = s.events;
		st->dropped = dropped;
	}
	free(s.tids.slot);
	free(s.pids.slot);
	free(s.pair);
	free(w);
	return ret;
}
