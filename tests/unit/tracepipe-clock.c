// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-clock: a consumer converts the records' cycles to time with
 * nothing but the stream.
 *  - the first page a reader gets is the stream page (cpu
 *    EVT_TRACEPIPE_STREAM_CPU) with the clock's scale; it has no records;
 *  - EVT_TRACEPIPE_CYCLES_TO_NS(info, cycles) gives the writer's "local"
 *    clock: each record's time lies between the local times the writer
 *    read just before and just after the event (exact when "local" runs
 *    on the counter; skipped otherwise);
 *  - the parser rejects a stream page of the wrong size or a shift >= 64,
 *    and a page of format version 1.
 */
#include <evtrace/clock.h>

#include "clock/clock_internal.h"
#include "tracepipe-util.h"

#define N 300

static uint64_t before[N], after[N];
static int nrec, bad;

static void check(const struct evt_tracepipe_page *pg, const struct evt_tracepipe_record *rec,
		  void *arg)
{
	const struct evt_tracepipe_stream_info *info = arg;
	uint32_t i;
	uint64_t ns;

	(void)pg;
	if (rec->len != sizeof(i)) {
		bad++;
		return;
	}
	memcpy(&i, rec->payload, sizeof(i));
	ns = EVT_TRACEPIPE_CYCLES_TO_NS(info, rec->cycles);
	if (i >= N || ns < before[i] || ns > after[i]) {
		fprintf(stderr, "record %u: %llu not in [%llu, %llu]\n", i, (unsigned long long)ns,
			(unsigned long long)(i < N ? before[i] : 0),
			(unsigned long long)(i < N ? after[i] : 0));
		bad++;
	}
	nrec++;
}

static void parser_checks(void)
{
	unsigned char b[EVT_TRACEPIPE_PAGE_HDR + EVT_TRACEPIPE_STREAM_INFO + 8] = { 0 };
	struct evt_tracepipe_page_header h = {
		.magic = EVT_TRACEPIPE_MAGIC,
		.version = EVT_TRACEPIPE_VERSION,
		.hdr_size = EVT_TRACEPIPE_PAGE_HDR,
		.size = EVT_TRACEPIPE_PAGE_HDR + EVT_TRACEPIPE_STREAM_INFO,
		.cpu = EVT_TRACEPIPE_STREAM_CPU,
	};
	struct evt_tracepipe_stream_info info = { .clock = EVT_CLOCK_TSC, .shift = 10, .mult = 3 };
	struct evt_tracepipe_page pg;
	struct evt_tracepipe_record rec;

	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), &info, sizeof(info));
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, sizeof(b), &pg), (int)h.size);
	T_ASSERT(pg.stream && pg.info.mult == 3 && pg.info.shift == 10);
	T_ASSERT_EQ(evt_tracepipe_record_next(&pg, &rec), 0);
	T_ASSERT_EQ(EVT_TRACEPIPE_CYCLES_TO_NS(&pg.info, 1024), 3);
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, h.size - 1, &pg), -EAGAIN);
	info.shift = 64;
	memcpy(b + sizeof(h), &info, sizeof(info));
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, sizeof(b), &pg), -EBADMSG);
	h.size += 8;
	memcpy(b, &h, sizeof(h));
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, sizeof(b), &pg), -EBADMSG);
	h.size = EVT_TRACEPIPE_PAGE_HDR;
	h.cpu = 0;
	h.version = 1;
	memcpy(b, &h, sizeof(h));
	T_ASSERT_EQ(evt_tracepipe_page_parse(b, sizeof(b), &pg), -EBADMSG);
}

int main(void)
{
	const char *dir = tpt_mkdir();
	struct evt_tracepipe_opts o = { .dir = dir };
	struct evt_tracepipe_channel *chan;
	struct evt_tracepipe_page pg;
	struct tpt_reader r;
	char out[128];
	unsigned char *b;
	size_t len;
	int n;

	parser_checks();
	T_ASSERT_OK(evt_tracepipe_create_channel_opts("clk", &o, &chan));
	snprintf(out, sizeof(out), "%s/out", dir);
	r = tpt_reader_start(evt_tracepipe_path(chan), out, 0);
	tpt_wait_attached(chan);
	t_pin_to_cpu(0); /* one CPU's counter: the before/after bracket is exact */
	for (uint32_t i = 0; i < N; i++) {
		before[i] = evt_clock_read(EVT_CLOCK_LOCAL);
		T_ASSERT_OK(evt_tracepipe_event(chan, &i, sizeof(i)));
		after[i] = evt_clock_read(EVT_CLOCK_LOCAL);
	}
	T_ASSERT_OK(evt_tracepipe_flush(chan));
	tpt_reader_finish(&r);
	T_ASSERT_OK(evt_tracepipe_remove_channel(chan));

	b = tpt_slurp(out, &len);
	n = evt_tracepipe_page_parse(b, len, &pg);
	T_ASSERT_EQ(n, EVT_TRACEPIPE_PAGE_HDR + EVT_TRACEPIPE_STREAM_INFO);
	T_ASSERT(pg.stream);
	T_ASSERT_EQ(pg.hdr.cpu, EVT_TRACEPIPE_STREAM_CPU);
#if defined(__x86_64__) || defined(__aarch64__)
	T_ASSERT_EQ(pg.info.clock, EVT_CLOCK_TSC);
#endif
	T_ASSERT(pg.info.base_ns > 0);
	if (!tclock.tsc_ok || !pg.info.mult) {
		free(b);
		t_skip("\"local\" does not run on the cycle counter: no exact bracket");
	}
	T_ASSERT(pg.info.mult && pg.info.shift < 64);
	tpt_walk(b, len, check, &pg.info);
	free(b);
	T_ASSERT_EQ(bad, 0);
	T_ASSERT_EQ(nrec, N);
	return T_PASS;
}
