// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-fn: TRACE_EVENT_FN() and DEFINE_EVENT_FN(). reg runs once when the
 * first instance starts recording the event (enabled or soft mode), unreg
 * once when the last stops (disable, soft mode off, instance destroyed,
 * the event unregistered); a reg that fails makes the enabling fail with its
 * error and leaves the event off; a NULL unreg is skipped; TRACE_EVENT_FN_COND
 * keeps its condition; events without
 * callbacks and definitions of ABI 1 (which have none) never call them.
 */
#include <errno.h>

#include "events-gaps-tp.h"

#include "events-gaps-util.h"

static void expect_calls(int reg, int unreg, int line)
{
	if (gaps_reg_calls != reg || gaps_unreg_calls != unreg)
		t_fail("line %d: reg %d unreg %d, expected %d %d", line, gaps_reg_calls,
		       gaps_unreg_calls, reg, unreg);
}

#define CALLS(r, u) expect_calls((r), (u), __LINE__)

static uint8_t abi1_key;

int main(void)
{
	struct evt_instance *a = t_instance("fn-a"), *b = t_instance("fn-b");
	const char *text;

	CALLS(0, 0);
	T_ASSERT(!trace_gaps_fn_enabled());

	/* 0 -> 1 -> 2 -> 1 -> 0 instances */
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_fn", true), 1);
	CALLS(1, 0);
	T_ASSERT(trace_gaps_fn_enabled());
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_fn", true), 1);
	T_ASSERT_EQ(evt_instance_event_enable(b, "evgaps", "gaps_fn", true), 1);
	CALLS(1, 0);
	trace_gaps_fn(7);
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_fn", false), 1);
	CALLS(1, 0);
	T_ASSERT_EQ(evt_instance_event_enable(b, "evgaps", "gaps_fn", false), 1);
	CALLS(1, 1);
	T_ASSERT(!trace_gaps_fn_enabled());
	text = t_trace_text(a, -1);
	T_ASSERT(strstr(text, "gaps_fn: v=7"));

	/* soft mode records too (the triggers' events): reg; soft mode off: unreg */
	T_ASSERT_OK(evt_instance_event_soft(a, "evgaps", "gaps_fn", true, true));
	CALLS(2, 1);
	T_ASSERT_OK(evt_instance_event_enable(a, "evgaps", "gaps_fn", true) == 1 ? 0 : -1);
	T_ASSERT_OK(evt_instance_event_enable(a, "evgaps", "gaps_fn", false) == 1 ? 0 : -1);
	CALLS(2, 1);
	T_ASSERT_OK(evt_instance_event_soft(a, "evgaps", "gaps_fn", false, false));
	CALLS(2, 2);

	/* a failing reg: the error, the event stays off, nothing to unreg */
	gaps_reg_ret = -EPERM;
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_fn", true), -EPERM);
	CALLS(3, 2);
	T_ASSERT_EQ(evt_instance_event_state(a, "evgaps", "gaps_fn"), '0');
	T_ASSERT(!trace_gaps_fn_enabled());
	T_ASSERT_EQ(evt_instance_event_soft(a, "evgaps", "gaps_fn", true, false), -EPERM);
	CALLS(4, 2);
	/* a glob: the others are enabled and counted, the three with callbacks not */
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", NULL, true), 5);
	CALLS(7, 2);
	T_ASSERT_EQ(evt_instance_event_state(a, "evgaps", "gaps_fn"), '0');
	T_ASSERT_EQ(evt_instance_event_state(a, "evgaps", "gaps_fn2"), '0');
	T_ASSERT_EQ(evt_instance_event_state(a, "evgaps", "gaps_plain"), '1');
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", NULL, false), 8);
	CALLS(7, 2);
	gaps_reg_ret = 0;

	/* DEFINE_EVENT_FN with a NULL unreg; the class's plain event calls nothing */
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_fn2", true), 1);
	CALLS(8, 2);
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_fn2", false), 1);
	CALLS(8, 2);
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_plain", true), 1);
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_plain", false), 1);
	CALLS(8, 2);

	/* destroying the last instance that records it: unreg */
	T_ASSERT_EQ(evt_instance_event_enable(b, "evgaps", "gaps_fn", true), 1);
	CALLS(9, 2);
	T_ASSERT_OK(evt_instance_destroy(b));
	CALLS(9, 3);

	/* unregistering an enabled event (dlclose): unreg; registered again: off, no call */
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_fn", true), 1);
	CALLS(10, 3);
	evt_event_unregister(gaps_fn_def());
	CALLS(10, 4);
	T_ASSERT(!trace_gaps_fn_enabled());
	T_ASSERT(evt_event_register(gaps_fn_def()) >= 32);
	CALLS(10, 4);
	T_ASSERT_EQ(evt_instance_event_state(a, "evgaps", "gaps_fn"), '0');

	/* a definition of ABI 1 has no reg/unreg: whatever follows is not read */
	{
		static struct evt_event_def d = {
			.abi = 1,
			.size = sizeof(struct evt_trace_entry),
			.system = "evgaps",
			.name = "gaps_abi1",
			.print_fmt = "\"abi1\"",
			.key = &abi1_key,
			.reg = gaps_fn_reg,
			.unreg = gaps_fn_unreg,
		};

		T_ASSERT(evt_event_register(&d) >= 32);
		T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_abi1", true), 1);
		T_ASSERT_EQ(abi1_key, 1);
		T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_abi1", false), 1);
		evt_event_unregister(&d);
		CALLS(10, 4);
		d.abi = 3;
		T_ASSERT_EQ(evt_event_register(&d), -EINVAL);
	}
	/* TRACE_EVENT_FN_COND: the callbacks and the call site's condition */
	T_ASSERT_EQ(evt_instance_event_enable(a, "evgaps", "gaps_fn_cond", true), 1);
	CALLS(11, 4);
	trace_gaps_fn_cond(-5);
	trace_gaps_fn_cond(5);
	text = t_trace_text(a, -1);
	T_ASSERT(strstr(text, "gaps_fn_cond: v=5"));
	T_ASSERT(!strstr(text, "gaps_fn_cond: v=-5"));
	T_ASSERT_OK(evt_instance_destroy(a));
	CALLS(11, 5);
	return T_PASS;
}
