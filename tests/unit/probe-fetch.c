// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-fetch: every fetch-arg kind and type on one probe: registers, $argN (7th on the
 * stack), $stackN, $stack, $comm, @SYM+offs, immediates, nested +OFFS(...) derefs, u/s/x of
 * each width, char, string, ustring, symbol, symstr, bitfields, arrays; a bad pointer gives
 * the kernel's fault values (0, "(fault)") and no crash; a probe in a shared library
 * (LIB:SYMBOL, a displaced jmp relocated).
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <dlfcn.h>

#include "probe-util.h"

struct inner {
	uint32_t flags;
	char name[8];
};

struct outer {
	uint64_t id;
	struct inner *in;
	int16_t small[4];
};

long global_val = 0x1122334455667788;
/*
 * Through a pointer: glibc's headers inline atoi() into a strtol() call. main() points it at
 * libc's own atoi (dlsym RTLD_NEXT): under ASan/TSan the program's atoi is the sanitizer's
 * interceptor, which never calls libc's.
 */
int (*volatile atoi_p)(const char *) = atoi;

__attribute__((noinline)) long target(struct outer *o, const char *s, long c, long d, long e,
				      long f, long g)
{
	long r = o ? (long)o->id : 0;

	asm volatile("" : "+r"(r));
	return r + c + d + e + f + g + (s ? s[0] : 0);
}

static void expect(const char *def, const char *want)
{
	struct inner in = { 0xa5, "inner" };
	struct outer o = { 42, &in, { -1, 2, -3, 4 } };
	const char *t;

	trace_clear();
	if (echo(def, "kprobe_events") < 0)
		t_fail("%s:\n%s", def, cat("error_log"));
	T_ECHO("1", "events/kprobes/f/enable");
	target(&o, "str", 3, 4, 5, 6, 77);
	T_ECHO("0", "events/kprobes/f/enable");
	T_ECHO("-:f", "kprobe_events");
	t = cat("trace");
	if (!strstr(t, want))
		t_fail("%s: want \"%s\" in:\n%s", def, want, t);
}

int main(void)
{
	probe_require();
	expect("p:f target a=%di:x64 b=%si:u8 c=%dx:s32 d=%cx e=%r8:u16 f=%r9:s64",
	       ") a=0x");
	expect("p:f target c=%dx:s32 d=%cx:x16 e=%r8:u16 f=%r9:s64", ") c=3 d=0x4 e=5 f=6\n");
	expect("p:f target g=$arg7:s64 c=$arg3 +0($arg2):string", ") g=77 c=0x3 arg3=\"str\"\n");
	expect("p:f target r=$stack0:symbol sp=$stack", ") r=expect+0x");
	expect("p:f target id=+0(%di):u64 fl=+0(+8(%di)):x32 nm=+4(+8(%di)):string",
	       ") id=42 fl=0xa5 nm=\"inner\"\n");
	expect("p:f target sm=+16(%di):s16[4] ch=+4(+8(%di)):char",
	       ") sm={-1,2,-3,4} ch='i'\n");
	expect("p:f target bf=+0(+8(%di)):b4@4/32 bf2=+0(+8(%di)):b3@0/8",
	       ") bf=10 bf2=5\n");
	expect("p:f target gv=@global_val:x64 gv4=@global_val+4:x32",
	       ") gv=0x1122334455667788 gv4=0x11223344\n");
	expect("p:f target imm=\\1234 str=\\\"lit\" c=$comm", ") imm=0x4d2 str=\"lit\" c=\"probe-fetch\"\n");
	expect("p:f target u=+0(%si):ustring sy=%ip:symstr", ") u=\"str\" sy=\"target+0x0/0x");
	/* bad pointers: fault values, no crash */
	expect("p:f target z=+0(%cx):u64 zs=+0(%cx):string zz=+8(+0(%dx)):u32",
	       ") z=0 zs=(fault) zz=0\n");
	/* a probe in a shared library: atoi's first instruction(s) relocated */
	{
		void *real = dlsym(RTLD_NEXT, "atoi");

		if (real)
			atoi_p = (int (*)(const char *))real;
	}
	T_ECHO("p:f libc:atoi s=+0(%di):string", "kprobe_events");
	trace_clear();
	T_ECHO("1", "events/kprobes/f/enable");
	T_ASSERT_EQ(atoi_p("1234"), 1234);
	T_ASSERT_EQ(atoi_p("-5"), -5);
	T_ECHO("0", "events/kprobes/f/enable");
	T_ECHO("-:f", "kprobe_events");
	{
		const char *t = cat("trace");

		T_ASSERT_HAS(t, "f: (atoi+0x0/0x");
		T_ASSERT_HAS(t, ") s=\"1234\"\n");
		T_ASSERT_HAS(t, ") s=\"-5\"\n");
	}
	return 0;
}
