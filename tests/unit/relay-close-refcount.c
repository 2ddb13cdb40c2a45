// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-close-refcount: close drops a reference. The writer closes its
 * channel while a consumer process holds a buffer open: the file is gone
 * (remove_buf_file()), but the consumer still reads every byte, then end
 * of file, and its close reports that it freed the buffer (last reference).
 * The other way round, a consumer that closes first leaves the writer's
 * buffer in place (refs back to 1).
 */
#include <sys/stat.h>

#include "relay-common.h"

#define RSZ 80

static int consumer(void *arg)
{
	struct evt_relay_reader *r;
	struct evt_relay_info info;
	char path[PATH_MAX], buf[8192];
	ssize_t n, total = 0;
	struct stat st;

	(void)arg;
	t_path(path, sizeof(path), "cr0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	T_ASSERT_OK(evt_relay_reader_info(r, &info));
	T_ASSERT_EQ(info.refs, 2);
	rly_tell(rly_to_parent[1]);
	rly_await(rly_to_child[0]); /* the writer wrote and closed */
	T_ASSERT(lstat(path, &st) < 0);
	T_ASSERT_OK(evt_relay_reader_info(r, &info));
	T_ASSERT_EQ(info.refs, 1);
	T_ASSERT_EQ(info.finalized, 1);
	while ((n = evt_relay_reader_read(r, buf + total, 100)) > 0)
		total += n;
	T_ASSERT_EQ(n, 0);
	T_ASSERT_EQ(total, 50 * RSZ);
	for (int i = 0; i < 50; i++)
		T_ASSERT_EQ(rly_rec_seq(buf + i * RSZ), i);
	T_ASSERT_EQ(evt_relay_reader_close(r), 1);
	return T_PASS;
}

static int early_closer(void *arg)
{
	struct evt_relay_reader *r;
	char path[PATH_MAX];

	(void)arg;
	t_path(path, sizeof(path), "cr0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	T_ASSERT_EQ(evt_relay_reader_close(r), 0);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan *chan;
	pid_t pid;

	t_dir_make();
	chan = t_open_global("cr", 1024, 8);
	T_ASSERT_EQ(t_in_child(early_closer, NULL), T_PASS);
	pid = t_fork_consumer(consumer);
	rly_await(rly_to_parent[0]);
	t_write_recs(chan, 0, 50, RSZ);
	evt_relay_close(chan);
	rly_tell(rly_to_child[1]);
	t_wait_consumer(pid);
	return T_PASS;
}
