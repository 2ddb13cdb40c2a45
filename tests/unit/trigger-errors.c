// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-errors: what the kernel rejects (tests/data/trigger/kernel-sched_switch.txt):
 * unknown commands, bad counts, text after the command that is not
 * "if <filter>", unknown target events: EINVAL and nothing in error_log; a
 * bad filter: EINVAL and the filter's error in error_log, as the kernel logs
 * it ("event filter parse error", the filter as the command).
 */
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

int main(void)
{
	T_ASSERT_EQ(echo("bogus\n", TICK), -EINVAL);
	T_ASSERT_EQ(echo("traceon:abc\n", TICK), -EINVAL);
	T_ASSERT_EQ(echo("traceon junk\n", TICK), -EINVAL);
	T_ASSERT_EQ(echo("enable_event:nosys:noev\n", TICK), -EINVAL);
	T_ASSERT_EQ(echo("enable_event:tfs_test\n", TICK), -EINVAL);
	T_ASSERT_EQ(echo("enable_event\n", TICK), -EINVAL);
	T_ASSERT_STR(cat("error_log"), "");
	T_ASSERT_EQ(echo("traceon if nosuch == 1\n", TICK), -EINVAL);
	T_ASSERT(strstr(cat("error_log"), "] event filter parse error: error: Field not found\n"
					  "  Command: nosuch == 1\n                  ^\n"));
	T_ASSERT_STR(cat(TICK), NONE);
	/* blank writes are fine; "traceon:" is an unlimited traceon; ":0" a used-up one */
	T_ECHO("\n", TICK);
	T_ECHO("traceon:\n", TICK);
	T_ASSERT_STR(cat(TICK), "traceon:unlimited\n");
	T_ECHO("!traceon\n", TICK);
	T_ECHO("traceon:0\n", TICK);
	T_ASSERT_STR(cat(TICK), "traceon:count=0\n");
	T_ECHO("!traceon\n", TICK);

	/* an instance destroyed with its triggers in place frees them */
	{
		struct evt_instance *inst;

		T_ASSERT_EQ(evt_instance_create("trg", &inst), 0);
		T_ECHO("traceoff:3 if n > 1\n", "instances/trg/" TICK);
		T_ECHO("enable_event:tfs_test:tfs_req\n", "instances/trg/" TICK);
		T_ASSERT_STR(cat("instances/trg/" TICK), "enable_event:tfs_test:tfs_req:unlimited\n"
			     "traceoff:count=3 if n > 1\n");
		T_ASSERT_STR(cat(TICK), NONE);
		trace_tfs_tick(2);
		T_ASSERT_EQ(evt_instance_destroy(inst), 0);
		trace_tfs_tick(2);
		T_ASSERT_STR(cat("tracing_on"), "1\n");
	}
	return 0;
}
