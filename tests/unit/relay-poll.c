// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-poll: a consumer process sleeping in evt_relay_reader_poll() is
 * woken when the writer crosses a sub-buffer boundary (POLLIN), not by
 * writes inside a sub-buffer, and sees POLLHUP once the channel is closed.
 * The processes take turns through a pipe; no timing is assumed: the only
 * timeouts are 0 (a check that nothing is ready) and -1.
 */
#include <poll.h>

#include "relay-common.h"

static int consumer(void *arg)
{
	struct evt_relay_reader *r;
	char path[PATH_MAX], buf[4096];
	int mask;

	(void)arg;
	t_path(path, sizeof(path), "p0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	T_ASSERT_EQ(evt_relay_reader_poll(r, 0), 0); /* one record in the current sub-buffer */
	rly_tell(rly_to_parent[1]);
	mask = evt_relay_reader_poll(r, -1); /* the writer now crosses a boundary */
	T_ASSERT(mask & POLLIN);
	T_ASSERT(mask & POLLRDNORM);
	T_ASSERT(evt_relay_reader_read(r, buf, sizeof(buf)) > 0);
	T_ASSERT_EQ(evt_relay_reader_poll(r, 0), 0);
	rly_tell(rly_to_parent[1]);
	mask = evt_relay_reader_poll(r, -1); /* the writer closes */
	T_ASSERT(mask & POLLHUP);
	while (evt_relay_reader_read(r, buf, sizeof(buf)) > 0)
		;
	T_ASSERT_EQ(evt_relay_reader_read(r, buf, sizeof(buf)), 0); /* end of file */
	T_ASSERT_EQ(evt_relay_reader_close(r), 1);		    /* the last reference */
	return T_PASS;
}

int main(void)
{
	struct evt_rchan *chan;
	char rec[100] = { 0 };
	pid_t pid;

	t_dir_make();
	chan = t_open_global("p", 256, 4);
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec)));
	pid = t_fork_consumer(consumer);
	rly_await(rly_to_parent[0]);
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec))); /* same sub-buffer */
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec))); /* crosses: wakes */
	rly_await(rly_to_parent[0]);
	evt_relay_close(chan);
	t_wait_consumer(pid);
	return T_PASS;
}
