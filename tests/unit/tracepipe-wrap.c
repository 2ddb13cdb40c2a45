// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-wrap: EVT_TRACEPIPE_WRAP keeps the newest events. A reader
 * holds the FIFO open without reading; a writer pinned to one CPU writes
 * far more than the pages and the pipe hold. The pages that reach the
 * reader must include the last event recorded, the records that arrive
 * are each recorded once and in order, and received + missed == written
 * exactly (missed = -ENOBUFS returns + records of the pages thrown away,
 * = evt_tracepipe_missed()). Also: WRAP with VMSPLICE is refused.
 */
#include "tracepipe-util.h"

#define NEVENTS 100000

static unsigned char recorded[NEVENTS];
static unsigned long long got, bad;
static int64_t last = -1;

static void check(const struct evt_tracepipe_page *pg, const struct evt_tracepipe_record *rec,
		  void *arg)
{
	uint32_t i;

	(void)pg;
	(void)arg;
	memcpy(&i, rec->payload, sizeof(i));
	if (rec->len != sizeof(i) || i >= NEVENTS || !recorded[i] || (int64_t)i <= last) {
		bad++;
		return;
	}
	last = i;
	got++;
}

int main(void)
{
	struct evt_tracepipe_opts o = { .dir = tpt_mkdir(),
					.pages_per_cpu = 8,
					.pipe_size = 4096,
					.flags = EVT_TRACEPIPE_WRAP };
	struct evt_tracepipe_channel *chan;
	unsigned long long enobufs = 0;
	int64_t last_recorded = -1;
	struct tpt_reader r;
	char out[128];
	unsigned char *buf;
	size_t len;

	o.flags |= EVT_TRACEPIPE_VMSPLICE;
	T_ASSERT_EQ(evt_tracepipe_create_channel_opts("wrap", &o, &chan), -EINVAL);
	o.flags = EVT_TRACEPIPE_WRAP;
	if (t_pin_to_cpu(0))
		t_skip("cannot pin to CPU 0");
	snprintf(out, sizeof(out), "%s/stream", o.dir);
	T_ASSERT_OK(evt_tracepipe_create_channel_opts("wrap", &o, &chan));
	r = tpt_reader_start(evt_tracepipe_path(chan), out, TPT_WAIT);
	tpt_wait_attached(chan);

	for (uint32_t i = 0; i < NEVENTS; i++) {
		int ret = evt_tracepipe_event(chan, &i, sizeof(i));

		T_ASSERT(ret == 0 || ret == -ENOBUFS);
		if (ret == 0) {
			recorded[i] = 1;
			last_recorded = i;
		} else {
			enobufs++;
		}
		if (i % 1000 == 999)
			usleep(100); /* give the flusher time to throw old pages away */
	}
	tpt_reader_send(&r, 'g');
	T_ASSERT_EQ(evt_tracepipe_flush(chan), 0);
	tpt_reader_finish(&r);
	buf = tpt_slurp(out, &len);
	tpt_walk(buf, len, check, NULL);
	printf("%llu received, %llu refused, %llu missed in all, last recorded %lld, last received "
	       "%lld\n",
	       got, enobufs, (unsigned long long)evt_tracepipe_missed(chan),
	       (long long)last_recorded, (long long)last);
	T_ASSERT_EQ(bad, 0);
	T_ASSERT_EQ(got + evt_tracepipe_missed(chan), NEVENTS);
	T_ASSERT(evt_tracepipe_missed(chan) > enobufs); /* pages were thrown away */
	T_ASSERT_EQ(last, last_recorded);		/* and the newest kept */
	while (evt_tracepipe_readers(chan))
		usleep(1000);
	T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), 0);
	free(buf);
	return T_PASS;
}
