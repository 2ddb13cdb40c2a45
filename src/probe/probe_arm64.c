// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_arm64.c - the probe mechanism's aarch64 instructions
 * (probe_arch.h, docs/probes.md "aarch64").
 *
 * A probe site is ONE instruction, `B trampoline` (imm26: +-128 MiB; the
 * trampoline page is mapped within reach, else the probe is refused), over
 * the instruction at the probed address (after a `bti` landing pad):
 *
 *   entry:  sub sp, sp, #800; stp x0..x29; str x30; sp, pc, nzcv, fpsr, fpcr;
 *           stp q0..q31                        -> struct probe_regs
 *           ldr x0, =site; mov x1, sp; ldr x16, =probe_site_entry; blr x16
 *           restore q, fpcr, fpsr, nzcv, x0..x30; add sp, sp, #800
 *   skip:   the displaced instruction, relocated (below)
 *           b <probed address + 4>
 *   (a literal pool at the end of the page)
 *
 * AArch64 has no red zone (AAPCS64 on Linux): the registers go right below sp.
 *
 * Instructions are fixed-width (4 bytes, aligned): there is no length to
 * decode, and the PC-relative ones are a closed list of encoding classes
 * (ARM ARM C4.1, "A64 instruction set encoding"), matched here by mask:
 *   B, BL                  re-aimed from the trampoline (BL: x30 = original pc + 4)
 *   B.cond, CBZ/CBNZ,      the condition kept, aimed 2 instructions on, where a
 *   TBZ/TBNZ               `b target` follows a `b back`
 *   ADR, ADRP              `ldr Xd, =the address they compute`
 *   LDR/LDRSW literal      `ldr Xt, =address; ldr Wt/Xt/ldrsw Xt, [Xt]`
 *   LDR (SIMD) literal     through x16, saved and restored around it
 *   PRFM literal           dropped (a hint)
 * Refused: a load/store exclusive (LDXR/STXR...: the handler between the two
 * halves of an LL/SC loop would make it fail forever), a probe address not
 * 4-aligned, and a branch target out of reach of the trampoline.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "probe/probe_arch.h"

#ifdef PROBE_ARCH_ARM64

#define FRAME	   800 /* sizeof(struct probe_regs) */
#define LIT_BASE   3584 /* the literal pool: the last 512 bytes of the page */
#define LIT_MAX	   ((PROBE_TRAMP_SIZE - LIT_BASE) / 8)

_Static_assert(sizeof(struct probe_regs) == FRAME, "struct probe_regs is the trampoline's frame");

/* brk #0xe14 ("evtrace"): never written (POKE_DIRECT / POKE_STOP), but a breakpoint exists */
const uint8_t arch_brk[ARCH_BRK_LEN] = { 0x80, 0xc2, 0x21, 0xd4 };

#define INSN_NOP 0xd503201fu

struct emit {
	uint32_t *code; /* the page */
	unsigned int n;	/* instructions emitted */
	unsigned int nlit;
	uint64_t at;	/* the address of code[0] */
	bool full;
};

static void put(struct emit *e, uint32_t insn)
{
	if ((e->n + 1) * 4 > LIT_BASE) {
		e->full = true;
		return;
	}
	e->code[e->n++] = insn;
}

static uint64_t here(const struct emit *e)
{
	return e->at + (uint64_t)e->n * 4;
}

/* ldr Xt, =@v (a literal of the pool). */
static void put_ldr_lit(struct emit *e, unsigned int rt, uint64_t v)
{
	uint64_t lit = e->at + LIT_BASE + (uint64_t)e->nlit * 8;

	if (e->nlit == LIT_MAX) {
		e->full = true;
		return;
	}
	memcpy((uint8_t *)e->code + LIT_BASE + e->nlit * 8, &v, 8);
	e->nlit++;
	/* LDR (literal), 64-bit: imm19 words from this instruction */
	put(e, 0x58000000u | (uint32_t)(((lit - here(e)) >> 2) & 0x7ffff) << 5 | rt);
}

static bool b_reach(int64_t d)
{
	return d >= -(1ll << 27) && d < (1ll << 27);
}

/* b @target; false if out of reach. */
static bool put_b(struct emit *e, uint64_t target)
{
	int64_t d = (int64_t)(target - here(e));

	if (!b_reach(d))
		return false;
	put(e, 0x14000000u | ((uint32_t)(d >> 2) & 0x3ffffff));
	return true;
}

/* Save everything as a struct probe_regs at sp (sp, pc: @pc), lowest address first. */
static void put_save(struct emit *e, uint64_t pc)
{
	put(e, 0xd1000000u | FRAME << 10 | 31 << 5 | 31); /* sub sp, sp, #FRAME */
	for (unsigned int i = 0; i < 30; i += 2)	   /* stp xi, xi+1, [sp, #8i] */
		put(e, 0xa9000000u | i << 15 | (i + 1) << 10 | 31 << 5 | i);
	put(e, 0xf9000000u | 30 << 10 | 31 << 5 | 30);	   /* str x30, [sp, #240] */
	put(e, 0x91000000u | FRAME << 10 | 31 << 5 | 0);   /* add x0, sp, #FRAME */
	put(e, 0xf9000000u | 31 << 10 | 31 << 5 | 0);	   /* str x0, [sp, #248]: sp */
	put_ldr_lit(e, 0, pc);
	put(e, 0xf9000000u | 32 << 10 | 31 << 5 | 0);	   /* str x0, [sp, #256]: pc */
	put(e, 0xd53b4200u);				   /* mrs x0, nzcv */
	put(e, 0xf9000000u | 33 << 10 | 31 << 5 | 0);	   /* str x0, [sp, #264] */
	put(e, 0xd53b4420u);				   /* mrs x0, fpsr */
	put(e, 0xf9000000u | 34 << 10 | 31 << 5 | 0);	   /* str x0, [sp, #272] */
	put(e, 0xd53b4400u);				   /* mrs x0, fpcr */
	put(e, 0xf9000000u | 35 << 10 | 31 << 5 | 0);	   /* str x0, [sp, #280] */
	for (unsigned int i = 0; i < 32; i += 2)	   /* stp qi, qi+1, [sp, #288 + 16i] */
		put(e, 0xad000000u | (18 + i) << 15 | (i + 1) << 10 | 31 << 5 | i);
}

/* The reverse of put_save() (sp and pc are not written back). */
static void put_restore(struct emit *e)
{
	for (unsigned int i = 0; i < 32; i += 2)	   /* ldp qi, qi+1, [sp, #288 + 16i] */
		put(e, 0xad400000u | (18 + i) << 15 | (i + 1) << 10 | 31 << 5 | i);
	put(e, 0xf9400000u | 35 << 10 | 31 << 5 | 0);	   /* ldr x0, [sp, #280] */
	put(e, 0xd51b4400u);				   /* msr fpcr, x0 */
	put(e, 0xf9400000u | 34 << 10 | 31 << 5 | 0);
	put(e, 0xd51b4420u);				   /* msr fpsr, x0 */
	put(e, 0xf9400000u | 33 << 10 | 31 << 5 | 0);
	put(e, 0xd51b4200u);				   /* msr nzcv, x0 */
	for (unsigned int i = 0; i < 30; i += 2)	   /* ldp xi, xi+1, [sp, #8i] */
		put(e, 0xa9400000u | i << 15 | (i + 1) << 10 | 31 << 5 | i);
	put(e, 0xf9400000u | 30 << 10 | 31 << 5 | 30);	   /* ldr x30, [sp, #240] */
	put(e, 0x91000000u | FRAME << 10 | 31 << 5 | 31);  /* add sp, sp, #FRAME */
}

/* --- the displaced instruction ---------------------------------------------------------- */

static int64_t sext(uint64_t v, unsigned int bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static bool is_b(uint32_t i)
{
	return (i & 0x7c000000u) == 0x14000000u; /* B, BL (bit 31) */
}

static bool is_bcond(uint32_t i)
{
	return (i & 0xff000010u) == 0x54000000u;
}

static bool is_cb(uint32_t i)
{
	return (i & 0x7e000000u) == 0x34000000u; /* CBZ, CBNZ */
}

static bool is_tb(uint32_t i)
{
	return (i & 0x7e000000u) == 0x36000000u; /* TBZ, TBNZ */
}

static bool is_adr(uint32_t i)
{
	return (i & 0x1f000000u) == 0x10000000u; /* ADR, ADRP (bit 31) */
}

static bool is_ldr_lit(uint32_t i)
{
	return (i & 0x3b000000u) == 0x18000000u; /* LDR/LDRSW/PRFM literal, LDR (SIMD) literal */
}

static bool is_exclusive(uint32_t i)
{
	return (i & 0x3f800000u) == 0x08000000u; /* LDXR, STXR, LDAXR, STLXR, LDXP, STXP... */
}

static bool is_bti(uint32_t i)
{
	return (i & 0xffffff3fu) == 0xd503241fu; /* bti, bti c, bti j, bti jc */
}

/* Whether the ARM ARM lets @i be modified while another CPU may run it (B2.2.5). */
static bool is_cmodx(uint32_t i)
{
	return (i & 0x7c000000u) == 0x14000000u || /* B, BL */
	       i == INSN_NOP || i == 0xd5033fdfu || /* NOP, ISB */
	       (i & 0xffe0001fu) == 0xd4200000u || /* BRK */
	       (i & 0xffe0001fu) == 0xd4000001u;   /* SVC */
}

/* The displaced instruction @i, run at @from, into @e; then back to @from + 4. */
static int relocate(struct emit *e, uint32_t i, uint64_t from, const char **why)
{
	uint64_t back = from + 4, target;
	unsigned int rt = i & 31;

	if (is_b(i)) {
		target = from + (uint64_t)(sext(i & 0x3ffffff, 26) * 4);
		if (i & 0x80000000u) /* BL: the callee returns to the original code */
			put_ldr_lit(e, 30, back);
		goto branch;
	}
	if (is_bcond(i) || is_cb(i) || is_tb(i)) {
		/* the same test, aimed at the `b target` two instructions on */
		if (is_tb(i)) {
			target = from + (uint64_t)(sext((i >> 5) & 0x3fff, 14) * 4);
			put(e, (i & ~(0x3fffu << 5)) | 2u << 5);
		} else {
			target = from + (uint64_t)(sext((i >> 5) & 0x7ffff, 19) * 4);
			put(e, (i & ~(0x7ffffu << 5)) | 2u << 5);
		}
		if (!put_b(e, back))
			goto far;
		goto branch;
	}
	if (is_adr(i)) {
		int64_t imm = sext(((i >> 5) & 0x7ffff) << 2 | ((i >> 29) & 3), 21);

		if (i & 0x80000000u) /* ADRP: pages from this one's */
			put_ldr_lit(e, rt, (from & ~0xfffull) + (uint64_t)(imm * 4096));
		else
			put_ldr_lit(e, rt, from + (uint64_t)imm);
	} else if (is_ldr_lit(i)) {
		unsigned int opc = i >> 30;
		uint64_t addr = from + (uint64_t)(sext((i >> 5) & 0x7ffff, 19) * 4);

		if (!(i & 0x04000000u)) { /* general registers */
			static const uint32_t ld[3] = {
				0xb9400000u, /* ldr Wt, [Xt] */
				0xf9400000u, /* ldr Xt, [Xt] */
				0xb9800000u, /* ldrsw Xt, [Xt] */
			};

			if (opc < 3) { /* opc 3: PRFM, a hint: dropped */
				put_ldr_lit(e, rt, addr);
				put(e, ld[opc] | rt << 5 | rt);
			}
		} else if (opc < 3) { /* St, Dt, Qt through x16 (x17 pairs it, kept) */
			static const uint32_t ld[3] = { 0xbd400000u, 0xfd400000u, 0x3dc00000u };

			put(e, 0xa9bf47f0u); /* stp x16, x17, [sp, #-16]! */
			put_ldr_lit(e, 16, addr);
			put(e, ld[opc] | 16 << 5 | rt);
			put(e, 0xa8c147f0u); /* ldp x16, x17, [sp], #16 */
		} else {
			*why = "an instruction relative to its address that cannot be relocated";
			return -EINVAL;
		}
	} else {
		put(e, i); /* not relative to its address: as it is */
	}
	target = back;
branch:
	if (put_b(e, target))
		return 0;
far:
	*why = "a branch target out of reach of the trampoline";
	return -EINVAL;
}

/* --- the interface of probe_arch.h ------------------------------------------------------- */

static uint32_t insn_at(uint64_t addr)
{
	uint32_t i;

	memcpy(&i, (const void *)(uintptr_t)addr, 4);
	return i;
}

int arch_site_measure(uint64_t *addr, uint64_t func, uint64_t size, unsigned int *len,
		      const char **why)
{
	uint64_t end = size ? func + size : 0;

	if ((*addr & 3) || (func & 3)) {
		*why = "Probe point is not an instruction boundary";
		return -EILSEQ;
	}
	if (is_bti(insn_at(*addr)) && (!end || *addr + 8 <= end))
		*addr += 4; /* indirect branches land on the bti: the branch goes after it */
	if (end && *addr + 4 > end) {
		*why = "the function is too short to patch";
		return -EINVAL;
	}
	if (is_exclusive(insn_at(*addr))) {
		*why = "a load/store exclusive (its LL/SC loop would never complete)";
		return -EINVAL;
	}
	*len = 4;
	return 0;
}

int arch_tramp_build(struct probe_site *site, uint64_t entry, const char **why)
{
	struct emit e = { (uint32_t *)(void *)site->tramp, 0, 0, (uint64_t)(uintptr_t)site->tramp,
			  false };
	uint32_t i;
	int ret;

	put_save(&e, site->addr);
	put_ldr_lit(&e, 0, (uint64_t)(uintptr_t)site);
	put(&e, 0x910003e1u); /* mov x1, sp */
	put_ldr_lit(&e, 16, entry);
	put(&e, 0xd63f0200u); /* blr x16 */
	put_restore(&e);
	site->skip = here(&e);
	site->map[0] = (uint16_t)(e.n * 4);
	memcpy(&i, site->saved, 4);
	ret = relocate(&e, i, site->addr, why);
	if (ret)
		return ret;
	if (e.full) {
		*why = "the trampoline does not fit";
		return -EINVAL;
	}
	return 0;
}

void arch_patch_bytes(const struct probe_site *site, uint8_t *out)
{
	int64_t d = (int64_t)((uint64_t)(uintptr_t)site->tramp - site->addr);
	uint32_t b = 0x14000000u | ((uint32_t)(d >> 2) & 0x3ffffff); /* in reach: tramp_alloc */

	memcpy(out, &b, 4);
}

bool arch_is_patch(uint64_t addr)
{
	return (insn_at(addr) & 0xfc000000u) == 0x14000000u; /* b */
}

enum probe_poke arch_poke_plan(const uint8_t *old, const uint8_t *new, unsigned int n)
{
	uint32_t o, w;

	if (n != 4)
		return POKE_STOP;
	memcpy(&o, old, 4);
	memcpy(&w, new, 4);
	return is_cmodx(o) && is_cmodx(w) ? POKE_DIRECT : POKE_STOP;
}

int arch_ret_tramp_build(uint8_t *page, uint64_t entry)
{
	struct emit e = { (uint32_t *)(void *)page, 0, 0, (uint64_t)(uintptr_t)page, false };

	put_save(&e, 0);
	put(&e, 0x910003e0u); /* mov x0, sp */
	put_ldr_lit(&e, 16, entry);
	put(&e, 0xd63f0200u); /* blr x16: x0 = where to return */
	/* x16 (free at a return: the caller does not keep it across the call) and x30 */
	put(&e, 0xf9000000u | 16 << 10 | 31 << 5 | 0); /* str x0, [sp, #128] */
	put(&e, 0xf9000000u | 30 << 10 | 31 << 5 | 0); /* str x0, [sp, #240] */
	put_restore(&e);
	put(&e, 0xd65f0200u); /* ret x16 (a return: no BTI landing pad needed there) */
	return e.full ? -EINVAL : 0;
}

uint64_t *arch_ret_stack_slot(uint64_t frame, uint64_t low, uint64_t want)
{
	/* the prologue stored x30 in the frame, below the entry's sp: the highest copy */
	for (uint64_t a = (frame - 8) & ~7ull; a >= low && a < frame; a -= 8)
		if (*(uint64_t *)(uintptr_t)a == want)
			return (uint64_t *)(uintptr_t)a;
	return NULL;
}

#endif /* PROBE_ARCH_ARM64 */
