// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the tracepipe stream parser (evt_tracepipe_page_parse,
 * evt_tracepipe_record_next) over untrusted bytes.
 *
 * The input is a stream: it is copied into a heap block of exactly its
 * size (reads past it are caught by AddressSanitizer) and walked page by
 * page as `evtrace tracepipe cat` does. Every page handed out must lie
 * inside the input, every record and its payload inside its page; a
 * walk ends (0, -EAGAIN or -EBADMSG) and a finished page stays finished.
 *
 * Seeds (tests/fuzz/corpus/tracepipe-page/): built by this file with
 * -DTP_FUZZ_GEN_MAIN (see the end): real pages, a truncated one, a
 * record crossing the end, a bad magic, a stream page and a page.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/tracepipe.h>

static volatile unsigned int sink;

static void check(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	size_t off = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	while (off < size) {
		struct evt_tracepipe_page pg;
		struct evt_tracepipe_record rec;
		int n = evt_tracepipe_page_parse(buf + off, size - off, &pg), r;
		unsigned int steps = 0;

		if (n <= 0) {
			check(n == -EAGAIN || n == -EBADMSG);
			break;
		}
		check((size_t)n <= size - off && n >= EVT_TRACEPIPE_PAGE_HDR);
		if (pg.stream) { /* the scale converts anything without faulting */
			check(n == EVT_TRACEPIPE_PAGE_HDR + EVT_TRACEPIPE_STREAM_INFO);
			check(pg.info.shift < 64);
			sink += (unsigned int)EVT_TRACEPIPE_CYCLES_TO_NS(&pg.info, UINT64_MAX);
		}
		while ((r = evt_tracepipe_record_next(&pg, &rec)) == 1) {
			const unsigned char *p = rec.payload;

			check(p >= buf + off + EVT_TRACEPIPE_PAGE_HDR + EVT_TRACEPIPE_REC_HDR);
			check(p + rec.len <= buf + off + (size_t)n);
			if (rec.len)
				sink += p[0] + p[rec.len - 1];
			check(++steps <= EVT_TRACEPIPE_PAGE_SIZE / EVT_TRACEPIPE_REC_HDR);
		}
		check(r == 0 || r == -EBADMSG);
		check(evt_tracepipe_record_next(&pg, &rec) == 0);
		off += (size_t)n;
	}
	free(buf);
	return 0;
}

#ifdef TP_FUZZ_GEN_MAIN
/*
 * cc -DTP_FUZZ_GEN_MAIN -Iinclude tests/fuzz/tracepipe-page.c src/tracepipe/tp_page.c \
 *	-o gen && ./gen tests/fuzz/corpus/tracepipe-page
 */
static size_t page(unsigned char *out, uint32_t cpu, uint64_t seq, int nrec, int reclen)
{
	struct evt_tracepipe_page_header h = {
		EVT_TRACEPIPE_MAGIC, EVT_TRACEPIPE_VERSION, EVT_TRACEPIPE_PAGE_HDR, 0, cpu, seq, 7
	};
	size_t off = EVT_TRACEPIPE_PAGE_HDR;

	for (int i = 0; i < nrec; i++) {
		struct evt_tracepipe_record_header r = { 1000 + (uint64_t)i, (uint16_t)cpu,
							 (uint16_t)reclen };

		memcpy(out + off, &r, sizeof(r));
		memset(out + off + sizeof(r), 'a' + i % 26, (size_t)reclen);
		off += (sizeof(r) + (size_t)reclen + 3) & ~(size_t)3;
	}
	h.size = (uint32_t)off;
	memcpy(out, &h, sizeof(h));
	return off;
}

/* The stream page: the clock's scale, no records. */
static size_t stream_page(unsigned char *out)
{
	struct evt_tracepipe_page_header h = {
		EVT_TRACEPIPE_MAGIC, EVT_TRACEPIPE_VERSION, EVT_TRACEPIPE_PAGE_HDR,
		EVT_TRACEPIPE_PAGE_HDR + EVT_TRACEPIPE_STREAM_INFO, EVT_TRACEPIPE_STREAM_CPU, 0, 0
	};
	struct evt_tracepipe_stream_info info = { 6, 24, 5592405, 1000, 123456, 789, 3000000000u };

	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), &info, sizeof(info));
	return h.size;
}

static void put(const char *dir, const char *name, const unsigned char *b, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n)
		exit(1);
	fclose(f);
}

int main(int argc, char **argv)
{
	static unsigned char b[3 * 4096];
	size_t n;

	if (argc != 2)
		return 2;
	n = page(b, 0, 0, 10, 16);
	put(argv[1], "one-page", b, n);
	n = stream_page(b);
	n += page(b + n, 0, 0, 2, 8);
	put(argv[1], "stream", b, n);
	n += page(b + n, 1, 0, 3, 253);
	n += page(b + n, 0, 1, 1, EVT_TRACEPIPE_MAX_EVENT);
	put(argv[1], "three-pages", b, n);
	put(argv[1], "truncated", b, n - 100);
	n = page(b, 0, 0, 4, 16);
	b[n - 18] = 0xff; /* the last record's len now crosses the page end */
	b[n - 17] = 0x0f;
	put(argv[1], "crossing", b, n);
	n = page(b, 0, 0, 2, 0);
	b[0] ^= 1;
	put(argv[1], "bad-magic", b, n);
	return 0;
}
#endif
