// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-register: a trigger command registered from above
 * (trigger_cmd_register(), the kernel's register_event_command()) is listed
 * after the registered ones in the `trigger` file, parses, prints, fires from
 * the writer through the trigger hooks, and is removed with '!'; a second
 * command of a taken name is -EEXIST. The hist commands are there because
 * hist registered them itself at the library's start (src/init.c).
 */
#include <stdio.h>

#include "trigger-util.h"
#include "trigger/trigger.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

static unsigned long fired;

static int t_parse(struct trigger_data *td, char *param)
{
	return trigger_parse_count(param, &td->count);
}

static bool t_same(const struct trigger_data *a, const struct trigger_data *b)
{
	return a->cmd == b->cmd;
}

static void t_fire(struct trigger_data *td)
{
	(void)td;
	add_relaxed(&fired, 1); /* a counter only: orders nothing */
}

static int t_print(const struct trigger_data *td, char *buf, size_t size)
{
	return snprintf(buf, size, "%s", td->cmd->name);
}

static const struct trigger_cmd t_count_cmd = {
	.name = "t_count",
	.parse = t_parse,
	.same = t_same,
	.fire = t_fire,
	.print = t_print,
};

static const struct trigger_cmd t_hist_again = {
	.name = "hist",
	.parse = t_parse,
	.same = t_same,
	.fire = t_fire,
	.print = t_print,
};

int main(void)
{
	T_ASSERT_STR(cat(TICK), NONE);
	T_ASSERT_OK(trigger_cmd_register(&t_count_cmd));
	T_ASSERT_EQ(trigger_cmd_register(&t_count_cmd), -EEXIST);
	T_ASSERT_EQ(trigger_cmd_register(&t_hist_again), -EEXIST);
	T_ASSERT_STR(cat(TICK), "# Available triggers:\n"
				"# traceon traceoff snapshot stacktrace enable_event disable_event "
				"enable_hist disable_hist hist t_count\n");

	T_ECHO("t_count:2\n", TICK);
	T_ASSERT_STR(cat(TICK), "t_count:count=2\n");
	trace_tfs_tick(1);
	trace_tfs_tick(2);
	trace_tfs_tick(3);
	T_ASSERT_EQ(ld_relaxed(&fired), 2ul);
	T_ASSERT_STR(cat(TICK), "t_count:count=0\n");
	T_ECHO("!t_count\n", TICK);
	T_ASSERT_STR(cat(TICK), "# Available triggers:\n"
				"# traceon traceoff snapshot stacktrace enable_event disable_event "
				"enable_hist disable_hist hist t_count\n");
	T_ECHO("t_count if n == 7\n", TICK);
	trace_tfs_tick(6);
	trace_tfs_tick(7);
	T_ASSERT_EQ(ld_relaxed(&fired), 3ul);
	printf("trigger-register: ok\n");
	return 0;
}
