// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-filter: the `filter` files of events and systems, as the kernel
 * answered the same writes (tests/data/tracefs/filter.txt, error_log.txt):
 * what they read back, the errno of a rejected filter, the error display
 * (expression, caret, parse_error), the error_log entry; and where we keep
 * the seed's promise instead of the kernel's behaviour: a rejected filter
 * leaves the previous one in force, a subsystem filter leaves the filter of
 * an event that lacks its fields alone.
 */
#include "tracefs-fake.h"

#define SW "events/sched/sched_switch/filter"
#define WK "events/sched/sched_wakeup/filter"

static struct evt_instance *top;

/* does a sched_switch with prev_pid @v pass the filter in force? */
static int passes(int v)
{
	return fake_fire(top, EV_SWITCH, 1000, v, "bash");
}

int main(void)
{
	fake_install();
	top = tb_top();
	T_ASSERT_EQ(fake_echo(top, "sched:*", GT, "set_event"), 7);

	T_ASSERT_STR(fake_cat(top, SW), "none\n");
	T_ASSERT_EQ(fake_echo(top, "prev_pid == 1\n", GT, SW), 14);
	T_ASSERT_STR(fake_cat(top, SW), "prev_pid == 1\n");
	T_ASSERT_EQ(passes(1), 1);
	T_ASSERT_EQ(passes(2), 0);
	T_ASSERT_EQ(fake_echo(top, "prev_pid == 1 && next_pid > 3\n", GT, SW), 30);
	T_ASSERT_STR(fake_cat(top, SW), "prev_pid == 1 && next_pid > 3\n");
	T_ASSERT_EQ(fake_echo(top, "prev_pid == 1\n", GT, SW), 14);

	/* rejected: the kernel's errno and display; the previous filter stays in force */
	T_ASSERT_EQ(fake_echo(top, "nosuch == 1\n", GT, SW), -EINVAL);
	T_ASSERT_STR(fake_cat(top, SW), "nosuch == 1\n       ^\nparse_error: Field not found\n\n");
	T_ASSERT_EQ(passes(1), 1);
	T_ASSERT_EQ(passes(2), 0);
	T_ASSERT_EQ(fake_echo(top, "(prev_pid == 1\n", GT, SW), -ENOENT);
	T_ASSERT_STR(fake_cat(top, SW), "(prev_pid == 1\n^\nparse_error: Too many '('\n\n");
	T_ASSERT_EQ(fake_echo(top, "prev_comm == 1\n", GT, SW), -EINVAL);
	T_ASSERT_STR(fake_cat(top, SW),
		     "prev_comm == 1\n              ^\nparse_error: Expecting string field\n\n");
	T_ASSERT_EQ(fake_echo(top, "prev_pid ~ \"a\"\n", GT, SW), -EINVAL);
	T_ASSERT_STR(fake_cat(top, SW),
		     "prev_pid ~ \"a\"\n            ^\nparse_error: Expecting numeric field\n\n");
	T_ASSERT_EQ(fake_echo(top, "prev_pid == abc\n", GT, SW), -EINVAL);
	T_ASSERT_STR(fake_cat(top, SW), "prev_pid == abc\n             ^\n"
		     "parse_error: Invalid value (did you forget quotes)?\n\n");
	T_ASSERT_EQ(passes(1), 1);
	T_ASSERT_EQ(passes(2), 0);
	/* echo '' > filter: rejected too */
	T_ASSERT_EQ(fake_echo(top, "\n", GT, SW), -EINVAL);
	T_ASSERT_STR(fake_cat(top, SW), "\nError: (0)\n\n");
	/* a zero-length write changes nothing */
	T_ASSERT_EQ(fake_echo(top, "", GT, SW), 0);
	/* '0' clears */
	T_ASSERT_EQ(fake_echo(top, "0\n", GT, SW), 2);
	T_ASSERT_STR(fake_cat(top, SW), "none\n");
	T_ASSERT_EQ(passes(2), 1);

	/* each rejection went to error_log, in the kernel's layout */
	{
		const char *log = fake_cat(top, "error_log");

		T_ASSERT(strstr(log, "] event filter parse error: error: Field not found\n"
				     "  Command: nosuch == 1\n                  ^\n"));
		T_ASSERT(strstr(log, "] event filter parse error: error: Too many '('\n"
				     "  Command: (prev_pid == 1\n           ^\n"));
		T_ASSERT(strstr(log, "] event filter parse error: error: Error\n"
				     "  Command: \n           ^\n"));
	}
	/* '>>' leaves error_log alone, '>' clears it */
	T_ASSERT_EQ(fake_echo(top, "x", GGT, "error_log"), 1);
	T_ASSERT(strlen(fake_cat(top, "error_log")) > 0);
	T_ASSERT_EQ(fake_echo(top, "x", GT, "error_log"), 1);
	T_ASSERT_STR(fake_cat(top, "error_log"), "");

	/* subsystem filters */
	T_ASSERT_STR(fake_cat(top, "events/sched/filter"),
		     "### global filter ###\n"
		     "# Use this to set filters for multiple events.\n"
		     "# Only events with the given fields will be affected.\n"
		     "# If no events are modified, an error message will be displayed here\n");
	T_ASSERT_EQ(fake_echo(top, "common_pid == 0\n", GT, "events/sched/filter"), 16);
	T_ASSERT_STR(fake_cat(top, SW), "common_pid == 0\n");
	T_ASSERT_STR(fake_cat(top, WK), "common_pid == 0\n");
	/* sched_wakeup has no prev_pid: it keeps its filter (the kernel wipes it) and
	 * shows the error as the kernel's does (unit/tracefs-diff asks the kernel) */
	T_ASSERT_EQ(fake_echo(top, "prev_pid == 0\n", GT, "events/sched/filter"), 14);
	T_ASSERT_STR(fake_cat(top, SW), "prev_pid == 0\n");
	T_ASSERT_STR(fake_cat(top, WK), "prev_pid == 0\n^\nparse_error: Couldn't find or set "
					"field in one of a subsystem's events\n\n");
	T_ASSERT(strstr(fake_cat(top, "error_log"),
			"error: Couldn't find or set field in one of a subsystem's events\n"
			"  Command: prev_pid == 0\n           ^\n"));
	T_ASSERT(!strstr(fake_cat(top, "events/sched/filter"), "parse_error"));
	/* no event takes it: success (as the kernel), each event's file shows why, the
	 * system's shows its default text only (the kernel's create_system_filter()) */
	T_ASSERT_EQ(fake_echo(top, "nosuchfield == 0\n", GT, "events/sched/filter"), 17);
	T_ASSERT(strstr(fake_cat(top, SW), "nosuchfield == 0\n^\nparse_error: Couldn't find"));
	T_ASSERT(strstr(fake_cat(top, WK), "nosuchfield == 0\n^\nparse_error: Couldn't find"));
	T_ASSERT(!strstr(fake_cat(top, "events/sched/filter"), "parse_error"));
	/* '0' clears every event's */
	T_ASSERT_EQ(fake_echo(top, "0\n", GT, "events/sched/filter"), 2);
	T_ASSERT_STR(fake_cat(top, SW), "none\n");
	T_ASSERT_STR(fake_cat(top, WK), "none\n");
	T_ASSERT(!strstr(fake_cat(top, "events/sched/filter"), "parse_error"));

	/* an instance's filters and error_log are its own */
	T_ASSERT_EQ(fake_echo(top, "", GT, "error_log"), 0);
	T_ASSERT_OK(evt_tracefs_mkdir(NULL, "instances/f"));
	T_ASSERT_EQ(fake_echo(NULL, "bad", GT, "instances/f/" SW), -EINVAL);
	T_ASSERT_STR(fake_cat(top, SW), "none\n");
	T_ASSERT_STR(fake_cat(top, "error_log"), "");
	T_ASSERT(strstr(fake_cat(NULL, "instances/f/error_log"), "Command: bad\n"));
	T_ASSERT_OK(evt_tracefs_rmdir(NULL, "instances/f"));
	/* a long filter: the kernel's PAGE_SIZE limit */
	{
		static char big[8192];

		memset(big, ' ', sizeof(big));
		T_ASSERT_EQ(evt_tracefs_write(top, SW, big, sizeof(big), GT), -EINVAL);
		T_ASSERT_EQ(evt_tracefs_write(top, SW, big, 4096, GT), -EINVAL);
		memcpy(big + 4000, "0", 1);
		T_ASSERT_EQ(evt_tracefs_write(top, SW, big, 4095, GT), 4095);
	}
	return T_PASS;
}
