/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/gtsc-test.h - what the tests of a GTSC trace's control files
 * share: the trace directory (gt_tdir, set by the test), reading a control
 * file, writing one from another process, and reading trace0 to its end
 * from another process. Records are RSZ (100) bytes. Defined in gtsc-test.c
 * of the test library.
 */
#ifndef EVT_TESTS_GTSC_TEST_H
#define EVT_TESTS_GTSC_TEST_H

#include <fcntl.h>

#include <evtrace/gtsc.h>

#include "relay-common.h"

#define RSZ 100

/* The trace directory: the test sets it. */
extern char gt_tdir[512];

/* The text of control file @name of gt_tdir, NUL-terminated. */
void gt_read_ctl(const char *name, char *buf, size_t len);

/* In the child of ctl_write(): @arg is { name, text }. */
int gt_writer_of(void *arg);

/* Write @text to control file @name from another process (a consumer). */
static inline void ctl_write(const char *name, const char *text)
{
	const char *w[2] = { name, text };

	T_ASSERT_EQ(t_in_child(gt_writer_of, w), T_PASS);
}

/* Read trace0 to the end, for t_in_child(); expect *(int *)@arg whole records. */
int gt_read_all(void *arg);

#endif /* EVT_TESTS_GTSC_TEST_H */
