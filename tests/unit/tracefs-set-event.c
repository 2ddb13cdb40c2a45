// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-set-event: every form of a set_event write, '>' against '>>', and
 * the enable files' read-backs (0 1 X), as the kernel answered them
 * (tests/data/tracefs/set_event.txt, enable.txt), on the fake event set of
 * tracefs-fake.h. set_event lists events in registration order (the kernel:
 * its own list order).
 */
#include "tracefs-fake.h"

static struct evt_instance *top;

static void check_enable(const char *events, const char *sched, const char *irq,
			 const char *sw, int line)
{
	const char *got;

	got = fake_cat(top, "events/enable");
	if (strcmp(got, events))
		t_fail("line %d: events/enable %s, want %s", line, got, events);
	got = fake_cat(top, "events/sched/enable");
	if (strcmp(got, sched))
		t_fail("line %d: events/sched/enable %s, want %s", line, got, sched);
	got = fake_cat(top, "events/irq/enable");
	if (strcmp(got, irq))
		t_fail("line %d: events/irq/enable %s, want %s", line, got, irq);
	got = fake_cat(top, "events/sched/sched_switch/enable");
	if (strcmp(got, sw))
		t_fail("line %d: sched_switch/enable %s, want %s", line, got, sw);
}
#define ENABLED(e, s, i, w) check_enable(e "\n", s "\n", i "\n", w "\n", __LINE__)

int main(void)
{
	char word[200];

	fake_install();
	top = tb_top();

	T_ASSERT_STR(fake_cat(top, "set_event"), "");
	ENABLED("0", "0", "0", "0");
	T_ASSERT_STR(fake_cat(top, "available_events"),
		     "sched:sched_switch\nsched:sched_wakeup\nirq:irq_handler_entry\n"
		     "irq:softirq_entry\napp:sched\n");

	/* echo sched:sched_switch >> set_event */
	T_ASSERT_EQ(fake_echo(top, "sched:sched_switch\n", GGT, "set_event"), 19);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\n");
	ENABLED("X", "X", "0", "1");
	/* a bare event name */
	T_ASSERT_EQ(fake_echo(top, "sched_wakeup\n", GGT, "set_event"), 13);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\nsched:sched_wakeup\n");
	ENABLED("X", "1", "0", "1");
	/* '!' disables */
	T_ASSERT_EQ(fake_echo(top, "!sched_wakeup\n", GGT, "set_event"), 14);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\n");
	/* '>' disables everything first */
	T_ASSERT_EQ(fake_echo(top, "irq:*\n", GT, "set_event"), 6);
	T_ASSERT_STR(fake_cat(top, "set_event"), "irq:irq_handler_entry\nirq:softirq_entry\n");
	ENABLED("X", "0", "1", "0");
	/* "system:" */
	T_ASSERT_EQ(fake_echo(top, "sched:\n", GGT, "set_event"), 7);
	ENABLED("X", "1", "1", "1");
	/* echo > set_event: an empty line clears */
	T_ASSERT_EQ(fake_echo(top, "\n", GT, "set_event"), 1);
	T_ASSERT_STR(fake_cat(top, "set_event"), "");
	ENABLED("0", "0", "0", "0");
	/* a bare system name; and one that is also an event's name (app:sched) */
	T_ASSERT_EQ(fake_echo(top, "irq\n", GGT, "set_event"), 4);
	ENABLED("X", "0", "1", "0");
	T_ASSERT_EQ(fake_echo(top, "sched\n", GT, "set_event"), 6);
	T_ASSERT_STR(fake_cat(top, "set_event"),
		     "sched:sched_switch\nsched:sched_wakeup\napp:sched\n");
	T_ASSERT_STR(fake_cat(top, "events/app/enable"), "1\n");
	/* "sched:*" then "!sched:*" */
	T_ASSERT_EQ(fake_echo(top, "", GT, "set_event"), 0);	/* : > set_event */
	T_ASSERT_EQ(fake_echo(top, "sched:*\n", GGT, "set_event"), 8);
	T_ASSERT_EQ(fake_echo(top, "!sched:*\n", GGT, "set_event"), 9);
	ENABLED("0", "0", "0", "0");
	/* two words in one write: the kernel takes the first and its separator
	 * (unit/tracefs-diff asks it); any whitespace */
	T_ASSERT_EQ(fake_echo(top, "sched:sched_switch irq:irq_handler_entry\n", GGT, "set_event"),
		    19);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\n");
	T_ASSERT_EQ(fake_echo(top, "\tirq:irq_handler_entry\n", GGT, "set_event"), 23);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\nirq:irq_handler_entry\n");
	ENABLED("X", "X", "X", "1");
	/* nothing matches: -EINVAL and no change */
	T_ASSERT_EQ(fake_echo(top, "nosuch:event\n", GGT, "set_event"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "nosuchevent\n", GGT, "set_event"), -EINVAL);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\nirq:irq_handler_entry\n");
	/* no globs in names, but "*:" for any system */
	T_ASSERT_EQ(fake_echo(top, "\n", GT, "set_event"), 1);
	T_ASSERT_EQ(fake_echo(top, "*:sched_switch\n", GGT, "set_event"), 15);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\n");
	T_ASSERT_EQ(fake_echo(top, "sched:sched_sw*\n", GT, "set_event"), -EINVAL);
	T_ASSERT_STR(fake_cat(top, "set_event"), "");	/* '>' cleared before the error */
	/* "> '!sched:sched_switch'": truncated, then nothing to disable, still fine */
	T_ASSERT_EQ(fake_echo(top, "sched:sched_switch\n", GT, "set_event"), 19);
	T_ASSERT_EQ(fake_echo(top, "!sched:sched_switch\n", GT, "set_event"), 20);
	ENABLED("0", "0", "0", "0");
	/* every event: "*:*", "*:", ":" */
	T_ASSERT_EQ(fake_echo(top, "*:*\n", GT, "set_event"), 4);
	ENABLED("1", "1", "1", "1");
	T_ASSERT_EQ(fake_echo(top, "\n", GT, "set_event"), 1);
	T_ASSERT_EQ(fake_echo(top, "*:\n", GT, "set_event"), 3);
	ENABLED("1", "1", "1", "1");
	T_ASSERT_EQ(fake_echo(top, "\n", GT, "set_event"), 1);
	T_ASSERT_EQ(fake_echo(top, ":\n", GGT, "set_event"), 2);
	ENABLED("1", "1", "1", "1");
	/* a comment is a word like another: nothing matches "#" */
	T_ASSERT_EQ(fake_echo(top, "# foo\n", GT, "set_event"), -EINVAL);
	ENABLED("0", "0", "0", "0");
	/* no newline; spaces and blank lines */
	T_ASSERT_EQ(fake_echo(top, "sched:sched_switch", GGT, "set_event"), 18);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\n");
	T_ASSERT_EQ(fake_echo(top, "", GT, "set_event"), 0);
	T_ASSERT_EQ(fake_echo(top, "  sched:sched_switch \n\n irq:softirq_entry\n", GGT,
			      "set_event"), 21);
	T_ASSERT_EQ(fake_echo_sh(top, "  sched:sched_switch \n\n irq:softirq_entry\n", GGT,
				 "set_event"), 42);
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\nirq:softirq_entry\n");
	/* a word longer than the kernel's 127 bytes */
	memset(word, 'a', sizeof(word));
	word[sizeof(word) - 1] = '\0';
	T_ASSERT_EQ(fake_echo(top, word, GGT, "set_event"), -EINVAL);
	/* a write without '>' or '>>' (open without O_TRUNC) appends too */
	T_ASSERT_EQ(fake_echo(top, "irq:irq_handler_entry", 0, "set_event"), 21);
	T_ASSERT_STR(fake_cat(top, "set_event"),
		     "sched:sched_switch\nirq:irq_handler_entry\nirq:softirq_entry\n");

	/* the enable files: 0 and 1 only */
	T_ASSERT_EQ(fake_echo(top, "", GT, "set_event"), 0);
	T_ASSERT_EQ(fake_echo(top, "1\n", GT, "events/sched/sched_switch/enable"), 2);
	ENABLED("X", "X", "0", "1");
	T_ASSERT_STR(fake_cat(top, "set_event"), "sched:sched_switch\n");
	T_ASSERT_EQ(fake_echo(top, "1\n", GT, "events/sched/enable"), 2);
	ENABLED("X", "1", "0", "1");
	T_ASSERT_EQ(fake_echo(top, "0\n", GT, "events/enable"), 2);
	ENABLED("0", "0", "0", "0");
	T_ASSERT_EQ(fake_echo(top, "2\n", GT, "events/sched/sched_switch/enable"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "x\n", GT, "events/sched/sched_switch/enable"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "\n", GT, "events/enable"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "1\n", GT, "events/enable"), 2);
	ENABLED("1", "1", "1", "1");
	T_ASSERT_EQ(fake_echo(top, "0", GT, "events/irq/enable"), 1);
	ENABLED("X", "1", "0", "1");

	/* an instance has its own */
	T_ASSERT_OK(evt_tracefs_mkdir(NULL, "instances/one"));
	T_ASSERT_STR(fake_cat(NULL, "instances/one/set_event"), "");
	T_ASSERT_EQ(fake_echo(NULL, "irq:softirq_entry", GT, "instances/one/set_event"), 17);
	T_ASSERT_STR(fake_cat(NULL, "instances/one/set_event"), "irq:softirq_entry\n");
	T_ASSERT_STR(fake_cat(NULL, "instances/one/events/irq/enable"), "X\n");
	ENABLED("X", "1", "0", "1");
	T_ASSERT_OK(evt_tracefs_rmdir(NULL, "instances/one"));
	return T_PASS;
}
