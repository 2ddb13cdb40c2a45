/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/tracefs-cat.h - the shell on an instance's tracing tree: `cat PATH`, `ls PATH`
 * and `echo TEXT > PATH`, and the string checks the tests of the tree make on what they read.
 * Defined in tracefs-cat.c of the test library.
 *
 * t_tracefs_echo() is the one writer: the tracefs, trigger, synth, probe and hist tests
 * each name it through a one-line `echo()` of their own header with the options they need
 * (a newline as the shell's echo adds, the shell's one open and write again).
 */
#ifndef EVT_TESTS_TRACEFS_CAT_H
#define EVT_TESTS_TRACEFS_CAT_H

#include <string.h>
#include <sys/types.h>

#include <evtrace/tracefs.h>

#include "helpers.h"

/* The shell's redirections, as the tests write them. */
#define GT	EVT_TRACEFS_TRUNC	/* > */
#define GGT	EVT_TRACEFS_APPEND	/* >> */

/* t_tracefs_echo() options, beside GT / GGT (above the EVT_TRACEFS_* bits). */
#define T_ECHO_NL	(1u << 16)	/* add "\n" after the text, as the shell's echo */
#define T_ECHO_SH	(1u << 17)	/* one open, write(2) again after a short count */

/*
 * The whole of @path in @in (NULL: the top instance), read as a non-blocking open
 * would, in a static buffer (NUL-terminated; "<error -N>" when it cannot be opened).
 */
const char *t_tracefs_cat(struct evt_instance *in, const char *path);

/*
 * `ls PATH` in @in (NULL: the top instance): the names in listing order, each followed by
 * a space, a directory's by "/ " (a static buffer; "<error -N>" when it cannot be listed).
 */
const char *t_tracefs_ls(struct evt_instance *in, const char *path);

/*
 * `echo TEXT > PATH` in @in (NULL: the top instance). @flags: GT or GGT, plus T_ECHO_NL
 * (write "@text\n") and T_ECHO_SH (one open and a write(2) again after each short count,
 * as the shell does: set_event takes one word per write, as the kernel's; without it one
 * evt_tracefs_write() call). Return: the bytes written (with the newline) or -errno.
 */
ssize_t t_tracefs_echo(struct evt_instance *in, const char *path, const char *text,
		       unsigned int flags);

/* `cat PATH` on the top instance. */
static inline __attribute__((unused)) const char *cat(const char *path)
{
	return t_tracefs_cat(NULL, path);
}

/* Fail unless @got and @want are the same text; print both. */
#define T_ASSERT_STR(got, want)                                                           \
	do {                                                                              \
		const char *t_g_ = (got), *t_w_ = (want);                                 \
		if (strcmp(t_g_, t_w_))                                                   \
			t_fail("%s:%d: %s:\n--- got:\n%s\n--- want:\n%s\n---", __FILE__,  \
			       __LINE__, #got, t_g_, t_w_);                               \
	} while (0)

/* Fail unless @hay contains @needle. */
#define T_ASSERT_HAS(hay, needle)                                                         \
	do {                                                                              \
		const char *t_h_ = (hay), *t_n_ = (needle);                               \
		if (!strstr(t_h_, t_n_))                                                  \
			t_fail("%s:%d: no \"%s\" in:\n%s", __FILE__, __LINE__, t_n_, t_h_); \
	} while (0)

/* Fail if @hay contains @needle. */
#define T_ASSERT_HASNT(hay, needle)                                                       \
	do {                                                                              \
		const char *t_h_ = (hay), *t_n_ = (needle);                               \
		if (strstr(t_h_, t_n_))                                                   \
			t_fail("%s:%d: \"%s\" in:\n%s", __FILE__, __LINE__, t_n_, t_h_);  \
	} while (0)

/* How many times @needle starts in @text, overlapping ones included ("aa" twice in "aaa"). */
int t_count_overlapping(const char *text, const char *needle);

#endif /* EVT_TESTS_TRACEFS_CAT_H */
