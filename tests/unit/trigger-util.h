/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/unit/trigger-*.c: the tree's files of this program's events (tracefs-events-tp.h). */
#ifndef TRIGGER_UTIL_H
#define TRIGGER_UTIL_H

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#include "helpers.h"
#include "tracefs-cat.h"

#define GT EVT_TRACEFS_TRUNC
#define GGT EVT_TRACEFS_APPEND

#define TICK "events/tfs_test/tfs_tick/trigger"
#define REQ "events/tfs_test/tfs_req/trigger"
#define MISC "events/tfs_other/tfs_misc/trigger"
#define NONE                                                                           \
	"# Available triggers:\n"                                                      \
	"# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist " \
	"hist\n"

static inline const char *cat(const char *path)
{
	return t_tracefs_cat(NULL, path);
}

/* echo @text > @path (strlen(@text) or -errno) */
static inline ssize_t echo(const char *text, const char *path)
{
	return evt_tracefs_write(NULL, path, text, strlen(text), GGT);
}

static inline int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

#define T_ASSERT_STR(got, want)							\
	do {									\
		const char *t_g_ = (got), *t_w_ = (want);			\
		if (strcmp(t_g_, t_w_))						\
			t_fail("%s:%d: %s:\n--- got:\n%s--- want:\n%s---",	\
			       __FILE__, __LINE__, #got, t_g_, t_w_);		\
	} while (0)

#define T_ECHO(text, path) T_ASSERT_EQ(echo(text, path), (ssize_t)strlen(text))

#endif
