// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-corrupt: a truncated or corrupt trace.dat gives an error naming
 * the file offset, never a crash (run it under ASan/UBSan too): every
 * truncation fails to open; every byte of the first 4 KiB, every 7th of the
 * rest of the header part and a sample of the pages flipped opens or fails cleanly and reads to the end or to an
 * error; a bad magic, a version 7 file, an empty header_page, a commit
 * word over the page, a bad entry are each reported.
 */
#include <errno.h>
#include <sys/mman.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

/* Open and read everything. Return: 0 read to the end, or the error. */
static int read_all(const unsigned char *buf, size_t len, char *err, size_t errlen, int max)
{
	struct evt_tracedat *td;
	struct evt_tracedat_record rec;
	char line[2048];
	struct evt_seq s;
	int ret;

	ret = evt_tracedat_open_mem(buf, len, &td);
	if (ret) {
		snprintf(err, errlen, "%s", evt_error_detail());
		return ret;
	}
	while ((ret = evt_tracedat_next(td, &rec)) == 1 && max--) {
		evt_seq_init(&s, line, sizeof(line));
		evt_tracedat_print(td, &rec, &s);
	}
	if (ret < 0)
		snprintf(err, errlen, "%s", evt_error_detail());
	if (ret > 0)
		ret = 0;
	evt_tracedat_close(td);
	return ret;
}

static void expect_error(const unsigned char *buf, size_t len, int want, const char *what)
{
	char err[200] = "";
	int ret = read_all(buf, len, err, sizeof(err), -1);

	if (ret != want)
		t_fail("%s: got %d (%s), want %d", what, ret, err, want);
	if (strncmp(err, "offset ", 7))
		t_fail("%s: message does not name the offset: [%s]", what, err);
}

/* The offset of the first CPU's pages (the end of the header part). */
static size_t first_page(const unsigned char *buf, size_t len)
{
	const unsigned char *p = memmem(buf, len, "flyrecord", 10);
	uint64_t off = 0;

	T_ASSERT(p);
	memcpy(&off, p + 10, 8);
	if (!off)
		memcpy(&off, p + 26, 8);
	T_ASSERT(off && off < len);
	return (size_t)off;
}

int main(void)
{
	struct evt_instance *inst = td_record("corrupt", NULL);
	unsigned char *buf, *copy;
	size_t len, hdr;
	char err[200];
	long long n;
	int fd;

	fd = memfd_create("tracedat", 0);
	T_ASSERT(fd >= 0);
	n = evt_tracedat_write(inst, fd, 0);
	T_ASSERT(n > 0);
	len = (size_t)n;
	buf = malloc(len);
	copy = malloc(len);
	T_ASSERT(buf && copy);
	T_ASSERT(pread(fd, buf, len, 0) == (ssize_t)len);
	close(fd);
	T_ASSERT_EQ(read_all(buf, len, err, sizeof(err), -1), 0);
	hdr = first_page(buf, len);

	/* every truncation: to heap copies of exactly that size, so ASan sees overreads */
	for (size_t l = 0; l < len; l += l < hdr + 64 ? 1 : 509) {
		unsigned char *t = malloc(l ? l : 1);

		T_ASSERT(t);
		memcpy(t, buf, l);
		expect_error(t, l, -EBADMSG, "truncated");
		free(t);
	}

	/*
	 * Every byte of the first 4 KiB flipped (the magic, header_page,
	 * header_event, the first formats), then every 7th of the rest of the
	 * header (format texts: a field each, without the quadratic cost of
	 * reparsing them all under ASan), and a sample of page bytes.
	 */
	for (size_t i = 0; i < len; i += i < 4096 ? 1 : i < hdr ? 7 : 61) {
		int ret;

		memcpy(copy, buf, len);
		copy[i] ^= 0xff;
		err[0] = '\0';
		/* a header byte: the first records show its effect; a page byte: all */
		ret = read_all(copy, len, err, sizeof(err), i < hdr ? 40 : -1);
		if (ret < 0 && strncmp(err, "offset ", 7))
			t_fail("byte %zu flipped: %d without an offset: [%s]", i, ret, err);
		if (ret != 0 && ret != -EBADMSG && ret != -EPROTO)
			t_fail("byte %zu flipped: unexpected %d", i, ret);
	}

	/* named cases */
	memcpy(copy, buf, len);
	copy[0] = 0x18;
	expect_error(copy, len, -EBADMSG, "bad magic");
	memcpy(copy, buf, len);
	copy[10] = '7';
	expect_error(copy, len, -EPROTO, "version 7");
	{
		/* commit word of the first page over the page size: an error at read time */
		uint64_t big = 4096;

		memcpy(copy, buf, len);
		memcpy(copy + hdr + 8, &big, 8);
		expect_error(copy, len, -EBADMSG, "commit over the page");
		/* the first entry of the first page: a length running past the commit */
		memcpy(copy, buf, len);
		{
			uint32_t e = 0;	/* type_len 0: array[0] holds the length */
			uint32_t l = 0x7ffffff0;

			memcpy(copy + hdr + 16, &e, 4);
			memcpy(copy + hdr + 20, &l, 4);
		}
		expect_error(copy, len, -EBADMSG, "entry past the commit");
	}
	{
		/* an empty header_page: trace-cmd prints nothing; we say so */
		const unsigned char *hp = memmem(buf, len, "header_page", 12);
		uint64_t hl;
		size_t at, rest;

		T_ASSERT(hp);
		at = (size_t)(hp - buf) + 12;
		memcpy(&hl, buf + at, 8);
		rest = len - at - 8 - hl;
		memcpy(copy, buf, at);
		memset(copy + at, 0, 8);
		memcpy(copy + at + 8, buf + at + 8 + hl, rest);
		expect_error(copy, at + 8 + rest, -EBADMSG, "empty header_page");
	}
	free(buf);
	free(copy);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
