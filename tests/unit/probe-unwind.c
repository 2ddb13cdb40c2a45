// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-unwind: return probes survive the unwinders (docs/probes.md, "Return probes"):
 *
 *   - a C++ exception thrown through two probed frames (a cleanup on the way) and caught in
 *     a third: no crash, the caught frame and the one above it record their returns, the
 *     two unwound frames count a missed return each;
 *   - a catch (...) that rethrows (_Unwind_Resume_or_Rethrow), caught one frame up;
 *   - pthread_exit() and pthread_cancel() through a probed frame of a thread: the thread
 *     ends as it should (its destructors run), a missed return each;
 *   - normal calls before and after record every return; the shadow stack ends empty;
 *   - a longjmp() out of probed frames counts their returns as missed too.
 *
 * The throwing functions are C++ (probe-unwind-cxx.cc). Without the unwinder hooks each
 * of these calls terminates the program.
 */
#include <pthread.h>
#include <setjmp.h>
#include <unistd.h>

#include "probe-util.h"

int uw_leaf(int x);
int uw_middle(int x);
int uw_catcher(int x);
int uw_top(int x);
int uw_rethrow(int x);
int uw_top2(int x);
int uw_exit_through(int x);
int uw_cancel_through(int fd);
extern volatile int uw_guards;

static int count(const char *t, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(t, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static uint64_t missed(const char *event)
{
	uint64_t n;

	event_lock();
	n = probe_nmissed_locked("uw", event);
	event_unlock();
	return n;
}

static void *exit_thread(void *arg)
{
	return (void *)(long)uw_exit_through((int)(long)arg);
}

static void *cancel_thread(void *arg)
{
	return (void *)(long)uw_cancel_through((int)(long)arg);
}

static jmp_buf env;
static volatile int jump_at; /* 0: jumper() ends in a longjmp() */

__attribute__((noinline)) int jumper(int n)
{
	int r = n;

	if (n == jump_at)
		longjmp(env, 1);
	if (n > 0)
		r += jumper(n - 1);
	asm volatile("" : "+r"(r));
	return r;
}

static void add(const char *def)
{
	if (echo(def, "kprobe_events") < 0)
		t_fail("%s: %s", def, cat("error_log"));
}

int main(void)
{
	pthread_t th;
	void *res;
	const char *t;
	int pfd[2];

	probe_require();
	add("r:uw/leaf uw_leaf ret=$retval:s32");
	add("r:uw/middle uw_middle ret=$retval:s32");
	add("r:uw/catcher uw_catcher ret=$retval:s32");
	add("r:uw/top uw_top ret=$retval:s32");
	add("r:uw/rethrow uw_rethrow ret=$retval:s32");
	add("r:uw/top2 uw_top2 ret=$retval:s32");
	add("r:uw/exit uw_exit_through ret=$retval:s32");
	add("r:uw/cancel uw_cancel_through ret=$retval:s32");
	add("r:uw/jumper jumper ret=$retval:s32");
	T_ECHO("1", "events/uw/enable");

	/* no exception: every return */
	T_ASSERT_EQ(uw_top(5), 111);
	t = cat("trace");
	T_ASSERT_HAS(t, " <- uw_leaf) ret=10\n");
	T_ASSERT_HAS(t, " <- uw_middle) ret=11\n");
	T_ASSERT_HAS(t, " <- uw_catcher) ret=11\n");
	T_ASSERT_HAS(t, " <- uw_top) ret=111\n");
	trace_clear();

	/* thrown in uw_leaf, through uw_middle's cleanup, caught in uw_catcher */
	uw_guards = 0;
	T_ASSERT_EQ(uw_top(-1), 99);
	T_ASSERT_EQ(uw_guards, 1);
	T_ASSERT_EQ(probe_shadow_depth(), 0);
	t = cat("trace");
	T_ASSERT_HAS(t, " <- uw_catcher) ret=-1\n");
	T_ASSERT_HAS(t, " <- uw_top) ret=99\n");
	T_ASSERT_EQ(count(t, " leaf: "), 0);
	T_ASSERT_EQ(count(t, " middle: "), 0);
	T_ASSERT_EQ(missed("leaf"), 1);
	T_ASSERT_EQ(missed("middle"), 1);
	T_ASSERT_EQ(missed("catcher"), 0);
	T_ASSERT_EQ(missed("top"), 0);
	trace_clear();

	/* caught, rethrown, caught one frame up */
	uw_guards = 0;
	T_ASSERT_EQ(uw_top2(-3), -2);
	T_ASSERT_EQ(uw_guards, 11);
	T_ASSERT_EQ(probe_shadow_depth(), 0);
	t = cat("trace");
	T_ASSERT_HAS(t, " <- uw_top2) ret=-2\n");
	T_ASSERT_EQ(count(t, " rethrow: "), 0);
	T_ASSERT_EQ(missed("rethrow"), 1);
	T_ASSERT_EQ(missed("top2"), 0);
	trace_clear();

	/* and normal again */
	T_ASSERT_EQ(uw_top(7), 115);
	T_ASSERT_EQ(uw_top2(1), 3);
	t = cat("trace");
	T_ASSERT_HAS(t, " <- uw_top) ret=115\n");
	T_ASSERT_HAS(t, " <- uw_leaf) ret=14\n");
	T_ASSERT_HAS(t, " <- uw_rethrow) ret=3\n");
	T_ASSERT_HAS(t, " <- uw_top2) ret=3\n");
	T_ASSERT_EQ(probe_shadow_depth(), 0);
	trace_clear();

	/* pthread_exit() through a probed frame */
	uw_guards = 0;
	T_ASSERT_OK(pthread_create(&th, NULL, exit_thread, (void *)-5L));
	T_ASSERT_OK(pthread_join(th, &res));
	T_ASSERT_EQ((long)res, -5);
	T_ASSERT_EQ(uw_guards, 1);
	T_ASSERT_EQ(missed("exit"), 1);
	T_ASSERT_OK(pthread_create(&th, NULL, exit_thread, (void *)4L));
	T_ASSERT_OK(pthread_join(th, &res));
	T_ASSERT_EQ((long)res, 5);
	T_ASSERT_HAS(cat("trace"), " <- uw_exit_through) ret=5\n");

	/* pthread_cancel() of a thread blocked in read() in a probed frame */
	T_ASSERT_OK(pipe(pfd));
	uw_guards = 0;
	T_ASSERT_OK(pthread_create(&th, NULL, cancel_thread, (void *)(long)pfd[0]));
	usleep(50 * 1000); /* let it block (a cancel before the read acts at the read) */
	T_ASSERT_OK(pthread_cancel(th));
	T_ASSERT_OK(pthread_join(th, &res));
	T_ASSERT(res == PTHREAD_CANCELED);
	T_ASSERT_EQ(uw_guards, 1);
	T_ASSERT_EQ(missed("cancel"), 1);

	/* longjmp() out of 4 probed frames: 4 missed returns, at the next return probe */
	if (!setjmp(env))
		jumper(3);
	T_ASSERT_EQ(probe_shadow_depth(), 4);
	T_ASSERT_EQ(uw_top(1), 103);
	T_ASSERT_EQ(probe_shadow_depth(), 0);
	T_ASSERT_EQ(missed("jumper"), 4);

	T_ECHO("0", "events/uw/enable");
	T_ECHO("", "kprobe_events");
	return 0;
}
