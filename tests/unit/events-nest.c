// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-nest: an event fired by a signal handler that interrupted a thread
 * in the middle of writing another (between reserve and commit): both are
 * recorded whole, the inner one with the "hardirq" flag and a nesting depth
 * of 1 in common_flags/common_preempt_count, which the trace shows as "..h1.".
 */
#include <signal.h>
#include <stdlib.h>

#define CREATE_TRACE_POINTS
#include "events-nest-tp.h"

#include "events-util.h"

static int depth;

static void on_signal(int sig)
{
	(void)sig;
	trace_evnest_inner(++depth);
}

void evnest_hook(void)
{
	raise(SIGUSR1);		/* delivered before raise() returns */
}

int main(void)
{
	struct evt_instance *inst = t_instance("nest");
	struct sigaction sa = { 0 };
	const char *t;

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evnest", NULL, true), 2);
	t_pin_to_cpu(0);
	trace_evnest_outer(7);
	t_unpin();
	T_ASSERT_EQ(depth, 1);
	t = t_trace_text(inst, 0);
	/* the inner record was reserved after the outer one and committed first */
	T_ASSERT(strstr(t, "] .....") && strstr(t, "evnest_outer: n=7\n"));
	T_ASSERT(strstr(t, "] ..h1. "));
	T_ASSERT(strstr(t, "evnest_inner: n=1\n"));
	{
		const char *o = strstr(t, "evnest_outer"), *i = strstr(t, "evnest_inner");

		T_ASSERT(o && i && o < i);	/* time order: outer reserved first */
	}
	/* and a second time, nothing left over from the first */
	trace_evnest_inner(5);
	t = t_trace_text(inst, -1);
	T_ASSERT_EQ(t_count(t, "..h1."), 1);
	T_ASSERT_EQ(t_count(t, "] ..... "), 2);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
