// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_x86.c - the probe mechanism's x86-64 instructions (probe_arch.h,
 * docs/probes.md).
 *
 * A probe site is a 5-byte `jmp rel32` written over the instruction(s) at
 * the probed address, into a trampoline page mapped within +-2 GiB of it:
 *
 *   entry:  lea -128(%rsp),%rsp          skip the red zone (probes inside leaf code)
 *           pushfq; push 15 GPRs; 16 x movdqu %xmmN -> struct probe_regs
 *           mov %rsp,%rsi; movabs $site,%rdi; align %rsp; call probe_site_entry
 *           restore xmm, GPRs, flags; lea 128(%rsp),%rsp
 *   skip:   the displaced instructions, relocated (RIP-relative displacements and
 *           relative branches re-aimed; nops dropped)
 *           jmp back to the first byte after the patched range
 *
 * It is written by the int3 protocol (POKE_BP, probe_patch.c), the rest of the
 * range filled with int3.
 *
 * Refused: an instruction the decoder does not know, jrcxz/loop/xbegin
 * (rel8 only, or state we cannot move), a call that is not the last
 * displaced instruction (its callee would return into the patched bytes),
 * a probe point that is not an instruction boundary of a linear decode of
 * the function, a function too short for 5 bytes, and a relative jump of
 * the function aimed inside the patched range. A thread stopped between two
 * of the displaced instructions is moved out before the bytes change
 * (probe_evac.c). Not detected: indirect jumps (switch tables) aimed inside
 * the range (docs/probes.md).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "probe/probe_arch.h"
#include "probe/probe_cfi.h"

#ifdef PROBE_ARCH_X86

#include <Zydis/Zydis.h>

#define JMP_LEN	   5
#define FUNC_SCAN_MAX (64u << 10) /* bytes of a function decoded for jumps into the range */

const uint8_t arch_brk[ARCH_BRK_LEN] = { 0xcc }; /* int3 */

struct emit {
	uint8_t *buf;
	size_t len;
	uint64_t at; /* the address buf[0] will run at */
};

static void put(struct emit *e, const void *b, size_t n)
{
	if (e->len + n <= PROBE_TRAMP_SIZE)
		memcpy(e->buf + e->len, b, n);
	e->len += n;
}

static void put8(struct emit *e, uint8_t b)
{
	put(e, &b, 1);
}

static void put32(struct emit *e, uint32_t v)
{
	put(e, &v, 4);
}

static void put64(struct emit *e, uint64_t v)
{
	put(e, &v, 8);
}

static bool rel32_ok(int64_t d)
{
	return d >= INT32_MIN && d <= INT32_MAX;
}

/* jmp rel32 from here to @target. */
static int put_jmp(struct emit *e, uint64_t target)
{
	int64_t d = (int64_t)(target - (e->at + e->len + 5));

	if (!rel32_ok(d))
		return -EINVAL;
	put8(e, 0xe9);
	put32(e, (uint32_t)d);
	return 0;
}

/* movdqu between %xmmN and N*16(%rsp): @store true saves. */
static void put_xmm(struct emit *e, unsigned int n, bool store)
{
	put8(e, 0xf3);
	if (n >= 8)
		put8(e, 0x44);
	put8(e, 0x0f);
	put8(e, store ? 0x7f : 0x6f);
	put8(e, (uint8_t)(0x84 | ((n & 7) << 3))); /* disp32(%rsp) through a SIB */
	put8(e, 0x24);
	put32(e, n * 16);
}

/*
 * Where, in a trampoline made by put_save_call() (the same offsets in each), %rbx holds the
 * address of the saved struct probe_regs: from after `mov %rsp,%rbx` to after the call.
 */
static size_t call_lo, call_hi;

/* Save everything into a struct probe_regs, call @fn(@arg, regs), restore. */
static void put_save_call(struct emit *e, uint64_t fn, uint64_t arg)
{
	static const uint8_t lea_down[] = { 0x48, 0x8d, 0x64, 0x24, 0x80 };
	static const uint8_t push[] = { 0x9c, 0x50, 0x51, 0x52, 0x53, 0x55, 0x56, 0x57,
					0x41, 0x50, 0x41, 0x51, 0x41, 0x52, 0x41, 0x53,
					0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57 };
	static const uint8_t pop[] = { 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c,
				       0x41, 0x5b, 0x41, 0x5a, 0x41, 0x59, 0x41, 0x58,
				       0x5f, 0x5e, 0x5d, 0x5b, 0x5a, 0x59, 0x58, 0x9d };
	static const uint8_t sub256[] = { 0x48, 0x81, 0xec, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t add256[] = { 0x48, 0x81, 0xc4, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t call_pre[] = {
		0x48, 0x89, 0xe6,	/* mov %rsp,%rsi */
		0x48, 0x89, 0xe3,	/* mov %rsp,%rbx */
		0x48, 0x83, 0xe4, 0xf0, /* and $-16,%rsp */
	};
	static const uint8_t call_post[] = {
		0xff, 0xd0,		/* call *%rax */
		0x48, 0x89, 0xdc,	/* mov %rbx,%rsp */
	};
	static const uint8_t lea_up[] = { 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00 };

	put(e, lea_down, sizeof(lea_down));
	put(e, push, sizeof(push));
	put(e, sub256, sizeof(sub256));
	for (unsigned int i = 0; i < 16; i++)
		put_xmm(e, i, true);
	put(e, call_pre, sizeof(call_pre));
	call_lo = e->len;
	put8(e, 0x48); /* movabs $arg,%rdi */
	put8(e, 0xbf);
	put64(e, arg);
	put8(e, 0x48); /* movabs $fn,%rax */
	put8(e, 0xb8);
	put64(e, fn);
	put(e, call_post, sizeof(call_post));
	call_hi = e->len;
	for (unsigned int i = 0; i < 16; i++)
		put_xmm(e, i, false);
	put(e, add256, sizeof(add256));
	put(e, pop, sizeof(pop));
	put(e, lea_up, sizeof(lea_up));
}

static void decoder(ZydisDecoder *d)
{
	ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

static bool is_rip_relative(const ZydisDecodedInstruction *in)
{
	return (in->attributes & ZYDIS_ATTRIB_HAS_MODRM) && in->raw.modrm.mod == 0 &&
	       in->raw.modrm.rm == 5 && in->raw.disp.size == 32;
}

/*
 * Copy one displaced instruction @in (@code, run at @from) into @e, re-aimed.
 * @last: it is the last one (a call may only be that).
 */
static int relocate(struct emit *e, const ZydisDecodedInstruction *in, const uint8_t *code,
		    uint64_t from, bool last, const char **why)
{
	uint64_t next = from + in->length;

	if (in->mnemonic == ZYDIS_MNEMONIC_NOP)
		return 0;
	if (in->meta.category == ZYDIS_CATEGORY_CALL && in->raw.imm[0].is_relative) {
		uint64_t target = next + (uint64_t)in->raw.imm[0].value.s;
		static const uint8_t lea8[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };

		if (!last) {
			*why = "a call that is not the last displaced instruction";
			return -EINVAL;
		}
		/* push the original return address (lea and movs leave the flags alone) */
		put(e, lea8, sizeof(lea8));
		put8(e, 0xc7), put8(e, 0x04), put8(e, 0x24), put32(e, (uint32_t)next);
		put8(e, 0xc7), put8(e, 0x44), put8(e, 0x24), put8(e, 0x04);
		put32(e, (uint32_t)(next >> 32));
		return put_jmp(e, target);
	}
	if (in->raw.imm[0].is_relative) {
		uint64_t target = next + (uint64_t)in->raw.imm[0].value.s;

		if (in->meta.category == ZYDIS_CATEGORY_UNCOND_BR)
			return put_jmp(e, target);
		if (in->meta.category == ZYDIS_CATEGORY_COND_BR &&
		    in->mnemonic != ZYDIS_MNEMONIC_JRCXZ && in->mnemonic != ZYDIS_MNEMONIC_JECXZ &&
		    in->mnemonic != ZYDIS_MNEMONIC_LOOP && in->mnemonic != ZYDIS_MNEMONIC_LOOPE &&
		    in->mnemonic != ZYDIS_MNEMONIC_LOOPNE) {
			int64_t d = (int64_t)(target - (e->at + e->len + 6));

			if (!rel32_ok(d))
				return -EINVAL;
			put8(e, 0x0f);
			put8(e, (uint8_t)(0x80 | (in->opcode & 0x0f)));
			put32(e, (uint32_t)d);
			return 0;
		}
		*why = "a relative branch that cannot be relocated (jrcxz, loop, xbegin)";
		return -EINVAL;
	}
	if (is_rip_relative(in)) {
		uint8_t copy[ZYDIS_MAX_INSTRUCTION_LENGTH];
		int64_t disp = in->raw.disp.value + (int64_t)(from - (e->at + e->len));
		int32_t d32 = (int32_t)disp;

		if (!rel32_ok(disp)) {
			*why = "a RIP-relative operand out of reach of the trampoline";
			return -EINVAL;
		}
		memcpy(copy, code, in->length);
		memcpy(copy + in->raw.disp.offset, &d32, 4);
		put(e, copy, in->length);
		return 0;
	}
	if (in->attributes & ZYDIS_ATTRIB_IS_RELATIVE) {
		*why = "an instruction relative to its address that cannot be relocated";
		return -EINVAL;
	}
	put(e, code, in->length);
	return 0;
}

/*
 * Decode the function linearly: @addr must be an instruction boundary and no
 * relative branch may land in (@addr, @addr + @len).
 */
/*
 * clang's -fsanitize=function signature at a function's entry, `jmp .+8` and the magic
 * 0x3276 (then 4 bytes of data): the bytes the jump skips, else 0. Nothing looser: a plain
 * jump at an entry (gcc's loop rotation) goes into code a probe there must not move to.
 */
static int64_t entry_skip(const uint8_t *code)
{
	static const uint8_t sig[] = { 0xeb, 0x06, 0x76, 0x32 };

	return memcmp(code, sig, sizeof(sig)) ? 0 : 6;
}

static bool is_endbr(const ZydisDecodedInstruction *in)
{
	return in->mnemonic == ZYDIS_MNEMONIC_ENDBR64 || in->mnemonic == ZYDIS_MNEMONIC_ENDBR32;
}

static int check_function(uint64_t func, uint64_t size, uint64_t addr, unsigned int len,
			  const char **why)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)func;
	bool boundary = addr == func, entry = true;
	ZydisDecodedInstruction in;
	ZydisDecoder d;
	uint64_t off = 0;

	if (!size)
		return 0; /* no size known: nothing to scan */
	if (size > FUNC_SCAN_MAX)
		size = FUNC_SCAN_MAX;
	decoder(&d);
	while (off < size) {
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&d, NULL, code + off, size - off,
							      &in)))
			break; /* data, padding: stop here */
		if (func + off == addr)
			boundary = true;
		if (in.raw.imm[0].is_relative) {
			uint64_t target = func + off + in.length + (uint64_t)in.raw.imm[0].value.s;

			if (target > addr && target < addr + len) {
				*why = "a jump of the function lands inside the patched bytes";
				return -EINVAL;
			}
		}
		if (entry && entry_skip(code + off)) /* the data it jumps over is no code */
			off += (uint64_t)entry_skip(code + off);
		entry = entry && is_endbr(&in);
		off += in.length;
	}
	if (!boundary) {
		*why = "Probe point is not an instruction boundary";
		return -EILSEQ;
	}
	return 0;
}

int arch_tramp_build(struct probe_site *site, uint64_t entry, const char **why)
{
	const uint8_t *code = site->saved;
	struct emit e = { site->tramp, 0, (uint64_t)(uintptr_t)site->tramp };
	unsigned int off = 0;
	ZydisDecodedInstruction in;
	ZydisDecoder d;
	int ret;

	decoder(&d);
	put_save_call(&e, entry, (uint64_t)(uintptr_t)site);
	site->skip = e.at + e.len;
	while (off < site->len) {
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&d, NULL, code + off,
							      site->len - off, &in))) {
			*why = "an instruction the decoder does not know";
			return -EINVAL;
		}
		/* a thread stopped at this instruction resumes here (a dropped nop: at the next) */
		site->map[off] = (uint16_t)e.len;
		ret = relocate(&e, &in, code + off, site->addr + off, off + in.length >= site->len,
			       why);
		if (ret)
			return ret;
		off += in.length;
	}
	ret = put_jmp(&e, site->addr + site->len);
	if (ret || e.len > PROBE_TRAMP_SIZE) {
		*why = "the trampoline does not fit";
		return -EINVAL;
	}
	return 0;
}

/*
 * How many bytes from @addr to displace (whole instructions, >= 5); an endbr64 first is kept,
 * and at a function's entry (@at_entry) a short jump over data is followed.
 */
static int measure(uint64_t *addr, uint64_t end, bool at_entry, unsigned int *lenp,
		   const char **why)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)*addr;
	ZydisDecodedInstruction in;
	unsigned int len = 0;
	ZydisDecoder d;

	decoder(&d);
	if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d, NULL, code, 15, &in)) && is_endbr(&in)) {
		/* indirect branches land on the endbr: the jump goes after it */
		*addr += in.length;
		code += in.length;
	}
	if (at_entry && entry_skip(code)) {
		/* every call goes on at the jump's target: the probe goes there */
		*addr += 2 + (uint64_t)entry_skip(code);
		code = (const uint8_t *)(uintptr_t)*addr;
	}
	while (len < JMP_LEN) {
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&d, NULL, code + len, 15, &in))) {
			*why = "an instruction the decoder does not know";
			return -EINVAL;
		}
		if (len + in.length < JMP_LEN &&
		    (in.meta.category == ZYDIS_CATEGORY_RET ||
		     (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR && !in.raw.imm[0].is_relative) ||
		     in.mnemonic == ZYDIS_MNEMONIC_INT3 || in.mnemonic == ZYDIS_MNEMONIC_UD2)) {
			*why = "the function is too short to patch";
			return -EINVAL;
		}
		len += in.length;
	}
	if (end && *addr + len > end) {
		*why = "the function is too short to patch";
		return -EINVAL;
	}
	*lenp = len;
	return 0;
}


int arch_site_measure(uint64_t *addr, uint64_t func, uint64_t size, unsigned int *len,
		      const char **why)
{
	int ret = check_function(func, size, *addr, 0, why); /* an instruction boundary? */

	if (ret)
		return ret;
	ret = measure(addr, size ? func + size : 0, *addr == func, len, why);
	if (ret)
		return ret;
	return check_function(func, size, *addr, *len, why);
}

void arch_patch_bytes(const struct probe_site *site, uint8_t *out)
{
	int32_t d = (int32_t)((int64_t)((uint64_t)(uintptr_t)site->tramp - (site->addr + JMP_LEN)));

	out[0] = 0xe9;
	memcpy(out + 1, &d, 4);
	memset(out + JMP_LEN, 0xcc, site->len - JMP_LEN); /* the rest of the range: int3 */
}

enum probe_poke arch_poke_plan(const uint8_t *old, const uint8_t *new, unsigned int n)
{
	(void)old, (void)new, (void)n;
	return POKE_BP;
}

uint64_t *arch_ret_stack_slot(uint64_t frame, uint64_t low, uint64_t want)
{
	uint64_t *slot = (uint64_t *)(uintptr_t)frame; /* the call pushed it there */

	(void)low;
	return *slot == want ? slot : NULL;
}

/* --- the return trampoline --------------------------------------------------------------- */

static size_t ret_call_lo, ret_call_hi; /* as call_lo and call_hi */

/* The return trampoline: a slot for the address to return to, the registers, the call. */
int arch_ret_tramp_build(uint8_t *page, uint64_t entry)
{
	struct emit e;
	static const uint8_t push0[] = { 0x6a, 0x00 };
	static const uint8_t push[] = { 0x9c, 0x50, 0x51, 0x52, 0x53, 0x55, 0x56, 0x57,
					0x41, 0x50, 0x41, 0x51, 0x41, 0x52, 0x41, 0x53,
					0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57 };
	static const uint8_t pop[] = { 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c,
				       0x41, 0x5b, 0x41, 0x5a, 0x41, 0x59, 0x41, 0x58,
				       0x5f, 0x5e, 0x5d, 0x5b, 0x5a, 0x59, 0x58, 0x9d };
	static const uint8_t sub256[] = { 0x48, 0x81, 0xec, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t add256[] = { 0x48, 0x81, 0xc4, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t call_pre[] = { 0x48, 0x89, 0xe7, 0x48, 0x89, 0xe3, 0x48, 0x83, 0xe4,
					    0xf0 }; /* mov %rsp,%rdi; mov %rsp,%rbx; and $-16,%rsp */
	static const uint8_t call_post[] = {
		0xff, 0xd0,				    /* call *%rax */
		0x48, 0x89, 0xdc,			    /* mov %rbx,%rsp */
		0x48, 0x89, 0x84, 0x24, 0x80, 0x01, 0x00, 0x00, /* mov %rax,384(%rsp): the slot */
	};

	e.buf = page;
	e.len = 0;
	e.at = (uint64_t)(uintptr_t)page;
	put(&e, push0, sizeof(push0));
	put(&e, push, sizeof(push));
	put(&e, sub256, sizeof(sub256));
	for (unsigned int i = 0; i < 16; i++)
		put_xmm(&e, i, true);
	put(&e, call_pre, sizeof(call_pre));
	ret_call_lo = e.len;
	put8(&e, 0x48);
	put8(&e, 0xb8);
	put64(&e, entry);
	put(&e, call_post, sizeof(call_post));
	ret_call_hi = e.len;
	for (unsigned int i = 0; i < 16; i++)
		put_xmm(&e, i, false);
	put(&e, add256, sizeof(add256));
	put(&e, pop, sizeof(pop));
	put8(&e, 0xc3); /* ret: to the slot's address */
	return e.len > PROBE_TRAMP_SIZE ? -EINVAL : 0;
}

/* --- unwind information (probe_cfi.c) ----------------------------------------------------- */

/* DWARF numbers of the registers saved in a struct probe_regs, and of the return address. */
enum { DW_RAX, DW_RDX, DW_RCX, DW_RBX, DW_RSI, DW_RDI, DW_RBP, DW_RSP, DW_R8, DW_RA = 16 };

/* The caller's registers, saved in the struct probe_regs at CFA - @above (%rbx points there). */
static void cfi_saved_regs(struct probe_cfi *c, int64_t above)
{
	static const struct {
		unsigned int reg;
		size_t off;
	} saved[] = {
		{ DW_RAX, offsetof(struct probe_regs, ax) }, { DW_RDX, offsetof(struct probe_regs, dx) },
		{ DW_RCX, offsetof(struct probe_regs, cx) }, { DW_RBX, offsetof(struct probe_regs, bx) },
		{ DW_RSI, offsetof(struct probe_regs, si) }, { DW_RDI, offsetof(struct probe_regs, di) },
		{ DW_RBP, offsetof(struct probe_regs, bp) }, { DW_R8, offsetof(struct probe_regs, r8) },
		{ DW_R8 + 1, offsetof(struct probe_regs, r9) },
		{ DW_R8 + 2, offsetof(struct probe_regs, r10) },
		{ DW_R8 + 3, offsetof(struct probe_regs, r11) },
		{ DW_R8 + 4, offsetof(struct probe_regs, r12) },
		{ DW_R8 + 5, offsetof(struct probe_regs, r13) },
		{ DW_R8 + 6, offsetof(struct probe_regs, r14) },
		{ DW_R8 + 7, offsetof(struct probe_regs, r15) },
	};

	probe_cfi_def_cfa(c, DW_RBX, (uint64_t)above);
	for (size_t i = 0; i < sizeof(saved) / sizeof(saved[0]); i++)
		probe_cfi_saved_at(c, saved[i].reg, (int64_t)saved[i].off - above);
}

/*
 * The entry trampoline, seen from its call: the probed function interrupted at the probed
 * address (a signal frame: that pc is exact), its stack pointer above the registers and the
 * red zone, its registers in the struct probe_regs.
 */
void arch_tramp_unwind(const struct probe_site *site)
{
	uint64_t at = (uint64_t)(uintptr_t)site->tramp;
	struct probe_cfi c = { .len = 0 };

	cfi_saved_regs(&c, (int64_t)sizeof(struct probe_regs) + 128);
	probe_cfi_value(&c, DW_RA, site->addr);
	probe_cfi_register(at + call_lo, at + call_hi, &c, DW_RA, true);
}

/*
 * The return trampoline, seen from its call: the caller the function returned to, at its
 * return address, which probe_ret_entry() writes in the slot above the registers
 * (arch_ret_unwind_set()) before a handler runs.
 */
void arch_ret_tramp_unwind(const uint8_t *page)
{
	uint64_t at = (uint64_t)(uintptr_t)page;
	struct probe_cfi c = { .len = 0 };

	cfi_saved_regs(&c, (int64_t)sizeof(struct probe_regs) + 8);
	probe_cfi_saved_at(&c, DW_RA, -8);
	probe_cfi_register(at + ret_call_lo, at + ret_call_hi, &c, DW_RA, false);
}

#endif /* PROBE_ARCH_X86 */
