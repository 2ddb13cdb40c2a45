// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-fentry: functions built with `-pg -mfentry`, as kernels and some user-space
 * programs are, begin with a call of __fentry__ (see entry_len()), and with
 * `-mnop-mcount` added, with a 5-byte nop in its place (unit-probe-fentry-nop: this file
 * built with -DFENTRY_NOP -fno-pie, gcc only). The probe's jump replaces exactly that
 * instruction, nothing of the function's own code is displaced, __fentry__ is still
 * called once per call with the probe on (the call is relocated into the trampoline as a
 * push of its return address and a jump), entry and return probes record their values,
 * and removal puts the bytes back. CMake builds this file with -pg -mfentry; the link has
 * no -pg (no gmon.out).
 *
 * Our own __fentry__ (the program's definition wins over libc's) counts its calls and
 * keeps the address it returns to, which must be the probed function's byte 5.
 */
#include "probe-util.h"

#if defined(__x86_64__)

unsigned long fentry_calls;
uint64_t fentry_ret;

/* Called before the prologue, with the arguments live: touch only %r11 and the flags. */
asm(".text\n"
    ".globl __fentry__\n"
    ".type __fentry__, @function\n"
    "__fentry__:\n"
    "	movq (%rsp), %r11\n"
    "	movq %r11, fentry_ret(%rip)\n"
    "	lock incq fentry_calls(%rip)\n"
    "	ret\n"
    ".size __fentry__, .-__fentry__\n");

__attribute__((noinline)) long traced(long a, long b)
{
	long r = a * 7;

	asm volatile("" : "+r"(r));
	return r - b;
}

void __fentry__(void);

/*
 * The length of the instruction the compiler put at the entry: the nop of -mnop-mcount (5),
 * `call __fentry__` (5: clang, gcc without PIE), or gcc's PIE form `call
 * *__fentry__@GOTPCREL(%rip)` (6), which the linker relaxes to `addr32 call __fentry__` (6).
 */
static size_t entry_len(const uint8_t *p)
{
	uint64_t target, at = (uint64_t)(uintptr_t)p;
	int32_t rel;

#ifdef FENTRY_NOP
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	T_ASSERT(memcmp(p, nop5, 5) == 0);
	return 5;
#endif
	if (p[0] == 0xe8 || (p[0] == 0x67 && p[1] == 0xe8)) {
		size_t len = p[0] == 0xe8 ? 5 : 6;

		memcpy(&rel, p + len - 4, 4);
		T_ASSERT_EQ(at + len + (int64_t)rel, (uint64_t)(uintptr_t)__fentry__);
		return len;
	}
	T_ASSERT(p[0] == 0xff && p[1] == 0x15);
	memcpy(&rel, p + 2, 4);
	memcpy(&target, (const void *)(uintptr_t)(at + 6 + (int64_t)rel), 8);
	T_ASSERT_EQ(target, (uint64_t)(uintptr_t)__fentry__);
	return 6;
}

static size_t elen; /* of the entry's instruction */

/* One call of traced() through the probe: its value, and __fentry__ called (or not) once. */
static void call_once(long a, long b)
{
	unsigned long before = __atomic_load_n(&fentry_calls, __ATOMIC_RELAXED);

	fentry_ret = 0;
	T_ASSERT_EQ(traced(a, b), a * 7 - b);
#ifdef FENTRY_NOP
	T_ASSERT_EQ(__atomic_load_n(&fentry_calls, __ATOMIC_RELAXED), before);
#else
	T_ASSERT_EQ(__atomic_load_n(&fentry_calls, __ATOMIC_RELAXED), before + 1);
	T_ASSERT_EQ(fentry_ret, (uint64_t)(uintptr_t)traced + elen);
#endif
}

int main(void)
{
	unsigned char before[32];
	const uint8_t *saved;
	uint64_t addr = 0;
	size_t n = 0;
	const char *t;

	probe_require();
	memcpy(before, (void *)traced, sizeof(before));
	elen = entry_len((const uint8_t *)traced);
	call_once(1, 1);
	probe_define("p:fentry/ent traced a=%di:s64 b=%si:s64");
	probe_define("r:fentry/ret traced ret=$retval:s64");

	/* the jump is exactly over that instruction, the function's own code untouched */
	saved = probe_site_bytes("fentry", "ent", &addr, &n);
	T_ASSERT_EQ(addr, (uint64_t)(uintptr_t)traced);
	T_ASSERT_EQ(n, elen);
	T_ASSERT(memcmp(saved, before, elen) == 0);
	T_ASSERT_EQ(((const uint8_t *)traced)[0], 0xe9);
	T_ASSERT(memcmp(before + elen, (const uint8_t *)traced + elen, sizeof(before) - elen) == 0);

	call_once(2, 3); /* patched, disabled */
	T_ECHO("1", "events/fentry/enable");
	call_once(5, -2);
	call_once(-4, 100);
	T_ECHO("0", "events/fentry/enable");
	t = cat("trace");
	T_ASSERT_HAS(t, "ent: (traced+0x0/0x");
	T_ASSERT_HAS(t, ") a=5 b=-2\n");
	T_ASSERT_HAS(t, ") a=-4 b=100\n");
	T_ASSERT_HAS(t, " <- traced) ret=37\n");
	T_ASSERT_HAS(t, " <- traced) ret=-128\n");
	T_ASSERT_HASNT(t, "a=2 b=3");

	T_ECHO("-:fentry/ent", "kprobe_events");
	T_ECHO("-:fentry/ret", "kprobe_events");
	T_ASSERT(memcmp(before, (void *)traced, sizeof(before)) == 0);
	call_once(6, 1);
	return 0;
}

#else

int main(void)
{
	t_skip("-pg -mfentry is an x86-64 form");
}

#endif
