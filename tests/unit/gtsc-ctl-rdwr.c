// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gtsc-ctl-rdwr: the traced process acts on what is written to its control
 * files, not on a consumer opening them for writing. Another process that
 * opens and closes rewind and state read-write (or write-only) without
 * writing changes nothing: the trace does not rewind, start or stop. Real
 * writes still work: "stop" to state stops the trace, "1" to rewind
 * rewinds it, and rewind is empty again afterwards.
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

			snprintf(path, sizeof(path), "%s/%s", tdir, names[i]);
			fd = open(path, modes[m]);
			if (fd < 0)
				return T_FAIL;
			close(fd);
		}
	}
	return T_PASS;
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

/* Read trace0 to the end in another process; expect @arg records. */
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
	char buf[64], rec[RSZ];
	int two = 2, none = 0;

	t_dir_make();
	T_ASSERT_OK(evt_trace_setup(t_dir, "rdwr", 256, 4, EVT_TRACE_GLOBAL_CHANNEL, &t));
	snprintf(tdir, sizeof(tdir), "%.400s/rdwr", t_dir);

	/* in setup state, touching state does not start the trace */
	T_ASSERT_EQ(t_in_child(toucher, NULL), T_PASS);
	T_ASSERT_EQ(control_point(t), 0);
	read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "setup\n"));

	T_ASSERT_OK(evt_trace_start(t));
	for (uint32_t i = 0; i < 2; i++) {
		rec_fill(rec, i, RSZ, 0);
		T_ASSERT_OK(evt_relay_write(t->rchan, rec, RSZ));
	}
	/* running: touching does not stop it */
	T_ASSERT_EQ(t_in_child(toucher, NULL), T_PASS);
	T_ASSERT_EQ(control_point(t), 1);
	T_ASSERT_OK(evt_trace_stop(t));

	/* everything read; touching rewind does not rewind, touching state does not start */
	T_ASSERT_EQ(t_in_child(read_all, &two), T_PASS);
	T_ASSERT_EQ(t_in_child(toucher, NULL), T_PASS);
	T_ASSERT_EQ(control_point(t), 0);
	T_ASSERT_EQ(t_in_child(read_all, &none), T_PASS);
	read_ctl("state", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "stop\n"));

	/* real writes still act: start, stop, rewind (then rewind is empty again) */
	ctl_write("state", "start\n");
	T_ASSERT_EQ(control_point(t), 1);
	ctl_write("state", "stop\n");
	T_ASSERT_EQ(control_point(t), 0);
	ctl_write("rewind", "1\n");
	T_ASSERT_EQ(control_point(t), 0);
	T_ASSERT_EQ(t_in_child(read_all, &two), T_PASS);
	read_ctl("rewind", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, ""));
	/* and touching the emptied rewind does nothing */
	T_ASSERT_EQ(t_in_child(toucher, NULL), T_PASS);
	T_ASSERT_EQ(control_point(t), 0);
	T_ASSERT_EQ(t_in_child(read_all, &none), T_PASS);

	evt_trace_cleanup(t);
	return T_PASS;
}
