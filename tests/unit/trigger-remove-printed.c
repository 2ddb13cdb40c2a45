// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-remove-printed: a trigger is removed by '!' and the line its trigger
 * file prints ("!traceoff:count=1 if n > 5", "!traceoff:unlimited",
 * "!enable_event:sys:ev:count=2"): on removal the kernel does not read the
 * count (event_trigger_parse() unregisters before event_trigger_parse_num()),
 * checked against the kernel's sched_wakeup triggers. `evtrace reset` removes
 * triggers this way.
 */
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

/* add @add, check it reads back as @shown, remove it with "!" + @shown */
static void add_remove(const char *path, const char *add, const char *shown)
{
	char rm[256];

	T_ECHO(add, path);
	T_ASSERT_STR(cat(path), shown);
	snprintf(rm, sizeof(rm), "!%s", shown);
	T_ECHO(rm, path);
	T_ASSERT_STR(cat(path), NONE);
}

int main(void)
{
	add_remove(TICK, "traceoff\n", "traceoff:unlimited\n");
	add_remove(TICK, "traceon:1 if n > 5\n", "traceon:count=1 if n > 5\n");
	add_remove(TICK, "snapshot:3\n", "snapshot:count=3\n");
	add_remove(TICK, "stacktrace:2\n", "stacktrace:count=2\n");
	add_remove(MISC, "enable_event:tfs_test:tfs_req:2\n",
		   "enable_event:tfs_test:tfs_req:count=2\n");
	add_remove(MISC, "disable_event:tfs_test:tfs_req\n",
		   "disable_event:tfs_test:tfs_req:unlimited\n");
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/enable"), "0\n");
	/* only the count is not read: an unknown command or target is still an error */
	T_ASSERT_EQ(echo("!traceof:count=1\n", TICK), -EINVAL);
	T_ASSERT_EQ(echo("!enable_event:tfs_test:nosuch:count=1\n", MISC), -EINVAL);
	return 0;
}
