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
	return 0;
}
