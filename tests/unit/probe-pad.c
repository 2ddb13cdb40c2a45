// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-pad: functions built with a nop pad at their entry (the attribute form of
 * -fpatchable-function-entry=5,0: gcc pads with five 1-byte nops, clang with one 5-byte
 * nop) are patched at the pad: the jump replaces exactly the 5 pad bytes and nothing of
 * the function's own code is displaced; entry and return probes record their values;
 * removal puts the pad back byte for byte.
 */
#include "probe-util.h"

__attribute__((noinline, patchable_function_entry(5, 0))) long padded(long a, long b)
{
	long r = a * 3;

	asm volatile("" : "+r"(r));
	return r + b;
}

static bool all_nops(const uint8_t *p, size_t n)
{
	if (n == 5 && p[0] == 0x0f && p[1] == 0x1f) /* one 5-byte nop */
		return true;
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0x90)
			return false;
	return true;
}

int main(void)
{
	unsigned char before[32];
	const uint8_t *saved;
	uint64_t addr = 0;
	size_t n = 0;
	const char *t;

	probe_require();
	memcpy(before, (void *)padded, sizeof(before));
	T_ASSERT(all_nops(before, 5));
	probe_define("p:pad/ent padded a=%di:s64 b=%si:s64");
	probe_define("r:pad/ret padded ret=$retval:s64");

	/* the jump is exactly over the pad */
	saved = probe_site_bytes("pad", "ent", &addr, &n);
	T_ASSERT_EQ(addr, (uint64_t)(uintptr_t)padded);
	T_ASSERT_EQ(n, 5);
	T_ASSERT(all_nops(saved, n));
	T_ASSERT_EQ(((const uint8_t *)padded)[0], 0xe9);
	T_ASSERT(memcmp(before + 5, (const uint8_t *)padded + 5, sizeof(before) - 5) == 0);

	T_ECHO("1", "events/pad/enable");
	T_ASSERT_EQ(padded(5, -2), 13);
	T_ASSERT_EQ(padded(-4, 100), 88);
	T_ECHO("0", "events/pad/enable");
	t = cat("trace");
	T_ASSERT_HAS(t, "ent: (padded+0x0/0x");
	T_ASSERT_HAS(t, ") a=5 b=-2\n");
	T_ASSERT_HAS(t, ") a=-4 b=100\n");
	T_ASSERT_HAS(t, " <- padded) ret=13\n");
	T_ASSERT_HAS(t, " <- padded) ret=88\n");

	T_ECHO("-:pad/ent", "kprobe_events");
	T_ECHO("-:pad/ret", "kprobe_events");
	T_ASSERT(memcmp(before, (void *)padded, sizeof(before)) == 0);
	return 0;
}
