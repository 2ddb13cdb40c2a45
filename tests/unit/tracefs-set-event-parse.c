// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-set-event-parse: every form of a set_event token, parsed and matched
 * as the kernel's ftrace_set_clr_event() does (tests/data/tracefs/set_event.txt
 * has what the kernel did with each).
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "tracefs/tfs_internal.h"

static const char *const evs[][2] = {
	{ "sched", "sched_switch" }, { "sched", "sched_wakeup" },
	{ "irq", "irq_handler_entry" }, { "irq", "softirq_entry" },
	{ "app", "sched" },	/* an event named like another system */
};
#define NR_EVS (sizeof(evs) / sizeof(evs[0]))

/* which of evs[] @tok selects, as a bit mask; -1 when it does not parse */
static int selects(const char *tok, bool *enable)
{
	struct tfs_event_spec spec;
	char buf[128];
	int mask = 0;

	snprintf(buf, sizeof(buf), "%s", tok);
	if (tfs_event_spec_parse(buf, &spec))
		return -1;
	for (size_t i = 0; i < NR_EVS; i++)
		if (tfs_event_spec_match(&spec, evs[i][0], evs[i][1]))
			mask |= 1 << i;
	if (enable)
		*enable = spec.enable;
	return mask;
}

struct words {
	char w[8][32];
	int n;
};

static int add_word(void *arg, char *word)
{
	struct words *ws = arg;

	if (ws->n == 8)
		return -E2BIG;
	snprintf(ws->w[ws->n++], 32, "%s", word);
	return 0;
}

int main(void)
{
	struct words ws = { 0 };
	bool en;

	T_ASSERT_EQ(selects("sched:sched_switch", &en), 0x01);
	T_ASSERT(en);
	T_ASSERT_EQ(selects("sched_wakeup", &en), 0x02);	/* bare event name */
	T_ASSERT_EQ(selects("!sched_wakeup", &en), 0x02);
	T_ASSERT(!en);
	T_ASSERT_EQ(selects("irq:*", NULL), 0x0c);
	T_ASSERT_EQ(selects("irq:", NULL), 0x0c);
	T_ASSERT_EQ(selects("irq", NULL), 0x0c);		/* bare system name */
	T_ASSERT_EQ(selects("sched", NULL), 0x13);		/* system sched + app:sched */
	T_ASSERT_EQ(selects("*:*", NULL), 0x1f);
	T_ASSERT_EQ(selects("*:", NULL), 0x1f);
	T_ASSERT_EQ(selects(":", NULL), 0x1f);
	T_ASSERT_EQ(selects(":*", NULL), 0x1f);
	T_ASSERT_EQ(selects("*:sched_switch", NULL), 0x01);
	T_ASSERT_EQ(selects(":sched_switch", NULL), 0x01);
	T_ASSERT_EQ(selects("!irq:*", &en), 0x0c);
	T_ASSERT(!en);
	/* no globs in names, no match for unknown names: the caller's -EINVAL */
	T_ASSERT_EQ(selects("sched:sched_sw*", NULL), 0);
	T_ASSERT_EQ(selects("nosuch:event", NULL), 0);
	T_ASSERT_EQ(selects("nosuchevent", NULL), 0);
	T_ASSERT_EQ(selects("#", NULL), 0);
	T_ASSERT_EQ(selects("*", NULL), 0);	/* a bare "*" is a name, as in the kernel */
	/* "sched:sched_switch:extra": the event part is "sched_switch:extra" */
	T_ASSERT_EQ(selects("sched:sched_switch:x", NULL), 0);
	T_ASSERT_EQ(selects("", NULL), -1);
	T_ASSERT_EQ(selects("!", NULL), -1);

	/* words: any whitespace, NULs too; a word over the limit is -EINVAL */
	T_ASSERT_EQ(tfs_for_each_word("  sched:sched_switch \n\n irq:softirq_entry\n", 41, 127,
				      add_word, &ws), 0);
	T_ASSERT_EQ(ws.n, 2);
	T_ASSERT(!strcmp(ws.w[0], "sched:sched_switch"));
	T_ASSERT(!strcmp(ws.w[1], "irq:softirq_entry"));
	ws.n = 0;
	T_ASSERT_EQ(tfs_for_each_word("a\0b\tc", 5, 127, add_word, &ws), 0);
	T_ASSERT_EQ(ws.n, 3);
	ws.n = 0;
	T_ASSERT_EQ(tfs_for_each_word("\n", 1, 127, add_word, &ws), 0);
	T_ASSERT_EQ(ws.n, 0);
	T_ASSERT_EQ(tfs_for_each_word("abcdef", 6, 5, add_word, &ws), -EINVAL);
	return T_PASS;
}
