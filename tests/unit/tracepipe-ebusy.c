// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-ebusy: remove fails with -EBUSY while a reader holds the
 * FIFO open, and nothing changes (events still recorded, a second
 * reader session works after the first leaves); once the reader has
 * closed, remove succeeds. Events stop being recorded when it leaves.
 */
#include "tracepipe-util.h"

static unsigned long long count;

static void counter(const struct evt_tracepipe_page *pg, const struct evt_tracepipe_record *rec,
		    void *arg)
{
	(void)pg;
	(void)rec;
	(void)arg;
	count++;
}

int main(void)
{
	struct evt_tracepipe_opts o = { .dir = tpt_mkdir() };
	struct evt_tracepipe_channel *chan;
	struct tpt_reader r;
	char out[128];
	unsigned char *buf;
	size_t len;

	snprintf(out, sizeof(out), "%s/stream", o.dir);
	T_ASSERT_OK(evt_tracepipe_create_channel_opts("busy", &o, &chan));
	for (int session = 0; session < 2; session++) {
		r = tpt_reader_start(evt_tracepipe_path(chan), out, TPT_READ);
		tpt_wait_attached(chan);
		T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), -EBUSY);
		for (int i = 0; i < 1000; i++)
			T_ASSERT_EQ(evt_tracepipe_event(chan, &i, sizeof(i)), 0);
		T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), -EBUSY);
		T_ASSERT_EQ(evt_tracepipe_flush(chan), 0);
		tpt_reader_finish(&r);
		count = 0;
		buf = tpt_slurp(out, &len);
		tpt_walk(buf, len, counter, NULL);
		free(buf);
		T_ASSERT_EQ(count, 1000);
		/* the reader left: recording stops (as soon as the flusher has seen it) */
		while (evt_tracepipe_event(chan, &len, sizeof(len)) != -EPIPE)
			usleep(100);
	}
	T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), 0);
	return T_PASS;
}
