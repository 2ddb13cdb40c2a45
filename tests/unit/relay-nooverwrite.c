// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-nooverwrite: the default mode. A global buffer of 4 sub-buffers of
 * 256 bytes takes two 100-byte records per sub-buffer (56 bytes of padding
 * each); once all four are finished and unread, every write is refused and
 * counted. A consumer in another process reads exactly the kept records,
 * padding stripped, in order; after it consumed, writing works again.
 */
#include "relay-common.h"

#define RSZ 100

struct expect {
	uint32_t first, count;
	uint64_t dropped;
};

static int consumer(void *arg)
{
	struct expect *e = arg;
	struct evt_relay_reader *r;
	struct evt_relay_info info;
	char path[PATH_MAX], buf[4096];
	ssize_t n, total = 0;

	t_path(path, sizeof(path), "cpu0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	T_ASSERT_OK(evt_relay_reader_info(r, &info));
	T_ASSERT_EQ(info.is_global, 1);
	T_ASSERT_EQ(info.dropped, e->dropped);
	while ((n = evt_relay_reader_read(r, buf + total, 37)) > 0)
		total += n;
	T_ASSERT_EQ(n, -EAGAIN); /* the writer is alive: nothing now */
	T_ASSERT_EQ(total, (ssize_t)e->count * RSZ);
	for (uint32_t i = 0; i < e->count; i++) {
		struct rec hd = rly_rec_head(buf + i * RSZ);
		const char *rc = buf + i * RSZ;

		T_ASSERT(rly_rec_check(rc, RSZ));
		T_ASSERT_EQ(hd.seq, e->first + i);
	}
	T_ASSERT_EQ(evt_relay_reader_close(r), 0);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan_callbacks cb = { .create_buf_file = t_create,
					  .remove_buf_file = t_remove };
	struct t_chan_opts o = { .global = 1 };
	struct evt_rchan *chan;
	struct expect e;
	char rec[RSZ];
	uint32_t seq = 0;
	int ret, ok = 0, dropped = 0;

	t_dir_make();
	T_ASSERT_OK(evt_relay_open("cpu", t_dir, 256, 4, &cb, &o, &chan));
	T_ASSERT_EQ(o.created, 1);
	T_ASSERT_EQ(chan->nr_bufs, 1);
	T_ASSERT_EQ(chan->is_global, 1);
	/* 4 sub-buffers x 2 records fit; the 9th finishes the 4th and is refused. */
	for (int i = 0; i < 20; i++) {
		rly_rec_fill(rec, seq++, RSZ, 0);
		ret = evt_relay_write(chan, rec, RSZ);
		if (ret == 0)
			ok++;
		else if (ret == -ENOBUFS)
			dropped++;
		else
			t_fail("write: %d", ret);
	}
	T_ASSERT_EQ(ok, 8);
	T_ASSERT_EQ(dropped, 12);
	e = (struct expect){ .first = 0, .count = 8, .dropped = 12 };
	T_ASSERT_EQ(t_in_child(consumer, &e), T_PASS);

	/* Consumed: room again. 3 more records: 2 finish a sub-buffer, 1 is current. */
	for (int i = 0; i < 3; i++) {
		rly_rec_fill(rec, seq, RSZ, 0);
		T_ASSERT_OK(evt_relay_write(chan, rec, RSZ));
		e.first = e.first ? e.first : seq;
		seq++;
	}
	e = (struct expect){ .first = 20, .count = 3, .dropped = 12 };
	T_ASSERT_EQ(t_in_child(consumer, &e), T_PASS);
	/* Too big for any sub-buffer: refused, not counted as dropped. */
	T_ASSERT_EQ(evt_relay_write(chan, rec, 300), -E2BIG);
	evt_relay_close(chan);
	return T_PASS;
}
