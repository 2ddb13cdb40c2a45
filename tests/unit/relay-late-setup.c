// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-late-setup: a buffer-only channel (evt_relay_open(NULL, ...)) has
 * no files; evt_relay_late_setup_files() creates them later and a consumer
 * process reads what was written before and after. A second late setup is
 * refused (-EEXIST), as is a channel with files but no file callbacks.
 */
#include <sys/stat.h>

#include "relay-common.h"

#define RSZ 24

static int consumer(void *arg)
{
	int nr = *(int *)arg;
	uint32_t found = 0;

	for (int cpu = 0; cpu < nr; cpu++) {
		char path[PATH_MAX], name[32], buf[8192];
		struct evt_relay_reader *r;
		ssize_t n, total = 0;

		snprintf(name, sizeof(name), "late%d", cpu);
		t_path(path, sizeof(path), name);
		T_ASSERT_OK(evt_relay_reader_open(path, &r));
		while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
			total += n;
		T_ASSERT_EQ(total % RSZ, 0);
		for (ssize_t at = 0; at < total; at += RSZ) {
			T_ASSERT(rly_rec_check(buf + at, RSZ));
			found++;
		}
		evt_relay_reader_close(r);
	}
	T_ASSERT_EQ(found, 40);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan_callbacks cb = { .create_buf_file = t_create,
					  .remove_buf_file = t_remove };
	struct evt_rchan_callbacks none = { 0 };
	struct evt_rchan *chan;
	char rec[RSZ], path[PATH_MAX];
	struct stat st;
	int nr;

	t_dir_make();
	T_ASSERT_EQ(evt_relay_open("x", t_dir, 4096, 4, &none, NULL, &chan), -EINVAL);
	T_ASSERT_OK(evt_relay_open(NULL, NULL, 4096, 4, &cb, NULL, &chan));
	nr = (int)chan->nr_bufs;
	for (uint32_t i = 0; i < 20; i++) {
		rly_rec_fill(rec, i, RSZ, 0);
		T_ASSERT_OK(evt_relay_write(chan, rec, RSZ));
	}
	t_path(path, sizeof(path), "late0");
	T_ASSERT(lstat(path, &st) < 0);
	T_ASSERT_OK(evt_relay_late_setup_files(chan, "late", t_dir));
	T_ASSERT(lstat(path, &st) == 0);
	T_ASSERT_EQ(evt_relay_late_setup_files(chan, "late", t_dir), -EEXIST);
	for (uint32_t i = 20; i < 40; i++) {
		rly_rec_fill(rec, i, RSZ, 0);
		T_ASSERT_OK(evt_relay_write(chan, rec, RSZ));
	}
	T_ASSERT_EQ(t_in_child(consumer, &nr), T_PASS);
	evt_relay_close(chan);
	T_ASSERT(lstat(path, &st) < 0); /* remove_buf_file() ran */
	return T_PASS;
}
