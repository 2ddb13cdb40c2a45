// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: evt_rb_page_iter over an untrusted page.
 *
 * The input is the page: page_size = input length (header included).
 * It is copied into a heap block of exactly that size, so any read past
 * the page is caught by AddressSanitizer. Every event handed out must lie
 * inside the page's data, and its payload (event_length bytes at
 * event_data) inside too; the walk must end (0 or -EBADMSG) and stay
 * ended.
 *
 * Seeds (tests/fuzz/corpus/rb-page-iter/) come from this file built with
 * -DRB_FUZZ_GEN_MAIN: real pages from read_page and a few hand-built
 * ones with every entry type. See the comment at the end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/ring_buffer.h>

static volatile unsigned int sink;

static void check(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	unsigned char *page;
	uint64_t ts;
	size_t steps = 0;
	int r;

	page = malloc(size ? size : 1);
	if (!page)
		return 0;
	if (size)
		memcpy(page, data, size);
	if (evt_rb_page_iter_init(&it, page, size) < 0) {
		check(evt_rb_page_iter_next(&it, &ev, &ts) < 0);
		free(page);
		return 0;
	}
	check(it.end >= EVT_RB_PAGE_HDR_SIZE && it.end <= size);
	while ((r = evt_rb_page_iter_next(&it, &ev, &ts)) == 1) {
		const unsigned char *p = (const unsigned char *)ev;
		const unsigned char *d;
		unsigned int len;

		check(p >= page + EVT_RB_PAGE_HDR_SIZE && p + 4 <= page + it.end);
		check(ev->type_len <= EVT_RINGBUF_TYPE_DATA_TYPE_LEN_MAX);
		len = evt_ring_buffer_event_length(ev);
		d = evt_ring_buffer_event_data((struct evt_ring_buffer_event *)ev);
		check(d >= p + 4 && d + len <= page + it.end);
		for (unsigned int i = 0; i < len; i++)
			sink += d[i];
		sink += evt_ring_buffer_time_delta(ev) + (unsigned int)ts;
		/* every entry is at least 4 bytes: a walk has a bound */
		check(++steps <= size / 4);
	}
	check(r == 0 || r == -EBADMSG);
	/* it stays where it ended */
	check(evt_rb_page_iter_next(&it, &ev, &ts) == r);
	check(evt_rb_page_iter_next(&it, NULL, NULL) == r);
	free(page);
	return 0;
}

#ifdef RB_FUZZ_GEN_MAIN
/*
 * Seed generator:
 *   cc -DRB_FUZZ_GEN_MAIN -D_GNU_SOURCE -Iinclude -I<build>/include \
 *      tests/fuzz/rb-page-iter.c <build>/libevtrace_static.a -lpthread -latomic -o gen
 *   ./gen tests/fuzz/corpus/rb-page-iter
 */
#include <sched.h>
#include <time.h>
#include <unistd.h>

static void put(const char *dir, const char *name, const void *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static void fill_events(struct evt_ring_buffer *rb, int n, int maxlen)
{
	unsigned char buf[4096];

	for (int i = 0; i < n; i++) {
		int len = 1 + (i * 37) % maxlen;

		memset(buf, 'a' + i % 26, (size_t)len);
		evt_ring_buffer_write(rb, (unsigned long)len, buf);
	}
}

/* Read one page of @rb's CPU @cpu into @page; return its size or exit. */
static int one_page(struct evt_ring_buffer *rb, int cpu, unsigned char *page, size_t ps)
{
	int ret = evt_ring_buffer_read_page(rb, cpu, page, ps);

	if (ret <= 0) {
		fprintf(stderr, "read_page: %d\n", ret);
		exit(1);
	}
	return ret;
}

static int my_cpu(void)
{
	cpu_set_t set;
	int cpu;

	cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	return cpu;
}

static struct evt_ring_buffer *mk(unsigned int ps, unsigned int flags, enum evt_clock_id clock)
{
	struct evt_ring_buffer_opts o = { .size = 16 * ps, .flags = flags, .page_size = ps,
					  .clock = clock };
	struct evt_ring_buffer *rb;

	if (evt_ring_buffer_alloc_opts(&o, &rb) < 0)
		exit(1);
	return rb;
}

int main(int argc, char **argv)
{
	static unsigned char page[65536];
	const char *dir = argc > 1 ? argv[1] : ".";
	int cpu = my_cpu();
	struct evt_ring_buffer *rb;
	struct timespec ts = { 0, 150000000 };

	/* a 256-byte page of small events */
	rb = mk(256, 0, EVT_CLOCK_LOCAL);
	fill_events(rb, 10, 40);
	one_page(rb, cpu, page, 256);
	put(dir, "small-256", page, 256);
	evt_ring_buffer_free(rb);

	/* a 4 KiB page with large events (type_len 0) and a time extend */
	rb = mk(4096, 0, EVT_CLOCK_MONO);
	fill_events(rb, 3, 300);
	nanosleep(&ts, NULL);
	fill_events(rb, 8, 300);
	one_page(rb, cpu, page, 4096);
	put(dir, "extend-4096", page, 4096);
	evt_ring_buffer_free(rb);

	/* a page after losses: MISSED_EVENTS | MISSED_STORED */
	rb = mk(1024, 0, EVT_CLOCK_LOCAL);
	fill_events(rb, 2000, 60);
	one_page(rb, cpu, page, 1024);
	put(dir, "missed-1024", page, 1024);
	evt_ring_buffer_free(rb);

	/* a page with a discarded event (padding with a delta inside the data) */
	rb = mk(512, 0, EVT_CLOCK_LOCAL);
	fill_events(rb, 2, 20);
	{
		struct evt_ring_buffer_event *ev = evt_ring_buffer_lock_reserve(rb, 30);

		if (ev)
			evt_ring_buffer_discard_commit(rb, ev);
	}
	fill_events(rb, 2, 20);
	one_page(rb, cpu, page, 512);
	put(dir, "discard-512", page, 512);
	evt_ring_buffer_free(rb);

	/* hand-built: absolute time stamp (31), extend (30), padding (29), 4-byte null pad */
	{
		uint32_t w[] = {
			2u | 5u << 5, 0x11111111, 0x22222222,	/* type_len 2, delta 5 */
			31u | 0x4567u << 5, 0x123,		/* absolute time stamp */
			1u | 3u << 5, 0x33333333,		/* type_len 1 */
			30u | 7u << 5, 2,			/* time extend */
			0u, 120 + 4,				/* type_len 0: 120 bytes */
		};
		uint64_t t = 1000, c;
		size_t off = 16;

		memset(page, 0, 256);
		memcpy(page, &t, 8);
		memcpy(page + off, w, sizeof(w));
		off += sizeof(w) + 120;
		{
			uint32_t pad = 29u;	/* null padding: 4 bytes */

			memcpy(page + off, &pad, 4);
			off += 4;
		}
		c = off - 16;
		memcpy(page + 8, &c, 8);
		put(dir, "types-256", page, 256);
	}
	/* truncated: an entry runs past the commit */
	{
		uint32_t w[] = { 0u, 1000, 0 };
		uint64_t c = sizeof(w);

		memset(page, 0, 64);
		memcpy(page + 16, w, sizeof(w));
		memcpy(page + 8, &c, 8);
		put(dir, "truncated-64", page, 64);
	}
	return 0;
}
#endif
