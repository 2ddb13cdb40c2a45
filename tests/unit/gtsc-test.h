/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/gtsc-test.h - what the tests of a GTSC trace's control files
 * share: the trace directory (tdir, set by the test), reading a control
 * file, writing one from another process, and reading trace0 to its end
 * from another process. Records are RSZ (100) bytes. Header-only (each test
 * is one program).
 */
#ifndef EVT_TESTS_GTSC_TEST_H
#define EVT_TESTS_GTSC_TEST_H

#include <fcntl.h>

#include <evtrace/gtsc.h>

#include "relay-common.h"

#define RSZ 100

static char tdir[512];

/* The text of control file @name of tdir, NUL-terminated. */
static inline void read_ctl(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%.64s", tdir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		t_fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
}

/* In the child of ctl_write(): @arg is { name, text }. */
static inline int writer_of(void *arg)
{
	const char **w = arg;
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%.64s", tdir, w[0]);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return T_FAIL;
	if (write(fd, w[1], strlen(w[1])) != (ssize_t)strlen(w[1]))
		return T_FAIL;
	close(fd);
	return T_PASS;
}

/* Write @text to control file @name from another process (a consumer). */
static inline void ctl_write(const char *name, const char *text)
{
	const char *w[2] = { name, text };

	T_ASSERT_EQ(t_in_child(writer_of, w), T_PASS);
}

/* Read trace0 to the end, for t_in_child(); expect *(int *)@arg whole records. */
static inline int read_all(void *arg)
{
	int expect = *(int *)arg;
	struct evt_relay_reader *r;
	char path[PATH_MAX], buf[8192];
	ssize_t n, total = 0;

	snprintf(path, sizeof(path), "%s/trace0", tdir);
	T_ASSERT_OK(evt_relay_reader_open(path, &r));
	while ((n = evt_relay_reader_read(r, buf + total, sizeof(buf) - total)) > 0)
		total += n;
	T_ASSERT_EQ(total, expect * RSZ);
	for (int i = 0; i < expect; i++)
		T_ASSERT(rec_check(buf + i * RSZ, RSZ));
	evt_relay_reader_close(r);
	return T_PASS;
}

#endif /* EVT_TESTS_GTSC_TEST_H */
