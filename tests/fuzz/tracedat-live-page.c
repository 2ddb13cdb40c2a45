// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: evt_tracedat_live_page() on an untrusted page (a traced
 * process's page, as `evtrace record -N -p` sends it).
 *
 * The table is made once: source 0 has events 40 and 41, source 1 has the
 * same event as 40 under id 50 and another under 40 (which becomes 51). The
 * input's first byte picks the source, the rest is the page (its size the
 * page size), copied into a heap block of exactly that size. The records
 * are read (checked iterator) before and after: every record left has an
 * id of the table's (source 0: 40, 41; source 1: 40, 51), the records
 * left plus those counted as dropped are the records before, and the
 * records left keep their time stamps, in order.
 *
 * Seeds (tests/fuzz/corpus/tracedat-live-page/): pages of the rb-page-iter
 * corpus with a source byte before them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/ring_buffer.h>
#include <evtrace/tracedat.h>

#define MAXREC 4096

static void check(int cond)
{
	if (!cond)
		abort();
}

static char texts[4][256];

static struct evt_tracedat_format fmt(int slot, const char *name, unsigned int id)
{
	int n = snprintf(texts[slot], sizeof(texts[slot]),
			 "name: %s\nID: %u\nformat:\n"
			 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			 "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n",
			 name, id);

	return (struct evt_tracedat_format){ "fz", name, texts[slot], (size_t)n };
}

static int no_page(void *ctx, unsigned int src, unsigned int cpu, uint64_t idx, void *buf)
{
	(void)ctx, (void)src, (void)cpu, (void)idx, (void)buf;
	return -1;
}

static struct evt_tracedat_live *table(void)
{
	static struct evt_tracedat_live *l;
	static const uint64_t zero;
	static struct evt_tracedat_format fa[2], fb[2];
	static struct evt_tracedat_source src[2];
	struct evt_tracedat_merge m = { .page_size = 4096, .read_page = no_page, .sources = src,
					.nr_sources = 2 };
	struct evt_tracedat_merge_stats st;
	unsigned char *hdr;
	size_t hlen;

	if (l)
		return l;
	fa[0] = fmt(0, "a", 40);
	fa[1] = fmt(1, "b", 41);
	fb[0] = fmt(2, "a", 50);
	fb[1] = fmt(3, "c", 40);
	src[0] = (struct evt_tracedat_source){ .nr_cpus = 1, .nr_pages = &zero, .formats = fa,
					       .nr_formats = 2 };
	src[1] = (struct evt_tracedat_source){ .nr_cpus = 1, .nr_pages = &zero, .formats = fb,
					       .nr_formats = 2 };
	check(evt_tracedat_live_begin(&m, &l, &hdr, &hlen, &st) == 0);
	free(hdr);
	return l;
}

/* The records of @page: their time stamps and types (-1: too short to have one). */
static size_t records(const unsigned char *page, size_t size, uint64_t *ts, int *type)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	size_t n = 0;

	if (evt_rb_page_iter_init(&it, page, size) < 0)
		return 0;
	while (n < MAXREC && evt_rb_page_iter_next(&it, &ev, &ts[n]) == 1) {
		const unsigned char *d = evt_ring_buffer_event_data((struct evt_ring_buffer_event *)ev);
		uint16_t t;

		type[n] = -1;
		if (evt_ring_buffer_event_length(ev) >= 2) {
			memcpy(&t, d, 2);
			type[n] = t;
		}
		n++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t ts0[MAXREC], ts1[MAXREC];
	static int ty0[MAXREC], ty1[MAXREC];
	struct evt_tracedat_live *l = table();
	unsigned int src;
	unsigned char *page;
	uint64_t dropped = 0, left;
	size_t n0, n1, j = 0;

	if (size < 2)
		return 0;
	src = data[0] & 1;
	size--;
	page = malloc(size);
	if (!page)
		return 0;
	memcpy(page, data + 1, size);
	n0 = records(page, size, ts0, ty0);
	left = evt_tracedat_live_page(l, src, page, (unsigned int)size, &dropped);
	n1 = records(page, size, ts1, ty1);
	if (n0 < MAXREC) {
		check(n1 == left && n1 + dropped == n0);
		for (size_t i = 0; i < n1; i++) {
			/* a record left is one of the table's events, at its own time */
			check(ty1[i] == -1 || ty1[i] == 40 || ty1[i] == (src ? 51 : 41));
			while (j < n0 && ty0[j] != -1 &&
			       !(src ? ty0[j] == 50 || ty0[j] == 40 : ty0[j] == 40 || ty0[j] == 41))
				j++;
			check(j < n0 && ts0[j] == ts1[i]);
			j++;
		}
	}
	free(page);
	return 0;
}
