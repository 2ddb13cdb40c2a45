// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-reset: evt_relay_reset() empties a channel without remapping it:
 * a consumer process that kept the buffer open sees nothing of what came
 * before, then exactly what is written after; the dropped count restarts.
 */
#include "relay-common.h"

#define RSZ 64

static int consumer(void *arg)
{
	struct evt_relay_reader *r;
	struct evt_relay_info info;
	char path[PATH_MAX], buf[4096];
	ssize_t n, total = 0;

	(void)arg;
	t_path(path, sizeof(path), "rs0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	rly_tell(rly_to_parent[1]);
	rly_await(rly_to_child[0]); /* written, reset, written again */
	T_ASSERT_OK(evt_relay_reader_info(r, &info));
	T_ASSERT_EQ(info.dropped, 0);
	while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
		total += n;
	T_ASSERT_EQ(total, 3 * RSZ);
	for (int i = 0; i < 3; i++)
		T_ASSERT_EQ(rly_rec_seq(buf + i * RSZ), 1000 + i);
	evt_relay_reader_close(r);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan *chan;
	char rec[RSZ];
	int drops = 0;
	pid_t pid;

	t_dir_make();
	chan = t_open_global("rs", 256, 2);
	pid = t_fork_consumer(consumer);
	rly_await(rly_to_parent[0]);
	for (uint32_t i = 0; i < 20; i++) {
		rly_rec_fill(rec, i, RSZ, 0);
		drops += evt_relay_write(chan, rec, RSZ) == -ENOBUFS;
	}
	T_ASSERT(drops > 0);
	evt_relay_reset(chan);
	t_write_recs(chan, 1000, 3, RSZ);
	rly_tell(rly_to_child[1]);
	t_wait_consumer(pid);
	evt_relay_close(chan);
	return T_PASS;
}
