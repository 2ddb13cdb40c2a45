// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-mmap: the mmap interface with the seed's no-overwrite callback
 * (a 4-byte header holding the previous sub-buffer's padding). A consumer
 * process maps the whole buffer (n_subbufs * subbuf_size), walks the
 * finished sub-buffers with next_subbuf (length without padding, which
 * matches the header the callback wrote), consumes them, and the writer,
 * refused while all were full, writes again. buf_mapped() reaches the
 * writer at its next switch.
 */
#include "relay-common.h"

#define RSZ  40
#define SBSZ 128
#define NSB  4

static unsigned int mapped_calls, unmapped_calls;

static int subbuf_start(struct evt_rchan_buf *buf, void *subbuf, void *prev_subbuf,
			size_t prev_padding)
{
	(void)subbuf;
	if (prev_subbuf)
		*(unsigned int *)prev_subbuf = (unsigned int)prev_padding;
	if (evt_relay_buf_full(buf))
		return 0;
	evt_subbuf_start_reserve(buf, sizeof(unsigned int));
	return 1;
}

static void buf_mapped(struct evt_rchan_buf *buf, unsigned int nr)
{
	(void)buf;
	(void)nr;
	mapped_calls++;
}

static void buf_unmapped(struct evt_rchan_buf *buf, unsigned int nr)
{
	(void)buf;
	(void)nr;
	unmapped_calls++;
}

static int consumer(void *arg)
{
	uint32_t expect = 0, *nrecs = arg;
	struct evt_relay_reader *r;
	char path[PATH_MAX];
	const void *map;
	size_t len, off, sl;
	int subbufs = 0;

	t_path(path, sizeof(path), "m0");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	T_ASSERT_OK(evt_relay_reader_mmap(r, &map, &len));
	T_ASSERT_EQ(len, SBSZ * NSB);
	while (evt_relay_reader_next_subbuf(r, &off, &sl) == 1) {
		const char *sb = (const char *)map + off;
		unsigned int pad = *(const unsigned int *)sb;

		T_ASSERT(off + sl <= len);
		T_ASSERT_EQ(off % SBSZ, 0);
		T_ASSERT_EQ(pad, SBSZ - sl); /* the callback's header = the library's padding */
		for (size_t at = 4; at < sl; at += RSZ) {
			T_ASSERT(rly_rec_check(sb + at, sl - at));
			T_ASSERT_EQ(rly_rec_seq(sb + at), expect);
			expect++;
		}
		T_ASSERT_OK(evt_relay_reader_subbufs_consumed(r, 1));
		subbufs++;
	}
	T_ASSERT_EQ(subbufs, NSB);
	T_ASSERT_EQ(expect, *nrecs);
	T_ASSERT_EQ(evt_relay_reader_close(r), 0);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan_callbacks cb = { .subbuf_start = subbuf_start,
					  .buf_mapped = buf_mapped,
					  .buf_unmapped = buf_unmapped,
					  .create_buf_file = t_create,
					  .remove_buf_file = t_remove };
	struct t_chan_opts o = { .global = 1 };
	struct evt_rchan *chan;
	char rec[RSZ];
	uint32_t seq = 0, kept = 0;

	t_dir_make();
	T_ASSERT_OK(evt_relay_open("m", t_dir, SBSZ, NSB, &cb, &o, &chan));
	/* (128 - 4) / 40 = 3 records per sub-buffer, 4 bytes of padding */
	for (int i = 0; i < 30; i++) {
		rly_rec_fill(rec, seq++, RSZ, 0);
		if (evt_relay_write(chan, rec, RSZ) == 0)
			kept++;
	}
	T_ASSERT_EQ(kept, 12);
	T_ASSERT_EQ(t_in_child(consumer, &kept), T_PASS);
	rly_rec_fill(rec, seq, RSZ, 0);
	T_ASSERT_OK(evt_relay_write(chan, rec, RSZ)); /* room again; the switch delivers */
	T_ASSERT_EQ(mapped_calls, 1);
	T_ASSERT_EQ(unmapped_calls, 1);
	evt_relay_close(chan);
	return T_PASS;
}
