// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gtsc-ctl-rdwr: the traced process acts on what is written to its control
 * files, not on a consumer opening them for writing. Another process that
 * opens and closes rewind and state read-write (or write-only) without
 * writing changes nothing: the trace does not rewind, start or stop. Real
 * writes still work: "stop" to state stops the trace, "1" to rewind
 * rewinds it, and rewind is empty again afterwards.
 */
#include <sys/stat.h>

#include "gtsc-test.h"

/* A consumer that opens the control files for writing and writes nothing. */
static int toucher(void *arg)
{
	static const char *const names[] = { "rewind", "state" };
	static const int modes[] = { O_RDWR, O_WRONLY, O_RDWR | O_APPEND };
	char path[PATH_MAX];

	(void)arg;
	for (size_t i = 0; i < 2; i++) {
		for (size_t m = 0; m < 3; m++) {
			int fd;

			snprintf(path, sizeof(path), "%s/%s", gt_tdir, names[i]);
			fd = open(path, modes[m]);
			if (fd < 0)
				return T_FAIL;
			close(fd);
		}
	}
	return T_PASS;
}

/* 65 calls of evt_trace_running(): at least one control point. Return the last result. */
static int control_point(struct evt_trace_info *t)
{
	int ret = 0;

	for (int i = 0; i < 65; i++)
		ret = evt_trace_running(t);
	return ret;
}

int main(void)
{
	struct evt_trace_info *t;
	char buf[64];
	int two = 2, none = 0;

	t_dir_make();
	T_ASSERT_OK(evt_trace_setup(t_dir, "rdwr", 256, 4, EVT_TRACE_GLOBAL_CHANNEL, &t));
	snprintf(gt_tdir, sizeof(gt_tdir), "%.400s/rdwr", t_dir);

	/* in setup state, touching state does not start the trace */
	T_ASSERT_EQ(t_in_child(toucher, NULL), T_PASS);
	T_ASSERT_EQ(control_point(t), 0);
	gt_read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "setup\n"));

	T_ASSERT_OK(evt_trace_start(t));
	t_write_recs(t->rchan, 0, 2, RSZ);
	/* running: touching does not stop it */
	T_ASSERT_EQ(t_in_child(toucher, NULL), T_PASS);
	T_ASSERT_EQ(control_point(t), 1);
	T_ASSERT_OK(evt_trace_stop(t));

	/* everything read; touching rewind does not rewind, touching state does not start */
	T_ASSERT_EQ(t_in_child(gt_read_all, &two), T_PASS);
	T_ASSERT_EQ(t_in_child(toucher, NULL), T_PASS);
	T_ASSERT_EQ(control_point(t), 0);
	T_ASSERT_EQ(t_in_child(gt_read_all, &none), T_PASS);
	gt_read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "stop\n"));

	/* real writes still act: start, stop, rewind (then rewind is empty again) */
	ctl_write("state", "start\n");
	T_ASSERT_EQ(control_point(t), 1);
	ctl_write("state", "stop\n");
	T_ASSERT_EQ(control_point(t), 0);
	ctl_write("rewind", "1\n");
	T_ASSERT_EQ(control_point(t), 0);
	T_ASSERT_EQ(t_in_child(gt_read_all, &two), T_PASS);
	gt_read_ctl("rewind", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, ""));
	/* and touching the emptied rewind does nothing */
	T_ASSERT_EQ(t_in_child(toucher, NULL), T_PASS);
	T_ASSERT_EQ(control_point(t), 0);
	T_ASSERT_EQ(t_in_child(gt_read_all, &none), T_PASS);

	evt_trace_cleanup(t);
	return T_PASS;
}
