// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-poll-set: a consumer process waits on two buffers at once with
 * evt_relay_reader_poll_set() and is woken when the writer crosses a
 * sub-buffer boundary in the second one: revents says which (POLLIN there,
 * nothing in the other). Once both channels are closed, both report
 * POLLHUP. Turns are taken through pipes; the only timeouts are 0 and -1.
 */
#include <poll.h>

#include "relay-common.h"

static int ready[2];

static int consumer(void *arg)
{
	struct evt_relay_reader *r[2];
	char path[PATH_MAX], c = 1;
	short rev[2];
	int n;

	(void)arg;
	t_path(path, sizeof(path), "a0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r[0]));
	t_path(path, sizeof(path), "b0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r[1]));
	T_ASSERT_EQ(evt_relay_reader_poll_set(r, 2, 0, rev), 0);
	T_ASSERT_EQ(write(ready[1], &c, 1), 1);
	n = evt_relay_reader_poll_set(r, 2, -1, rev); /* b crosses a boundary */
	T_ASSERT_EQ(n, 1);
	T_ASSERT_EQ(rev[0], 0);
	T_ASSERT(rev[1] & POLLIN);
	T_ASSERT_EQ(write(ready[1], &c, 1), 1);
	while (evt_relay_reader_poll_set(r, 2, -1, rev) != 2 || !(rev[0] & POLLHUP) ||
	       !(rev[1] & POLLHUP))
		; /* one closed, then the other */
	T_ASSERT_EQ(evt_relay_reader_poll_set(r, 0, 0, rev), -EINVAL);
	evt_relay_reader_close(r[0]);
	evt_relay_reader_close(r[1]);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan_callbacks cb = { .create_buf_file = t_create,
					  .remove_buf_file = t_remove };
	struct t_chan_opts o = { .global = 1 };
	struct evt_rchan *a, *b;
	char rec[100] = { 0 }, c;
	int status;
	pid_t pid;

	t_dir_make();
	T_ASSERT_OK(evt_relay_open("a", t_dir, 256, 4, &cb, &o, &a));
	T_ASSERT_OK(evt_relay_open("b", t_dir, 256, 4, &cb, &o, &b));
	if (pipe(ready) < 0)
		t_fail("pipe");
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(consumer(NULL));
	T_ASSERT_EQ(read(ready[0], &c, 1), 1);
	T_ASSERT_OK(evt_relay_write(b, rec, sizeof(rec)));
	T_ASSERT_OK(evt_relay_write(b, rec, sizeof(rec)));
	T_ASSERT_OK(evt_relay_write(b, rec, sizeof(rec))); /* crosses: wakes */
	T_ASSERT_EQ(read(ready[0], &c, 1), 1);
	evt_relay_close(a);
	evt_relay_close(b);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == T_PASS);
	return T_PASS;
}
