/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/probe-util.h - what the probe-* tests share: probe events through the tracing
 * tree (tracefs-cat.h's cat and the shell's echo), a probe's patched site, skipping where
 * the build has no probe mechanism, and the functions the entry probes are put on.
 * Defined in probe-util.c of the test library; names probe_*.
 */
#ifndef EVT_TESTS_PROBE_UTIL_H
#define EVT_TESTS_PROBE_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "helpers.h"
#include "tracefs-cat.h"

#include "events/event_internal.h"
#include "probe/probe.h"

/* echo "@text" >> @path on the top instance: strlen(@text) + 1 or -errno */
static inline __attribute__((unused)) long echo(const char *text, const char *path)
{
	return t_tracefs_echo(NULL, path, text, GGT | T_ECHO_NL);
}

#define T_ECHO(text, path) T_ASSERT_EQ(echo(text, path), (long)strlen(text) + 1)

/* echo > trace */
void trace_clear(void);

/* Define a probe (a kprobe_events line), or fail with the error_log. */
void probe_define(const char *line);

/*
 * The site of probe @grp/@ev: the address patched (*@addr) and the original bytes its
 * patch replaced (*@n of them). Fails the test if the probe has no site.
 */
const uint8_t *probe_site_bytes(const char *grp, const char *ev, uint64_t *addr, size_t *n);

/* Skip where the build has no probe mechanism (x86-64 with Zydis, or aarch64); else register. */
void probe_require(void);

/*
 * probe_require(), and also skip under ThreadSanitizer, for a test whose threads must be
 * moved out of a range being patched: TSan runs the handler of an asynchronous signal at
 * the thread's next interceptor, with a copy of its context, so the evacuation signal
 * cannot move it (docs/probes.md). The other probe tests run under TSan.
 */
void probe_require_evacuation(void);

/*
 * The functions of the program that entry probes are put on, defined in the test program
 * itself (its own text, its own symbols): compute(), global; helper_static(), static,
 * called through use_static so that the compiler keeps it a call.
 */
#define PROBE_TARGET_FUNCTIONS                                                            \
	__attribute__((noinline)) int compute(int a, int b)                               \
	{                                                                                 \
		int r = 0;                                                                \
                                                                                          \
		for (int i = 0; i < b; i++)                                               \
			r += a ^ i;                                                       \
		asm volatile("" : "+r"(r));                                               \
		return r + a + b;                                                         \
	}                                                                                 \
                                                                                          \
	__attribute__((noinline)) static long helper_static(long x, const char *s)        \
	{                                                                                 \
		long n = x;                                                               \
                                                                                          \
		asm volatile("" : "+r"(n));                                               \
		return n + (long)strlen(s) * 3;                                           \
	}                                                                                 \
                                                                                          \
	long (*volatile use_static)(long, const char *) = helper_static

#endif /* EVT_TESTS_PROBE_UTIL_H */
