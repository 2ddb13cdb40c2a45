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
#include <fcntl.h>
#include <sys/stat.h>

#include <evtrace/gtsc.h>

#include "relay-common.h"

#define RSZ 100

static char tdir[512];

static void read_ctl(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%.64s", tdir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		t_fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
}

static int writer_of(void *arg)
{
	const char **w = arg;
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%.64s", tdir, w[0]);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return T_FAIL;
	if (write(fd, w[1], strlen(w[1])) != (ssize_t)strlen(w[1]))
		return T_FAIL;
	close(fd);
	return T_PASS;
}

static void ctl_write(const char *name, const char *text)
{
	const char *w[2] = { name, text };

	T_ASSERT_EQ(t_in_child(writer_of, w), T_PASS);
}

static int read_all(void *arg)
{
	int expect = *(int *)arg;
	struct evt_relay_reader *r;
	char path[PATH_MAX], buf[8192];
	ssize_t n, total = 0;

	snprintf(path, sizeof(path), "%s/trace0", tdir);
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
		total += n;
	T_ASSERT_EQ(total, expect * RSZ);
	for (int i = 0; i < expect; i++)
		T_ASSERT(rec_check(buf + i * RSZ, RSZ));
	evt_relay_reader_close(r);
	return T_PASS;
}

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
	snprintf(tdir, sizeof(tdir), "%.400s/gtsc", t_dir);
	read_ctl("nr_sub", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "4\n"));
	read_ctl("sub_size", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "256\n"));
	read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "setup\n"));
	T_ASSERT_EQ(evt_trace_running(t), 0);
	T_ASSERT_OK(evt_trace_start(t));
	read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "start\n"));
	T_ASSERT_EQ(evt_trace_running(t), 1);

	/* another process stops and starts the trace */
	ctl_write("state", "stop\n");
	T_ASSERT(calls_until(t, 0) > 0);
	ctl_write("state", "start\n");
	T_ASSERT(calls_until(t, 1) > 0);

	/* 8 records fit (2 per sub-buffer), the rest are dropped, counted exactly */
	for (uint32_t i = 0; i < 25; i++) {
		rec_fill(rec, i, RSZ, 0);
		ret = evt_relay_write(t->rchan, rec, RSZ);
		kept += ret == 0;
		dropped += ret == -ENOBUFS;
	}
	T_ASSERT_EQ(kept, 8);
	T_ASSERT_EQ(dropped, 17);
	T_ASSERT_EQ(evt_trace_dropped(t), 17);
	T_ASSERT_OK(evt_trace_stop(t));
	read_ctl("dropped", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "17\n"));
	read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "stop\n"));

	T_ASSERT_EQ(t_in_child(read_all, &kept), T_PASS);
	/* rewind: the next read starts again at the oldest data */
	ctl_write("rewind", "1\n");
	calls_until(t, 1); /* 64 calls: a control point (the trace stays stopped) */
	T_ASSERT_EQ(t_in_child(read_all, &kept), T_PASS);

	evt_trace_cleanup(t);
	T_ASSERT(stat(tdir, &st) < 0);
	return T_PASS;
}
