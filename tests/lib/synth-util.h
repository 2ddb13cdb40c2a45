/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/synth-util.h - what the synth-* tests share: the tree's files (tracefs-cat.h's
 * cat and the shell's echo) and the golden data of tests/data/synth/.
 * Defined in synth-util.c of the test library.
 */
#ifndef EVT_TESTS_SYNTH_UTIL_H
#define EVT_TESTS_SYNTH_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "helpers.h"
#include "tracefs-cat.h"

#define U(p) ((uint64_t)(uintptr_t)(p))

/* echo "@text" >> @path on the top instance: strlen(@text) + 1 or -errno */
static inline __attribute__((unused)) long echo(const char *text, const char *path)
{
	return t_tracefs_echo(NULL, path, text, GGT | T_ECHO_NL);
}

#define T_ECHO(text, path) T_ASSERT_EQ(echo(text, path), (long)strlen(text) + 1)

/* The text of tests/data/synth/@name, in one of 4 static buffers in turn; fails if missing. */
char *slurp(const char *name);

#endif /* EVT_TESTS_SYNTH_UTIL_H */
