// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the relay consumer (evt_relay_reader_*) on an untrusted
 * buffer.
 *
 * The input is the whole memfd image of a relay buffer (header, sub-buffer
 * records, sub-buffers): it is written into a memfd of exactly its length,
 * sealed against shrinking as the library's are, opened as a relay file
 * through /proc/self/fd, and every consumer call is made a bounded number
 * of times: read, the mmap interface (next_subbuf, whose range is touched
 * byte by byte, and subbufs_consumed), splice into /dev/null, poll with a
 * zero timeout, rewind, info. Nothing may crash, hang or read out of
 * bounds; errors are fine.
 *
 * Seeds (tests/fuzz/corpus/relay-reader/) are real buffers' images made by
 * this file built with -DRELAY_FUZZ_GEN_MAIN (see the end): 4 sub-buffers of
 * 256 bytes, no-overwrite full, overwrite wrapped, partial, flushed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <evtrace/relay.h>

static volatile unsigned int sink;

static void exercise(struct evt_relay_reader *r)
{
	static char buf[1 << 16];
	struct evt_relay_info info;
	const void *map;
	size_t len, off, sl;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	evt_relay_reader_info(r, &info);
	evt_relay_reader_poll(r, 0);
	for (int i = 0; i < 50; i++)
		if (evt_relay_reader_read(r, buf, (size_t)(i * 37 % 700)) <= 0 && i > 3)
			break;
	evt_relay_reader_rewind(r);
	if (evt_relay_reader_mmap(r, &map, &len) == 0) {
		for (int i = 0; i < 50 && evt_relay_reader_next_subbuf(r, &off, &sl) == 1; i++) {
			if (off > len || sl > len - off)
				abort();
			for (size_t k = 0; k < sl; k++)
				sink += ((const unsigned char *)map)[off + k];
			evt_relay_reader_subbufs_consumed(r, 1);
		}
	}
	evt_relay_reader_rewind(r);
	for (int i = 0; null >= 0 && i < 50; i++)
		if (evt_relay_reader_splice(r, null, 4096) <= 0)
			break;
	evt_relay_reader_subbufs_consumed(r, 2);
	evt_relay_reader_info(r, &info);
	if (null >= 0)
		close(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evt_relay_reader *r;
	char path[64];
	int fd;

	if (size > (1u << 22))
		return 0;
	fd = memfd_create("relay-fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (evt_relay_reader_open(path, &r) == 0) {
		exercise(r);
		evt_relay_reader_close(r);
	}
	close(fd);
	return 0;
}

#ifdef RELAY_FUZZ_GEN_MAIN
/*
 * cc -DRELAY_FUZZ_GEN_MAIN -Iinclude -Ibuild/include tests/fuzz/relay-reader.c \
 *    build/libevtrace_static.a -latomic -pthread -o gen && ./gen DIR
 */
static struct evt_rchan_buf *last_buf;

static int nooverwrite(struct evt_rchan_buf *buf, void *s, void *p, size_t pad)
{
	(void)s;
	if (p)
		*(unsigned int *)p = (unsigned int)pad;
	if (buf->cpu == 0)
		last_buf = buf;
	if (evt_relay_buf_full(buf))
		return 0;
	evt_subbuf_start_reserve(buf, 4);
	return 1;
}

static int overwrite(struct evt_rchan_buf *buf, void *s, void *p, size_t pad)
{
	(void)s;
	(void)p;
	(void)pad;
	if (buf->cpu == 0)
		last_buf = buf;
	return 1;
}

static void dump(const char *dir, const char *name, struct evt_rchan *chan)
{
	char path[512], img[1 << 16];
	ssize_t n = pread(last_buf->fd, img, sizeof(img), 0);
	FILE *f;

	(void)chan;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f && n > 0)
		fwrite(img, 1, (size_t)n, f);
	if (f)
		fclose(f);
}

static void gen(const char *dir, const char *name, int ow, int nrec, size_t rlen, int flush)
{
	struct evt_rchan_callbacks cb = { .subbuf_start = ow ? overwrite : nooverwrite };
	struct evt_rchan *chan;
	char rec[256];

	if (evt_relay_open(NULL, NULL, 256, 4, &cb, NULL, &chan) < 0)
		exit(1);
	for (int i = 0; i < nrec; i++) {
		memset(rec, 'a' + i % 26, sizeof(rec));
		evt_relay_write(chan, rec, rlen);
	}
	if (flush)
		evt_relay_flush(chan);
	/* the last buffer whose subbuf_start() ran is the one written (pin to CPU 0) */
	dump(dir, name, chan);
	evt_relay_close(chan);
}

int main(int argc, char **argv)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (argc < 2)
		return 1;
	gen(argv[1], "nooverwrite-full", 0, 40, 60, 0);
	gen(argv[1], "nooverwrite-partial", 0, 5, 60, 0);
	gen(argv[1], "overwrite-wrapped", 1, 100, 48, 0);
	gen(argv[1], "flushed", 0, 3, 100, 1);
	return 0;
}
#endif
