// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-api: the in-process API of events.rst 7.3 (evtrace/kprobe.h): a kprobe and a
 * kretprobe event built with evt_kprobe_event_cmd_init(), the gen_cmd_start calls and
 * evt_kprobe_event_add_fields(), created by the gen_cmd_end calls, enabled with
 * evt_trace_array_set_clr_event(), their records checked in `trace`, deleted with
 * evt_kprobe_event_delete() (refused while enabled) and the text byte-identical after;
 * errors: a symbol that does not exist, a buffer too small, a cmd of another type.
 */
#include <evtrace/kprobe.h>

#include "probe-util.h"

__attribute__((noinline)) int api_compute(int a, int b, const char *name)
{
	int r = 0;

	for (int i = 0; i < b; i++)
		r += a ^ i;
	asm volatile("" : "+r"(r));
	return r + a + b + (int)strlen(name);
}

static int expect(int a, int b, const char *name)
{
	int r = 0;

	for (int i = 0; i < b; i++)
		r += a ^ i;
	return r + a + b + (int)strlen(name);
}

static char buf[EVT_MAX_DYNEVENT_CMD_LEN];

static void create_probes(void)
{
	struct evt_dynevent_cmd cmd;

	/* the kprobe: two args at start, one (a string) added */
	evt_kprobe_event_cmd_init(&cmd, buf, sizeof(buf));
	T_ASSERT_OK(evt_kprobe_event_gen_cmd_start(&cmd, "gen_kprobe_test", "api_compute",
						   "a=%di:s32", "b=%si:u32"));
	T_ASSERT_OK(evt_kprobe_event_add_fields(&cmd, "name=+0(%dx):string"));
	/* each arg is " ARG" and its separator, a blank, as the kernel's dynevent_arg_add() */
	T_ASSERT_STR(buf, "p:kprobes/gen_kprobe_test api_compute  a=%di:s32  b=%si:u32  "
			  "name=+0(%dx):string ");
	if (evt_kprobe_event_gen_cmd_end(&cmd))
		t_fail("gen_cmd_end: %s", cat("error_log"));

	/* the kretprobe: $retval at start, nothing added */
	evt_kprobe_event_cmd_init(&cmd, buf, sizeof(buf));
	T_ASSERT_OK(evt_kretprobe_event_gen_cmd_start(&cmd, "gen_kretprobe_test", "api_compute",
						      "ret=$retval:s32"));
	if (evt_kretprobe_event_gen_cmd_end(&cmd))
		t_fail("kretprobe gen_cmd_end: %s", cat("error_log"));

	T_ASSERT_STR(cat("kprobe_events"),
		     "p:kprobes/gen_kprobe_test api_compute a=%di:s32 b=%si:u32 "
		     "name=+0(%dx):string\n"
		     "r:kprobes/gen_kretprobe_test api_compute ret=$retval:s32\n");
}

static void errors(void)
{
	struct evt_dynevent_cmd cmd;
	char small[36];

	/* a symbol that does not exist: refused at the end, with the kernel's message */
	evt_kprobe_event_cmd_init(&cmd, buf, sizeof(buf));
	T_ASSERT_OK(evt_kprobe_event_gen_cmd_start(&cmd, "bad_sym", "no_such_function_here",
						   "x=%di"));
	T_ASSERT_EQ(evt_kprobe_event_gen_cmd_end(&cmd), -ENOENT);
	T_ASSERT_HAS(cat("error_log"), "trace_kprobe: error: Invalid probed address or symbol");
	T_ASSERT_HAS(cat("error_log"), "Command: p:kprobes/bad_sym no_such_function_here x=%di");
	T_ASSERT_HASNT(cat("kprobe_events"), "bad_sym");

	/* a buffer too small: -E2BIG, and the end refuses to run what is there */
	evt_kprobe_event_cmd_init(&cmd, small, sizeof(small));
	T_ASSERT_OK(evt_kprobe_event_gen_cmd_start(&cmd, "small", "api_compute"));
	T_ASSERT_EQ(evt_kprobe_event_add_fields(&cmd, "a=%di:s32", "b=%si:u32"), -E2BIG);
	T_ASSERT_EQ(evt_kprobe_event_gen_cmd_end(&cmd), -E2BIG);
	T_ASSERT_HASNT(cat("kprobe_events"), "small");

	/* another type of cmd, a NULL location, a name too long */
	evt_synth_event_cmd_init(&cmd, buf, sizeof(buf));
	T_ASSERT_EQ(evt_kprobe_event_gen_cmd_start(&cmd, "x", "api_compute"), -EINVAL);
	T_ASSERT_EQ(evt_kprobe_event_add_fields(&cmd, "a=%di"), -EINVAL);
	T_ASSERT_EQ(evt_kprobe_event_gen_cmd_end(&cmd), -EINVAL);
	evt_kprobe_event_cmd_init(&cmd, buf, sizeof(buf));
	T_ASSERT_EQ(evt_kprobe_event_gen_cmd_start(&cmd, "x", NULL), -EINVAL);
	T_ASSERT_EQ(evt_kprobe_event_gen_cmd_start(&cmd, "a_name_of_sixty_four_bytes_is_too_long_"
							 "for_an_event_0123456789abcdef",
						   "api_compute"),
		    -EINVAL);

	/* deleting what is not there */
	T_ASSERT_EQ(evt_kprobe_event_delete("no_such_probe"), -ENOENT);
	T_ASSERT_EQ(evt_kprobe_event_delete(""), -EINVAL);
	T_ASSERT_EQ(evt_kprobe_event_delete(NULL), -EINVAL);
}

int main(void)
{
	unsigned char before[32];
	const char *t;

	probe_require();
	memcpy(before, (void *)api_compute, sizeof(before));
	create_probes();
	T_ASSERT(memcmp(before, (void *)api_compute, sizeof(before)) != 0);

	/* enabled: each call gives one entry and one return record with the values */
	T_ASSERT_OK(evt_trace_array_set_clr_event(NULL, "kprobes", "gen_kprobe_test", true));
	T_ASSERT_OK(evt_trace_array_set_clr_event(NULL, "kprobes", "gen_kretprobe_test", true));
	T_ASSERT_EQ(api_compute(5, 10, "hello"), expect(5, 10, "hello"));
	T_ASSERT_EQ(api_compute(-3, 2, "xy"), expect(-3, 2, "xy"));
	t = cat("trace");
	T_ASSERT_HAS(t, "gen_kprobe_test: (api_compute+0x0/0x");
	T_ASSERT_HAS(t, ") a=5 b=10 name=\"hello\"\n");
	T_ASSERT_HAS(t, ") a=-3 b=2 name=\"xy\"\n");
	T_ASSERT_HAS(t, "gen_kretprobe_test: (main+0x");
	{
		char want[64];

		snprintf(want, sizeof(want), " <- api_compute) ret=%d\n", expect(5, 10, "hello"));
		T_ASSERT_HAS(t, want);
		snprintf(want, sizeof(want), " <- api_compute) ret=%d\n", expect(-3, 2, "xy"));
		T_ASSERT_HAS(t, want);
	}

	/* deletion is refused while enabled, then restores the text */
	T_ASSERT_EQ(evt_kprobe_event_delete("gen_kprobe_test"), -EBUSY);
	T_ASSERT_OK(evt_trace_array_set_clr_event(NULL, "kprobes", "gen_kprobe_test", false));
	T_ASSERT_OK(evt_trace_array_set_clr_event(NULL, "kprobes", "gen_kretprobe_test", false));
	T_ASSERT_OK(evt_kprobe_event_delete("gen_kprobe_test"));
	T_ASSERT_OK(evt_kprobe_event_delete("kprobes/gen_kretprobe_test"));
	T_ASSERT_EQ(evt_kprobe_event_delete("gen_kprobe_test"), -ENOENT);
	T_ASSERT_STR(cat("kprobe_events"), "");
	T_ASSERT(memcmp(before, (void *)api_compute, sizeof(before)) == 0);

	errors();
	T_ASSERT(memcmp(before, (void *)api_compute, sizeof(before)) == 0);
	return 0;
}
