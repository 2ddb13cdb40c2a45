// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/probe-util.c - what the probe-* tests share (probe-util.h)
 */
#include "probe-util.h"

/* ThreadSanitizer, as gcc and clang say it (the test library is built as the tests are). */
#if defined(__SANITIZE_THREAD__)
#define PROBE_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PROBE_UNDER_TSAN 1
#endif
#endif

void trace_clear(void)
{
	T_ASSERT_OK(t_tracefs_echo(NULL, "trace", "", GT) < 0 ? -1 : 0);
}

void probe_define(const char *line)
{
	if (echo(line, "kprobe_events") < 0)
		t_fail("%s: %s", line, cat("error_log"));
}

const uint8_t *probe_site_bytes(const char *grp, const char *ev, uint64_t *addr, size_t *n)
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

void probe_require(void)
{
	if (!probe_supported())
		t_skip("probes need x86-64 with Zydis, or aarch64, in this build");
	probe_register();
}

void probe_require_evacuation(void)
{
#ifdef PROBE_UNDER_TSAN
	t_skip("moving threads by a signal's context under ThreadSanitizer (docs/probes.md)");
#endif
	probe_require();
}
