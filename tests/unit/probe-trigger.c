// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-trigger: probe events through filters, triggers and hist, as any event: a
 * filter on a probe's fields (only matching hits recorded); enable_event from one probe
 * to another (soft mode: the other probe records only once the first fired); traceoff
 * with a filter (tracing stops at the first matching hit); stacktrace with a count (one
 * stack record); a hist keyed on a probe field
 * (counts and sums per key in the hist file) and on a return probe's $retval.
 */
#include "probe-util.h"

__attribute__((noinline)) int work(int kind, int n)
{
	int r = 0;

	for (int i = 0; i < n; i++)
		r += kind ^ i;
	asm volatile("" : "+r"(r));
	return r + kind;
}

__attribute__((noinline)) long other(long x)
{
	long r = x;

	for (int i = 0; i < 3; i++)
		r = r * 7 + i;
	asm volatile("" : "+r"(r));
	return r;
}

__attribute__((noinline)) void caller_of_work(int kind, int n)
{
	work(kind, n);
	asm volatile("" ::: "memory"); /* not a tail call */
}

static int count(const char *t, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(t, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void filter(void)
{
	trace_clear();
	T_ECHO("kind == 2 && n >= 3", "events/kprobes/w/filter");
	T_ECHO("1", "events/kprobes/w/enable");
	for (int k = 0; k < 4; k++)
		for (int n = 0; n < 5; n++)
			work(k, n);
	T_ECHO("0", "events/kprobes/w/enable");
	T_ECHO("0", "events/kprobes/w/filter");
	T_ASSERT_EQ(count(cat("trace"), " w: "), 2);
	T_ASSERT_HAS(cat("trace"), ") kind=2 n=3\n");
	T_ASSERT_HAS(cat("trace"), ") kind=2 n=4\n");
}

static void enable_event(void)
{
	trace_clear();
	/* other's probe is soft-enabled: it records only once a w hit with kind 7 fired */
	T_ECHO("enable_event:kprobes:o if kind == 7", "events/kprobes/w/trigger");
	T_ASSERT_HAS(cat("events/kprobes/o/enable"), "0*");
	other(1);
	work(1, 1);
	other(2);
	T_ASSERT_EQ(count(cat("trace"), " o: "), 0);
	work(7, 1);
	other(3);
	T_ASSERT_EQ(count(cat("trace"), " o: "), 1);
	T_ASSERT_HAS(cat("trace"), ") x=3\n");
	T_ECHO("!enable_event:kprobes:o if kind == 7", "events/kprobes/w/trigger");
	T_ECHO("0", "events/kprobes/o/enable");
}

static void traceoff(void)
{
	trace_clear();
	T_ECHO("traceoff if n == 99", "events/kprobes/w/trigger");
	T_ECHO("1", "events/kprobes/o/enable");
	other(10);
	T_ASSERT_STR(cat("tracing_on"), "1\n");
	work(1, 99);
	T_ASSERT_STR(cat("tracing_on"), "0\n");
	other(11);
	T_ASSERT_HAS(cat("trace"), ") x=10\n");
	T_ASSERT_HASNT(cat("trace"), ") x=11\n");
	T_ECHO("1", "tracing_on");
	T_ECHO("!traceoff if n == 99", "events/kprobes/w/trigger");
	T_ECHO("0", "events/kprobes/o/enable");
}

static void stacktrace(void)
{
	const char *t, *p;

	trace_clear();
	T_ECHO("stacktrace:1", "events/kprobes/w/trigger");
	T_ECHO("1", "events/kprobes/w/enable");
	caller_of_work(3, 1);
	caller_of_work(3, 2);
	T_ECHO("0", "events/kprobes/w/enable");
	T_ECHO("!stacktrace:1", "events/kprobes/w/trigger");
	t = cat("trace");
	T_ASSERT_EQ(count(t, "<stack trace>"), 1);
	/*
	 * Its frames: the probe's handler and the trampoline, where the unwinder stops (the
	 * trampoline has no unwind information; docs/probes.md): the probed function's
	 * callers are not in it yet.
	 */
	p = strstr(t, "<stack trace>\n => ");
	T_ASSERT(p != NULL);
}

static void hist(void)
{
	const char *t;

	T_ECHO("hist:keys=kind:vals=n:sort=kind", "events/kprobes/w/trigger");
	T_ECHO("hist:keys=ret:sort=ret", "events/kprobes/wr/trigger");
	for (int k = 0; k < 3; k++)
		for (int n = 1; n <= 4; n++)
			work(k, n * k);
	t = cat("events/kprobes/w/hist");
	/* kind k: 4 hits, n summed: k * (1 + 2 + 3 + 4) */
	T_ASSERT_HAS(t, "{ kind:          0 } hitcount:          4  n:          0\n");
	T_ASSERT_HAS(t, "{ kind:          1 } hitcount:          4  n:         10\n");
	T_ASSERT_HAS(t, "{ kind:          2 } hitcount:          4  n:         20\n");
	T_ASSERT_HAS(t, "Hits: 12\n");
	t = cat("events/kprobes/wr/hist");
	/* work(0, 0) four times returns 0 */
	T_ASSERT_HAS(t, "{ ret:          0 } hitcount:          4\n");
	T_ASSERT_HAS(t, "Hits: 12\n");
	T_ECHO("!hist:keys=kind:vals=n:sort=kind", "events/kprobes/w/trigger");
	T_ECHO("!hist:keys=ret:sort=ret", "events/kprobes/wr/trigger");
}

int main(void)
{
	probe_require();
	if (echo("p:w work kind=%di:s32 n=%si:s32", "kprobe_events") < 0 ||
	    echo("r:wr work ret=$retval:s32", "kprobe_events") < 0 ||
	    echo("p:o other x=%di:s64", "kprobe_events") < 0)
		t_fail("%s", cat("error_log"));
	filter();
	enable_event();
	traceoff();
	stacktrace();
	hist();
	T_ECHO("-:w", "kprobe_events");
	T_ECHO("-:wr", "kprobe_events");
	T_ECHO("-:o", "kprobe_events");
	T_ASSERT_STR(cat("kprobe_events"), "");
	return 0;
}
