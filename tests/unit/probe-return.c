// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-return: return probes: $retval and the kernel's "(caller+off/size <- func)" layout;
 * recursion (one record per return, in order); a longjmp() out of probed frames (the next
 * returns still find their own addresses); MAXACTIVE bounds the entries of one thread and
 * counts the rest as missed; a thread that exits after hits; removal restores the bytes.
 */
#include <pthread.h>
#include <setjmp.h>

#include "probe-util.h"

/* long enough to patch (a + b alone is 4 bytes: too short, refused) */
__attribute__((noinline)) int compute(int a, int b)
{
	int r = 0;

	for (int i = 0; i < a; i++)
		r += 1 + (i & 0);
	asm volatile("" : "+r"(r));
	return r + b;
}

__attribute__((noinline)) long fib(long n)
{
	long r = n < 2 ? n : fib(n - 1) + fib(n - 2);

	asm volatile("" : "+r"(r));
	return r;
}

static jmp_buf env;
static volatile int jump_at; /* 0: the recursion ends in a longjmp() */

__attribute__((noinline)) int deep(int n)
{
	int r = n;

	if (n == jump_at)
		longjmp(env, 1);
	if (n > 0)
		r += deep(n - 1);
	asm volatile("" : "+r"(r));
	return r;
}

static void *thread_fn(void *arg)
{
	(void)arg;
	return (void *)(long)compute(20, 22);
}

static int count(const char *t, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(t, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

int main(void)
{
	unsigned char before[32];
	pthread_t th;
	void *res;
	const char *t;

	probe_require();
	memcpy(before, (void *)compute, sizeof(before));
	if (echo("r:myret compute ret=$retval:s32", "kprobe_events") < 0)
		t_fail("%s", cat("error_log"));
	T_ASSERT_HAS(cat("kprobe_events"), "r:kprobes/myret compute ret=$retval:s32\n");
	t = cat("events/kprobes/myret/format");
	T_ASSERT_HAS(t, "field:unsigned long __probe_func;\toffset:12;");
	T_ASSERT_HAS(t, "field:unsigned long __probe_ret_ip;\toffset:20;");
	T_ASSERT_HAS(t, "print fmt: \"(%lx <- %lx) ret=%d\", REC->__probe_func, "
			"REC->__probe_ret_ip, REC->ret");
	T_ECHO("1", "events/kprobes/myret/enable");
	T_ASSERT_EQ(compute(5, 10), 15);
	T_ASSERT_OK(pthread_create(&th, NULL, thread_fn, NULL));
	T_ASSERT_OK(pthread_join(th, &res));
	T_ASSERT_EQ((long)res, 42);
	t = cat("trace");
	T_ASSERT_HAS(t, "myret: (main+0x");
	T_ASSERT_HAS(t, " <- compute) ret=15\n");
	T_ASSERT_HAS(t, "(thread_fn+0x");
	T_ASSERT_HAS(t, " <- compute) ret=42\n");
	T_ASSERT_EQ(probe_shadow_depth(), 0);
	T_ECHO("0", "events/kprobes/myret/enable");
	T_ECHO("-:myret", "kprobe_events");
	T_ASSERT(memcmp(before, (void *)compute, sizeof(before)) == 0);

	/* recursion: fib(10) makes 177 calls, each returns once */
	trace_clear();
	T_ECHO("r:fr fib $retval:s64", "kprobe_events");
	T_ECHO("p:fe fib n=%di:s64", "kprobe_events");
	T_ECHO("1", "events/kprobes/enable");
	T_ASSERT_EQ(fib(10), 55);
	T_ECHO("0", "events/kprobes/enable");
	t = cat("trace");
	T_ASSERT_EQ(count(t, " fr: "), 177);
	T_ASSERT_EQ(count(t, " fe: "), 177);
	T_ASSERT_HAS(t, " <- fib) arg1=55\n");
	T_ASSERT_EQ(probe_shadow_depth(), 0);
	T_ECHO("-:fr", "kprobe_events");
	T_ECHO("-:fe", "kprobe_events");

	/* longjmp out of 5 probed frames: the stale entries go at the next hit */
	trace_clear();
	T_ECHO("r:dr deep $retval:s32", "kprobe_events");
	T_ECHO("1", "events/kprobes/dr/enable");
	if (!setjmp(env))
		deep(4);
	T_ASSERT_EQ(probe_shadow_depth(), 5);
	T_ASSERT_EQ(compute(1, 2), 3); /* not probed now: nothing changes */
	T_ECHO("r:myret compute $retval:s32", "kprobe_events");
	T_ECHO("1", "events/kprobes/myret/enable");
	T_ASSERT_EQ(compute(1, 2), 3); /* a frame above the stale ones: they are dropped */
	T_ASSERT_EQ(probe_shadow_depth(), 0);
	T_ASSERT_HAS(cat("trace"), " <- compute) arg1=3\n");
	T_ASSERT_HASNT(cat("trace"), " <- deep)");
	T_ECHO("0", "events/kprobes/enable");
	T_ECHO("-:dr", "kprobe_events");
	T_ECHO("-:myret", "kprobe_events");

	/* MAXACTIVE 3: in fib(6) (25 calls) the frames deeper than 3 are missed */
	trace_clear();
	T_ECHO("r3:fr fib $retval:s64", "kprobe_events");
	T_ASSERT_HAS(cat("kprobe_events"), "r3:kprobes/fr fib arg1=$retval:s64\n");
	T_ECHO("1", "events/kprobes/fr/enable");
	T_ASSERT_EQ(fib(6), 8);
	T_ECHO("0", "events/kprobes/fr/enable");
	t = cat("trace");
	T_ASSERT(count(t, " fr: ") > 0 && count(t, " fr: ") < 25);
	event_lock();
	T_ASSERT_EQ(probe_nmissed_locked("kprobes", "fr"), 25 - (uint64_t)count(t, " fr: "));
	event_unlock();
	T_ECHO("-:fr", "kprobe_events");
	/* a return probe cannot have an offset */
	T_ASSERT_EQ(echo("r:bad compute+4", "kprobe_events"), -EINVAL);
	T_ASSERT_HAS(cat("error_log"), "Retprobe address must be an function entry");
	return 0;
}
