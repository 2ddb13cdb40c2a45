// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-onoff: traceon and traceoff triggers, with counts and filters, on
 * an event that is not enabled itself (soft mode: it fires its triggers and
 * records nothing); the text read back as the kernel prints it
 * (tests/data/trigger/kernel-sched_switch.txt); one traceon/traceoff per
 * event (EEXIST); removal with '!'.
 */
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

int main(void)
{
	T_ASSERT_STR(cat(TICK), NONE);
	T_ASSERT_STR(cat("tracing_on"), "1\n");

	/* traceoff, unlimited: the event is only soft-enabled */
	T_ECHO("traceoff\n", TICK);
	T_ASSERT_STR(cat(TICK), "traceoff:unlimited\n");
	T_ASSERT_STR(cat("events/tfs_test/tfs_tick/enable"), "0*\n");
	trace_tfs_tick(1);
	T_ASSERT_STR(cat("tracing_on"), "0\n");
	T_ASSERT_EQ(count(cat("trace"), "tfs_tick:"), 0);
	T_ASSERT_STR(cat(TICK), "traceoff:unlimited\n");

	/* one of traceon/traceoff per event, whatever the count or filter */
	T_ASSERT_EQ(echo("traceon\n", TICK), -EEXIST);
	T_ASSERT_EQ(echo("traceoff:5\n", TICK), -EEXIST);
	T_ASSERT_EQ(echo("traceoff  if n==0\n", TICK), -EEXIST);
	T_ECHO("!traceoff\n", TICK);
	T_ASSERT_STR(cat(TICK), NONE);
	T_ASSERT_STR(cat("events/tfs_test/tfs_tick/enable"), "0\n");

	/* traceon:2 if n > 5: tracing is off, the record is built for the filter only */
	T_ECHO("traceon:2 if n > 5\n", TICK);
	T_ASSERT_STR(cat(TICK), "traceon:count=2 if n > 5\n");
	trace_tfs_tick(1);
	T_ASSERT_STR(cat("tracing_on"), "0\n");
	T_ASSERT_STR(cat(TICK), "traceon:count=2 if n > 5\n");
	trace_tfs_tick(6);
	T_ASSERT_STR(cat("tracing_on"), "1\n");
	T_ASSERT_STR(cat(TICK), "traceon:count=1 if n > 5\n");
	/* tracing already on: the count is not used (the kernel's traceon_count_trigger) */
	trace_tfs_tick(7);
	T_ASSERT_STR(cat(TICK), "traceon:count=1 if n > 5\n");
	T_ECHO("0\n", "tracing_on");
	trace_tfs_tick(7);
	T_ASSERT_STR(cat("tracing_on"), "1\n");
	T_ASSERT_STR(cat(TICK), "traceon:count=0 if n > 5\n");
	T_ECHO("0\n", "tracing_on");
	trace_tfs_tick(8);
	T_ASSERT_STR(cat("tracing_on"), "0\n");
	T_ASSERT_EQ(count(cat("trace"), "tfs_tick:"), 0);
	/* '!traceoff' removes the traceon too: they are one kind (as the kernel) */
	T_ECHO("!traceoff\n", TICK);
	T_ASSERT_STR(cat(TICK), NONE);
	T_ECHO("1\n", "tracing_on");

	/* an enabled event with a trigger records and fires */
	T_ECHO("1\n", "events/tfs_test/tfs_tick/enable");
	T_ECHO("traceoff:1\n", TICK);
	T_ASSERT_STR(cat(TICK), "traceoff:count=1\n");
	T_ASSERT_STR(cat("events/tfs_test/tfs_tick/enable"), "1*\n");
	trace_tfs_tick(3);
	T_ASSERT_STR(cat("tracing_on"), "0\n");
	T_ASSERT_STR(cat(TICK), "traceoff:count=0\n");
	T_ECHO("1\n", "tracing_on");
	trace_tfs_tick(4);
	T_ASSERT_STR(cat("tracing_on"), "1\n");
	/* tick(3) was recorded: traceoff is a post trigger (the kernel's
	 * EVENT_CMD_FL_POST_TRIGGER), it runs after its event is committed */
	T_ASSERT_EQ(count(cat("trace"), "tfs_tick:"), 2);
	T_ASSERT(strstr(cat("trace"), "tfs_tick: n=3") != NULL);
	T_ECHO("!traceoff\n", TICK);
	T_ECHO("0\n", "events/tfs_test/tfs_tick/enable");
	return 0;
}
