/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe/probe_arch.h - between the probe mechanism's generic parts and one
 * architecture's instruction work (docs/probes.md).
 *
 * Generic (one job a file):
 *   probe_patch.c   sites: install/remove, the patch protocols, writing code,
 *                   trampoline pages near the text, the SIGTRAP handler, the hit
 *   probe_evac.c    moving (or parking) the other threads around a patch
 *   probe_shadow.c  return probes: the per-thread shadow stack, the hijack
 *   probe_unwind.c  the unwinder hooks that keep return probes unwindable
 * One architecture (the arch_* functions below):
 *   probe_x86.c     x86-64: Zydis decode, relocation, trampolines, the int3
 *   probe_arm64.c   aarch64: one B instruction, fixed-width instruction classes
 */
#ifndef EVT_PROBE_PROBE_ARCH_H
#define EVT_PROBE_PROBE_ARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "probe/probe.h"

#if defined(__x86_64__) && defined(EVT_HAVE_ZYDIS)
#define PROBE_ARCH_X86 1
#define PROBE_HAVE_ARCH 1
#elif defined(__aarch64__)
#define PROBE_ARCH_ARM64 1
#define PROBE_HAVE_ARCH 1
#endif

#define PROBE_TRAMP_SIZE 4096
#define PROBE_PATCH_MAX	 32 /* bytes a site may displace */

struct probe_site {
	uint64_t addr;		 /* the patched bytes */
	unsigned int len;	 /* how many */
	uint8_t saved[PROBE_PATCH_MAX]; /* the original bytes */
	uint8_t *tramp;		 /* the trampoline page */
	uint64_t skip;		 /* its `skip` entry: the displaced code, no handler */
	struct probe *probe;	 /* NULL once removed (RCU: the handler's read) */
	probe_handler_t handler;
	uint8_t removing;	 /* the SIGTRAP handler's choice of entry */
	/* by byte offset in the patched range: where the trampoline runs the instruction that
	 * starts there (offset from tramp; 0: no instruction starts there) */
	uint16_t map[PROBE_PATCH_MAX];
};

#ifdef PROBE_HAVE_ARCH

/* How a patch is written (arch_poke_plan()). */
enum probe_poke {
	POKE_BP,     /* breakpoint on the first byte, sync, evacuate, the rest, the first byte */
	POKE_DIRECT, /* one instruction both before and after in the architecture's list of
		      * those that may be modified while another CPU runs them: one store */
	POKE_STOP,   /* one instruction, any: every other thread parked while it is written */
};

#ifdef PROBE_ARCH_X86
#define ARCH_TRAMP_REACH ((1ull << 31) - (4u << 20)) /* jmp rel32, with a margin */
#define ARCH_BRK_LEN	 1
#define ARCH_TRAP_PC_ADJ 1 /* the int3's SIGTRAP reports the byte after it */

static inline uint64_t arch_uc_pc(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
}

static inline void arch_uc_set_pc(ucontext_t *uc, uint64_t pc)
{
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
}

/* The stack pointer at the probed instruction: above the saved registers and the red zone. */
static inline uint64_t arch_entry_sp(struct probe_regs *regs)
{
	return (uint64_t)(uintptr_t)(regs + 1) + 128;
}

/* Where the return address is at a function's entry (a hijack rewrites it there). */
static inline uint64_t *arch_ret_addr(struct probe_ctx *ctx)
{
	return (uint64_t *)(uintptr_t)ctx->sp;
}

/* The return trampoline's frame key (the entry's ctx->sp) and the sp after the return. */
static inline uint64_t arch_ret_frame(struct probe_regs *regs)
{
	return (uint64_t)(uintptr_t)(regs + 1); /* the slot its `ret` pops */
}

static inline uint64_t arch_ret_sp(uint64_t frame)
{
	return frame + 8;
}

static inline uint64_t arch_retval(const struct probe_regs *regs)
{
	return regs->ax;
}
#endif /* PROBE_ARCH_X86 */

#ifdef PROBE_ARCH_ARM64
/* B imm26: +-128 MiB from the patched instruction, with a margin for the trampoline's own
 * branch back and its branches to the targets of a displaced B/BL/B.cond. */
#define ARCH_TRAMP_REACH ((1ull << 27) - (8u << 20))
#define ARCH_BRK_LEN	 4
#define ARCH_TRAP_PC_ADJ 0 /* a BRK's SIGTRAP reports the BRK itself */

static inline uint64_t arch_uc_pc(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.pc;
}

static inline void arch_uc_set_pc(ucontext_t *uc, uint64_t pc)
{
	uc->uc_mcontext.pc = pc;
}

static inline uint64_t arch_entry_sp(struct probe_regs *regs)
{
	return regs->sp;
}

/* At an entry the return address is in x30 (the link register): its saved copy, restored
 * into x30 by the trampoline. */
static inline uint64_t *arch_ret_addr(struct probe_ctx *ctx)
{
	return &ctx->regs->x[30];
}

/* AAPCS64: sp at the return is sp at the entry (the return trampoline saves it). */
static inline uint64_t arch_ret_frame(struct probe_regs *regs)
{
	return regs->sp;
}

static inline uint64_t arch_ret_sp(uint64_t frame)
{
	return frame;
}

static inline uint64_t arch_retval(const struct probe_regs *regs)
{
	return regs->x[0];
}
#endif /* PROBE_ARCH_ARM64 */

/* --- what each architecture's file provides -------------------------------------------- */

/*
 * arch_site_measure() - validate a probe at *@addr inside the function [@func, @func +
 * @size) (@size 0: unknown), move *@addr past a landing pad (endbr64, bti c), and give in
 * *@len how many bytes the patch displaces (<= PROBE_PATCH_MAX).
 * Return: 0, or -EINVAL/-EILSEQ with *@why (a static string).
 */
int arch_site_measure(uint64_t *addr, uint64_t func, uint64_t size, unsigned int *len,
		      const char **why);

/*
 * arch_tramp_build() - write @site's trampoline into @site->tramp (RW, PROBE_TRAMP_SIZE
 * bytes): save the registers as a struct probe_regs, call @entry(@site, regs), restore,
 * then (at @site->skip) the displaced code of @site->saved relocated, and a jump back after
 * the range. Fills @site->skip and @site->map. Return: 0, or -EINVAL with *@why.
 */
int arch_tramp_build(struct probe_site *site, uint64_t entry, const char **why);

/*
 * arch_tramp_unwind() - register the unwind information of @site's finished trampoline, so
 * that stack traces taken in the handler go on through the probed function to its callers
 * (probe_cfi.c); arch_ret_tramp_unwind() the same for the return trampoline at @page, whose
 * caller is the one the function returns to. Best effort: without it they stop there.
 */
#ifdef PROBE_ARCH_X86
void arch_tramp_unwind(const struct probe_site *site);
void arch_ret_tramp_unwind(const uint8_t *page);
#else /* none yet for aarch64's trampolines */
static inline void arch_tramp_unwind(const struct probe_site *site)
{
	(void)site;
}

static inline void arch_ret_tramp_unwind(const uint8_t *page)
{
	(void)page;
}
#endif

/*
 * arch_ret_unwind_set() - in the return trampoline's handler, before anything may take a
 * stack trace: where the return trampoline's unwind information finds the address the
 * function returns to, write @ret.
 */
#ifdef PROBE_ARCH_X86
static inline void arch_ret_unwind_set(struct probe_regs *regs, uint64_t ret)
{
	*(uint64_t *)(regs + 1) = ret; /* the slot its `ret` pops, a return address there */
}
#else
static inline void arch_ret_unwind_set(struct probe_regs *regs, uint64_t ret)
{
	(void)regs;
	(void)ret;
}
#endif

/* The @site->len bytes that send the probed address to the trampoline. */
void arch_patch_bytes(const struct probe_site *site, uint8_t *out);

/* Whether the code at @addr begins with a jump as arch_patch_bytes() writes them. */
bool arch_is_patch(uint64_t addr);

/* The breakpoint instruction (ARCH_BRK_LEN bytes). */
extern const uint8_t arch_brk[ARCH_BRK_LEN];

/* How to replace the @n bytes @old by @new at a site. */
enum probe_poke arch_poke_plan(const uint8_t *old, const uint8_t *new, unsigned int n);

/*
 * arch_ret_tramp_build() - write the return trampoline into @page (RW, PROBE_TRAMP_SIZE):
 * save the registers, call @entry(regs) -> the address to return to, restore, go there.
 * Return: 0 or -EINVAL.
 */
int arch_ret_tramp_build(uint8_t *page, uint64_t entry);

/*
 * arch_ret_stack_slot() - the stack word that holds @want as the return address of the
 * frame whose entry had stack pointer @frame, searching no lower than @low (the unwinder's
 * own frame), or NULL. For the unwinder hooks (probe_unwind.c).
 */
uint64_t *arch_ret_stack_slot(uint64_t frame, uint64_t low, uint64_t want);

/* --- the shadow stack (probe_shadow.c; the unwinder hooks of probe_unwind.c) --------- */

#define SHADOW_MAX 64

struct shadow_ent {
	uint64_t ret;	/* the original return address */
	uint64_t sp;	/* the stack pointer at the function's entry (x86-64: the slot of ret) */
	uint64_t func;	/* the probed function */
	struct probe *p;
	unsigned int slot;
	uint32_t serial;
	uint64_t *uslot; /* restored: the stack word that holds `ret` again for an unwinder */
	bool restored;
};

/* One per thread that hit a return probe, mmap()ed at its first hit (async-signal-safe). */
struct probe_thread {
	unsigned int depth;
	/* the re-entry guard: a hit inside a handler (or a signal handler interrupting one)
	 * is missed, never nested (probe_enter()); only this thread touches it */
	unsigned char nest;
	struct shadow_ent ent[SHADOW_MAX];
};

/* Before the first site goes live: what a thread's first hit needs (its record's key). */
void probe_thread_prepare(void);

/* This thread's shadow stack, or NULL (none yet). */
struct probe_thread *probe_shadow_thread(void);
void probe_shadow_drop(struct probe_thread *t);

/* --- the generic parts, between the files --------------------------------------------- */

/* probe_evac.c: move the threads stopped inside @site's range to its trampoline (@park
 * false), or park every other thread until probe_evac_release() (@park true).
 * 0, -ENOMEM, -EBUSY (a thread did not answer). Context: event_mutex held. */
int probe_evac_run(const struct probe_site *site, bool park);
void probe_evac_release(void);

/* probe_patch.c: the hit of a site (the trampolines call it by address). */
void probe_site_entry(struct probe_site *site, struct probe_regs *regs);

/* probe_unwind.c: hook the unwinders before the first return probe. 0 or -EOPNOTSUPP. */
int probe_unwind_hooks(void);
/* probe_shadow.c: the return trampoline (0 until built), for the unwinder hooks. */
uint64_t probe_ret_tramp(void);

#endif /* PROBE_HAVE_ARCH */

#endif /* EVT_PROBE_PROBE_ARCH_H */
