// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-entry: an entry probe on a function of the program (and a static one), through
 * kprobe_events and dynamic_events: the listing, the event's format, enable, the record in
 * `trace` in the kernel's layout, the default name p_SYM_0, the text byte-identical after
 * removal, removal refused while enabled, and no record once removed.
 */
#include "probe-util.h"

PROBE_TARGET_FUNCTIONS;

int main(void)
{
	unsigned char before[32], after[32];
	const char *t;

	probe_require();
	memcpy(before, (void *)compute, sizeof(before));
	T_ECHO("p:myprobe compute a=%di:s32 b=%si:u32", "kprobe_events");
	T_ASSERT_STR(cat("kprobe_events"), "p:kprobes/myprobe compute a=%di:s32 b=%si:u32\n");
	T_ASSERT(memcmp(before, (void *)compute, sizeof(before)) != 0);
	t = cat("events/kprobes/myprobe/format");
	T_ASSERT_HAS(t, "field:unsigned long __probe_ip;\toffset:12;\tsize:8;\tsigned:0;");
	T_ASSERT_HAS(t, "field:s32 a;\toffset:20;\tsize:4;\tsigned:1;");
	T_ASSERT_HAS(t, "field:u32 b;\toffset:24;\tsize:4;\tsigned:0;");
	T_ASSERT_HAS(t, "print fmt: \"(%lx) a=%d b=%u\", REC->__probe_ip, REC->a, REC->b");

	/* disabled: no record */
	T_ASSERT_EQ(compute(1, 2), 1 + 0 + (1 ^ 1) + 3);
	T_ECHO("1", "events/kprobes/myprobe/enable");
	T_ASSERT_EQ(compute(5, 10), compute(5, 10));
	t = cat("trace");
	T_ASSERT_HAS(t, "myprobe: (compute+0x0/0x");
	T_ASSERT_HAS(t, ") a=5 b=10\n");

	/* removal refused while enabled */
	T_ASSERT_EQ(echo("-:myprobe", "kprobe_events"), -EBUSY);
	T_ECHO("0", "events/kprobes/myprobe/enable");
	T_ECHO("-:kprobes/myprobe", "kprobe_events");
	memcpy(after, (void *)compute, sizeof(after));
	T_ASSERT(memcmp(before, after, sizeof(before)) == 0);
	T_ASSERT_STR(cat("kprobe_events"), "");

	/* a static function, default name, through dynamic_events; a string argument */
	memcpy(before, (void *)helper_static, sizeof(before));
	T_ECHO("p helper_static x=%di:s64 s=+0(%si):string", "dynamic_events");
	T_ASSERT_HAS(cat("dynamic_events"),
		     "p:kprobes/p_helper_static_0 helper_static x=%di:s64 s=+0(%si):string\n");
	trace_clear();
	T_ECHO("1", "events/kprobes/p_helper_static_0/enable");
	T_ASSERT_EQ(use_static(-7, "hello"), -7 + 15);
	t = cat("trace");
	T_ASSERT_HAS(t, "p_helper_static_0: (helper_static+0x0/0x");
	T_ASSERT_HAS(t, ") x=-7 s=\"hello\"\n");
	T_ECHO("0", "events/kprobes/p_helper_static_0/enable");
	T_ECHO("-:p_helper_static_0", "dynamic_events");
	T_ASSERT(memcmp(before, (void *)helper_static, sizeof(before)) == 0);
	trace_clear();
	use_static(1, "x");
	T_ASSERT_HASNT(cat("trace"), "p_helper_static_0");
	return 0;
}
