// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-fork: a child made by fork() must not write to its parent's
 * channels (the switch locks are process-local), and it cannot:
 *  - evt_relay_write(), evt_relay_write_serialized() return -ECHILD and
 *    evt_relay_reserve() NULL, per-CPU (rseq) and global (CAS) channels,
 *    even when the message would fit in the open sub-buffer;
 *  - evt_relay_subbufs_consumed() and evt_relay_late_setup_files() give
 *    -ECHILD; evt_relay_flush() and evt_relay_reset() do nothing;
 *  - evt_relay_close() in the child frees its copy only: the files stay,
 *    the buffer is not finalized, the parent goes on writing;
 *  - a GTSC trace: evt_trace_start()/stop() give -ECHILD in the child and
 *    evt_trace_cleanup() there leaves the directory alone;
 *  - the parent reads back exactly its own records.
 */
#include <sys/stat.h>

#include <evtrace/gtsc.h>

#include "relay-common.h"

#define RSZ 64

static struct evt_rchan *chan;
static struct evt_trace_info *trace;
static char gt_tdir[512];

static int child_writes(void *arg)
{
	char rec[RSZ], path[PATH_MAX];
	struct stat st;

	(void)arg;
	rly_rec_fill(rec, 1000, RSZ, 1);
	T_ASSERT_EQ(evt_relay_write(chan, rec, RSZ), -ECHILD);
	T_ASSERT_EQ(evt_relay_write_serialized(chan, rec, RSZ), -ECHILD);
	T_ASSERT(evt_relay_reserve(chan, RSZ) == NULL);
	T_ASSERT_EQ(evt_relay_subbufs_consumed(chan, 0, 1), -ECHILD);
	T_ASSERT_EQ(evt_relay_late_setup_files(chan, "x", t_dir), -ECHILD);
	evt_relay_flush(chan);
	evt_relay_reset(chan);
	evt_relay_close(chan);
	t_path(path, sizeof(path), "fk0");
	T_ASSERT_EQ(stat(path, &st), 0);
	return T_PASS;
}

static int child_gtsc(void *arg)
{
	char rec[RSZ];
	struct stat st;

	(void)arg;
	rly_rec_fill(rec, 2000, RSZ, 1);
	T_ASSERT_EQ(evt_relay_write(trace->rchan, rec, RSZ), -ECHILD);
	T_ASSERT_EQ(evt_trace_start(trace), -ECHILD);
	T_ASSERT_EQ(evt_trace_stop(trace), -ECHILD);
	for (int i = 0; i < 130; i++)
		evt_trace_running(trace); /* control points: none runs in the child */
	evt_trace_cleanup(trace);
	T_ASSERT_EQ(stat(gt_tdir, &st), 0);
	return T_PASS;
}

/* Read every buffer of the channel: exactly @arg records, seq 0..n-1 in some order. */
static int read_back(void *arg)
{
	int expect = *(int *)arg, got = 0;
	unsigned int seen = 0;
	char path[PATH_MAX], buf[16384];

	for (unsigned int cpu = 0;; cpu++) {
		struct evt_relay_reader *r;
		char name[32];
		ssize_t n, total = 0;

		snprintf(name, sizeof(name), "fk%u", cpu);
		t_path(path, sizeof(path), name);
		if (access(path, F_OK))
			break;
		T_ASSERT_OK(evt_relay_reader_open(path, &r));
		while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
			total += n;
		T_ASSERT_EQ(total % RSZ, 0);
		for (ssize_t off = 0; off < total; off += RSZ) {
			T_ASSERT(rly_rec_check(buf + off, RSZ));
			T_ASSERT(rly_rec_seq(buf + off) < 32);
			seen |= 1u << rly_rec_seq(buf + off);
			got++;
		}
		evt_relay_reader_close(r);
	}
	T_ASSERT_EQ(got, expect);
	T_ASSERT_EQ(seen, (expect == 32 ? 0 : 1u << expect) - 1);
	return T_PASS;
}

static void one_channel(int global)
{
	struct t_chan_opts o = { .global = global };
	struct evt_rchan_callbacks cb = { .create_buf_file = t_create,
					  .remove_buf_file = t_remove };
	char rec[RSZ], path[PATH_MAX];
	int n = 0, twenty = 20;
	struct stat st;

	T_ASSERT_OK(evt_relay_open("fk", t_dir, 4096, 4, &cb, &o, &chan));
	for (; n < 10; n++) {
		rly_rec_fill(rec, (uint32_t)n, RSZ, 0);
		T_ASSERT_OK(evt_relay_write(chan, rec, RSZ));
	}
	T_ASSERT_EQ(t_in_child(child_writes, NULL), T_PASS);
	for (; n < 20; n++) {
		rly_rec_fill(rec, (uint32_t)n, RSZ, 0);
		T_ASSERT_OK(evt_relay_write(chan, rec, RSZ));
	}
	evt_relay_flush(chan);
	T_ASSERT_EQ(t_in_child(read_back, &twenty), T_PASS);
	evt_relay_close(chan);
	t_path(path, sizeof(path), "fk0");
	T_ASSERT(stat(path, &st) < 0);
}

int main(void)
{
	char rec[RSZ];
	struct stat st;

	t_dir_make();
	one_channel(0);
	one_channel(1);

	T_ASSERT_OK(evt_trace_setup(t_dir, "fk", 4096, 4, EVT_TRACE_GLOBAL_CHANNEL, &trace));
	snprintf(gt_tdir, sizeof(gt_tdir), "%.400s/fk", t_dir);
	T_ASSERT_OK(evt_trace_start(trace));
	T_ASSERT_EQ(t_in_child(child_gtsc, NULL), T_PASS);
	rly_rec_fill(rec, 0, RSZ, 0);
	T_ASSERT_OK(evt_relay_write(trace->rchan, rec, RSZ));
	T_ASSERT_OK(evt_trace_stop(trace));
	T_ASSERT_EQ(evt_trace_running(trace), 0);
	evt_trace_cleanup(trace);
	T_ASSERT(stat(gt_tdir, &st) < 0);
	return T_PASS;
}
