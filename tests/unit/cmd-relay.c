// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-relay: `evtrace relay` run as a separate process
 * (build/tools/evtrace) on a GTSC trace of this test (a global buffer,
 * trace0, next to the control files):
 *  - cat --once DIR prints every record, in order, padding stripped, and
 *    skips the control files;
 *  - record -o OUT DIR, started before the records are written (on a
 *    second trace), writes OUT/trace0 with exactly those bytes - the
 *    command must not open the control files (opening "rewind" for
 *    writing would rewind it) - and ends by itself when the trace is
 *    cleaned up (channel closed, all read);
 *  - cat --once on a per-CPU trace (trace0..N-1): every record once;
 *  - with stderr on a terminal (a pty) the live line appears, with the
 *    exact dropped count, and SIGINT ends the command with status 0;
 *  - a source that is not a relay buffer fails (1), usage errors 2.
 */
#include <limits.h>
#include <pty.h>
#include <signal.h>

#include <evtrace/error.h>
#include <evtrace/gtsc.h>
#include <evtrace/relay.h>

#include "cmd-test.h"
#include "tracepipe-util.h"

#define RSZ 32

static void record(struct evt_trace_info *t, int i)
{
	char rec[RSZ + 1];

	memset(rec, '.', RSZ);
	snprintf(rec, 16, "record %08d", i);
	rec[15] = ' ';
	rec[RSZ - 1] = '\n';
	T_ASSERT_EQ(evt_relay_write(t->rchan, rec, RSZ), 0);
}

static void check_records(const char *buf, size_t len, int n)
{
	T_ASSERT_EQ(len, (size_t)n * RSZ);
	for (int i = 0; i < n; i++) {
		char want[32];

		snprintf(want, sizeof(want), "record %08d", i);
		T_ASSERT(!memcmp(buf + (size_t)i * RSZ, want, 15));
	}
}

int main(void)
{
	static char buf[1 << 20];
	struct evt_trace_info *t;
	char dir[PATH_MAX], out[PATH_MAX], file[PATH_MAX + 16];
	int fd, n;
	pid_t pid;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	tpt_mkdir();
	/* 64 sub-buffers of 1 KiB: 32 records each, no padding */
	T_ASSERT_OK(evt_trace_setup(tpt_dir, "cmdrelay", 1024, 64, EVT_TRACE_GLOBAL_CHANNEL, &t));
	T_ASSERT_OK(evt_trace_start(t));
	snprintf(dir, sizeof(dir), "%s/cmdrelay", tpt_dir);
	snprintf(out, sizeof(out), "%s/out", tpt_dir);
	T_ASSERT_EQ(access(dir, F_OK), 0);

	/* cat --once: the finished sub-buffers now (flush finishes the last one) */
	for (int i = 0; i < 500; i++)
		record(t, i);
	evt_relay_flush(t->rchan);
	pid = cmdt_run((char *[]){ "evtrace", "relay", "cat", "--once", dir, NULL }, &fd, -1);
	n = (int)cmdt_read_all(fd, buf, sizeof(buf));
	T_ASSERT_EQ(cmdt_wait_status(pid), 0);
	check_records(buf, (size_t)n, 500);

	/* the live line; SIGINT */
	{
		int master, slave;

		if (openpty(&master, &slave, NULL, NULL, NULL))
			t_skip("no pty: %s", strerror(errno));
		pid = cmdt_run((char *[]){ "evtrace", "relay", "cat", dir, NULL }, &fd, slave);
		close(slave);
		cmdt_read_until(master, buf, sizeof(buf), "missed");
		T_ASSERT(strchr(buf, '\r') && strstr(buf, "trace0: ") && strstr(buf, "/s"));
		kill(pid, SIGINT);
		T_ASSERT_EQ(cmdt_wait_status(pid), 0);
		close(fd);
		close(master);
	}

	/* record, on a second trace: runs until the trace is cleaned up */
	evt_trace_stop(t);
	evt_trace_cleanup(t);
	T_ASSERT_OK(evt_trace_setup(tpt_dir, "cmdrelay2", 1024, 64, EVT_TRACE_GLOBAL_CHANNEL, &t));
	T_ASSERT_OK(evt_trace_start(t));
	snprintf(dir, sizeof(dir), "%s/cmdrelay2", tpt_dir);
	pid = cmdt_run((char *[]){ "evtrace", "relay", "record", "-o", out, dir, NULL }, &fd, 2);
	snprintf(file, sizeof(file), "%s/trace0", out);
	while (access(file, F_OK)) /* it has opened the buffers, then made its files */
		usleep(1000);
	for (int i = 0; i < 1000; i++)
		record(t, i);
	evt_trace_stop(t);
	evt_trace_cleanup(t); /* closes the channel: the command reads the rest and ends */
	T_ASSERT_EQ(cmdt_wait_status(pid), 0);
	close(fd);
	{
		size_t len;
		unsigned char *b = tpt_slurp(file, &len);

		check_records((const char *)b, len, 1000);
		free(b);
	}

	/* a per-CPU trace: trace0..N-1, each record once across the files */
	T_ASSERT_OK(evt_trace_setup(tpt_dir, "percpu", 1024, 64, 0, &t));
	T_ASSERT_OK(evt_trace_start(t));
	snprintf(dir, sizeof(dir), "%s/percpu", tpt_dir);
	for (int i = 0; i < 300; i++)
		record(t, i);
	evt_relay_flush(t->rchan);
	pid = cmdt_run((char *[]){ "evtrace", "relay", "cat", "--once", dir, NULL }, &fd, -1);
	n = (int)cmdt_read_all(fd, buf, sizeof(buf));
	T_ASSERT_EQ(cmdt_wait_status(pid), 0);
	T_ASSERT_EQ(n, 300 * RSZ);
	{
		static unsigned char seen[300];

		for (int i = 0; i < 300; i++) {
			int v = atoi(buf + (size_t)i * RSZ + 7);

			T_ASSERT(v >= 0 && v < 300 && !seen[v]);
			seen[v] = 1;
		}
	}
	evt_trace_stop(t);
	evt_trace_cleanup(t);

	/* errors */
	pid = cmdt_run((char *[]){ "evtrace", "relay", "cat", "/dev/null", NULL }, &fd, -1);
	cmdt_read_all(fd, buf, sizeof(buf));
	T_ASSERT_EQ(cmdt_wait_status(pid), 1);
	pid = cmdt_run((char *[]){ "evtrace", "relay", "frob", dir, NULL }, &fd, -1);
	cmdt_read_all(fd, buf, sizeof(buf));
	T_ASSERT_EQ(cmdt_wait_status(pid), 2);
	pid = cmdt_run((char *[]){ "evtrace", "relay", "cat", NULL }, &fd, -1);
	cmdt_read_all(fd, buf, sizeof(buf));
	T_ASSERT_EQ(cmdt_wait_status(pid), 2);
	return T_PASS;
}
