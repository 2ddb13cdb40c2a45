// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-snapshot: the `snapshot` file as ftrace.rst "Snapshot" describes
 * it: the help text while nothing is allocated ("Snapshot is freed"), or the
 * buffer is empty ("allocated"); `echo 1` allocates and swaps (the snapshot
 * then holds what the live buffer held, the live buffer the old snapshot);
 * `echo 2` clears; `echo 0` frees; per_cpu/cpuN/snapshot swaps one CPU
 * (`echo 0` there: EINVAL); an instance's snapshot is its own; buffer_size_kb
 * and trace_clock apply to both buffers.
 */
#include <sched.h>
#include <stdio.h>

#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

#define FREED "# tracer: nop\n#\n#\n# * Snapshot is freed *\n#\n# Snapshot commands:\n"
#define ALLOCATED "# tracer: nop\n#\n#\n# * Snapshot is allocated *\n#\n# Snapshot commands:\n"

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void clear_trace(const char *prefix)
{
	char path[128];

	snprintf(path, sizeof(path), "%strace", prefix);
	T_ASSERT_EQ(evt_tracefs_write(NULL, path, "", 0, GT), 0);
}

static void one_instance(const char *p)
{
	char snap[128], en[128], tr[128], kb[128];
	const char *t;

	snprintf(snap, sizeof(snap), "%ssnapshot", p);
	snprintf(en, sizeof(en), "%sevents/tfs_test/tfs_tick/enable", p);
	snprintf(tr, sizeof(tr), "%strace", p);
	snprintf(kb, sizeof(kb), "%sbuffer_size_kb", p);

	/* not allocated: the help text; 2 does nothing, 0 does nothing */
	t = cat(snap);
	T_ASSERT(starts(t, FREED));
	T_ASSERT(strstr(t, "# echo 0 > snapshot : Clears and frees snapshot buffer\n"));
	T_ASSERT(strstr(t, "# echo 2 > snapshot : Clears snapshot buffer (but does not "
			   "allocate or free)\n"));
	T_ECHO("2\n", snap);
	T_ASSERT(starts(cat(snap), FREED));
	T_ECHO("0\n", snap);
	T_ASSERT_EQ(echo("abc\n", snap), -EINVAL);

	/* 1: allocate and swap */
	T_ECHO("1\n", en);
	for (unsigned int n = 1; n <= 3; n++)
		trace_tfs_tick(n);
	T_ECHO("1\n", snap);
	t = cat(snap);
	T_ASSERT(starts(t, "# tracer: nop\n#\n# entries-in-buffer/entries-written: 3/3"));
	T_ASSERT(strstr(t, "tfs_tick: n=1\n") && strstr(t, "tfs_tick: n=3\n"));
	T_ASSERT_EQ(count(cat(tr), "tfs_tick:"), 0);
	trace_tfs_tick(4);
	T_ASSERT_EQ(count(cat(tr), "tfs_tick:"), 1);
	T_ASSERT_EQ(count(cat(snap), "tfs_tick:"), 3);

	/* 1 again: the live buffer (n=4) becomes the snapshot, the old snapshot live */
	T_ECHO("1\n", snap);
	t = cat(snap);
	T_ASSERT_EQ(count(t, "tfs_tick:"), 1);
	T_ASSERT(strstr(t, "tfs_tick: n=4\n"));
	T_ASSERT_EQ(count(cat(tr), "tfs_tick:"), 3);

	/* 2: clear the snapshot only */
	T_ECHO("2\n", snap);
	T_ASSERT(starts(cat(snap), ALLOCATED));
	T_ASSERT_EQ(count(cat(tr), "tfs_tick:"), 3);

	/* the size and the clock are the snapshot's too */
	T_ECHO("64\n", kb);
	T_ASSERT_STR(cat(kb), "64\n");
	T_ECHO("1\n", snap);
	T_ASSERT_EQ(count(cat(snap), "tfs_tick:"), 3);
	T_ASSERT_STR(cat(kb), "64\n");

	/* a reader of the snapshot keeps it from being freed */
	{
		struct evt_tracefs_file *f;

		T_ASSERT_EQ(evt_tracefs_open(NULL, snap, EVT_TRACEFS_READ, &f), 0);
		T_ASSERT_EQ(echo("0\n", snap), -EBUSY);
		T_ASSERT_EQ(evt_tracefs_close(f), 0);
	}
	/* trace_pipe follows the live buffer across a snapshot */
	{
		struct evt_tracefs_file *f;
		char pipe[128], buf[4096];
		ssize_t n;

		snprintf(pipe, sizeof(pipe), "%strace_pipe", p);
		clear_trace(p);
		T_ASSERT_EQ(evt_tracefs_open(NULL, pipe, EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK,
					     &f), 0);
		T_ECHO("1\n", snap);
		trace_tfs_tick(42);
		n = evt_tracefs_file_read(f, buf, sizeof(buf) - 1);
		T_ASSERT(n > 0);
		buf[n] = '\0';
		T_ASSERT(strstr(buf, "tfs_tick: n=42\n") != NULL);
		T_ASSERT_EQ(evt_tracefs_close(f), 0);
	}
	/* 0: free; the live buffer is kept */
	T_ECHO("0\n", snap);
	T_ASSERT(starts(cat(snap), FREED));
	clear_trace(p);
	trace_tfs_tick(5);
	T_ASSERT_EQ(count(cat(tr), "tfs_tick:"), 1);
	T_ECHO("0\n", en);
	clear_trace(p);
	T_ECHO("1408\n", kb);
}

int main(void)
{
	struct evt_instance *inst;
	char path[64];
	const char *t;
	int cpu;

	one_instance("");

	/* an instance's snapshot is its own */
	T_ASSERT_EQ(evt_instance_create("snap", &inst), 0);
	T_ECHO("1\n", "snapshot");
	T_ASSERT(starts(cat("instances/snap/snapshot"), FREED));
	T_ASSERT(starts(cat("snapshot"), ALLOCATED));
	T_ECHO("0\n", "snapshot");
	one_instance("instances/snap/");

	/* per_cpu/cpuN/snapshot: one CPU's contents swap */
	cpu = sched_getcpu();
	T_ASSERT(cpu >= 0);
	T_ASSERT_OK(t_pin_to_cpu(cpu));
	snprintf(path, sizeof(path), "per_cpu/cpu%d/snapshot", cpu);
	t = cat(path);
	T_ASSERT(starts(t, FREED));
	T_ASSERT(strstr(t, "# echo 0 > snapshot : Invalid for per_cpu snapshot file.\n"));
	T_ASSERT_EQ(echo("0\n", path), -EINVAL);
	T_ECHO("1\n", "events/tfs_test/tfs_tick/enable");
	trace_tfs_tick(7);
	T_ECHO("1\n", path);
	T_ASSERT_EQ(count(cat(path), "tfs_tick: n=7"), 1);
	T_ASSERT_EQ(count(cat("snapshot"), "tfs_tick: n=7"), 1);
	T_ASSERT_EQ(count(cat("trace"), "tfs_tick:"), 0);
	T_ECHO("2\n", path);
	T_ASSERT(starts(cat(path), ALLOCATED));
	T_ECHO("0\n", "snapshot");
	T_ECHO("0\n", "events/tfs_test/tfs_tick/enable");
	T_ASSERT_EQ(evt_instance_destroy(inst), 0);
	return 0;
}
