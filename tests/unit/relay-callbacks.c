// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-callbacks: the callbacks' contract. private_data is in the channel
 * before the first callback; subbuf_start() runs once per buffer at open
 * with prev_subbuf NULL, then at each switch with the previous sub-buffer
 * and its padding; a create_buf_file() failure fails evt_relay_open() with
 * its error and removes the files already made; a channel with files but
 * no file callbacks is refused.
 */
#include <sys/stat.h>

#include "relay-common.h"

struct ctx {
	int starts, starts_null, fail_cpu, creates;
	size_t last_padding;
};

static int subbuf_start(struct evt_rchan_buf *buf, void *subbuf, void *prev_subbuf,
			size_t prev_padding)
{
	struct ctx *x = buf->chan->private_data;

	T_ASSERT(subbuf >= buf->start);
	T_ASSERT((char *)subbuf < (char *)buf->start + buf->chan->alloc_size);
	x->starts++;
	if (!prev_subbuf)
		x->starts_null++;
	x->last_padding = prev_padding;
	return !evt_relay_buf_full(buf);
}

static int create(const char *filename, const char *parent, int mode, struct evt_rchan_buf *buf,
		  int *is_global)
{
	struct ctx *x = buf->chan->private_data;

	T_ASSERT(x != NULL);
	if ((int)buf->cpu == x->fail_cpu)
		return -EACCES;
	x->creates++;
	*is_global = 0;
	return evt_relay_file_create(filename, parent, mode, buf, is_global);
}

int main(void)
{
	struct evt_rchan_callbacks cb = { .subbuf_start = subbuf_start,
					  .create_buf_file = create,
					  .remove_buf_file = t_remove };
	struct evt_rchan_callbacks half = { .create_buf_file = create };
	struct ctx x = { .fail_cpu = -1 };
	struct evt_rchan *chan;
	char path[PATH_MAX], rec[100] = { 0 };
	struct stat st;

	t_dir_make();
	T_ASSERT_EQ(evt_relay_open("h", t_dir, 256, 4, &half, &x, &chan), -EINVAL);
	T_ASSERT_EQ(evt_relay_open("h", t_dir, 256, 4, NULL, &x, &chan), -EINVAL);
	T_ASSERT_EQ(evt_relay_open("h", t_dir, 0, 4, &cb, &x, &chan), -EINVAL);
	T_ASSERT_EQ(evt_relay_open("h", t_dir, 256, 0, &cb, &x, &chan), -EINVAL);

	if (t_nr_cpus() >= 2) {
		x.fail_cpu = 1;
		T_ASSERT_EQ(evt_relay_open("f", t_dir, 256, 4, &cb, &x, &chan), -EACCES);
		t_path(path, sizeof(path), "f0");
		T_ASSERT(lstat(path, &st) < 0); /* cpu 0's file was removed again */
		x = (struct ctx){ .fail_cpu = -1 };
	}

	T_ASSERT_OK(evt_relay_open("c", t_dir, 256, 4, &cb, &x, &chan));
	T_ASSERT(chan->private_data == &x);
	T_ASSERT_EQ(x.creates, chan->nr_bufs);
	T_ASSERT_EQ(x.starts, chan->nr_bufs); /* once per buffer at open */
	T_ASSERT_EQ(x.starts_null, chan->nr_bufs);
	if (t_pin_to_cpu(0) < 0)
		t_skip("cannot pin to CPU 0");
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec)));
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec)));
	T_ASSERT_OK(evt_relay_write(chan, rec, sizeof(rec))); /* switch: 56 bytes of padding */
	T_ASSERT_EQ(x.starts, chan->nr_bufs + 1);
	T_ASSERT_EQ(x.starts_null, chan->nr_bufs);
	T_ASSERT_EQ(x.last_padding, 56);
	evt_relay_close(chan);
	t_path(path, sizeof(path), "c0");
	T_ASSERT(lstat(path, &st) < 0);
	return T_PASS;
}
