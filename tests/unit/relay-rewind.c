// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-rewind: after a consumer process read everything, rewind makes the
 * next read start again at the oldest data still in the buffer: the same
 * bytes come back.
 */
#include "relay-common.h"

#define RSZ 50

static int consumer(void *arg)
{
	struct evt_relay_reader *r;
	char path[PATH_MAX], a[2048], b[2048];
	ssize_t na = 0, nb = 0, n;

	(void)arg;
	t_path(path, sizeof(path), "rw0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	while ((n = evt_relay_reader_read(r, a + na, sizeof(a) - na)) > 0)
		na += n;
	T_ASSERT_EQ(na, 10 * RSZ);
	T_ASSERT_EQ(evt_relay_reader_read(r, b, sizeof(b)), -EAGAIN);
	T_ASSERT_OK(evt_relay_reader_rewind(r));
	while ((n = evt_relay_reader_read(r, b + nb, sizeof(b) - nb)) > 0)
		nb += n;
	T_ASSERT_EQ(nb, na);
	T_ASSERT(memcmp(a, b, (size_t)na) == 0);
	for (int i = 0; i < 10; i++)
		T_ASSERT_EQ(rly_rec_seq(b + i * RSZ), i);
	evt_relay_reader_close(r);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan *chan;

	t_dir_make();
	chan = t_open_global("rw", 256, 8);
	t_write_recs(chan, 0, 10, RSZ);
	evt_relay_flush(chan);
	T_ASSERT_EQ(t_in_child(consumer, NULL), T_PASS);
	evt_relay_close(chan);
	return T_PASS;
}
