// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-percpu: per-CPU buffers by default: one file per possible CPU
 * (base0 ... baseN-1), and a thread pinned to CPU c writes into basec.
 * A consumer process finds each thread's records, all of them, in order,
 * in its CPU's file only.
 */
#include <pthread.h>

#include "relay-common.h"

#define PER 50
#define RSZ 32

static struct evt_rchan *chan;

static void *writer(void *arg)
{
	int cpu = (int)(long)arg;
	char rec[RSZ];

	if (t_pin_to_cpu(cpu) < 0)
		return (void *)1;
	for (uint32_t i = 0; i < PER; i++) {
		rly_rec_fill(rec, i, RSZ, (uint32_t)cpu);
		if (evt_relay_write(chan, rec, RSZ) < 0)
			return (void *)1;
	}
	return NULL;
}

static int consumer(void *arg)
{
	int nr = *(int *)arg;

	for (int cpu = 0; cpu < nr; cpu++) {
		char path[PATH_MAX], name[32], buf[PER * RSZ * 2];
		struct evt_relay_reader *r;
		ssize_t n, total = 0;

		snprintf(name, sizeof(name), "pc%d", cpu);
		t_path(path, sizeof(path), name);
		T_ASSERT_OK(evt_relay_reader_open(path, &r));
		while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
			total += n;
		T_ASSERT_EQ(total, PER * RSZ);
		for (int i = 0; i < PER; i++) {
			struct rec hd = rly_rec_head(buf + i * RSZ);
			const char *rc = buf + i * RSZ;

			T_ASSERT(rly_rec_check(rc, RSZ));
			T_ASSERT_EQ(hd.writer, cpu);
			T_ASSERT_EQ(hd.seq, i);
		}
		evt_relay_reader_close(r);
	}
	return T_PASS;
}

int main(void)
{
	struct evt_rchan_callbacks cb = { .create_buf_file = t_create,
					  .remove_buf_file = t_remove };
	struct t_chan_opts o = { .global = 0 };
	int nr = t_nr_cpus();
	pthread_t th[64];

	if (nr > 64)
		nr = 64;
	t_dir_make();
	T_ASSERT_OK(evt_relay_open("pc", t_dir, 4096, 4, &cb, &o, &chan));
	T_ASSERT_EQ(chan->is_global, 0);
	T_ASSERT(chan->nr_bufs >= (unsigned int)nr);
	T_ASSERT_EQ(o.created, chan->nr_bufs);
	for (int c = 0; c < nr; c++)
		T_ASSERT_EQ(pthread_create(&th[c], NULL, writer, (void *)(long)c), 0);
	for (int c = 0; c < nr; c++) {
		void *ret;

		pthread_join(th[c], &ret);
		if (ret)
			t_skip("cannot pin to CPU %d", c);
	}
	T_ASSERT_EQ(t_in_child(consumer, &nr), T_PASS);
	evt_relay_close(chan);
	return T_PASS;
}
