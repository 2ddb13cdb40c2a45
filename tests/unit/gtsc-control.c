// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gtsc-control: evt_trace_setup() makes <root>/<name>/ with trace0..N and
 * the control files; another process reads them and writes them:
 *   - nr_sub, sub_size, state ("setup", "start", "stop") read back right;
 *   - a consumer process writing "stop" / "start" to state stops / starts
 *     the trace at the traced process's next control point (64 calls of
 *     evt_trace_running() at most);
 *   - dropped holds the exact number of records refused (no-overwrite);
 *   - rewind: after a consumer read everything, a write to rewind makes the
 *     next read start again at the oldest data;
 *   - evt_trace_cleanup() removes the directory.
 */
#include <sys/stat.h>

#include "gtsc-test.h"

/* Calls of evt_trace_running() until it returns @want (at most 64 + 1). */
static int calls_until(struct evt_trace_info *t, int want)
{
	for (int i = 1; i <= 65; i++)
		if (evt_trace_running(t) == want)
			return i;
	return -1;
}

int main(void)
{
	struct evt_trace_info *t;
	char buf[64], rec[RSZ];
	struct stat st;
	int kept = 0, dropped = 0, ret;

	t_dir_make();
	T_ASSERT_OK(evt_trace_setup(t_dir, "gtsc", 256, 4, EVT_TRACE_GLOBAL_CHANNEL, &t));
	snprintf(gt_tdir, sizeof(gt_tdir), "%.400s/gtsc", t_dir);
	gt_read_ctl("nr_sub", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "4\n"));
	gt_read_ctl("sub_size", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "256\n"));
	gt_read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "setup\n"));
	T_ASSERT_EQ(evt_trace_running(t), 0);
	T_ASSERT_OK(evt_trace_start(t));
	gt_read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "start\n"));
	T_ASSERT_EQ(evt_trace_running(t), 1);

	/* another process stops and starts the trace */
	ctl_write("state", "stop\n");
	T_ASSERT(calls_until(t, 0) > 0);
	ctl_write("state", "start\n");
	T_ASSERT(calls_until(t, 1) > 0);

	/* 8 records fit (2 per sub-buffer), the rest are dropped, counted exactly */
	for (uint32_t i = 0; i < 25; i++) {
		rly_rec_fill(rec, i, RSZ, 0);
		ret = evt_relay_write(t->rchan, rec, RSZ);
		kept += ret == 0;
		dropped += ret == -ENOBUFS;
	}
	T_ASSERT_EQ(kept, 8);
	T_ASSERT_EQ(dropped, 17);
	T_ASSERT_EQ(evt_trace_dropped(t), 17);
	T_ASSERT_OK(evt_trace_stop(t));
	gt_read_ctl("dropped", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "17\n"));
	gt_read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "stop\n"));

	T_ASSERT_EQ(t_in_child(gt_read_all, &kept), T_PASS);
	/* rewind: the next read starts again at the oldest data */
	ctl_write("rewind", "1\n");
	calls_until(t, 1); /* 64 calls: a control point (the trace stays stopped) */
	T_ASSERT_EQ(t_in_child(gt_read_all, &kept), T_PASS);

	evt_trace_cleanup(t);
	T_ASSERT(stat(gt_tdir, &st) < 0);
	return T_PASS;
}
