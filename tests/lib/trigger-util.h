/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/trigger-util.h - what the trigger-* and hist-* tests share: the trigger files of
 * the tracefs-events-tp.h events, and their `echo`: t_tracefs_echo() of tracefs-cat.h
 * without a newline (the trigger parser's input exactly as given). One-liners only.
 */
#ifndef EVT_TESTS_TRIGGER_UTIL_H
#define EVT_TESTS_TRIGGER_UTIL_H

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#include "helpers.h"
#include "tracefs-cat.h"

#define TICK "events/tfs_test/tfs_tick/trigger"
#define REQ "events/tfs_test/tfs_req/trigger"
#define MISC "events/tfs_other/tfs_misc/trigger"
#define NONE                                                                                \
	"# Available triggers:\n"                                                           \
	"# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist "    \
	"disable_hist hist\n"

/* echo -n @text >> @path on the top instance: strlen(@text) or -errno */
static inline __attribute__((unused)) ssize_t echo(const char *text, const char *path)
{
	return t_tracefs_echo(NULL, path, text, GGT);
}

/* How many times @needle starts in @text (overlapping ones too). */
static inline __attribute__((unused)) int count(const char *text, const char *needle)
{
	return t_count_overlapping(text, needle);
}

#define T_ECHO(text, path) T_ASSERT_EQ(echo(text, path), (ssize_t)strlen(text))

#endif /* EVT_TESTS_TRIGGER_UTIL_H */
