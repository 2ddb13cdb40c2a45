// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-stack: stack traces go through a probe's trampolines, whose unwind information
 * probe_cfi.c registers. The stacktrace trigger of an entry probe prints the probed
 * function first (at the probed address), then its callers; that of a return probe
 * starts at the caller the function returned to. No frame of the machinery (the
 * trampolines, the probe's handler) shows, as the kernel shows none of its kprobe frames.
 * The same through a hist keyed on the stack. The program is linked with -rdynamic
 * (EvtTests.cmake) so that dladdr() names its functions.
 */
#include "probe-util.h"

__attribute__((noinline)) long ps_leaf(long a);
__attribute__((noinline)) long ps_mid(long a);
__attribute__((noinline)) long ps_top(long a);

__attribute__((noinline)) long ps_leaf(long a)
{
	long r = a * 2;

	asm volatile("" : "+r"(r));
	return r + 1;
}

__attribute__((noinline)) long ps_mid(long a)
{
	long r = ps_leaf(a + 1);

	asm volatile("" ::: "memory"); /* not a tail call */
	return r;
}

__attribute__((noinline)) long ps_top(long a)
{
	long r = ps_mid(a);

	asm volatile("" ::: "memory");
	return r;
}

/* The first stack trace after @after in @t: its frames, " => name+0x..." lines. */
static const char *stack_after(const char *t, const char *after)
{
	const char *p = strstr(t, after);

	if (!p)
		t_fail("no \"%s\" in:\n%s", after, t);
	p = strstr(p, "<stack trace>\n");
	if (!p)
		t_fail("no stack trace after \"%s\" in:\n%s", after, t);
	return p + 14;
}

/* Fail unless the frames at @s begin with the functions of @names, in that order. */
static void frames_are(const char *t, const char *s, const char *const *names)
{
	for (; *names; names++) {
		char want[64];

		snprintf(want, sizeof(want), " => %s+0x", *names);
		if (strncmp(s, want, strlen(want)))
			t_fail("frame \"%s\" expected at:\n%.200s\nin:\n%s", want, s, t);
		s = strchr(s, '\n') + 1;
	}
}

int main(void)
{
	static const char *const entry_frames[] = { "ps_leaf", "ps_mid", "ps_top", "main", NULL };
	static const char *const ret_frames[] = { "ps_mid", "ps_top", "main", NULL };
	static const char *const leaf_only[] = { "ps_leaf", NULL };
	const char *t, *s;

	probe_require();
	T_ECHO("p:ps/ent ps_leaf a=%di:s64", "kprobe_events");
	T_ECHO("r:ps/ret ps_leaf ret=$retval:s64", "kprobe_events");

	/* the entry's stack: the probed function at the probed address, then its callers */
	T_ECHO("stacktrace", "events/ps/ent/trigger");
	T_ECHO("1", "events/ps/ent/enable");
	T_ASSERT_EQ(ps_top(20), 43);
	T_ECHO("0", "events/ps/ent/enable");
	T_ECHO("!stacktrace", "events/ps/ent/trigger");
	t = cat("trace");
	frames_are(t, stack_after(t, ") a=21\n"), entry_frames);
	T_ASSERT_HAS(t, "<stack trace>\n => ps_leaf+0x0/0x");

	/* the return's: the caller it returned to, then the rest */
	trace_clear();
	T_ECHO("stacktrace", "events/ps/ret/trigger");
	T_ECHO("1", "events/ps/ret/enable");
	T_ASSERT_EQ(ps_top(20), 43);
	T_ECHO("0", "events/ps/ret/enable");
	t = cat("trace");
	frames_are(t, stack_after(t, " <- ps_leaf) ret=43\n"), ret_frames);

	/*
	 * Both: when the entry's stack is taken, the return probe has put the return
	 * trampoline's address in place of ps_leaf's return address, and the unwinder, which
	 * cannot read the thread's shadow stack, ends there (docs/probes.md): ps_leaf, then
	 * that address, then nothing. The return's stack is whole.
	 */
	trace_clear();
	T_ECHO("stacktrace", "events/ps/ent/trigger");
	T_ECHO("1", "events/ps/enable");
	T_ASSERT_EQ(ps_top(20), 43);
	T_ECHO("0", "events/ps/enable");
	T_ECHO("!stacktrace", "events/ps/ent/trigger");
	T_ECHO("!stacktrace", "events/ps/ret/trigger");
	t = cat("trace");
	s = stack_after(t, ") a=21\n");
	frames_are(t, s, leaf_only);
	s = strchr(s, '\n') + 1;
	if (strncmp(s, " => 0x", 6) || !strchr(s, '\n') || !strncmp(strchr(s, '\n') + 1, " => ", 4))
		t_fail("not ps_leaf, then the return trampoline, then nothing:\n%s", t);
	frames_are(t, stack_after(t, " <- ps_leaf) ret=43\n"), ret_frames);

	/* a hist keyed on the stack sees the same frames */
	T_ECHO("!stacktrace", "events/ps/ent/trigger");
	T_ECHO("hist:keys=common_stacktrace", "events/ps/ent/trigger");
	T_ECHO("1", "events/ps/ent/enable");
	for (volatile int i = 0; i < 2; i++) /* one call site (not unrolled): one key */
		T_ASSERT_EQ(ps_top(1), 5);
	T_ECHO("0", "events/ps/ent/enable");
	t = cat("events/ps/ent/hist");
	s = strstr(t, "{ common_stacktrace:\n         ps_leaf+0x0/0x");
	if (!s || strncmp(strchr(s + 21, '\n'), "\n         ps_mid+0x", 19))
		t_fail("not ps_leaf then ps_mid:\n%s", t);
	T_ASSERT_HAS(t, " hitcount:          2\n");

	T_ECHO("!hist:keys=common_stacktrace", "events/ps/ent/trigger");
	T_ECHO("-:ps/ent", "kprobe_events");
	T_ECHO("-:ps/ret", "kprobe_events");
	return 0;
}
