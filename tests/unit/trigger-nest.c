// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-nest: a signal handler's write nesting into a write whose record is
 * built only for its filtered triggers (a soft-disabled event: the per-thread
 * scratch record) does not overwrite that record: each nesting level has its
 * own. The outer write (n=1) must fire `traceoff if n == 1` even though the
 * handler wrote n=2 in between; the handler's own write fires nothing.
 */
#include <signal.h>

#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "trigger-nest-tp.h"

#define NEST "events/trg_nest/nest_ev/trigger"

static void on_usr1(int sig)
{
	(void)sig;
	trace_nest_ev(2);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	T_ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	T_ECHO("traceoff if n == 1\n", NEST);
	T_ASSERT_STR(cat("events/trg_nest/nest_ev/enable"), "0*\n");
	trace_nest_ev(2);
	T_ASSERT_STR(cat("tracing_on"), "1\n");
	trace_nest_ev(1);
	T_ASSERT_STR(cat("tracing_on"), "0\n");
	T_ECHO("1\n", "tracing_on");
	/* the same with the event recording: the records are in the buffer */
	T_ECHO("1\n", "events/trg_nest/nest_ev/enable");
	trace_nest_ev(1);
	T_ASSERT_STR(cat("tracing_on"), "0\n");
	T_ASSERT_EQ(count(cat("trace"), "nest_ev: n="), 2);
	T_ECHO("!traceoff\n", NEST);
	T_ECHO("1\n", "tracing_on");
	return 0;
}
