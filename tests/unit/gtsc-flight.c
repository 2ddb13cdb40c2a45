// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gtsc-flight: EVT_TRACE_FLIGHT_CHANNEL is overwrite mode: writes never
 * fail, dropped stays 0, and a consumer process that comes late reads the
 * newest records, in order, ending with the last one written. Without
 * EVT_TRACE_GLOBAL_CHANNEL the trace has one file per CPU, trace0..N.
 */
#include <sys/stat.h>

#include <evtrace/gtsc.h>

#include "relay-common.h"

#define RSZ 64

static char gt_tdir[512];

static int consumer(void *arg)
{
	uint32_t last = *(uint32_t *)arg, prev = 0;
	struct evt_relay_reader *r;
	char path[600], buf[8192];
	ssize_t n, total = 0;

	snprintf(path, sizeof(path), "%s/trace0", gt_tdir);
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
		total += n;
	T_ASSERT(total >= 2 * RSZ);
	T_ASSERT_EQ(total % RSZ, 0);
	for (ssize_t at = 0; at < total; at += RSZ) {
		T_ASSERT(rly_rec_check(buf + at, RSZ));
		if (at)
			T_ASSERT_EQ(rly_rec_seq(buf + at), prev + 1);
		prev = rly_rec_seq(buf + at);
	}
	T_ASSERT_EQ(prev, last);
	evt_relay_reader_close(r);
	return T_PASS;
}

int main(void)
{
	struct evt_trace_info *t;
	char rec[RSZ], path[600];
	struct stat st;
	uint32_t seq;

	t_dir_make();
	snprintf(gt_tdir, sizeof(gt_tdir), "%.400s/fl", t_dir);
	T_ASSERT_OK(evt_trace_setup(t_dir, "fl", 512, 4,
				    EVT_TRACE_FLIGHT_CHANNEL | EVT_TRACE_GLOBAL_CHANNEL, &t));
	T_ASSERT_OK(evt_trace_start(t));
	for (seq = 0; seq < 500; seq++) {
		rly_rec_fill(rec, seq, RSZ, 0);
		T_ASSERT_OK(evt_relay_write(t->rchan, rec, RSZ));
	}
	seq--;
	T_ASSERT_OK(evt_trace_stop(t));
	T_ASSERT_EQ(evt_trace_dropped(t), 0);
	T_ASSERT_EQ(t_in_child(consumer, &seq), T_PASS);
	evt_trace_cleanup(t);

	/* per-CPU: one file per buffer */
	T_ASSERT_OK(evt_trace_setup(t_dir, "pc", 512, 4, 0, &t));
	for (unsigned int cpu = 0; cpu < t->rchan->nr_bufs; cpu++) {
		snprintf(path, sizeof(path), "%.400s/pc/trace%u", t_dir, cpu);
		T_ASSERT(lstat(path, &st) == 0);
	}
	evt_trace_cleanup(t);
	return T_PASS;
}
