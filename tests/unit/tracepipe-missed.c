// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-missed: a reader that holds the FIFO open without reading;
 * a writer pinned to one CPU fills its 2 pages and the pipe, then every
 * further event is missed. Exactly: each -ENOBUFS is counted once in
 * evt_tracepipe_missed() and the .missed file; once the reader reads,
 * received + missed == written; and each page's header carries the
 * number of events missed before it opened (checked against the
 * writer's own log, event by event).
 */
#include "tracepipe-util.h"

#ifndef TPT_FLAGS
#define TPT_FLAGS 0
#endif

#define NEVENTS 20000

static unsigned char outcome[NEVENTS]; /* 1 recorded, 2 missed */
static unsigned long long missed_before[NEVENTS + 1];
static unsigned long long got, bad;
static uint64_t last_page_seq = UINT64_MAX;

static void check(const struct evt_tracepipe_page *pg, const struct evt_tracepipe_record *rec,
		  void *arg)
{
	uint32_t i;

	(void)arg;
	if (rec->len != sizeof(i)) {
		bad++;
		return;
	}
	memcpy(&i, rec->payload, sizeof(i));
	if (i >= NEVENTS || outcome[i] != 1) {
		bad++;
		return;
	}
	outcome[i] = 3;
	got++;
	if (pg->hdr.seq != last_page_seq) {
		/* the first record of a page: the page opened right before it */
		last_page_seq = pg->hdr.seq;
		if (pg->hdr.missed != missed_before[i]) {
			fprintf(stderr, "page %" PRIu64 ": missed %" PRIu64 ", expected %llu\n",
				pg->hdr.seq, pg->hdr.missed, missed_before[i]);
			bad++;
		}
	}
}

int main(void)
{
	struct evt_tracepipe_opts o = {
		.dir = tpt_mkdir(), .pages_per_cpu = 2, .pipe_size = 4096, .flags = TPT_FLAGS
	};
	struct evt_tracepipe_channel *chan;
	unsigned long long missed = 0;
	struct tpt_reader r;
	char out[128];
	unsigned char *buf;
	size_t len;

	if (t_pin_to_cpu(0))
		t_skip("cannot pin to CPU 0");
	snprintf(out, sizeof(out), "%s/stream", o.dir);
	T_ASSERT_OK(evt_tracepipe_create_channel_opts("missed", &o, &chan));
	r = tpt_reader_start(evt_tracepipe_path(chan), out, TPT_WAIT);
	tpt_wait_attached(chan);

	for (uint32_t i = 0; i < NEVENTS; i++) {
		int ret = evt_tracepipe_event(chan, &i, sizeof(i));

		missed_before[i] = missed;
		T_ASSERT(ret == 0 || ret == -ENOBUFS);
		outcome[i] = ret == 0 ? 1 : 2;
		missed += ret != 0;
	}
	printf("missed %llu of %d\n", missed, NEVENTS);
	T_ASSERT(missed > 0);
	T_ASSERT_EQ(evt_tracepipe_missed(chan), missed);
	while (tpt_missed_file(chan) != missed) /* the flusher rewrites it within 50 ms */
		usleep(1000);

	tpt_reader_send(&r, 'g');
	T_ASSERT_EQ(evt_tracepipe_flush(chan), 0);
	tpt_reader_finish(&r);
	buf = tpt_slurp(out, &len);
	tpt_walk(buf, len, check, NULL);
	T_ASSERT_EQ(bad, 0);
	T_ASSERT_EQ(got + missed, NEVENTS);
	while (evt_tracepipe_readers(chan))
		usleep(1000);
	T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), 0);
	free(buf);
	return T_PASS;
}
