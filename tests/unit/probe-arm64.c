// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-arm64: probes on aarch64 (docs/probes.md "aarch64"; run under qemu-user by the cross
 * stage of make check): entry probes on a function of the program, a static one and one of
 * libc, with %xN, $argN, $stackN, %sp/%pc and derefs; a return probe with $retval (and one
 * through paciasp/autiasp, authenticated by qemu's PAC); x86 register names refused; a
 * probe after `bti c`, on a nop pad (the direct patch) and on functions whose first
 * instruction is relative to its address (ADRP, ADR, LDR/LDRSW/LDR q literal, B, BL,
 * B.cond, CBZ, TBNZ): their results unchanged with the probe on; a load exclusive refused;
 * the text byte-identical after each removal; threads calling a function while its probe is
 * added, enabled and removed. Elsewhere it skips.
 */
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include "probe-util.h"
#include "compat/atomic.h"

#if defined(__aarch64__)

PROBE_TARGET_FUNCTIONS;
int (*volatile use_atoi)(const char *) = atoi;

__attribute__((noinline, patchable_function_entry(1, 0))) long padded(long a, long b)
{
	asm volatile("" : "+r"(a));
	return a * 2 + b;
}

/* Functions whose first instruction is relative to its address (and a few others). */
long pc_adrp(void);
long pc_adr(void);
long pc_ldr_x(void);
long pc_ldr_w(void);
long pc_ldrsw(void);
long pc_ldr_q(void);
long pc_b(long x);
long pc_bl_wrap(long x);
long pc_bcond_wrap(long x);
long pc_cbz(long x);
long pc_tbnz(long x);
long pc_bti(long x);
long pc_pac(long x);
long pc_ldxr(long *p);

const long pc_data = 0x5eed1234abcdll;

__asm__(".text\n"
	".p2align 3\n"
	".globl pc_adrp\n.type pc_adrp, %function\n"
	"pc_adrp:\n"
	"	adrp x0, pc_data\n"
	"	add x0, x0, :lo12:pc_data\n"
	"	ldr x0, [x0]\n"
	"	ret\n"
	".size pc_adrp, .-pc_adrp\n"
	".globl pc_adr\n.type pc_adr, %function\n"
	"pc_adr:\n"
	"	adr x1, 1f\n"
	"	ldr x0, [x1]\n"
	"	ret\n"
	"	.p2align 3\n"
	"1:	.quad 0x1122334455667788\n"
	".size pc_adr, .-pc_adr\n"
	".globl pc_ldr_x\n.type pc_ldr_x, %function\n"
	"pc_ldr_x:\n"
	"	ldr x0, 1f\n"
	"	ret\n"
	"	.p2align 3\n"
	"1:	.quad 0x0fedcba987654321\n"
	".size pc_ldr_x, .-pc_ldr_x\n"
	".globl pc_ldr_w\n.type pc_ldr_w, %function\n"
	"pc_ldr_w:\n"
	"	ldr w0, 1f\n"
	"	ret\n"
	"1:	.word 0x89abcdef\n"
	".size pc_ldr_w, .-pc_ldr_w\n"
	".globl pc_ldrsw\n.type pc_ldrsw, %function\n"
	"pc_ldrsw:\n"
	"	ldrsw x0, 1f\n"
	"	ret\n"
	"1:	.word 0x89abcdef\n"
	".size pc_ldrsw, .-pc_ldrsw\n"
	".globl pc_ldr_q\n.type pc_ldr_q, %function\n"
	"pc_ldr_q:\n"
	"	ldr q0, 1f\n"
	"	mov x0, v0.d[1]\n"
	"	ret\n"
	"	.p2align 4\n"
	"1:	.quad 0x1111, 0x7777\n"
	".size pc_ldr_q, .-pc_ldr_q\n"
	".globl pc_b\n.type pc_b, %function\n"
	"pc_b:\n"
	"	b 1f\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	add x0, x0, #100\n"
	"	ret\n"
	".size pc_b, .-pc_b\n"
	/* pc_bl is branched to with its return address in x10 (its BL overwrites x30) */
	".globl pc_add1\n.type pc_add1, %function\n"
	"pc_add1:\n"
	"	add x0, x0, #1\n"
	"	ret\n"
	".size pc_add1, .-pc_add1\n"
	".globl pc_bl\n.type pc_bl, %function\n"
	"pc_bl:\n"
	"	bl pc_add1\n"
	"	add x0, x0, #10\n"
	"	br x10\n"
	".size pc_bl, .-pc_bl\n"
	".globl pc_bl_wrap\n.type pc_bl_wrap, %function\n"
	"pc_bl_wrap:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	adr x10, 1f\n"
	"	b pc_bl\n"
	"1:	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size pc_bl_wrap, .-pc_bl_wrap\n"
	/* pc_bcond's first instruction tests the flags its caller set */
	".globl pc_bcond\n.type pc_bcond, %function\n"
	"pc_bcond:\n"
	"	b.lt 1f\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	mov x0, #2\n"
	"	ret\n"
	".size pc_bcond, .-pc_bcond\n"
	".globl pc_bcond_wrap\n.type pc_bcond_wrap, %function\n"
	"pc_bcond_wrap:\n"
	"	cmp x0, #5\n"
	"	b pc_bcond\n"
	".size pc_bcond_wrap, .-pc_bcond_wrap\n"
	".globl pc_cbz\n.type pc_cbz, %function\n"
	"pc_cbz:\n"
	"	cbz x0, 1f\n"
	"	mov x0, #7\n"
	"	ret\n"
	"1:	mov x0, #9\n"
	"	ret\n"
	".size pc_cbz, .-pc_cbz\n"
	".globl pc_tbnz\n.type pc_tbnz, %function\n"
	"pc_tbnz:\n"
	"	tbnz x0, #3, 1f\n"
	"	mov x0, #3\n"
	"	ret\n"
	"1:	mov x0, #4\n"
	"	ret\n"
	".size pc_tbnz, .-pc_tbnz\n"
	".globl pc_bti\n.type pc_bti, %function\n"
	"pc_bti:\n"
	"	hint #34\n" /* bti c */
	"	add x0, x0, #42\n"
	"	ret\n"
	".size pc_bti, .-pc_bti\n"
	".globl pc_pac\n.type pc_pac, %function\n"
	"pc_pac:\n"
	"	hint #25\n" /* paciasp: signs x30 with sp */
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	bl pc_add1\n"
	"	ldp x29, x30, [sp], #16\n"
	"	hint #29\n" /* autiasp */
	"	ret\n"
	".size pc_pac, .-pc_pac\n"
	".globl pc_ldxr\n.type pc_ldxr, %function\n"
	"pc_ldxr:\n"
	"1:	ldxr x1, [x0]\n"
	"	add x1, x1, #1\n"
	"	stxr w2, x1, [x0]\n"
	"	cbnz w2, 1b\n"
	"	mov x0, x1\n"
	"	ret\n"
	".size pc_ldxr, .-pc_ldxr\n");

static void probe_on(const char *def, const char *group_event)
{
	char path[256];

	if (echo(def, "kprobe_events") < 0)
		t_fail("%s: %s", def, cat("error_log"));
	snprintf(path, sizeof(path), "events/%s/enable", group_event);
	T_ECHO("1", path);
}

static void probe_off(const char *group_event)
{
	char path[256], del[256];

	snprintf(path, sizeof(path), "events/%s/enable", group_event);
	T_ECHO("0", path);
	snprintf(del, sizeof(del), "-:%s", group_event);
	T_ECHO(del, "kprobe_events");
}

/* A function's result with and without a probe on its first instruction; the text back. */
#define CHECK_PC(fn, arg, name)                                                                    \
	do {                                                                                       \
		unsigned char b_[16];                                                              \
		long want_ = fn(arg);                                                              \
                                                                                                   \
		memcpy(b_, (void *)fn, sizeof(b_));                                                \
		trace_clear();                                                                     \
		probe_on("p:pc/" name " " #fn " x=%x0:x64", "pc/" name);                         \
		T_ASSERT(memcmp(b_, (void *)fn, 4) != 0);                                         \
		T_ASSERT_EQ(fn(arg), want_);                                                      \
		T_ASSERT_HAS(cat("trace"), name ": (" #fn "+0x0/0x");                             \
		probe_off("pc/" name);                                                            \
		T_ASSERT(memcmp(b_, (void *)fn, sizeof(b_)) == 0);                                \
	} while (0)

static long nothing(long x)
{
	(void)x;
	return 0;
}

/*
 * Derefs read memory with process_vm_readv(), which qemu-user does not emulate (ENOSYS): there
 * the records hold the fault values, checked instead (on hardware, the values).
 */
static bool vm_readv_works(void)
{
	char src = 'x', dst = 0;
	struct iovec l = { &dst, 1 }, r = { &src, 1 };

	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == 1 && dst == 'x';
}

static volatile int stop;

static void *hitter(void *arg)
{
	long bad = 0;

	(void)arg;
	while (!ld_relaxed(&stop))
		bad += compute(3, 4) != (3 ^ 0) + (3 ^ 1) + (3 ^ 2) + (3 ^ 3) + 3 + 4;
	return (void *)bad;
}

static void entry_probes(void)
{
	unsigned char before[32];
	const char *t;

	/* a function of the program: registers, $argN, %sp, %pc, $stackN */
	memcpy(before, (void *)compute, sizeof(before));
	probe_on("p:arm/ent compute a=%x0:s32 b=%x1:u32 c=$arg2:s32 pc=%pc sp=%sp s0=$stack0",
		 "arm/ent");
	T_ASSERT_EQ(compute(5, 10), 5 + 10 + (5 ^ 0) + (5 ^ 1) + (5 ^ 2) + (5 ^ 3) + (5 ^ 4) +
					    (5 ^ 5) + (5 ^ 6) + (5 ^ 7) + (5 ^ 8) + (5 ^ 9));
	t = cat("trace");
	T_ASSERT_HAS(t, "ent: (compute+0x0/0x");
	T_ASSERT_HAS(t, ") a=5 b=10 c=10 pc=0x");
	probe_off("arm/ent");
	T_ASSERT(memcmp(before, (void *)compute, sizeof(before)) == 0);

	/* a static function, a string deref */
	memcpy(before, (void *)helper_static, sizeof(before));
	trace_clear();
	probe_on("p:arm/st helper_static x=$arg1:s64 s=+0(%x1):string c=+1(%x1):u8", "arm/st");
	T_ASSERT_EQ(use_static(-7, "hello"), -7 + 15);
	T_ASSERT_HAS(cat("trace"), "st: (helper_static+0x0/0x");
	T_ASSERT_HAS(cat("trace"), vm_readv_works() ? ") x=-7 s=\"hello\" c=101\n" :
						      ") x=-7 s=(fault) c=0\n");
	probe_off("arm/st");
	T_ASSERT(memcmp(before, (void *)helper_static, sizeof(before)) == 0);

	/* a function of a shared library */
	memcpy(before, (void *)use_atoi, sizeof(before));
	trace_clear();
	probe_on("p:arm/lib libc:atoi s=+0(%x0):string", "arm/lib");
	T_ASSERT_EQ(use_atoi("1234"), 1234);
	T_ASSERT_HAS(cat("trace"), "lib: (atoi+0x0/0x");
	T_ASSERT_HAS(cat("trace"), vm_readv_works() ? ") s=\"1234\"\n" : ") s=(fault)\n");
	probe_off("arm/lib");
	T_ASSERT(memcmp(before, (void *)use_atoi, sizeof(before)) == 0);

	/* a nop pad: nop -> b is a direct patch (both in the ARM ARM's list) */
	memcpy(before, (void *)padded, sizeof(before));
	T_ASSERT_EQ(*(const uint32_t *)before, 0xd503201fu);
	trace_clear();
	probe_on("p:arm/pad padded a=%x0:s64 b=%x1:s64", "arm/pad");
	T_ASSERT_EQ(*(const uint32_t *)(void *)padded >> 26, 0x05u); /* b */
	T_ASSERT_EQ(padded(5, -2), 8);
	T_ASSERT_HAS(cat("trace"), ") a=5 b=-2\n");
	probe_off("arm/pad");
	T_ASSERT(memcmp(before, (void *)padded, sizeof(before)) == 0);
}

static void return_probes(void)
{
	unsigned char before[32];
	const char *t;

	memcpy(before, (void *)compute, sizeof(before));
	trace_clear();
	probe_on("r:arm/ret compute ret=$retval:s32 r0=%x0:s32", "arm/ret");
	T_ASSERT_EQ(compute(2, 3), 2 + 3 + (2 ^ 0) + (2 ^ 1) + (2 ^ 2));
	T_ASSERT_EQ(probe_shadow_depth(), 0);
	t = cat("trace");
	T_ASSERT_HAS(t, " <- compute) ret=10 r0=10\n");
	probe_off("arm/ret");
	T_ASSERT(memcmp(before, (void *)compute, sizeof(before)) == 0);

	/* paciasp displaced: the hijack happens before it signs x30, so it signs the return
	 * trampoline's address, and autiasp accepts it */
	trace_clear();
	probe_on("r:arm/pac pc_pac ret=$retval:s64", "arm/pac");
	T_ASSERT_EQ(pc_pac(41), 42);
	T_ASSERT_HAS(cat("trace"), " <- pc_pac) ret=42\n");
	probe_off("arm/pac");
}

static void refused(void)
{
	long v = 5;

	/* another architecture's register names, as the kernel says */
	T_ASSERT_EQ(echo("p:arm/bad compute a=%di", "kprobe_events"), -EINVAL);
	T_ASSERT_HAS(cat("error_log"), "Invalid register name");
	T_ASSERT_EQ(echo("p:arm/bad compute a=%ip", "kprobe_events"), -EINVAL);
	T_ASSERT_EQ(echo("p:arm/bad compute a=%x31", "kprobe_events"), -EINVAL);
	/* an LL/SC loop */
	T_ASSERT_EQ(echo("p:arm/bad pc_ldxr", "kprobe_events"), -EINVAL);
	T_ASSERT_HAS(cat("error_log"), "load/store exclusive");
	/* not an instruction boundary */
	T_ASSERT_EQ(echo("p:arm/bad compute+2", "kprobe_events"), -EINVAL);
	T_ASSERT_HAS(cat("error_log"), "Probe point is not an instruction boundary");
	T_ASSERT_STR(cat("kprobe_events"), "");
	T_ASSERT_EQ(pc_ldxr(&v), 6);
}

static void pc_relative(void)
{
	unsigned char b[8];
	uint64_t addr;

	CHECK_PC(pc_adrp, , "adrp");
	T_ASSERT_EQ(pc_adrp(), pc_data);
	CHECK_PC(pc_adr, , "adr");
	CHECK_PC(pc_ldr_x, , "ldrx");
	CHECK_PC(pc_ldr_w, , "ldrw");
	T_ASSERT_EQ(pc_ldr_w(), 0x89abcdefl);
	CHECK_PC(pc_ldrsw, , "ldrsw");
	T_ASSERT_EQ(pc_ldrsw(), (long)(int32_t)0x89abcdef);
	CHECK_PC(pc_ldr_q, , "ldrq");
	T_ASSERT_EQ(pc_ldr_q(), 0x7777);
	CHECK_PC(pc_b, 5, "b");
	T_ASSERT_EQ(pc_b(5), 105);
	CHECK_PC(pc_bl_wrap, 5, "blw");
	T_ASSERT_EQ(pc_bl_wrap(5), 16);
	CHECK_PC(pc_cbz, 0, "cbz0");
	CHECK_PC(pc_cbz, 1, "cbz1");
	CHECK_PC(pc_tbnz, 8, "tbnz8");
	CHECK_PC(pc_tbnz, 7, "tbnz7");
	T_ASSERT_EQ(pc_tbnz(8), 4);

	/* pc_bl itself (BL first) and pc_bcond (B.cond first: the flags survive the handler) */
	memcpy(b, (void *)pc_bcond_wrap, sizeof(b));
	probe_on("p:pc/bl pc_bl", "pc/bl");
	probe_on("p:pc/bc pc_bcond", "pc/bc");
	T_ASSERT_EQ(pc_bl_wrap(5), 16);
	T_ASSERT_EQ(pc_bcond_wrap(3), 2);
	T_ASSERT_EQ(pc_bcond_wrap(9), 1);
	T_ASSERT_HAS(cat("trace"), "bl: (pc_bl+0x0/0x");
	T_ASSERT_HAS(cat("trace"), "bc: (pc_bcond+0x0/0x");
	probe_off("pc/bl");
	probe_off("pc/bc");
	T_ASSERT(memcmp(b, (void *)pc_bcond_wrap, sizeof(b)) == 0);

	/* after `bti c`: the landing pad stays */
	memcpy(b, (void *)pc_bti, sizeof(b));
	probe_on("p:pc/bti pc_bti x=%x0", "pc/bti");
	event_lock();
	T_ASSERT(probe_site_of_locked("pc", "bti", &addr) != NULL);
	event_unlock();
	T_ASSERT_EQ(addr, (uint64_t)(uintptr_t)pc_bti + 4);
	T_ASSERT(memcmp(b, (void *)pc_bti, 4) == 0);
	T_ASSERT_EQ(pc_bti(1), 43);
	T_ASSERT_HAS(cat("trace"), "bti: (pc_bti+0x4/0x");
	probe_off("pc/bti");
	T_ASSERT(memcmp(b, (void *)pc_bti, sizeof(b)) == 0);
	(void)nothing;
}

/* Threads call compute() while its probe is added, enabled, disabled and removed. */
static void threads(void)
{
	pthread_t th[2];
	unsigned char before[16];
	void *bad;

	memcpy(before, (void *)compute, sizeof(before));
	for (int i = 0; i < 2; i++)
		T_ASSERT_EQ(pthread_create(&th[i], NULL, hitter, NULL), 0);
	for (int round = 0; round < 20; round++) {
		probe_on(round & 1 ? "r:arm/mt compute ret=$retval" : "p:arm/mt compute a=%x0",
			 "arm/mt");
		probe_off("arm/mt");
		T_ASSERT(memcmp(before, (void *)compute, sizeof(before)) == 0);
	}
	st_relaxed(&stop, 1);
	for (int i = 0; i < 2; i++) {
		T_ASSERT_EQ(pthread_join(th[i], &bad), 0);
		T_ASSERT(bad == NULL);
	}
}

int main(void)
{
	probe_require();
	entry_probes();
	return_probes();
	refused();
	pc_relative();
	threads();
	return 0;
}

#else

int main(void)
{
	t_skip("aarch64 only (the cross stage runs it under qemu-user)");
}

#endif
