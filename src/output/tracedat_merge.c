// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_merge.c - evt_tracedat_write_merged(): one trace.dat (version 6)
 * of the pages of several sources, as `evtrace record` makes of several
 * processes (docs/tracedat.md, "Several processes in one file").
 *
 * Each source numbers its own events. The file gets one table:
 *   - the first source's events keep their ids;
 *   - a later source's event with the same system, name and format text
 *     (all but the ID line) takes the id already there;
 *   - else it keeps its own id when that is free, else gets a new one
 *     above every id of every source, its text's ID line rewritten;
 * and a source whose ids changed has its records' common_type rewritten in
 * its pages (an id map of 65536 entries, made only when needed) as they
 * are copied. The CPUs of the sources follow each other: source k's CPU c
 * is the file's CPU base_k + c, so readers merge them by time stamp.
 *
 * evt_tracedat_live_begin() makes the same table of the events the sources have
 * at one moment, for a file sent as it is recorded (`evtrace record -N`):
 * the header goes first, each page then through evt_tracedat_live_page(), which
 * maps its ids and makes a record of an event not in the table (registered
 * later) a discarded entry, so that no record is decoded as another event.
 *
 * The formats and cmdlines come from other processes: an ID line that is
 * missing or out of range leaves the event out, and the pages are walked
 * with the checked page iterator.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/ring_buffer.h>
#include <evtrace/tracedat.h>

#include "output/tracedat_internal.h"

#define MERGE_ID_MAX 65536 /* event ids are u16 */

/* The "ID: N" of a format text, or 0 (none, or out of range). */
static unsigned int fmt_id(const char *text)
{
	const char *p = strstr(text, "\nID: ");
	unsigned long v;

	if (!p)
		return 0;
	v = strtoul(p + 5, NULL, 10);
	return v < MERGE_ID_MAX ? (unsigned int)v : 0;
}

/* @f's text with its "ID: old" line saying @id instead (malloc'd); its length in *@lenp. */
static char *retext(const struct evt_tracedat_format *f, unsigned int id, size_t *lenp)
{
	const char *p = strstr(f->text, "\nID: "), *e;
	char *out;
	int n;

	if (!p)
		return NULL;
	p += 5;
	e = p + strspn(p, "0123456789");
	out = malloc(f->len + 16);
	if (!out)
		return NULL;
	n = snprintf(out, f->len + 16, "%.*s%u%s", (int)(p - f->text), f->text, id, e);
	*lenp = (size_t)n;
	return out;
}

/* Are @f and @g the same event (system, name, format but the ID line)? */
static bool same_event(const struct evt_tracedat_format *g, const struct evt_tracedat_format *f)
{
	const char *a, *b, *ea, *eb;

	if (strcmp(g->system, f->system) || strcmp(g->name, f->name))
		return false;
	a = strstr(g->text, "\nID: ");
	b = strstr(f->text, "\nID: ");
	if (!a || !b || a - g->text != b - f->text || strncmp(g->text, f->text, (size_t)(a - g->text)))
		return false;
	ea = strchr(a + 1, '\n');
	eb = strchr(b + 1, '\n');
	return !strcmp(ea ? ea : "", eb ? eb : "");
}

/* The file's event table while it is made, and each source's id map. */
struct fmt_table {
	struct evt_tracedat_format *tf;
	size_t n, cap;
	char **owned;
	size_t nowned;
	const struct evt_tracedat_format **by_id; /* the event of each of the file's ids */
	uint16_t **idmap; /* per source: the file's id of each of its ids (0: the same) */
	const bool *in_file;
};

static int set_map(struct fmt_table *t, unsigned int src, unsigned int id, unsigned int nid)
{
	if (!t->idmap[src]) {
		t->idmap[src] = calloc(MERGE_ID_MAX, sizeof(**t->idmap));
		if (!t->idmap[src])
			return -ENOMEM;
	}
	t->idmap[src][id] = (uint16_t)nid;
	return 0;
}

static int table_push(struct fmt_table *t, const struct evt_tracedat_format *f)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct evt_tracedat_format *nt = realloc(t->tf, cap * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		t->tf = nt;
		t->cap = cap;
	}
	t->tf[t->n++] = *f;
	return 0;
}

/* One event of source @src into the table: the id of the same event there, its own, or a new one. */
static int merge_one(struct fmt_table *t, unsigned int src, const struct evt_tracedat_format *f,
		     unsigned int *next)
{
	struct evt_tracedat_format e = *f;
	unsigned int id = fmt_id(f->text), nid = 0;
	char **no;

	for (size_t j = 0; j < t->n && !nid; j++) {
		const struct evt_tracedat_format *g = t->by_id[fmt_id(t->tf[j].text)];

		if (g && same_event(g, f))
			nid = fmt_id(t->tf[j].text);
	}
	if (nid)
		return nid != id ? set_map(t, src, id, nid) : 0;
	if (t->by_id[id]) {
		/* its id is another event's: a new one */
		if (*next >= MERGE_ID_MAX)
			return -ERANGE;
		nid = (*next)++;
		if (set_map(t, src, id, nid))
			return -ENOMEM;
		no = realloc(t->owned, (t->nowned + 1) * sizeof(*no));
		if (!no)
			return -ENOMEM;
		t->owned = no;
		t->owned[t->nowned] = retext(f, nid, &e.len);
		if (!t->owned[t->nowned])
			return -ENOMEM;
		e.text = t->owned[t->nowned++];
		id = nid;
	}
	t->by_id[id] = f;
	return table_push(t, &e);
}

/* The file's event table of the sources in the file (the rule above), one system's adjacent. */
static int merge_formats(const struct evt_tracedat_merge *m, struct fmt_table *t)
{
	unsigned int next = 32;
	int ret = 0;

	t->by_id = calloc(MERGE_ID_MAX, sizeof(*t->by_id));
	t->idmap = calloc(m->nr_sources ? m->nr_sources : 1, sizeof(*t->idmap));
	if (!t->by_id || !t->idmap)
		return -ENOMEM;
	for (unsigned int k = 0; k < m->nr_sources; k++)
		for (size_t i = 0; t->in_file[k] && i < m->sources[k].nr_formats; i++)
			if (fmt_id(m->sources[k].formats[i].text) >= next)
				next = fmt_id(m->sources[k].formats[i].text) + 1;
	for (unsigned int k = 0; !ret && k < m->nr_sources; k++)
		for (size_t i = 0; !ret && t->in_file[k] && i < m->sources[k].nr_formats; i++)
			if (fmt_id(m->sources[k].formats[i].text))
				ret = merge_one(t, k, &m->sources[k].formats[i], &next);
	for (size_t i = 1; !ret && i < t->n; i++)
		for (size_t j = i; j > 0 && strcmp(t->tf[j - 1].system, t->tf[j].system) > 0; j--) {
			struct evt_tracedat_format x = t->tf[j];

			t->tf[j] = t->tf[j - 1];
			t->tf[j - 1] = x;
		}
	return ret;
}

static void fmt_table_free(struct fmt_table *t, unsigned int nr_sources)
{
	free(t->tf);
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->by_id);
	for (unsigned int k = 0; t->idmap && k < nr_sources; k++)
		free(t->idmap[k]);
	free(t->idmap);
}

/* Is there a "@key" (a "tid " prefix) line in @text? */
static bool has_tid(const char *text, const char *key, size_t kl)
{
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl))
			return true;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return false;
}

/* @text (@len) at @out + *@len, ended by a newline. @out has room (all_cmdlines()). */
static void put_line(char *out, size_t *len, const char *text, size_t l)
{
	memcpy(out + *len, text, l);
	*len += l;
	if (out[*len - 1] != '\n')
		out[(*len)++] = '\n';
	out[*len] = '\0';
}

/* Every source's saved cmdlines, then its other names of threads not named yet. */
static char *all_cmdlines(const struct evt_tracedat_merge *m, const bool *in_file, size_t *lenp)
{
	size_t cap = 1, len = 0;
	char *out;

	for (unsigned int k = 0; k < m->nr_sources; k++)
		if (in_file[k])
			cap += (m->sources[k].cmdlines ? strlen(m->sources[k].cmdlines) + 1 : 0) +
			       (m->sources[k].names ? strlen(m->sources[k].names) + 1 : 0);
	out = malloc(cap);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (unsigned int k = 0; k < m->nr_sources; k++) {
		const struct evt_tracedat_source *s = &m->sources[k];
		const char *p = s->names;

		if (!in_file[k])
			continue;
		if (s->cmdlines && *s->cmdlines)
			put_line(out, &len, s->cmdlines, strlen(s->cmdlines));
		/* a thread the source's own table names keeps that name */
		while (p && *p) {
			const char *nl = strchr(p, '\n'), *sp = strchr(p, ' ');
			size_t l = nl ? (size_t)(nl - p) + 1 : strlen(p);

			if (sp && sp < p + l && !has_tid(out, p, (size_t)(sp - p) + 1))
				put_line(out, &len, p, l);
			p += l;
		}
	}
	*lenp = len;
	return out;
}

/*
 * Rewrite each record's common_type in @page through @map (0: unchanged; NULL: no
 * change at all). Return: the page's records.
 */
static uint64_t page_remap(unsigned char *page, unsigned int size, const uint16_t *map)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	uint64_t n = 0;

	if (evt_rb_page_iter_init(&it, page, size))
		return 0;
	while (evt_rb_page_iter_next(&it, &ev, NULL) > 0) {
		unsigned char *data =
			evt_ring_buffer_event_data((struct evt_ring_buffer_event *)ev);
		uint16_t type;

		n++;
		/* the iterator checked the entry lies in the page; the type is its first 2 bytes */
		if (!map || evt_ring_buffer_event_length(ev) < 2)
			continue;
		memcpy(&type, data, sizeof(type));
		if (map[type])
			memcpy(data, &map[type], sizeof(type));
	}
	return n;
}

/* Each source's CPUs in order, their pages as @read_page gives them, remapped. */
static int write_pages(const struct evt_tracedat_merge *m, const struct fmt_table *t, int fd,
		       struct evt_tracedat_merge_stats *st)
{
	unsigned char *page = malloc(m->page_size);
	int ret = page ? 0 : -ENOMEM;

	for (unsigned int k = 0; !ret && k < m->nr_sources; k++) {
		const struct evt_tracedat_source *s = &m->sources[k];

		for (unsigned int c = 0; !ret && t->in_file[k] && c < s->nr_cpus; c++)
			for (uint64_t i = 0; !ret && i < s->nr_pages[c]; i++) {
				ret = m->read_page(m->ctx, k, c, i, page);
				if (ret)
					break;
				st->records += page_remap(page, m->page_size, t->idmap[k]);
				st->pages++;
				ret = tracedat_write_all(fd, page, m->page_size);
			}
	}
	free(page);
	return ret;
}

/*
 * The header: @in_file's sources (none: one empty CPU). @sizes: each file CPU's bytes,
 * malloc'd here.
 */
static int merge_header(const struct evt_tracedat_merge *m, struct fmt_table *t,
			struct evt_tracedat_merge_stats *st, unsigned char **hdr, size_t *hlen)
{
	struct tracedat_desc d = {
		.page_size = m->page_size,
		.clock = m->clock ? m->clock : "local",
		.clock_list = m->clock_list,
		.date = m->date,
		.meta_len = &st->meta_len,
	};
	char *cmdlines = NULL;
	uint64_t *sizes;
	size_t clen = 0;
	int ret;

	for (unsigned int k = 0; k < m->nr_sources; k++)
		d.nr_cpus += t->in_file[k] ? (int)m->sources[k].nr_cpus : 0;
	sizes = calloc(d.nr_cpus ? (size_t)d.nr_cpus : 1, sizeof(*sizes));
	if (!sizes)
		return -ENOMEM;
	if (!d.nr_cpus) {
		d.nr_cpus = 1; /* a valid file with nothing in it */
		ret = 0;
	} else {
		ret = merge_formats(m, t);
		cmdlines = ret ? NULL : all_cmdlines(m, t->in_file, &clen);
		if (!ret && !cmdlines)
			ret = -ENOMEM;
	}
	for (unsigned int k = 0, base = 0; !ret && k < m->nr_sources; k++) {
		const struct evt_tracedat_source *s = &m->sources[k];

		for (unsigned int c = 0; t->in_file[k] && c < s->nr_cpus; c++)
			sizes[base + c] = s->nr_pages[c] * m->page_size;
		base += t->in_file[k] ? s->nr_cpus : 0;
	}
	if (!ret) {
		d.formats = t->tf;
		d.nr_formats = t->n;
		d.cmdlines = cmdlines;
		d.cmdlines_len = clen;
		d.cpu_bytes = sizes;
		ret = tracedat_header(&d, hdr, hlen);
	}
	st->nr_cpus = ret ? 0 : (unsigned int)d.nr_cpus;
	st->data_at = ret ? 0 : *hlen;
	/* the saved cmdlines close the metadata: a u64 size, then their text */
	st->names_at = ret ? 0 : st->meta_len - 8 - clen;
	free(cmdlines);
	free(sizes);
	return ret;
}

/* Are @m's arguments whole? Each source in the file (@in_file set) has its arrays. */
static int merge_check(const struct evt_tracedat_merge *m, bool *in_file)
{
	if (m->page_size < 256 || (m->page_size & (m->page_size - 1)) || !m->read_page ||
	    (m->nr_sources && !m->sources))
		return -EINVAL;
	for (unsigned int k = 0; k < m->nr_sources; k++) {
		const struct evt_tracedat_source *s = &m->sources[k];

		if (s->nr_cpus > 4096 || (s->nr_cpus && !s->nr_pages) ||
		    (s->nr_formats && !s->formats))
			return -EINVAL;
		for (size_t i = 0; i < s->nr_formats; i++)
			if (!s->formats[i].system || !s->formats[i].name || !s->formats[i].text)
				return -EINVAL;
		in_file[k] = s->nr_cpus != 0;
	}
	return 0;
}

long long evt_tracedat_write_merged(const struct evt_tracedat_merge *m, int fd,
				    struct evt_tracedat_merge_stats *stats)
{
	struct evt_tracedat_merge_stats dummy, *st = stats ? stats : &dummy;
	struct fmt_table t = { 0 };
	unsigned char *hdr = NULL;
	bool *in_file = NULL;
	size_t hlen = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	if (!m || fd < 0)
		return -EINVAL;
	in_file = calloc(m->nr_sources ? m->nr_sources : 1, sizeof(*in_file));
	if (!in_file)
		return -ENOMEM;
	ret = merge_check(m, in_file);
	t.in_file = in_file;
	if (!ret)
		ret = merge_header(m, &t, st, &hdr, &hlen);
	if (!ret)
		ret = tracedat_write_all(fd, hdr, hlen);
	if (!ret && t.idmap)
		ret = write_pages(m, &t, fd, st);
	free(hdr);
	fmt_table_free(&t, m->nr_sources);
	free(in_file);
	return ret ? ret : (long long)(hlen + st->pages * m->page_size);
}

/* --- the same table for a file sent as it is recorded (evtrace/tracedat.h) ------------ */

struct evt_tracedat_live {
	unsigned int nr_sources;
	unsigned int *base;  /* source k's first CPU in the file */
	unsigned int *nr_cpus;
	uint16_t **idmap;    /* per source, as fmt_table's (NULL: ids unchanged) */
	unsigned char **known; /* per source: a bit per id of its events in the table */
};

void evt_tracedat_live_free(struct evt_tracedat_live *l)
{
	if (!l)
		return;
	for (unsigned int k = 0; k < l->nr_sources; k++) {
		free(l->idmap[k]);
		free(l->known[k]);
	}
	free(l->idmap);
	free(l->known);
	free(l->base);
	free(l->nr_cpus);
	free(l);
}

/* @l's per-source arrays: the CPU layout, and which of each source's ids the table has. */
static int live_fill(struct evt_tracedat_live *l, const struct evt_tracedat_merge *m,
		     struct fmt_table *t)
{
	l->nr_sources = m->nr_sources;
	l->base = calloc(m->nr_sources ? m->nr_sources : 1, sizeof(*l->base));
	l->nr_cpus = calloc(m->nr_sources ? m->nr_sources : 1, sizeof(*l->nr_cpus));
	l->idmap = calloc(m->nr_sources ? m->nr_sources : 1, sizeof(*l->idmap));
	l->known = calloc(m->nr_sources ? m->nr_sources : 1, sizeof(*l->known));
	if (!l->base || !l->nr_cpus || !l->idmap || !l->known)
		return -ENOMEM;
	for (unsigned int k = 0, base = 0; k < m->nr_sources; k++) {
		const struct evt_tracedat_source *s = &m->sources[k];

		l->base[k] = base;
		l->nr_cpus[k] = t->in_file[k] ? s->nr_cpus : 0;
		base += l->nr_cpus[k];
		l->known[k] = calloc(MERGE_ID_MAX / 8, 1);
		if (!l->known[k])
			return -ENOMEM;
		/* merge_formats() took every event of a source in the file that has an id */
		for (size_t i = 0; t->in_file[k] && i < s->nr_formats; i++) {
			unsigned int id = fmt_id(s->formats[i].text);

			if (id)
				l->known[k][id / 8] |= (unsigned char)(1u << (id % 8));
		}
		if (t->idmap) { /* the map moves to @l */
			l->idmap[k] = t->idmap[k];
			t->idmap[k] = NULL;
		}
	}
	return 0;
}

int evt_tracedat_live_begin(const struct evt_tracedat_merge *m, struct evt_tracedat_live **lp,
			    unsigned char **hdr, size_t *hlen, struct evt_tracedat_merge_stats *st)
{
	struct evt_tracedat_live *l = NULL;
	struct fmt_table t = { 0 };
	bool *in_file;
	int ret;

	*lp = NULL;
	*hdr = NULL;
	memset(st, 0, sizeof(*st));
	if (!m)
		return -EINVAL;
	in_file = calloc(m->nr_sources ? m->nr_sources : 1, sizeof(*in_file));
	if (!in_file)
		return -ENOMEM;
	ret = merge_check(m, in_file);
	t.in_file = in_file;
	for (unsigned int k = 0; !ret && k < m->nr_sources; k++)
		for (unsigned int c = 0; c < m->sources[k].nr_cpus; c++)
			if (m->sources[k].nr_pages[c])
				ret = -EINVAL; /* the pages come later, through evt_tracedat_live_page() */
	if (!ret)
		ret = merge_header(m, &t, st, hdr, hlen);
	l = ret ? NULL : calloc(1, sizeof(*l));
	if (!ret && !l)
		ret = -ENOMEM;
	if (!ret)
		ret = live_fill(l, m, &t);
	fmt_table_free(&t, m->nr_sources);
	free(in_file);
	if (ret) {
		evt_tracedat_live_free(l);
		free(*hdr);
		*hdr = NULL;
		return ret;
	}
	*lp = l;
	return 0;
}

int evt_tracedat_live_cpu(const struct evt_tracedat_live *l, unsigned int src, unsigned int cpu)
{
	if (!l || src >= l->nr_sources || cpu >= l->nr_cpus[src])
		return -1;
	return (int)(l->base[src] + cpu);
}

/*
 * A record of @total bytes (header included) at @ev made a discarded entry, as
 * evt_ring_buffer_discard_commit() makes one: padding whose array[0] covers the
 * rest, its time delta kept (readers add it, so the records after keep their times).
 */
static void live_discard(unsigned char *ev, uint32_t total)
{
	uint32_t hdr, a0 = total - 4;

	memcpy(&hdr, ev, 4);
	hdr = (hdr & ~0x1fu) | EVT_RINGBUF_TYPE_PADDING;
	memcpy(ev, &hdr, 4);
	memcpy(ev + 4, &a0, 4);
}

uint64_t evt_tracedat_live_page(const struct evt_tracedat_live *l, unsigned int src, void *page,
				unsigned int size, uint64_t *dropped)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	const uint16_t *map;
	uint64_t n = 0;

	if (!l || src >= l->nr_sources || evt_rb_page_iter_init(&it, page, size))
		return 0;
	map = l->idmap[src];
	while (evt_rb_page_iter_next(&it, &ev, NULL) > 0) {
		unsigned char *data =
			evt_ring_buffer_event_data((struct evt_ring_buffer_event *)ev);
		unsigned int len = evt_ring_buffer_event_length(ev);
		uint16_t type;

		/* the iterator checked the entry lies in the page; the type is its first 2 bytes */
		if (len < 2) {
			n++;
			continue;
		}
		memcpy(&type, data, sizeof(type));
		if (!(l->known[src][type / 8] & (1u << (type % 8)))) {
			/* the entry: its header (4 or 8 bytes, up to the data) and the data */
			live_discard((unsigned char *)ev,
				     (uint32_t)(data - (const unsigned char *)ev) + len);
			(*dropped)++;
			continue;
		}
		n++;
		if (map && map[type])
			memcpy(data, &map[type], sizeof(type));
	}
	return n;
}
