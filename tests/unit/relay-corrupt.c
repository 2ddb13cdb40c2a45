// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-corrupt: the consumer trusts nothing in the buffer. Buffers built
 * by hand (a sealed memfd reached through /proc/self/fd) with a bad
 * geometry are refused at open with -EBADMSG, an unsealed file too;
 * contradictory positions (a length beyond the sub-buffer, a slot beyond
 * the buffer, an offset beyond the sub-buffer, a read position beyond the
 * data, opened ahead of produced) give -EBADMSG from read, never a crash.
 */
#include <fcntl.h>
#include <sys/mman.h>

#include "relay-common.h"
#include "relay/relay_internal.h"

#define SBSZ 512
#define NSB  4

static int fd = -1;
static struct relay_shm *shm;
static char path[64];

/* A good, empty buffer: sub-buffer 0 open at offset 0. */
static void build(int seal)
{
	uint64_t hdr = relay_hdr_size(NSB), total = hdr + SBSZ * NSB;

	if (fd >= 0) {
		munmap(shm, total);
		close(fd);
	}
	fd = memfd_create("t", MFD_ALLOW_SEALING);
	T_ASSERT(fd >= 0);
	T_ASSERT(ftruncate(fd, (off_t)total) == 0);
	if (seal)
		T_ASSERT(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
	shm = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	T_ASSERT(shm != MAP_FAILED);
	shm->magic = RELAY_MAGIC;
	shm->version = RELAY_VERSION;
	shm->hdr_size = (uint32_t)hdr;
	shm->subbuf_size = SBSZ;
	shm->n_subbufs = NSB;
	shm->refs = 1;
	shm->wstate = RELAY_WS(0, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
}

static int open_err(void)
{
	struct evt_relay_reader *r;
	int ret = evt_relay_reader_open(path, &r);

	if (ret == 0)
		evt_relay_reader_close(r);
	return ret;
}

static ssize_t read_err(void)
{
	struct evt_relay_reader *r;
	char buf[SBSZ * NSB];
	ssize_t ret;

	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	ret = evt_relay_reader_read(r, buf, sizeof(buf));
	evt_relay_reader_close(r);
	return ret;
}

int main(void)
{
	build(1);
	T_ASSERT_EQ(open_err(), 0);
	T_ASSERT_EQ(read_err(), -EAGAIN); /* empty, writer alive */

	build(0);
	T_ASSERT_EQ(open_err(), -EBADMSG); /* could shrink under the mapping */
	build(1);
	shm->magic ^= 1;
	T_ASSERT_EQ(open_err(), -EBADMSG);
	build(1);
	shm->version = 99;
	T_ASSERT_EQ(open_err(), -EBADMSG);
	build(1);
	shm->hdr_size = 8;
	T_ASSERT_EQ(open_err(), -EBADMSG);
	build(1);
	shm->n_subbufs = 0;
	T_ASSERT_EQ(open_err(), -EBADMSG);
	build(1);
	shm->subbuf_size = SBSZ * 2; /* larger than the file */
	T_ASSERT_EQ(open_err(), -EBADMSG);
	build(1);
	shm->n_subbufs = UINT64_C(1) << 40;
	T_ASSERT_EQ(open_err(), -EBADMSG);

	/* a finished sub-buffer longer than a sub-buffer */
	build(1);
	shm->produced = shm->opened = 1;
	shm->wstate = RELAY_WS(1, 0);
	shm->sb[0].len = shm->sb[0].commit = SBSZ + 1;
	T_ASSERT_EQ(read_err(), -EBADMSG);
	/* read position beyond the data */
	build(1);
	shm->produced = shm->opened = 1;
	shm->wstate = RELAY_WS(1, 0);
	shm->sb[0].len = shm->sb[0].commit = 100;
	shm->bytes_consumed = 200;
	T_ASSERT_EQ(read_err(), -EBADMSG);
	/* the current sub-buffer in a slot beyond the buffer */
	build(1);
	shm->wstate = RELAY_WS(NSB + 3, 10);
	shm->sb[0].commit = 10;
	T_ASSERT_EQ(read_err(), -EBADMSG);
	/* the current offset beyond the sub-buffer */
	build(1);
	shm->wstate = RELAY_WS(0, SBSZ + 10);
	shm->sb[0].commit = SBSZ + 10;
	T_ASSERT_EQ(read_err(), -EBADMSG);
	/* opened far ahead of produced */
	build(1);
	shm->opened = 50;
	T_ASSERT_EQ(read_err(), -EBADMSG);
	/* committed more than the finished length, stable */
	build(1);
	shm->produced = shm->opened = 1;
	shm->wstate = RELAY_WS(1, 0);
	shm->sb[0].len = 100;
	shm->sb[0].commit = 300;
	T_ASSERT_EQ(read_err(), -EBADMSG);
	/* huge positions: skipped as overwritten, never out of bounds */
	build(1);
	shm->produced = shm->opened = UINT64_C(1) << 62;
	shm->consumed = 3;
	shm->wstate = RELAY_WS(0, 0);
	T_ASSERT(read_err() <= 0);
	return T_PASS;
}
