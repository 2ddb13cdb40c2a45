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

static int to_child[2], to_parent[2];

static void tell(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		t_fail("pipe");
}

static void await(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		t_fail("pipe");
}

static int consumer(void *arg)
{
	struct evt_relay_reader *r;
	char path[PATH_MAX], buf[4096];
	int mask;

	(void)arg;
	t_path(path, sizeof(path), "p0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	T_ASSERT_EQ(evt_relay_reader_poll(r, 0), 0); /* one record in the current sub-buffer */
	tell(to_parent[1]);
	mask = evt_relay_reader_poll(r, -1); /* the writer now crosses a boundary */
	T_ASSERT(mask & POLLIN);
	T_ASSERT(mask & POLLRDNORM);
	T_ASSERT(evt_relay_reader_read(r, buf, sizeof(buf)) > 0);
	T_ASSERT_EQ(evt_relay_reader_poll(r, 0), 0);
	tell(to_parent[1]);
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
	struct evt_rchan_callbacks cb = { .create_buf_file = t_create,
					  .remove_buf_file = t_remove };
	struct t_chan_opts o = { .global = 1 };
	struct evt_rchan *chan;
	char rec[100] = { 0 };
	int status;
	pid_t pid;

	t_dir_make();
	T_ASSERT_OK(evt_relay_open("p", t_dir, 256, 4, &cb, &o, &chan));
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec)));
	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		t_fail("pipe");
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(consumer(NULL));
	await(to_parent[0]);
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec))); /* same sub-buffer */
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec))); /* crosses: wakes */
	await(to_parent[0]);
	evt_relay_close(chan);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status));
	T_ASSERT_EQ(WEXITSTATUS(status), T_PASS);
	return T_PASS;
}
