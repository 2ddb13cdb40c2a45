/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/unit/probe-*.c: probe events through the tracing tree. */
#ifndef PROBE_UTIL_H
#define PROBE_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "helpers.h"
#include "tracefs-cat.h"

#include "events/event_internal.h"
#include "probe/probe.h"

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

/* echo > trace */
static inline __attribute__((unused)) void trace_clear(void)
{
	T_ASSERT_OK(evt_tracefs_write(NULL, "trace", "", 0, EVT_TRACEFS_TRUNC) < 0 ? -1 : 0);
}

#define T_ECHO(text, path) T_ASSERT_EQ(echo(text, path), (long)strlen(text) + 1)

#define T_ASSERT_STR(got, want)                                                                    \
	do {                                                                                       \
		const char *t_g_ = (got), *t_w_ = (want);                                          \
		if (strcmp(t_g_, t_w_))                                                            \
			t_fail("%s:%d: %s:\n--- got:\n%s\n--- want:\n%s\n---", __FILE__, __LINE__, \
			       #got, t_g_, t_w_);                                                  \
	} while (0)

/* Fail unless @hay contains @needle. */
#define T_ASSERT_HAS(hay, needle)                                                                  \
	do {                                                                                       \
		const char *t_h_ = (hay), *t_n_ = (needle);                                        \
		if (!strstr(t_h_, t_n_))                                                           \
			t_fail("%s:%d: no \"%s\" in:\n%s", __FILE__, __LINE__, t_n_, t_h_);        \
	} while (0)

#define T_ASSERT_HASNT(hay, needle)                                                                \
	do {                                                                                       \
		const char *t_h_ = (hay), *t_n_ = (needle);                                        \
		if (strstr(t_h_, t_n_))                                                            \
			t_fail("%s:%d: \"%s\" in:\n%s", __FILE__, __LINE__, t_n_, t_h_);           \
	} while (0)

/* Define a probe (a kprobe_events line), or fail with the error_log. */
static inline __attribute__((unused)) void probe_define(const char *line)
{
	if (echo(line, "kprobe_events") < 0)
		t_fail("%s: %s", line, cat("error_log"));
}

/*
 * The site of probe @grp/@ev: the address patched (*@addr) and the original bytes its
 * patch replaced (*@n of them). Fails the test if the probe has no site.
 */
static inline __attribute__((unused)) const uint8_t *probe_site_bytes(const char *grp,
								      const char *ev,
								      uint64_t *addr, size_t *n)
{
	struct probe_site *site;
	const uint8_t *saved = NULL;

	event_lock();
	site = probe_site_of_locked(grp, ev, addr);
	if (site)
		saved = probe_site_saved(site, n);
	event_unlock();
	if (!saved)
		t_fail("no site for %s/%s", grp, ev);
	return saved;
}

/*
 * Skip where the build has no probe mechanism (x86-64 with Zydis).
 * probe_require_evacuation(): also under ThreadSanitizer, for a test whose threads must be
 * moved out of a range being patched: TSan runs the handler of an asynchronous signal at
 * the thread's next interceptor, with a copy of its context, so the evacuation signal
 * cannot move it (docs/probes.md). The other probe tests run under TSan.
 */
#if defined(__SANITIZE_THREAD__)
#define PROBE_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PROBE_UNDER_TSAN 1
#endif
#endif

static inline __attribute__((unused)) void probe_require(void)
{
	if (!probe_supported())
		t_skip("probes need x86-64 with Zydis, or aarch64, in this build");
	probe_register();
}

static inline __attribute__((unused)) void probe_require_evacuation(void)
{
#ifdef PROBE_UNDER_TSAN
	t_skip("moving threads by a signal's context under ThreadSanitizer (docs/probes.md)");
#endif
	probe_require();
}

#endif
