// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-overwrite: the seed's overwrite-mode subbuf_start() (always 1, a
 * 4-byte header holding the previous sub-buffer's padding). Writes never
 * fail; a consumer in another process that comes late gets the newest
 * n-1 finished sub-buffers and the current one, in order, counts the
 * sub-buffers it lost, and each sub-buffer's header holds its padding.
 */
#include "relay-common.h"

#define RSZ  60
#define SBSZ 256
#define NSB  4

static int subbuf_start(struct evt_rchan_buf *buf, void *subbuf, void *prev_subbuf,
			size_t prev_padding)
{
	(void)subbuf;
	if (prev_subbuf)
		*(unsigned int *)prev_subbuf = (unsigned int)prev_padding;
	evt_subbuf_start_reserve(buf, sizeof(unsigned int));
	return 1;
}

static int consumer(void *arg)
{
	uint32_t last = *(uint32_t *)arg, prev = 0;
	struct evt_relay_reader *r;
	struct evt_relay_info info;
	char path[PATH_MAX], buf[SBSZ * NSB];
	ssize_t n, total = 0;
	int first = 1, recs = 0;

	t_path(path, sizeof(path), "ow0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
		total += n;
	T_ASSERT_OK(evt_relay_reader_info(r, &info));
	T_ASSERT(info.lost > 0);
	T_ASSERT_EQ(info.dropped, 0);
	/* Each sub-buffer: a 4-byte padding word, then whole records. */
	for (ssize_t at = 0; at < total;) {
		unsigned int pad = *(unsigned int *)(buf + at);
		ssize_t end;

		T_ASSERT(pad < SBSZ);
		at += 4;
		end = at + (SBSZ - 4 - (ssize_t)pad);
		if (end > total)
			end = total; /* the current sub-buffer: its padding is not known yet */
		while (at < end) {
			struct rec hd = rly_rec_head(buf + at);
			const char *rc = buf + at;

			T_ASSERT(rly_rec_check(rc, (size_t)(end - at)));
			if (!first)
				T_ASSERT_EQ(hd.seq, prev + 1);
			first = 0;
			prev = hd.seq;
			at += RSZ;
			recs++;
		}
	}
	T_ASSERT_EQ(prev, last);
	T_ASSERT(recs >= (NSB - 1) * 4);
	evt_relay_reader_close(r);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan_callbacks cb = { .subbuf_start = subbuf_start,
					  .create_buf_file = t_create,
					  .remove_buf_file = t_remove };
	struct t_chan_opts o = { .global = 1 };
	struct evt_rchan *chan;
	char rec[RSZ];
	uint32_t seq;

	t_dir_make();
	T_ASSERT_OK(evt_relay_open("ow", t_dir, SBSZ, NSB, &cb, &o, &chan));
	for (seq = 0; seq < 1000; seq++) {
		rly_rec_fill(rec, seq, RSZ, 0);
		T_ASSERT_OK(evt_relay_write(chan, rec, RSZ));
	}
	seq--;
	T_ASSERT_EQ(t_in_child(consumer, &seq), T_PASS);
	evt_relay_close(chan);
	return T_PASS;
}
