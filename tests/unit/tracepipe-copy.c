// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-copy: with a reader attached, events from several threads
 * reach it through the pipe (pages handed with write()): every record
 * once, intact, in order per thread; received + missed == written and
 * missed == the -ENOBUFS returns == evt_tracepipe_missed() == the
 * .missed file. tracepipe-vmsplice.c runs the same with vmsplice().
 */
#include <pthread.h>

#include "tracepipe-util.h"

#ifndef TPT_FLAGS
#define TPT_FLAGS 0
#define TPT_HOW	  TPT_READ
#endif

#define NTHREADS 3
#define NEVENTS	 30000

struct payload {
	uint32_t tid;
	uint32_t seq;
	unsigned char fill[60];
};

static struct evt_tracepipe_channel *chan;
static unsigned long long nok[NTHREADS], nmissed[NTHREADS];
static unsigned char *seen[NTHREADS];
static unsigned long long got, bad;

static void *writer(void *arg)
{
	uint32_t tid = (uint32_t)(uintptr_t)arg;

	for (uint32_t i = 0; i < NEVENTS; i++) {
		struct payload p = { tid, i, { 0 } };
		unsigned int len = 8 + (i % 61);
		int r;

		memset(p.fill, (int)(i & 0xff), sizeof(p.fill));
		r = evt_tracepipe_event(chan, &p, len);
		if (r == 0)
			nok[tid]++;
		else if (r == -ENOBUFS)
			nmissed[tid]++;
		else
			t_fail("event: %d", r);
	}
	return NULL;
}

static void check(const struct evt_tracepipe_page *pg, const struct evt_tracepipe_record *rec,
		  void *arg)
{
	struct payload p;

	(void)arg;
	if (rec->len < 8 || rec->len > 68 || rec->cpu != pg->hdr.cpu) {
		bad++;
		return;
	}
	memcpy(&p, rec->payload, rec->len);
	if (p.tid >= NTHREADS || p.seq >= NEVENTS || rec->len != 8 + (p.seq % 61) ||
	    seen[p.tid][p.seq]) {
		bad++;
		return;
	}
	for (unsigned int i = 0; i < rec->len - 8; i++)
		if (p.fill[i] != (p.seq & 0xff)) {
			bad++;
			return;
		}
	seen[p.tid][p.seq] = 1;
	got++;
}

int main(void)
{
	struct evt_tracepipe_opts o = { .dir = tpt_mkdir(), .flags = TPT_FLAGS };
	unsigned long long written = 0, missed = 0;
	pthread_t th[NTHREADS];
	char out[128];
	struct tpt_reader r;
	unsigned char *buf;
	size_t len, pages;

	snprintf(out, sizeof(out), "%s/stream", o.dir);
	T_ASSERT_OK(evt_tracepipe_create_channel_opts("rw", &o, &chan));
	r = tpt_reader_start(evt_tracepipe_path(chan), out, TPT_HOW);
	tpt_wait_attached(chan);

	for (long i = 0; i < NTHREADS; i++)
		T_ASSERT_EQ(pthread_create(&th[i], NULL, writer, (void *)i), 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	T_ASSERT_EQ(evt_tracepipe_flush(chan), 0);
	tpt_reader_finish(&r);

	for (int i = 0; i < NTHREADS; i++) {
		written += nok[i] + nmissed[i];
		missed += nmissed[i];
		seen[i] = calloc(NEVENTS, 1);
	}
	T_ASSERT_EQ(written, (unsigned long long)NTHREADS * NEVENTS);
	T_ASSERT_EQ(evt_tracepipe_missed(chan), missed);

	buf = tpt_slurp(out, &len);
	pages = tpt_walk(buf, len, check, NULL);
	printf("%zu bytes, %zu pages, %llu records, %llu missed\n", len, pages, got, missed);
	T_ASSERT_EQ(bad, 0);
	T_ASSERT_EQ(got + missed, written);
	/* the reader is gone: remove works, the FIFO and .missed file go */
	while (evt_tracepipe_readers(chan))
		usleep(1000);
	while (tpt_missed_file(chan) != missed) /* the flusher rewrites it within 50 ms */
		usleep(1000);
	{
		char path[4200];

		snprintf(path, sizeof(path), "%s", evt_tracepipe_path(chan));
		T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), 0);
		T_ASSERT(access(path, F_OK) != 0);
	}
	free(buf);
	return T_PASS;
}
