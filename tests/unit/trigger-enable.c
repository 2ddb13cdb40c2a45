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
	return 0;
}
