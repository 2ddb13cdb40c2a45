// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-soft-enable: an event kept on for its triggers (soft mode) counts
 * as enabled in its system's `enable` file, in events/enable and in set_event,
 * as the kernel's EVENT_FILE_FL_ENABLED does (answers of a 6.18 kernel on
 * fuse:fuse_request_end/send, a system of two events: one soft "X", both
 * "1", one on and one soft "1", a target of enable_event "1").
 */
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

#define SYS "events/tfs_test/enable"

int main(void)
{
	T_ASSERT_STR(cat(SYS), "0\n");
	T_ECHO("traceoff\n", TICK);
	T_ASSERT_STR(cat("events/tfs_test/tfs_tick/enable"), "0*\n");
	T_ASSERT_STR(cat(SYS), "X\n");
	T_ASSERT_STR(cat("set_event"), "tfs_test:tfs_tick\n");
	T_ECHO("traceoff\n", REQ);
	T_ASSERT_STR(cat(SYS), "1\n");
	T_ASSERT_STR(cat("events/enable"), "X\n");
	T_ECHO("1\n", "events/tfs_test/tfs_tick/enable");
	T_ASSERT_STR(cat(SYS), "1\n");
	T_ECHO("0\n", "events/tfs_test/tfs_tick/enable");
	T_ECHO("!traceoff\n", TICK);
	T_ECHO("!traceoff\n", REQ);
	T_ASSERT_STR(cat(SYS), "0\n");
	T_ASSERT_STR(cat("set_event"), "");
	/* the target of enable_event is in soft mode too */
	T_ECHO("enable_event:tfs_test:tfs_req\n", TICK);
	T_ASSERT_STR(cat(SYS), "1\n");
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/enable"), "0*\n");
	T_ECHO("!enable_event:tfs_test:tfs_req\n", TICK);
	T_ASSERT_STR(cat(SYS), "0\n");
	return 0;
}
