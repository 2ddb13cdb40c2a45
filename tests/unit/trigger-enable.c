// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-enable: enable_event and disable_event triggers: the triggered
 * event is soft-disabled while the trigger exists and records only once the
 * trigger enabled it; counts; a filter; one enable/disable trigger per
 * triggered event (EEXIST, as the kernel); the text read back as the kernel
 * prints it (tests/data/trigger/kernel-sched_switch.txt), newest first.
 */
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

int main(void)
{
	/* on tfs_misc: enable tfs_req once */
	T_ECHO("enable_event:tfs_test:tfs_req:1\n", MISC);
	T_ASSERT_STR(cat(MISC), "enable_event:tfs_test:tfs_req:count=1\n");
	T_ASSERT_EQ(echo("disable_event:tfs_test:tfs_req\n", MISC), -EEXIST);
	T_ASSERT_EQ(echo("enable_event:tfs_test:tfs_req:3\n", MISC), -EEXIST);
	trace_tfs_req(1, "before");
	T_ASSERT_EQ(count(cat("trace"), "tfs_req:"), 0);
	trace_tfs_misc(1);
	T_ASSERT_STR(cat(MISC), "enable_event:tfs_test:tfs_req:count=0\n");
	trace_tfs_req(2, "after");
	T_ASSERT_EQ(count(cat("trace"), "tfs_req:"), 1);
	T_ASSERT_EQ(count(cat("trace"), "path=after"), 1);
	T_ASSERT_EQ(count(cat("trace"), "tfs_misc:"), 0);

	/* on tfs_tick: disable tfs_req when n == 2; another target: allowed */
	T_ECHO("disable_event:tfs_test:tfs_req if n == 2\n", TICK);
	T_ECHO("enable_event:tfs_other:tfs_misc\n", TICK);
	T_ASSERT_STR(cat(TICK), "enable_event:tfs_other:tfs_misc:unlimited\n"
		     "disable_event:tfs_test:tfs_req:unlimited if n == 2\n");
	trace_tfs_tick(1);
	trace_tfs_req(3, "still");
	T_ASSERT_EQ(count(cat("trace"), "path=still"), 1);
	trace_tfs_tick(2);
	trace_tfs_req(4, "gone");
	T_ASSERT_EQ(count(cat("trace"), "path=gone"), 0);
	trace_tfs_misc(5);	/* enabled by the tick's enable_event */
	T_ASSERT_EQ(count(cat("trace"), "tfs_misc:"), 1);

	/* removal: by command kind and target, count and filter do not matter */
	T_ECHO("!disable_event:tfs_test:tfs_req\n", TICK);
	T_ASSERT_STR(cat(TICK), "enable_event:tfs_other:tfs_misc:unlimited\n");
	T_ECHO("!enable_event:tfs_other:tfs_misc:7\n", TICK);
	T_ASSERT_STR(cat(TICK), NONE);
	T_ECHO("!enable_event:tfs_test:tfs_req\n", MISC);
	T_ASSERT_STR(cat(MISC), NONE);
	/* removing what is not there is no error (the kernel) */
	T_ECHO("!enable_event:tfs_test:tfs_req\n", MISC);

	/* an event enabled by a trigger stays enabled when the trigger goes (the kernel) */
	T_ECHO("enable_event:tfs_test:tfs_req\n", MISC);
	trace_tfs_misc(6);
	T_ECHO("!enable_event:tfs_test:tfs_req\n", MISC);
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/enable"), "1\n");
	trace_tfs_req(5, "kept");
	T_ASSERT_EQ(count(cat("trace"), "path=kept"), 1);
	/* one disabled by a trigger stays disabled */
	T_ECHO("disable_event:tfs_test:tfs_req\n", MISC);
	trace_tfs_misc(7);
	T_ECHO("!disable_event:tfs_test:tfs_req\n", MISC);
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/enable"), "0\n");
	trace_tfs_req(6, "off");
	T_ASSERT_EQ(count(cat("trace"), "path=off"), 0);

	/* enabling an event that has triggers makes it record; disabling keeps them
	 * (tfs_misc is still on from the tick's enable_event, removed above) */
	T_ASSERT_STR(cat("events/tfs_other/tfs_misc/enable"), "1\n");
	T_ECHO("0\n", "events/tfs_other/tfs_misc/enable");
	T_ECHO("traceon\n", MISC);
	trace_tfs_misc(8);
	T_ASSERT_EQ(count(cat("trace"), "x=8"), 0);
	T_ECHO("1\n", "events/tfs_other/tfs_misc/enable");
	trace_tfs_misc(9);
	T_ASSERT_EQ(count(cat("trace"), "x=9"), 1);
	T_ECHO("0\n", "events/tfs_other/tfs_misc/enable");
	T_ECHO("0\n", "tracing_on");
	trace_tfs_misc(10);
	T_ASSERT_STR(cat("tracing_on"), "1\n");
	T_ASSERT_EQ(count(cat("trace"), "x=10"), 0);
	T_ECHO("!traceon\n", MISC);
	return 0;
}
