// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-live: evt_tracedat_live_begin() fixes the table of two sources
 * whose ids differ (as evt_tracedat_write_merged() would: B's ev1 takes A's
 * id 40, B's ev3 had 40 and gets 51), and evt_tracedat_live_page() makes
 * pages fit for it: ids rewritten, and records of events not in the table
 * (ids 99, 77: registered later) made discarded entries and counted, the
 * others keeping their time stamps. A file of those pages (written with the
 * table's formats, so nothing is rewritten again) reads back with the right
 * event and value for every record, in evtrace and in `trace-cmd report`
 * (when installed: the discarded entries are skipped there too, the times
 * the same). The stats' names_at: where the saved cmdlines start; a header of
 * the same sources with other names is the same before it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>
#include <evtrace/tracedat.h>

#include "helpers.h"

#define PAGE 4096

static char fmt_text[8][512];

/* A format text of event @name with ID @id and one int field "v". */
static struct evt_tracedat_format fmt(int slot, const char *name, unsigned int id)
{
	int n = snprintf(fmt_text[slot], sizeof(fmt_text[slot]),
			 "name: %s\nID: %u\nformat:\n"
			 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
			 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
			 "\tsigned:0;\n"
			 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			 "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n\n"
			 "print fmt: \"v=%%d\", REC->v\n",
			 name, id);

	return (struct evt_tracedat_format){ "lv", name, fmt_text[slot], (size_t)n };
}

/* One page of records of the given common_types, value i, a little time apart. */
static void make_page(unsigned char *page, const unsigned short *types, int n)
{
	struct evt_ring_buffer_opts o = { .size = 4 * PAGE, .page_size = PAGE, .nr_cpus = 1 };
	struct evt_ring_buffer *rb;

	T_ASSERT_OK(evt_ring_buffer_alloc_opts(&o, &rb));
	for (int i = 0; i < n; i++) {
		unsigned char rec[12] = { 0 };
		int pid = 100;

		memcpy(rec, &types[i], 2);
		memcpy(rec + 4, &pid, 4);
		memcpy(rec + 8, &i, 4);
		T_ASSERT_OK(evt_ring_buffer_write(rb, sizeof(rec), rec));
		usleep(100);
	}
	T_ASSERT(evt_ring_buffer_read_page(rb, 0, page, PAGE) > 0);
	evt_ring_buffer_free(rb);
}

/* The time stamps, types and values of @page's records (at most 8). */
static int page_records(const unsigned char *page, uint64_t *ts, unsigned short *type, int *val)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	int n = 0;

	T_ASSERT_OK(evt_rb_page_iter_init(&it, page, PAGE));
	while (n < 8 && evt_rb_page_iter_next(&it, &ev, &ts[n]) > 0) {
		const unsigned char *d = evt_ring_buffer_event_data((struct evt_ring_buffer_event *)ev);

		memcpy(&type[n], d, 2);
		memcpy(&val[n], d + 8, 4);
		n++;
	}
	return n;
}

static unsigned char pages[2][PAGE];

static int read_page(void *ctx, unsigned int src, unsigned int cpu, uint64_t idx, void *buf)
{
	(void)ctx;
	T_ASSERT(src < 2 && cpu == 0 && idx == 0);
	memcpy(buf, pages[src], PAGE);
	return 0;
}

static int no_page(void *ctx, unsigned int src, unsigned int cpu, uint64_t idx, void *buf)
{
	(void)ctx, (void)src, (void)cpu, (void)idx, (void)buf;
	return -EIO;
}

/*
 * names_at: the saved cmdlines' u64 size there, their text up to meta_len; the same
 * sources with other names make a header that differs from there on, not before.
 */
static void names_at_check(struct evt_tracedat_merge *m, const unsigned char *hdr,
			   const struct evt_tracedat_merge_stats *st)
{
	struct evt_tracedat_source *src = (struct evt_tracedat_source *)m->sources;
	struct evt_tracedat_merge_stats st2;
	struct evt_tracedat_live *l2;
	unsigned char *hdr2;
	uint64_t size;
	size_t hlen2;

	T_ASSERT(st->names_at > 0 && st->names_at + 8 <= st->meta_len);
	memcpy(&size, hdr + st->names_at, 8);
	T_ASSERT_EQ(size, st->meta_len - st->names_at - 8);
	src[0].cmdlines = "1234 a-thread\n";
	src[1].names = "5678 named-later\n";
	T_ASSERT_OK(evt_tracedat_live_begin(m, &l2, &hdr2, &hlen2, &st2));
	T_ASSERT_EQ(st2.names_at, st->names_at);
	T_ASSERT_EQ(st2.meta_len, st->meta_len + strlen("1234 a-thread\n5678 named-later\n"));
	T_ASSERT_EQ(memcmp(hdr, hdr2, st->names_at), 0);
	T_ASSERT(memcmp(hdr + st->names_at, hdr2 + st->names_at, 8) != 0);
	T_ASSERT(memmem(hdr2 + st2.names_at, st2.meta_len - st2.names_at, "5678 named-later", 16));
	evt_tracedat_live_free(l2);
	free(hdr2);
	src[0].cmdlines = NULL;
	src[1].names = NULL;
}

int main(void)
{
	static const unsigned short ta[] = { 40, 99, 41, 99, 40 }, tb[] = { 50, 40, 77 };
	static const uint64_t zero = 0, one = 1;
	struct evt_tracedat_format fa[2] = { fmt(0, "ev1", 40), fmt(1, "ev2", 41) };
	struct evt_tracedat_format fb[2] = { fmt(2, "ev1", 50), fmt(3, "ev3", 40) };
	struct evt_tracedat_format ft[2] = { fmt(4, "ev1", 40), fmt(5, "ev3", 51) };
	struct evt_tracedat_source src[2] = {
		{ .nr_cpus = 1, .nr_pages = &zero, .formats = fa, .nr_formats = 2 },
		{ .nr_cpus = 1, .nr_pages = &zero, .formats = fb, .nr_formats = 2 },
	};
	struct evt_tracedat_merge m = { .page_size = PAGE, .clock = "local", .read_page = no_page,
					.sources = src, .nr_sources = 2 };
	static const char *want[2][3] = { { "ev1", "ev2", "ev1" }, { "ev1", "ev3" } };
	static const int want_val[2][3] = { { 0, 2, 4 }, { 0, 1 } };
	struct evt_tracedat_merge_stats st;
	struct evt_tracedat_live *l;
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	unsigned char *hdr;
	uint64_t ts0[8], ts1[8], dropped = 0;
	unsigned short ty[8];
	int val[8], seen[2] = { 0, 0 }, fd;
	char path[64];
	size_t hlen;

	T_ASSERT_OK(evt_tracedat_live_begin(&m, &l, &hdr, &hlen, &st));
	T_ASSERT(st.nr_cpus == 2 && st.meta_len > 0 && st.data_at == hlen);
	T_ASSERT_EQ(memcmp(hdr, "\x17\x08\x44tracing6", 10), 0);
	T_ASSERT_EQ(evt_tracedat_live_cpu(l, 0, 0), 0);
	T_ASSERT_EQ(evt_tracedat_live_cpu(l, 1, 0), 1);
	T_ASSERT_EQ(evt_tracedat_live_cpu(l, 1, 1), -1);
	T_ASSERT_EQ(evt_tracedat_live_cpu(l, 2, 0), -1);
	names_at_check(&m, hdr, &st);
	free(hdr);

	/* A's page: the two 99s discarded, the times of the others kept */
	make_page(pages[0], ta, 5);
	T_ASSERT_EQ(page_records(pages[0], ts0, ty, val), 5);
	T_ASSERT_EQ(evt_tracedat_live_page(l, 0, pages[0], PAGE, &dropped), 3);
	T_ASSERT_EQ(dropped, 2);
	T_ASSERT_EQ(page_records(pages[0], ts1, ty, val), 3);
	T_ASSERT(ts1[0] == ts0[0] && ts1[1] == ts0[2] && ts1[2] == ts0[4]);
	T_ASSERT(ty[0] == 40 && ty[1] == 41 && ty[2] == 40 && val[1] == 2 && val[2] == 4);
	/* B's page: 50 -> 40 (ev1), 40 -> 51 (ev3), 77 discarded */
	make_page(pages[1], tb, 3);
	T_ASSERT_EQ(evt_tracedat_live_page(l, 1, pages[1], PAGE, &dropped), 2);
	T_ASSERT_EQ(dropped, 3);
	T_ASSERT_EQ(page_records(pages[1], ts1, ty, val), 2);
	T_ASSERT(ty[0] == 40 && ty[1] == 51);
	evt_tracedat_live_free(l);
	evt_tracedat_live_free(NULL);
	src[0].nr_pages = &one;
	T_ASSERT_EQ(evt_tracedat_live_begin(&m, &l, &hdr, &hlen, &st), -EINVAL);

	/* the file of those pages, with the table's formats: each record its event and value */
	src[1].formats = ft;
	src[1].nr_pages = &one;
	m.read_page = read_page;
	fd = memfd_create("tracedat-live", 0);
	T_ASSERT(fd >= 0);
	T_ASSERT(evt_tracedat_write_merged(&m, fd, &st) > 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (evt_tracedat_open(path, &td))
		t_fail("open: %s", evt_error_detail());
	while (evt_tracedat_next(td, &rec) == 1) {
		int c = rec.cpu, v;

		T_ASSERT(rec.event && (c == 0 || c == 1) && seen[c] < (c ? 2 : 3));
		T_ASSERT(!strcmp(rec.event->name, want[c][seen[c]]));
		memcpy(&v, (const char *)rec.data + 8, 4);
		T_ASSERT_EQ(v, want_val[c][seen[c]]);
		seen[c]++;
	}
	T_ASSERT(seen[0] == 3 && seen[1] == 2);
	evt_tracedat_close(td);
	if (!t_sh("command -v trace-cmd >/dev/null 2>&1")) {
		T_ASSERT_EQ(t_sh("trace-cmd report %s 2>/dev/null | grep -c ' ev[123]: ' | "
				 "grep -qx 5 && trace-cmd report %s 2>/dev/null | "
				 "grep -q 'ev2: *v=2'",
				 path, path),
			    0);
	}
	close(fd);
	return 0;
}
