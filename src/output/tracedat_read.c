// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_read.c - a reader of version 6 trace.dat files (ours and
 * trace-cmd's), trusting nothing.
 *
 * Every read of the file goes through struct rd, which checks the bytes
 * are there and records the first error with its offset. Pages are read
 * with the ring buffer's page iterator (evt_rb_page_iter), which checks
 * every entry against the page. Event formats are parsed into struct
 * evt_field arrays and their print formats compiled by the events layer's
 * interpreter, which bounds-checks every read of a record.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <evtrace/clock.h>
#include <evtrace/error.h>
#include <evtrace/events.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

#include "core/detail.h"
#include "events/event_internal.h"
#include "output/tracedat_internal.h"

#define MAX_CPUS	4096
#define MAX_FIELDS	256
#define TRACEDAT_STREAM_MAX	((size_t)1 << 30)	/* a file read, not mapped */

struct td_event {
	struct evt_tracedat_event pub;
	struct evt_field *fields;
	char *text;			/* the format text, NUL-terminated (owned) */
	struct print_fmt *pf;		/* NULL if it did not parse */
};

struct td_cpu {
	uint64_t offset, size;		/* the CPU's pages in the file */
	uint64_t page;			/* offset of the current page, from @offset */
	struct evt_rb_page_iter it;
	unsigned char *page_buf;	/* the current page, copied: the file's pages need not
					 * be aligned for the events' 4-byte headers */
	bool started, done;
	/* the next record, peeked */
	bool have;
	const struct evt_ring_buffer_event *ev;
	uint64_t ts;
	unsigned long long missed;
};

struct td_cmdline {
	int pid;
	char comm[16];
};

struct evt_tracedat {
	const unsigned char *data;
	size_t len;
	void *map;			/* mmap'ed file, or NULL */
	size_t map_len;
	unsigned char *owned;		/* read into memory */
	bool big;			/* the file is big endian */
	unsigned int page_size;
	int nr_cpus;
	struct td_cpu *cpus;
	struct td_event *events;
	int nr_events;
	int32_t *by_id;			/* 65536 entries: index into @events, or -1 */
	struct td_cmdline *cmdlines;
	int nr_cmdlines;
	char clock[32];
	bool have_clock_opt;
	bool have_date;
	long long date_ns; /* DATE option: CLOCK_REALTIME - time stamp, in ns */
	char err[160];
};

/* --- bounded reads -------------------------------------------------------------------- */

struct rd {
	struct evt_tracedat *td;
	size_t pos;
	int error;
};

static void rd_fail(struct rd *r, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void rd_fail(struct rd *r, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->error)
		return;
	r->error = -EBADMSG;
	n = snprintf(r->td->err, sizeof(r->td->err), "offset %zu: ", off);
	if (n < 0 || (size_t)n >= sizeof(r->td->err))
		return;
	va_start(ap, fmt);
	vsnprintf(r->td->err + n, sizeof(r->td->err) - (size_t)n, fmt, ap);
	va_end(ap);
}

static const unsigned char *rd_get(struct rd *r, size_t n, const char *what)
{
	const unsigned char *p;

	if (r->error)
		return NULL;
	if (n > r->td->len - r->pos) {
		rd_fail(r, r->pos, "truncated file: %zu bytes of %s expected, %zu left", n, what,
			r->td->len - r->pos);
		return NULL;
	}
	p = r->td->data + r->pos;
	r->pos += n;
	return p;
}

static uint64_t rd_uint(struct rd *r, size_t n, const char *what)
{
	const unsigned char *p = rd_get(r, n, what);
	uint64_t v = 0;

	if (!p)
		return 0;
	/* assemble in file order: little endian unless the file says big */
	for (size_t i = 0; i < n; i++) {
		size_t k = r->td->big ? i : n - 1 - i;

		v = (v << 8) | p[k];
	}
	return v;
}

static uint32_t rd_u16(struct rd *r, const char *w) { return (uint32_t)rd_uint(r, 2, w); }
static uint32_t rd_u32(struct rd *r, const char *w) { return (uint32_t)rd_uint(r, 4, w); }
static uint64_t rd_u64(struct rd *r, const char *w) { return rd_uint(r, 8, w); }

/* A NUL-terminated string in the file; NULL (error set) if there is no NUL. */
static const char *rd_str(struct rd *r, const char *what)
{
	const unsigned char *p, *nul;

	if (r->error)
		return NULL;
	p = r->td->data + r->pos;
	nul = memchr(p, 0, r->td->len - r->pos);
	if (!nul) {
		rd_fail(r, r->pos, "truncated file: unterminated %s", what);
		return NULL;
	}
	r->pos += (size_t)(nul - p) + 1;
	return (const char *)p;
}

/* A length-prefixed blob (u32 or u64 length). */
static const unsigned char *rd_blob(struct rd *r, size_t lenbytes, size_t *lenp, const char *what)
{
	size_t at = r->pos;
	uint64_t n = rd_uint(r, lenbytes, what);

	if (r->error)
		return NULL;
	if (n > r->td->len - r->pos) {
		rd_fail(r, at, "%s size %" PRIu64 " runs past the end of the file", what, n);
		return NULL;
	}
	*lenp = (size_t)n;
	return rd_get(r, (size_t)n, what);
}

/* --- format text ----------------------------------------------------------------------- */

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* The number after "key:" in a field line segment; -1 if absent or bad. */
static long field_num(const char *line, const char *end, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = line; p + kl < end; p++) {
		if (!strncmp(p, key, kl) && (p == line || p[-1] == '\t' || p[-1] == ' ' ||
					     p[-1] == ';')) {
			long v = 0;
			bool any = false;

			p += kl;
			while (p < end && *p == ' ')
				p++;
			if (p < end && *p == '-') {
				/* signed:-1 never appears; treat as bad */
				return -1;
			}
			while (p < end && *p >= '0' && *p <= '9') {
				v = v * 10 + (*p - '0');
				any = true;
				if (v > 1 << 20)
					return -1;
				p++;
			}
			return any ? v : -1;
		}
	}
	return -1;
}

static unsigned int type_size(const char *t)
{
	if (strstr(t, "char") || strstr(t, "u8") || strstr(t, "s8") || strstr(t, "int8") ||
	    strstr(t, "bool"))
		return 1;
	if (strstr(t, "short") || strstr(t, "16"))
		return 2;
	if (strstr(t, "long long") || strstr(t, "64") || strstr(t, "*"))
		return 8;
	if (strstr(t, "long"))
		return 8;
	return 4;
}

/*
 * Parse one "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line into @f.
 * Return: 0, or -1 if the line does not parse.
 */
static int parse_field(const char *line, const char *end, struct evt_field *f)
{
	const char *decl = line, *semi, *name, *bracket;
	long off, size, sgn;
	char *type = NULL, *fname = NULL;
	size_t tl;

	while (decl < end && (*decl == ' ' || *decl == '\t'))
		decl++;
	if (end - decl < 6 || strncmp(decl, "field:", 6))
		return -1;
	decl += 6;
	while (decl < end && *decl == ' ')
		decl++;
	semi = memchr(decl, ';', (size_t)(end - decl));
	if (!semi)
		return -1;
	off = field_num(semi, end, "offset:");
	size = field_num(semi, end, "size:");
	sgn = field_num(semi, end, "signed:");
	if (off < 0 || size < 0 || off > 0xffff || size > 0xffff)
		return -1;
	/* the name: the last word before ';', without a trailing [N] */
	bracket = NULL;
	name = semi;
	while (name > decl && name[-1] == ' ')
		name--;
	{
		const char *ne = name;

		if (ne > decl && ne[-1] == ']') {
			const char *b = ne - 1;

			while (b > decl && *b != '[')
				b--;
			if (*b != '[')
				return -1;
			bracket = b;
			ne = b;
		}
		name = ne;
		while (name > decl && name[-1] != ' ' && name[-1] != '\t')
			name--;
		if (name == ne)
			return -1;
		fname = dupn(name, (size_t)(ne - name));
	}
	tl = (size_t)(name - decl);
	while (tl && decl[tl - 1] == ' ')
		tl--;
	if (!tl) {
		free(fname);
		return -1;
	}
	/* the type as events.h keeps it: "char[16]" for "char name[16]" */
	if (bracket) {
		size_t bl = (size_t)(semi - bracket);

		while (bl && bracket[bl - 1] == ' ')
			bl--;
		type = malloc(tl + bl + 1);
		if (type) {
			memcpy(type, decl, tl);
			memcpy(type + tl, bracket, bl);
			type[tl + bl] = '\0';
		}
	} else {
		type = dupn(decl, tl);
	}
	if (!type || !fname) {
		free(type);
		free(fname);
		return -1;
	}
	memset(f, 0, sizeof(*f));
	f->type = type;
	f->name = fname;
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = sgn > 0;
	f->elem_size = f->size;
	f->kind = EVT_FIELD_INT;
	if (!strncmp(type, "__data_loc", 10) || !strncmp(type, "__rel_loc", 9)) {
		bool rel = type[2] == 'r';
		bool str = strstr(type, "char[]") != NULL;

		f->kind = rel ? EVT_FIELD_REL_STRING : str ? EVT_FIELD_DYN_STRING :
							     EVT_FIELD_DYN_ARRAY;
		f->elem_size = (uint16_t)(str ? 1 : type_size(type + 10));
	} else if (bracket) {
		unsigned int es = type_size(type);
		bool ch = !strncmp(type, "char", 4) || !strncmp(type, "unsigned char", 13) ||
			  !strncmp(type, "u8", 2);

		f->elem_size = (uint16_t)(f->size && es > f->size ? f->size : es);
		f->kind = ch ? EVT_FIELD_STRING : EVT_FIELD_ARRAY;
		if (!f->elem_size)
			f->elem_size = 1;
	} else if (strchr(type, '*')) {
		f->kind = EVT_FIELD_PTR;
	} else if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
		/* odd-sized scalars print as arrays of bytes */
		f->kind = EVT_FIELD_ARRAY;
		f->elem_size = 1;
	}
	return 0;
}

static void free_fields(struct evt_field *fields, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		free((char *)fields[i].type);
		free((char *)fields[i].name);
	}
	free(fields);
}

/*
 * Parse a format text at file offset @at into @ev.
 * Return: 0, -EBADMSG (message set), -ENOMEM.
 */
static int parse_format(struct rd *r, size_t at, const char *sys, const unsigned char *text,
			size_t len, struct td_event *ev)
{
	const char *p, *end, *nl, *name = NULL, *pf = NULL;
	size_t name_len = 0, pf_len = 0;
	long id = -1;
	bool in_fields = false, common = true;
	unsigned int nf = 0, ncommon = 0;
	struct evt_field *fields;

	memset(ev, 0, sizeof(*ev));
	while (len && !text[len - 1])
		len--;
	ev->text = dupn((const char *)text, len);
	fields = calloc(MAX_FIELDS, sizeof(*fields));
	if (!ev->text || !fields) {
		free(fields);
		return -ENOMEM;
	}
	if (memchr(text, 0, len)) {
		free(fields);
		rd_fail(r, at, "NUL byte inside an event format");
		return -EBADMSG;
	}
	p = ev->text;
	end = p + len;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!strncmp(p, "name: ", 6) && !name) {
			name = p + 6;
			name_len = (size_t)(nl - name);
		} else if (!strncmp(p, "ID: ", 4)) {
			char *e;

			id = strtol(p + 4, &e, 10);
			if (e == p + 4 || id < 0 || id > 0xffff)
				id = -2;
		} else if (!strncmp(p, "format:", 7)) {
			in_fields = true;
		} else if (!strncmp(p, "print fmt: ", 11)) {
			pf = p + 11;
			pf_len = (size_t)(end - pf);
			while (pf_len && (pf[pf_len - 1] == '\n' || pf[pf_len - 1] == '\0'))
				pf_len--;
			break;
		} else if (in_fields) {
			const char *q = p;

			while (q < nl && (*q == ' ' || *q == '\t'))
				q++;
			if (q == nl) {
				/* the blank line after the common fields */
				if (common && nf)
					common = false;
				continue;
			}
			if (nf >= MAX_FIELDS) {
				free_fields(fields, nf);
				rd_fail(r, at, "event format with more than %d fields", MAX_FIELDS);
				return -EBADMSG;
			}
			if (parse_field(p, nl, &fields[nf])) {
				free_fields(fields, nf);
				rd_fail(r, at + (size_t)(p - ev->text), "bad field line in format");
				return -EBADMSG;
			}
			nf++;
			if (common)
				ncommon = nf;
		}
		if (nl == end)
			break;
	}
	if (!name || !name_len || id < 0) {
		free_fields(fields, nf);
		rd_fail(r, at, "event format without %s", !name || !name_len ? "a name" :
			"a valid ID");
		return -EBADMSG;
	}
	/* the name text ends at the newline: cut it in our copy */
	((char *)name)[name_len] = '\0';
	if (nf < MAX_FIELDS) {
		struct evt_field *nfp = realloc(fields, (nf ? nf : 1) * sizeof(*fields));

		if (nfp)
			fields = nfp;
	}
	ev->fields = fields;
	ev->pub.system = sys;
	ev->pub.name = name;
	ev->pub.id = (unsigned int)id;
	ev->pub.fields = fields;
	ev->pub.nr_fields = nf;
	ev->pub.nr_common = common ? nf : ncommon;
	ev->pub.format = NULL;	/* set once the text is whole again, below */
	if (pf) {
		char *pft = dupn(pf, pf_len);

		if (!pft)
			return -ENOMEM;
		ev->pub.print_fmt = pft;
		ev->pf = print_fmt_parse(pft, fields, nf);
	} else {
		ev->pub.print_fmt = NULL;
	}
	return 0;
}

static void free_event(struct td_event *ev)
{
	free_fields(ev->fields, ev->pub.nr_fields);
	free(ev->text);
	free((char *)ev->pub.print_fmt);
	free((char *)ev->pub.format);
	if (ev->pf)
		print_fmt_free(ev->pf);
}

static int add_event(struct rd *r, const char *sys, size_t at, const unsigned char *text,
		     size_t len, int *cap)
{
	struct evt_tracedat *td = r->td;
	struct td_event *ev;
	int ret;

	if (td->nr_events == *cap) {
		int ncap = *cap ? *cap * 2 : 32;
		struct td_event *ne = realloc(td->events, (size_t)ncap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		td->events = ne;
		*cap = ncap;
	}
	ev = &td->events[td->nr_events];
	ret = parse_format(r, at, sys, text, len, ev);
	if (ret) {
		free_event(ev);
		return ret;
	}
	ev->pub.format = dupn((const char *)text, len);
	if (!ev->pub.format) {
		free_event(ev);
		return -ENOMEM;
	}
	td->nr_events++;
	return 0;
}

/* u32 count, then per format u64 length + text. */
static int read_formats(struct rd *r, const char *sys, int *cap)
{
	size_t at = r->pos;
	uint32_t n = rd_u32(r, "format count");

	if (r->error)
		return r->error;
	if (n > (r->td->len - r->pos) / 8) {
		rd_fail(r, at, "%u formats cannot fit in the rest of the file", n);
		return r->error;
	}
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *text;
		size_t len, tat;
		int ret;

		tat = r->pos + 8;
		text = rd_blob(r, 8, &len, "event format");
		if (!text)
			return r->error;
		ret = add_event(r, sys, tat, text, len, cap);
		if (ret)
			return r->error ? r->error : ret;
	}
	return 0;
}

static int cmdline_cmp(const void *a, const void *b)
{
	const struct td_cmdline *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* "pid comm\n" lines (sorted by pid afterwards, for evt_tracedat_comm()). */
static int parse_cmdlines(struct evt_tracedat *td, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int cap = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *sp;
		long pid = 0;
		bool any = false;

		if (!nl)
			nl = end;
		for (sp = p; sp < nl && *sp >= '0' && *sp <= '9'; sp++) {
			pid = pid * 10 + (*sp - '0');
			any = true;
			if (pid > 1 << 30)
				break;
		}
		if (any && sp < nl && *sp == ' ' && pid <= 1 << 30) {
			struct td_cmdline *c;
			size_t cl = (size_t)(nl - sp - 1);

			if (td->nr_cmdlines == cap) {
				int ncap = cap ? cap * 2 : 64;
				struct td_cmdline *nc;

				nc = realloc(td->cmdlines, (size_t)ncap * sizeof(*nc));
				if (!nc)
					return -ENOMEM;
				td->cmdlines = nc;
				cap = ncap;
			}
			c = &td->cmdlines[td->nr_cmdlines++];
			c->pid = (int)pid;
			if (cl > 15)
				cl = 15;
			memcpy(c->comm, sp + 1, cl);
			c->comm[cl] = '\0';
		}
		p = nl + 1;
	}
	if (td->nr_cmdlines)
		qsort(td->cmdlines, (size_t)td->nr_cmdlines, sizeof(*td->cmdlines), cmdline_cmp);
	return 0;
}

/*
 * The DATE option (trace-cmd record --date): text, "0x" and the hex number of
 * microseconds to add to a time stamp to get CLOCK_REALTIME (trace-cmd's
 * trace-input.c multiplies it by 1000). Anything else is ignored.
 */
static void parse_date(struct evt_tracedat *td, const unsigned char *data, uint32_t size)
{
	unsigned long long v = 0;
	uint32_t i = 2, digits = 0;

	if (size < 3 || data[0] != '0' || (data[1] != 'x' && data[1] != 'X'))
		return;
	for (; i < size && data[i] && data[i] != '\n'; i++, digits++) {
		unsigned char c = data[i];
		unsigned int d = c >= '0' && c <= '9' ? c - '0' :
				 c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				 c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;

		if (d == 16 || digits == 16)
			return;
		v = v << 4 | d;
	}
	/* %llx of a signed number: two's complement; microseconds to nanoseconds */
	if (!digits || (long long)v > LLONG_MAX / 1000 || (long long)v < LLONG_MIN / 1000)
		return;
	td->have_date = true;
	td->date_ns = (long long)v * 1000;
}

/* The clock in brackets of a trace_clock text. */
static void parse_clock(struct evt_tracedat *td, const unsigned char *text, size_t len)
{
	const unsigned char *o = memchr(text, '[', len), *c;

	if (!o)
		return;
	c = memchr(o, ']', len - (size_t)(o - text));
	if (!c || (size_t)(c - o - 1) >= sizeof(td->clock))
		return;
	memcpy(td->clock, o + 1, (size_t)(c - o - 1));
	td->clock[c - o - 1] = '\0';
	for (char *s = td->clock; *s; s++)
		if (!*s || (unsigned char)*s < ' ')
			*s = '?';
}

/* --- the file ------------------------------------------------------------------------- */

/* The CPU table after "flyrecord" (and the trace clock text when the options had one). */
static int read_cpu_table(struct rd *r)
{
	struct evt_tracedat *td = r->td;
	const unsigned char *p;
	size_t len;

	for (int i = 0; i < td->nr_cpus; i++) {
		struct td_cpu *c = &td->cpus[i];
		size_t at = r->pos;

		c->offset = rd_u64(r, "cpu offset");
		c->size = rd_u64(r, "cpu size");
		if (r->error)
			return r->error;
		if (c->size && (c->offset > td->len || c->size > td->len - c->offset)) {
			rd_fail(r, at, "CPU %d data (%" PRIu64 " bytes at %" PRIu64
				") runs past the end of the file (%zu bytes)", i, c->size,
				c->offset, td->len);
			return r->error;
		}
		if (c->size % td->page_size) {
			rd_fail(r, at, "CPU %d data size %" PRIu64 " is not a whole number of "
				"%u-byte pages", i, c->size, td->page_size);
			return r->error;
		}
	}
	if (td->have_clock_opt) {
		p = rd_blob(r, 8, &len, "trace clock");
		if (!p)
			return r->error;
		parse_clock(td, p, len);
	}
	return 0;
}

/**
 * read_initial() - the file's first bytes
 * @r: the reader, at offset 0
 *
 * The magic, the version (6 only), the byte order (the host's only: the pages are read in
 * place) and the size of a long, and the page size (into r->td).
 *
 * Context: evt_tracedat_open*(), on a file no one else sees yet.
 * Return: 0, or a negative errno (td->err says where and why).
 */
static int read_initial(struct rd *r)
{
	struct evt_tracedat *td = r->td;
	const unsigned char *p;
	unsigned long psize;
	uint16_t one = 1;
	const char *ver;
	bool host_be;
	size_t at;

	p = rd_get(r, 10, "magic");
	if (!p)
		return r->error;
	if (memcmp(p, "\x17\x08\x44tracing", 10)) {
		rd_fail(r, 0, "not a trace.dat file (bad magic)");
		return r->error;
	}
	at = r->pos;
	ver = rd_str(r, "version");
	if (!ver)
		return r->error;
	if (strcmp(ver, "6")) {
		snprintf(td->err, sizeof(td->err),
			 "offset %zu: file version %.8s: only version 6 is read "
			 "(trace-cmd convert --file-version 6 --compression none)", at, ver);
		return -EPROTO;
	}
	p = rd_get(r, 2, "byte order and long size");
	if (!p)
		return r->error;
	if (p[0] > 1) {
		rd_fail(r, r->pos - 2, "bad byte order %u", p[0]);
		return r->error;
	}
	host_be = *(unsigned char *)&one == 0;
	td->big = p[0] == 1; /* rd_uint assembles per the file's order */
	/* pages are read in place, in the host's order */
	if (td->big != host_be) {
		snprintf(td->err, sizeof(td->err),
			 "offset %zu: a %s-endian file (only the host's order is read)", r->pos - 2,
			 td->big ? "big" : "little");
		return -EPROTO;
	}
	at = r->pos;
	psize = rd_u32(r, "page size");
	if (r->error)
		return r->error;
	if (psize < 256 || psize > (1ul << 24) || (psize & (psize - 1))) {
		rd_fail(r, at, "bad page size %lu", psize);
		return r->error;
	}
	td->page_size = (unsigned int)psize;
	return 0;
}

/**
 * read_headers() - the header_page and header_event sections
 * @r: the reader, after the initial bytes
 *
 * The commit field of header_page must be 8 bytes (what our page iterator reads); header_event
 * is skipped.
 *
 * Context: evt_tracedat_open*(), on a file no one else sees yet.
 * Return: 0, or a negative errno (td->err says where and why).
 */
static int read_headers(struct rd *r)
{
	const char *key = "local_t commit;";
	struct evt_tracedat *td = r->td;
	const char *s, *t, *e, *c;
	const unsigned char *p;
	size_t len, at;
	long cs = -1;

	at = r->pos;
	s = rd_str(r, "section name");
	if (s && strcmp(s, "header_page")) {
		rd_fail(r, at, "expected header_page");
		return r->error;
	}
	at = r->pos + 8;
	p = rd_blob(r, 8, &len, "header_page");
	if (!p)
		return r->error;
	t = (const char *)p;
	e = t + len;
	c = len >= strlen(key) ? memmem(t, len, key, strlen(key)) : NULL;
	if (!c)
		c = len >= 7 ? memmem(t, len, " commit;", 8) : NULL;
	if (c)
		cs = field_num(c, e, "size:");
	if (cs != 8) {
		snprintf(td->err, sizeof(td->err),
			 "offset %zu: header_page %s (only 64-bit pages are read)", at,
			 len ? "has no 8-byte commit field" : "is empty");
		return len ? -EPROTO : -EBADMSG;
	}
	at = r->pos;
	s = rd_str(r, "section name");
	if (s && strcmp(s, "header_event")) {
		rd_fail(r, at, "expected header_event");
		return r->error;
	}
	if (!rd_blob(r, 8, &len, "header_event"))
		return r->error;
	return 0;
}

/**
 * read_events() - the event formats, kallsyms, printk formats and saved cmdlines
 * @r: the reader, after the headers
 *
 * The formats of "ftrace" and of each system, kallsyms and the printk formats (skipped) and
 * the saved cmdlines (into r->td).
 *
 * Context: evt_tracedat_open*(), on a file no one else sees yet.
 * Return: 0, or a negative errno (td->err says where and why).
 */
static int read_events(struct rd *r)
{
	struct evt_tracedat *td = r->td;
	const unsigned char *p;
	size_t len, at;
	int cap = 0, ret;
	uint32_t n;

	ret = read_formats(r, "ftrace", &cap);
	if (ret)
		return ret;
	at = r->pos;
	n = rd_u32(r, "system count");
	if (r->error)
		return r->error;
	if (n > (td->len - r->pos) / 5) {
		rd_fail(r, at, "%u systems cannot fit in the rest of the file", n);
		return r->error;
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *sys = rd_str(r, "system name");

		if (!sys)
			return r->error;
		ret = read_formats(r, sys, &cap);
		if (ret)
			return ret;
	}
	if (!rd_blob(r, 4, &len, "kallsyms"))
		return r->error;
	if (!rd_blob(r, 4, &len, "printk formats"))
		return r->error;
	p = rd_blob(r, 8, &len, "saved cmdlines");
	if (!p)
		return r->error;
	return parse_cmdlines(td, (const char *)p, len);
}

/* Where the first BUFFER option says an instance's flyrecord lies (0: none), and the option. */
struct rd_buffer {
	uint64_t at;
	size_t opt_at;
};

/**
 * read_options() - the options section, after its "options  " name
 * @r:   the reader
 * @buf: the first BUFFER option, filled here when there is one
 *
 * The trace clock and the date are kept in r->td, the first BUFFER option's offset in @buf,
 * and the other options are skipped.
 *
 * Context: evt_tracedat_open*(), on a file no one else sees yet.
 * Return: 0 at the DONE option, or a negative errno (td->err says where and why).
 */
static int read_options(struct rd *r, struct rd_buffer *buf)
{
	struct evt_tracedat *td = r->td;

	for (;;) {
		const unsigned char *data;
		uint32_t id, size;
		size_t at = r->pos;

		id = rd_u16(r, "option id");
		if (r->error)
			return r->error;
		if (id == TRACEDAT_OPT_DONE)
			return 0;
		size = rd_u32(r, "option size");
		if (r->error)
			return r->error;
		if (size > td->len - r->pos) {
			rd_fail(r, at, "option %u of %u bytes runs past the end", id, size);
			return r->error;
		}
		data = rd_get(r, size, "option");
		if (!data)
			return r->error;
		if (id == TRACEDAT_OPT_TRACECLOCK) {
			td->have_clock_opt = true;
			parse_clock(td, data, size);
		}
		if (id == TRACEDAT_OPT_DATE)
			parse_date(td, data, size);
		if (id == TRACEDAT_OPT_BUFFER && size >= 9 && !buf->at) {
			struct rd o = { .td = td, .pos = (size_t)(data - td->data) };

			buf->at = rd_u64(&o, "buffer offset");
			buf->opt_at = at;
		}
	}
}

/**
 * read_buffer_option() - the CPU table of an instance's flyrecord, when the top one is empty
 * @r:   the reader, after the top flyrecord's CPU table
 * @buf: the first BUFFER option of the file (none: buf->at is 0)
 *
 * trace-cmd extract -B NAME (and record -B) leave the top buffer empty and put the instance's
 * pages in a BUFFER option: read the CPU table of the first one then.
 *
 * Context: evt_tracedat_open*(), on a file no one else sees yet.
 * Return: 0, or a negative errno (td->err says where and why).
 */
static int read_buffer_option(struct rd *r, const struct rd_buffer *buf)
{
	struct evt_tracedat *td = r->td;
	const unsigned char *p;
	bool empty = true;

	if (!buf->at)
		return 0;
	for (int i = 0; i < td->nr_cpus; i++)
		empty &= td->cpus[i].size == 0;
	if (!empty)
		return 0;
	if (buf->at > td->len - 10) {
		rd_fail(r, buf->opt_at,
			"buffer option offset %" PRIu64 " is past the end of the file", buf->at);
		return r->error;
	}
	r->pos = (size_t)buf->at;
	p = rd_get(r, 10, "buffer flyrecord");
	if (p && memcmp(p, "flyrecord", 10))
		rd_fail(r, (size_t)buf->at, "expected flyrecord of a buffer");
	if (r->error)
		return r->error;
	return read_cpu_table(r);
}

/**
 * parse() - a whole version 6 file, section after section
 * @td: the file, its bytes in td->data
 *
 * The initial bytes, the headers, the events and cmdlines, the CPU count, the options, then
 * the flyrecord's CPU table (or a BUFFER option's).
 *
 * Context: evt_tracedat_open*(), on a file no one else sees yet.
 * Return: 0, or a negative errno (td->err says where and why).
 */
static int parse(struct evt_tracedat *td)
{
	struct rd_buffer buf = { 0 };
	struct rd r = { .td = td };
	const unsigned char *p;
	size_t at;
	uint32_t n;
	int ret;

	ret = read_initial(&r);
	if (!ret)
		ret = read_headers(&r);
	if (!ret)
		ret = read_events(&r);
	if (ret)
		return ret;
	at = r.pos;
	n = rd_u32(&r, "cpu count");
	if (r.error)
		return r.error;
	if (n > MAX_CPUS) {
		rd_fail(&r, at, "%u CPUs (at most %d are read)", n, MAX_CPUS);
		return r.error;
	}
	td->nr_cpus = (int)n;

	at = r.pos;
	p = rd_get(&r, 10, "section name");
	if (!p)
		return r.error;
	if (!memcmp(p, "options  ", 10)) {
		ret = read_options(&r, &buf);
		if (ret)
			return ret;
		at = r.pos;
		p = rd_get(&r, 10, "section name");
		if (!p)
			return r.error;
	}
	if (!memcmp(p, "latency  ", 10)) {
		snprintf(td->err, sizeof(td->err),
			 "offset %zu: a latency-format file (no per-CPU pages)", at);
		return -EPROTO;
	}
	if (memcmp(p, "flyrecord", 10)) {
		rd_fail(&r, at, "expected options or flyrecord");
		return r.error;
	}
	if ((uint64_t)n * 16 > td->len - r.pos) {
		rd_fail(&r, r.pos, "a table of %u CPUs cannot fit in the rest of the file", n);
		return r.error;
	}
	td->cpus = calloc(n ? n : 1, sizeof(*td->cpus));
	if (!td->cpus)
		return -ENOMEM;
	ret = read_cpu_table(&r);
	if (ret)
		return ret;
	return read_buffer_option(&r, &buf);
}

static int open_common(struct evt_tracedat *td, struct evt_tracedat **tdp)
{
	int ret = parse(td);

	if (ret) {
		detail_set("%s", td->err[0] ? td->err : evt_strerror(ret));
		evt_tracedat_close(td);
		return ret;
	}
	/* ID -> format, for every record: the first format of an ID wins */
	td->by_id = malloc(65536 * sizeof(*td->by_id));
	if (!td->by_id) {
		evt_tracedat_close(td);
		return -ENOMEM;
	}
	memset(td->by_id, 0xff, 65536 * sizeof(*td->by_id));
	for (int i = td->nr_events - 1; i >= 0; i--)
		td->by_id[td->events[i].pub.id & 0xffff] = i;
	td->err[0] = '\0';
	evt_tracedat_rewind(td);
	*tdp = td;
	return 0;
}

int evt_tracedat_open_mem(const void *buf, size_t len, struct evt_tracedat **tdp)
{
	struct evt_tracedat *td;

	detail_clear();
	if (!tdp || (!buf && len))
		return -EINVAL;
	*tdp = NULL;
	td = calloc(1, sizeof(*td));
	if (!td)
		return -ENOMEM;
	td->data = buf ? buf : (const unsigned char *)"";
	td->len = len;
	return open_common(td, tdp);
}

/* The detail of an open that failed before parsing (never empty). */
static int open_fail(int ret, const char *path, const char *what)
{
	if (what)
		detail_set("%s", what);
	else
		detail_set("%s: %s", path, evt_strerror(ret));
	return ret;
}

/*
 * A file that cannot be mapped (a pipe, a FIFO, a character device): its
 * magic is read and checked first, so that /dev/zero or a stream of
 * something else fails at once; then the rest, up to TRACEDAT_STREAM_MAX.
 */
static int read_stream(int fd, struct evt_tracedat *td, const char *path)
{
	size_t cap = 16;
	ssize_t n;

	td->owned = malloc(cap);
	if (!td->owned)
		return open_fail(-ENOMEM, path, NULL);
	for (;;) {
		if (td->len == cap) {
			unsigned char *nb;

			if (cap >= TRACEDAT_STREAM_MAX)
				return open_fail(-EFBIG, path,
						 "a stream (not a regular file) of more than 1 GiB: "
						 "save it to a file first");
			cap = cap < 65536 ? 65536 : cap * 2;
			nb = realloc(td->owned, cap);
			if (!nb)
				return open_fail(-ENOMEM, path, NULL);
			td->owned = nb;
		}
		/* the magic alone first: nothing more is read of what is not a trace.dat */
		n = read(fd, td->owned + td->len, (td->len < 10 ? 10 : cap) - td->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return open_fail(-errno, path, NULL);
		if (n == 0)
			break;
		td->len += (size_t)n;
		if (td->len >= 10 && td->len - (size_t)n < 10 &&
		    memcmp(td->owned, "\x17\x08\x44tracing", 10))
			return open_fail(-EBADMSG, path,
					 "offset 0: not a trace.dat file (bad magic)");
	}
	td->data = td->owned;
	return 0;
}

int evt_tracedat_open(const char *path, struct evt_tracedat **tdp)
{
	struct evt_tracedat *td;
	struct stat st;
	int fd, ret = 0;

	detail_clear();
	if (!path || !tdp)
		return -EINVAL;
	*tdp = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return open_fail(-errno, path, NULL);
	td = calloc(1, sizeof(*td));
	if (!td) {
		close(fd);
		return open_fail(-ENOMEM, path, NULL);
	}
	if (fstat(fd, &st) < 0) {
		ret = open_fail(-errno, path, NULL);
	} else if (S_ISDIR(st.st_mode)) {
		ret = open_fail(-EISDIR, path, NULL);
	} else if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			ret = open_fail(-errno, path, NULL);
		} else {
			td->map = m;
			td->map_len = (size_t)st.st_size;
			td->data = m;
			td->len = (size_t)st.st_size;
		}
	} else if (S_ISREG(st.st_mode)) {
		td->data = (const unsigned char *)"";	/* empty: "truncated file" below */
	} else {
		ret = read_stream(fd, td, path);
	}
	close(fd);
	if (ret) {
		free(td->owned);
		free(td);
		return ret;
	}
	return open_common(td, tdp);
}

void evt_tracedat_close(struct evt_tracedat *td)
{
	if (!td)
		return;
	for (int i = 0; i < td->nr_events; i++)
		free_event(&td->events[i]);
	free(td->events);
	free(td->by_id);
	free(td->cmdlines);
	for (int i = 0; td->cpus && i < td->nr_cpus; i++)
		free(td->cpus[i].page_buf);
	free(td->cpus);
	if (td->map)
		munmap(td->map, td->map_len);
	free(td->owned);
	free(td);
}

/* --- records --------------------------------------------------------------------------- */

static void td_error(struct evt_tracedat *td, uint64_t off, const char *what)
{
	if (!td->err[0])
		snprintf(td->err, sizeof(td->err), "offset %" PRIu64 ": %s", off, what);
}

/* Peek the next record of @c; false at its end or on an error (td->err set). */
static int cpu_fill(struct evt_tracedat *td, struct td_cpu *c)
{
	while (!c->have && !c->done) {
		const struct evt_ring_buffer_event *ev;
		uint64_t ts;
		int ret;

		if (!c->started) {
			const unsigned char *page;

			if (c->page >= c->size) {
				c->done = true;
				break;
			}
			if (!c->page_buf) {
				c->page_buf = aligned_alloc(8, (td->page_size + 7) & ~(size_t)7);
				if (!c->page_buf) {
					td_error(td, c->offset + c->page, "out of memory");
					c->done = true;
					return -EBADMSG;
				}
			}
			memcpy(c->page_buf, td->data + c->offset + c->page, td->page_size);
			page = c->page_buf;
			if (evt_rb_page_iter_init(&c->it, page, td->page_size)) {
				td_error(td, c->offset + c->page + 8,
					 "page commit larger than the page");
				c->done = true;
				return -EBADMSG;
			}
			c->missed = 0;
			if (c->it.commit_flags & EVT_RB_PAGE_MISSED_EVENTS) {
				c->missed = ~0ULL;
				if (c->it.commit_flags & EVT_RB_PAGE_MISSED_STORED &&
				    c->it.end + 8 <= td->page_size) {
					uint64_t m;

					memcpy(&m, page + c->it.end, 8);
					c->missed = m;
				}
			}
			c->started = true;
		}
		ret = evt_rb_page_iter_next(&c->it, &ev, &ts);
		if (ret < 0) {
			td_error(td, c->offset + c->page + c->it.pos, "corrupt ring-buffer entry");
			c->done = true;
			return -EBADMSG;
		}
		if (ret == 0) {
			c->started = false;
			c->page += td->page_size;
			continue;
		}
		c->ev = ev;
		c->ts = ts;
		c->have = true;
	}
	return 0;
}

void evt_tracedat_rewind(struct evt_tracedat *td)
{
	if (!td)
		return;
	for (int i = 0; i < td->nr_cpus; i++) {
		struct td_cpu *c = &td->cpus[i];

		c->page = 0;
		c->started = c->have = false;
		c->done = c->size == 0;
	}
	td->err[0] = '\0';
}

const struct evt_tracedat_event *evt_tracedat_event_by_id(const struct evt_tracedat *td,
							  unsigned int id)
{
	if (!td || id > 0xffff || !td->by_id || td->by_id[id] < 0)
		return NULL;
	return &td->events[td->by_id[id]].pub;
}

/* A corrupt page ends the reader: every later call fails the same way, with td->err. */
static int next_failed(const struct evt_tracedat *td)
{
	detail_clear();
	detail_set("%s", td->err);
	return -EBADMSG;
}

int evt_tracedat_next(struct evt_tracedat *td, struct evt_tracedat_record *rec)
{
	struct td_cpu *best = NULL;
	int bi = -1;

	if (!td || !rec)
		return -EINVAL;
	if (td->err[0])
		return next_failed(td);
	for (int i = 0; i < td->nr_cpus; i++) {
		struct td_cpu *c = &td->cpus[i];

		if (cpu_fill(td, c))
			return next_failed(td);
		if (c->have && (!best || c->ts < best->ts)) {
			best = c;
			bi = i;
		}
	}
	if (!best)
		return 0;
	memset(rec, 0, sizeof(*rec));
	rec->cpu = bi;
	rec->ts = best->ts;
	rec->data = evt_ring_buffer_event_data((struct evt_ring_buffer_event *)best->ev);
	rec->size = evt_ring_buffer_event_length(best->ev);
	rec->offset = (long long)(best->offset + best->page +
				  (uint64_t)((const unsigned char *)best->ev - best->page_buf));
	rec->missed = best->missed;
	best->missed = 0;
	if (rec->size >= 2) {
		uint16_t type;

		memcpy(&type, rec->data, 2);
		rec->event = evt_tracedat_event_by_id(td, type);
	}
	best->have = false;
	return 1;
}

int evt_tracedat_nr_cpus(const struct evt_tracedat *td)
{
	return td ? td->nr_cpus : -EINVAL;
}

unsigned int evt_tracedat_page_size(const struct evt_tracedat *td)
{
	return td ? td->page_size : 0;
}

int evt_tracedat_date(const struct evt_tracedat *td, long long *offset_ns)
{
	if (!td || !offset_ns)
		return -EINVAL;
	if (!td->have_date)
		return 0;
	*offset_ns = td->date_ns;
	return 1;
}

const char *evt_tracedat_clock(const struct evt_tracedat *td)
{
	return td ? td->clock : "";
}

int evt_tracedat_nr_events(const struct evt_tracedat *td)
{
	return td ? td->nr_events : -EINVAL;
}

const struct evt_tracedat_event *evt_tracedat_event(const struct evt_tracedat *td, int idx)
{
	if (!td || idx < 0 || idx >= td->nr_events)
		return NULL;
	return &td->events[idx].pub;
}

const char *evt_tracedat_comm(const struct evt_tracedat *td, int pid)
{
	if (td) {
		if (pid == 0)
			return "<idle>";
		struct td_cmdline key = { .pid = pid }, *c;

		c = td->nr_cmdlines ? bsearch(&key, td->cmdlines, (size_t)td->nr_cmdlines,
					      sizeof(*c), cmdline_cmp) : NULL;
		if (c)
			return c->comm;
	}
	return "<...>";
}

/* --- printing ---------------------------------------------------------------------------- */

static const struct evt_field *find_field(const struct evt_tracedat_event *ev, const char *name)
{
	for (unsigned int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

/* An integer field of @rec (0 if absent or out of the record). */
static long long rec_int(const struct evt_tracedat_record *rec, const char *name)
{
	const struct evt_field *f = rec->event ? find_field(rec->event, name) : NULL;
	const unsigned char *p = rec->data;
	long long v = 0;

	if (!f || f->size > 8 || !f->size || (size_t)f->offset + f->size > rec->size)
		return 0;
	switch (f->size) {
	case 1:
		v = f->is_signed ? (long long)(int8_t)p[f->offset] : (long long)p[f->offset];
		break;
	case 2: {
		uint16_t x;

		memcpy(&x, p + f->offset, 2);
		v = f->is_signed ? (long long)(int16_t)x : (long long)x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p + f->offset, 4);
		v = f->is_signed ? (long long)(int32_t)x : (long long)x;
		break;
	}
	case 8: {
		uint64_t x;

		memcpy(&x, p + f->offset, 8);
		v = (long long)x;
		break;
	}
	default:
		break;
	}
	return v;
}

int evt_tracedat_print(const struct evt_tracedat *td, const struct evt_tracedat_record *rec,
		       struct evt_seq *s)
{
	const struct td_event *tev = NULL;
	size_t start;
	int pid, flags, pc;
	char fl[6];
	bool secs;

	if (!td || !rec || !s)
		return -EINVAL;
	start = s->len;
	if (rec->event)
		tev = (const struct td_event *)((const char *)rec->event -
						offsetof(struct td_event, pub));
	pid = (int)rec_int(rec, "common_pid");
	flags = (int)rec_int(rec, "common_flags");
	pc = (int)rec_int(rec, "common_preempt_count");
	evt_seq_printf(s, "%16s-%-7d [%03d] ", evt_tracedat_comm(td, pid), pid, rec->cpu);
	fl[0] = flags & EVT_TRACE_FLAG_IRQS_OFF ? 'd' : '.';
	fl[1] = flags & EVT_TRACE_FLAG_NEED_RESCHED ? 'N' : '.';
	fl[2] = (flags & EVT_TRACE_FLAG_HARDIRQ) ?
		((flags & EVT_TRACE_FLAG_SOFTIRQ) ? 'H' : 'h') :
		((flags & EVT_TRACE_FLAG_SOFTIRQ) ? 's' : '.');
	fl[3] = (pc & 0xf) ? "0123456789abcdef"[pc & 0xf] : '.';
	fl[4] = ((pc >> 4) & 0xf) ? "0123456789abcdef"[(pc >> 4) & 0xf] : '.';
	fl[5] = '\0';
	evt_seq_puts(s, fl);
	/* as trace-cmd: seconds for the clocks it knows count ns (or with no clock named) */
	secs = !td->clock[0] || tracedat_clock_is_secs(td->clock);
	if (secs) {
		unsigned long long usecs = (rec->ts + 500) / 1000;

		evt_seq_printf(s, " %5llu.%06llu: ", usecs / 1000000, usecs % 1000000);
	} else {
		evt_seq_printf(s, " %12llu: ", (unsigned long long)rec->ts);
	}
	if (!rec->event) {
		unsigned int type = 0;

		if (rec->size >= 2)
			type = (unsigned int)rec_int(rec, "common_type");
		if (rec->size >= 2 && !type) {
			uint16_t t;

			memcpy(&t, rec->data, 2);
			type = t;
		}
		evt_seq_printf(s, "Unknown type %u\n", type);
	} else if (!strcmp(rec->event->system, "ftrace") &&
		   !strcmp(rec->event->name, "kernel_stack")) {
		/* as the kernel's trace_stack_print(): `size` callers, up to ULONG_MAX (the
		 * format's caller[8] is not the record's length); addresses only, the
		 * file has no symbols of the program that recorded them */
		const struct evt_field *f = find_field(rec->event, "caller");
		long long nr = rec_int(rec, "size");

		evt_seq_puts(s, "<stack trace>\n");
		for (long long i = 0; f && f->elem_size == 8 && i < nr; i++) {
			size_t off = f->offset + (size_t)i * 8;
			uint64_t ip;

			if (off + 8 > rec->size)
				break;
			memcpy(&ip, (const unsigned char *)rec->data + off, 8);
			if (ip == UINT64_MAX)
				break;
			evt_seq_printf(s, " => 0x%llx\n", (unsigned long long)ip);
		}
	} else if (!strcmp(rec->event->system, "ftrace") && !strcmp(rec->event->name, "print")) {
		const struct evt_field *f = find_field(rec->event, "buf");
		const char *text = f && f->offset < rec->size ?
				   (const char *)rec->data + f->offset : "";
		size_t max = f && f->offset < rec->size ? rec->size - f->offset : 0;
		size_t n = max ? strnlen(text, max) : 0;

		evt_seq_printf(s, "tracing_mark_write: %.*s", (int)n, text);
		if (!n || text[n - 1] != '\n')
			evt_seq_putc(s, '\n');
	} else {
		evt_seq_printf(s, "%s: ", rec->event->name);
		if (tev->pf)
			print_fmt_print(tev->pf, rec->data, rec->size, s);
		else
			evt_seq_puts(s, "[FAILED TO PARSE]");
		evt_seq_putc(s, '\n');
	}
	if (s->full) {
		evt_seq_truncate(s, start);
		s->full = true;
		return -ENOSPC;
	}
	return 0;
}
