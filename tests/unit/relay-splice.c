// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-splice: a consumer process moves the data to a file with
 * evt_relay_reader_splice() (sendfile from the buffer's memfd): the file
 * holds every record, in order, without padding; also through a pipe.
 */
#include <fcntl.h>

#include "relay-common.h"

#define RSZ  72
#define NREC 200

static int consumer(void *arg)
{
	struct evt_relay_reader *r;
	char path[PATH_MAX], out[PATH_MAX], buf[NREC * RSZ + 1];
	ssize_t n, total = 0;
	int fd, p[2];

	(void)arg;
	t_path(path, sizeof(path), "sp0");
	t_path(out, sizeof(out), "out");
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	T_ASSERT(fd >= 0);
	while (total < NREC / 2 * RSZ) {
		size_t want = NREC / 2 * RSZ - (size_t)total;

		n = evt_relay_reader_splice(r, fd, want < 1000 ? want : 1000);
		T_ASSERT(n > 0);
		total += n;
	}
	T_ASSERT_EQ(total, NREC / 2 * RSZ);
	T_ASSERT_EQ(pread(fd, buf, sizeof(buf), 0), total);
	for (int i = 0; i < NREC / 2; i++) {
		T_ASSERT(rly_rec_check(buf + i * RSZ, RSZ));
		T_ASSERT_EQ(rly_rec_seq(buf + i * RSZ), i);
	}
	/* the second half through a pipe */
	T_ASSERT(pipe(p) == 0);
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	total = 0;
	while ((n = evt_relay_reader_splice(r, p[1], 4096)) > 0)
		total += n;
	T_ASSERT_EQ(n, -EAGAIN);
	T_ASSERT_EQ(total, NREC / 2 * RSZ);
	for (ssize_t got = 0; got < total; got += n)
		T_ASSERT((n = read(p[0], buf + got, (size_t)(total - got))) > 0);
	for (int i = 0; i < NREC / 2; i++)
		T_ASSERT_EQ(rly_rec_seq(buf + i * RSZ), NREC / 2 + i);
	evt_relay_reader_close(r);
	close(fd);
	return T_PASS;
}

int main(void)
{
	struct evt_rchan *chan;

	t_dir_make();
	chan = t_open_global("sp", 1000, 32);
	t_write_recs(chan, 0, NREC, RSZ);
	T_ASSERT_EQ(t_in_child(consumer, NULL), T_PASS);
	evt_relay_close(chan);
	return T_PASS;
}
