/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/unit/synth-*.c: the tree's files, golden data of tests/data/synth/. */
#ifndef SYNTH_UTIL_H
#define SYNTH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "helpers.h"
#include "tracefs-cat.h"

#define U(p) ((uint64_t)(uintptr_t)(p))

static inline __attribute__((unused)) const char *cat(const char *path)
{
	return t_tracefs_cat(NULL, path);
}

/* echo "@text" >> @path: strlen(@text) + 1 or -errno */
static inline __attribute__((unused)) long echo(const char *text, const char *path)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "%s\n", text);
	return evt_tracefs_write(NULL, path, buf, strlen(buf), EVT_TRACEFS_APPEND);
}

#define T_ASSERT_STR(got, want)                                                                    \
	do {                                                                                       \
		const char *t_g_ = (got), *t_w_ = (want);                                          \
		if (strcmp(t_g_, t_w_))                                                            \
			t_fail("%s:%d: %s:\n--- got:\n%s\n--- want:\n%s\n---", __FILE__, __LINE__, \
			       #got, t_g_, t_w_);                                                  \
	} while (0)

#define T_ECHO(text, path) T_ASSERT_EQ(echo(text, path), (long)strlen(text) + 1)

/* tests/data/synth/@name, from this file's directory (one of 4 static buffers in turn). */
static inline __attribute__((unused)) char *slurp(const char *name)
{
	const char *slash = strrchr(__FILE__, '/');
	static char bufs[4][1 << 16];
	static unsigned int turn;
	char *buf = bufs[turn++ % 4];
	char path[1024];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%.*s../data/synth/%s",
		 slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__, name);
	f = fopen(path, "r");
	if (!f)
		t_fail("%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(bufs[0]) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

#endif
