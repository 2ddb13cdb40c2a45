// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/gtsc-test.c - what the GTSC control-file tests share
 */
#include "gtsc-test.h"

char gt_tdir[512];

void gt_read_ctl(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%.64s", gt_tdir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		t_fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
}

int gt_writer_of(void *arg)
{
	const char **w = arg;
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%.64s", gt_tdir, w[0]);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return T_FAIL;
	if (write(fd, w[1], strlen(w[1])) != (ssize_t)strlen(w[1]))
		return T_FAIL;
	close(fd);
	return T_PASS;
}

int gt_read_all(void *arg)
{
	int expect = *(int *)arg;
	struct evt_relay_reader *r;
	char path[PATH_MAX], buf[8192];
	ssize_t n, total = 0;

	snprintf(path, sizeof(path), "%s/trace0", gt_tdir);
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
		total += n;
	T_ASSERT_EQ(total, expect * RSZ);
	for (int i = 0; i < expect; i++)
		T_ASSERT(rly_rec_check(buf + i * RSZ, RSZ));
	evt_relay_reader_close(r);
	return T_PASS;
}
