// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-format: the page format, both ways.
 *  - The parser on hand-built pages: a good page; each header field
 *    wrong (-EBADMSG); short input (-EAGAIN); a record crossing the
 *    page end (-EBADMSG, then the page stays finished); padding to 4.
 *  - The library's own stream: magic, version, sizes within a page, a
 *    page's records all from its CPU, per-CPU page numbers 0, 1, 2...
 *    without gaps, cycle counts not going back within a page, the
 *    largest event alone in a page, a too-large one refused.
 */
#include "tracepipe-util.h"

static size_t build(unsigned char *out, int nrec, int reclen)
{
	struct evt_tracepipe_page_header h = {
		EVT_TRACEPIPE_MAGIC, EVT_TRACEPIPE_VERSION, EVT_TRACEPIPE_PAGE_HDR, 0, 3, 9, 5
	};
	size_t off = EVT_TRACEPIPE_PAGE_HDR;

	for (int i = 0; i < nrec; i++) {
		struct evt_tracepipe_record_header r = { 100 + (uint64_t)i, 3, (uint16_t)reclen };

		memcpy(out + off, &r, sizeof(r));
		memset(out + off + sizeof(r), i, (size_t)reclen);
		off += (sizeof(r) + (size_t)reclen + 3) & ~(size_t)3;
	}
	h.size = (uint32_t)off;
	memcpy(out, &h, sizeof(h));
	return off;
}

static void parser(void)
{
	unsigned char b[8192];
	struct evt_tracepipe_page pg;
	struct evt_tracepipe_record rec;
	struct evt_tracepipe_page_header h;
	size_t n = build(b, 3, 5);

	T_ASSERT_EQ(n, 32 + 3 * 20);
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, n, &pg), (int)n);
	T_ASSERT_EQ(pg.hdr.cpu, 3);
	T_ASSERT_EQ(pg.hdr.seq, 9);
	T_ASSERT_EQ(pg.hdr.missed, 5);
	for (int i = 0; i < 3; i++) {
		T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 1);
		T_ASSERT_EQ(rec.len, 5);
		T_ASSERT_EQ(rec.cpu, 3);
		T_ASSERT_EQ(rec.cycles, 100 + i);
		T_ASSERT_EQ(((const unsigned char *)rec.payload)[4], i);
	}
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 0);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 0);

	T_ASSERT_EQ(evt_tracepipe_page_parse(b, 31, &pg), -EAGAIN);
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, n - 1, &pg), -EAGAIN);
	T_ASSERT_EQ(evt_tracepipe_page_parse(NULL, n, &pg), -EINVAL);

	memcpy(&h, b, sizeof(h));
	for (int field = 0; field < 6; field++) {
		struct evt_tracepipe_page_header bad = h;

		switch (field) {
		case 0:
			bad.magic++;
			break;
		case 1:
			bad.version++;
			break;
		case 2:
			bad.hdr_size = 16;
			break;
		case 3:
			bad.size = 31;
			break;
		case 4:
			bad.size = EVT_TRACEPIPE_PAGE_SIZE + 4;
			break;
		case 5:
			bad.hdr_size = 36;
			break;
		}
		memcpy(b, &bad, sizeof(bad));
		T_ASSERT_EQ(evt_tracepipe_page_parse(b, sizeof(b), &pg), -EBADMSG);
	}
	memcpy(b, &h, sizeof(h));

	/* the last record's length runs past the page end */
	b[32 + 2 * 20 + 10] = 60;
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, n, &pg), (int)n);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 1);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 1);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), -EBADMSG);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 0);
	/* a tail shorter than a record header */
	n = build(b, 1, 4);
	h.size = (uint32_t)n + 8;
	memcpy(&h, b, sizeof(h));
	h.size = (uint32_t)n + 8;
	memcpy(b, &h, sizeof(h));
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, n + 8, &pg), (int)n + 8);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 1);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), -EBADMSG);
	/* an empty page (a seal of a page with nothing but its header is possible) */
	n = build(b, 0, 0);
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, n, &pg), 32);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 0);
}

static uint64_t next_seq[4096];
static unsigned long long records, bad, big;

static void check(const struct evt_tracepipe_page *pg, const struct evt_tracepipe_record *rec,
		  void *arg)
{
	static const void *last_page;
	static uint64_t last_cycles;

	(void)arg;
	if (pg->data != last_page) {
		last_page = pg->data;
		last_cycles = 0;
		if (pg->hdr.cpu >= 4096 || pg->hdr.seq != next_seq[pg->hdr.cpu]++)
			bad++;
	}
	if (rec->cpu != pg->hdr.cpu || rec->cycles < last_cycles)
		bad++;
	last_cycles = rec->cycles;
	if (rec->len == EVT_TRACEPIPE_MAX_EVENT) {
		big++;
		if (pg->hdr.size !=
		    EVT_TRACEPIPE_PAGE_HDR + EVT_TRACEPIPE_REC_HDR + EVT_TRACEPIPE_MAX_EVENT)
			bad++;
	}
	records++;
}

static void stream(void)
{
	struct evt_tracepipe_opts o = { .dir = tpt_dir, .pages_per_cpu = 64 };
	static unsigned char big_event[EVT_TRACEPIPE_MAX_EVENT + 1];
	struct evt_tracepipe_channel *chan;
	unsigned long long ok = 0;
	struct tpt_reader r;
	unsigned char *buf;
	char out[128];
	size_t len;

	snprintf(out, sizeof(out), "%s/stream", o.dir);
	T_ASSERT_OK(evt_tracepipe_create_channel_opts("fmt", &o, &chan));
	r = tpt_reader_start(evt_tracepipe_path(chan), out, TPT_READ);
	tpt_wait_attached(chan);
	for (int i = 0; i < 5000; i++) {
		unsigned int len = (unsigned int)(i * 7) % 300;

		if (i % 1000 == 999)
			len = EVT_TRACEPIPE_MAX_EVENT;
		if (evt_tracepipe_event(chan, big_event, len) == 0)
			ok++;
		if (i % 50 == 0)
			usleep(200); /* let the flusher keep up: this test is about the format */
	}
	T_ASSERT_EQ(evt_tracepipe_event(chan, big_event, EVT_TRACEPIPE_MAX_EVENT + 1), -EINVAL);
	T_ASSERT_EQ(evt_tracepipe_flush(chan), 0);
	tpt_reader_finish(&r);
	buf = tpt_slurp(out, &len);
	tpt_walk(buf, len, check, NULL);
	printf("%zu bytes, %llu records, %llu missed\n", len, records,
	       (unsigned long long)evt_tracepipe_missed(chan));
	T_ASSERT_EQ(bad, 0);
	T_ASSERT_EQ(records, ok);
	T_ASSERT_EQ(records + evt_tracepipe_missed(chan), 5000);
	while (evt_tracepipe_readers(chan))
		usleep(1000);
	T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), 0);
	free(buf);
}

int main(void)
{
	tpt_mkdir();
	parser();
	stream();
	return T_PASS;
}
