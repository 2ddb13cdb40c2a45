// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_patch.c - probe sites (docs/probes.md): install and remove, the
 * patch protocols, writing code, trampoline pages near the text, the SIGTRAP
 * handler, and the hit. The instructions themselves are the architecture's
 * (probe_arch.h: probe_x86.c, probe_arm64.c).
 *
 * A site is a jump written over the instruction(s) at the probed address into
 * a trampoline page mapped within reach of it (arch_tramp_build()). How the
 * jump is written is the architecture's plan (arch_poke_plan()):
 *
 *   POKE_BP      (x86-64) as the kernel's text_poke_bp(): a breakpoint on the
 *                first byte, a sync of every CPU running the process
 *                (membarrier SYNC_CORE where the kernel has it; the mprotect()
 *                round trip around each write also flushes every CPU's TLB
 *                through an IPI, which serializes it), the threads inside the
 *                range moved out (probe_evac.c), the other bytes, a sync, then
 *                the first byte. A thread that hits the breakpoint meanwhile
 *                takes a SIGTRAP: our handler (chained to the program's own)
 *                sends it to the trampoline (to `skip` during a removal).
 *   POKE_DIRECT  (aarch64) one instruction replaced by another while both are
 *                in the ARM ARM's list of those that may be modified while
 *                another CPU runs them (B, BL, NOP, BRK...): one 4-byte store,
 *                the cache maintenance, a sync.
 *   POKE_STOP    (aarch64) one instruction, any other: the other threads are
 *                parked in a signal handler while it is written (probe_evac.c).
 *
 * Sites and trampolines are never freed (a thread may still be inside a
 * trampoline, or get the SIGTRAP of a breakpoint long gone): a removed probe
 * costs one page. Everything here runs under event_mutex but the SIGTRAP
 * handler and probe_site_entry(), which run in the traced threads.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/rcu.h"
#include "probe/probe_arch.h"
#include "probe/probe_cfi.h"

#ifdef PROBE_HAVE_ARCH

#define SITES_MAX 4096

/* Every site ever installed, for the SIGTRAP handler: published with a release store of
 * nr_sites after the entry is complete; never removed. */
static struct probe_site *sites[SITES_MAX];
static unsigned int nr_sites;

static struct sigaction old_trap;
static bool trap_installed;

bool probe_supported(void)
{
	return true;
}

uint64_t probe_site_addr(const struct probe_site *site)
{
	return site->addr;
}

const uint8_t *probe_site_saved(const struct probe_site *site, size_t *len)
{
	*len = site->len;
	return site->saved;
}

bool probe_site_intact(const struct probe_site *site)
{
	/* a jump of ours, or of a probe installed since on the same address */
	return arch_is_patch(site->addr);
}

/* --- the hit ------------------------------------------------------------------------------ */

/**
 * probe_site_entry() - a hit: called by every entry trampoline with the saved registers.
 * @site: the site of the trampoline
 * @regs: the registers at the probed instruction (the handler may change them)
 *
 * Context: the traced thread, writer context: no lock, no allocation.
 */
void __attribute__((noinline)) probe_site_entry(struct probe_site *site, struct probe_regs *regs)
{
	struct probe_ctx ctx;
	struct probe *p;

	if (!probe_enter())
		return;
	rcu_lock();
	p = rcu_deref(site->probe); /* pairs with rcu_publish() in install/remove */
	if (p) {
		ctx.regs = regs;
		ctx.sp = arch_entry_sp(regs);
		ctx.ip = site->addr;
		ctx.retval = 0;
		ctx.is_return = false;
		site->handler(p, &ctx);
	}
	rcu_unlock();
	probe_leave();
}


/* --- SIGTRAP: a thread at a breakpoint of ours --------------------------------------------- */

static void trap_handler(int sig, siginfo_t *info, void *ucp)
{
	ucontext_t *uc = ucp;
	uint64_t rip = arch_uc_pc(uc) - ARCH_TRAP_PC_ADJ;
	/* Acquire: the entries below nr_sites are complete (pairs with the release in install). */
	unsigned int n = ld_acquire(&nr_sites);

	for (unsigned int i = 0; i < n; i++) {
		struct probe_site *s = sites[i];

		if (s->addr == rip) {
			arch_uc_set_pc(uc, ld_relaxed(&s->removing) ? s->skip :
							   (uint64_t)(uintptr_t)s->tramp);
			return;
		}
	}
	/* not ours: the program's handler, or what it would have had */
	if (old_trap.sa_flags & SA_SIGINFO) {
		old_trap.sa_sigaction(sig, info, ucp);
	} else if (old_trap.sa_handler == SIG_IGN) {
		return;
	} else if (old_trap.sa_handler == SIG_DFL) {
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
	} else {
		old_trap.sa_handler(sig);
	}
}

static int trap_install(void)
{
	struct sigaction sa;

	if (trap_installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old_trap))
		return -EPERM;
	trap_installed = true;
	return 0;
}

/* --- writing code --------------------------------------------------------------------------- */

/* The protection of the mapping that holds @addr (from /proc/self/maps); -1 if unmapped. */
static int prot_of(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long lo, hi;
	char perms[8];
	int prot = -1;

	if (!f)
		return PROT_READ | PROT_EXEC;
	while (fscanf(f, "%lx-%lx %7s %*[^\n]", &lo, &hi, perms) == 3) {
		if (addr >= lo && addr < hi) {
			prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			       (perms[2] == 'x' ? PROT_EXEC : 0);
			break;
		}
	}
	fclose(f);
	return prot;
}

static void sync_cores(void)
{
	static int registered; /* event_mutex */

	if (!registered)
		registered = syscall(SYS_membarrier, 1 << 6 /* REGISTER_PRIVATE_EXPEDITED_SYNC_CORE */,
				     0, 0) == 0 ? 1 : -1;
	if (registered > 0)
		syscall(SYS_membarrier, 1 << 5 /* PRIVATE_EXPEDITED_SYNC_CORE */, 0, 0);
}

/*
 * Stores into code: volatile, aligned, so single-copy atomic, rather than atomic builtins:
 * ThreadSanitizer instruments atomics even in a no_sanitize function and keeps no shadow
 * for the text, where its instrumented store faults. What orders them with the other
 * threads is text_poke()'s cache maintenance and sync_cores(), not the store.
 */
static __attribute__((no_sanitize("thread"))) void code_store8(uint64_t addr, uint8_t v)
{
	*(volatile uint8_t *)(uintptr_t)addr = v;
}

static __attribute__((no_sanitize("thread"))) void code_store32(uint64_t addr, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)addr = v;
}

/* Write @n bytes at @addr of mapped code (in one page or two), then sync every core. */
static int text_poke(uint64_t addr, const uint8_t *bytes, size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t lo = addr & ~(uint64_t)(pg - 1);
	uint64_t hi = (addr + n + (uint64_t)pg - 1) & ~(uint64_t)(pg - 1);
	int prot = prot_of(addr), prot2 = prot_of(addr + n - 1);

	if (prot < 0 || prot2 < 0)
		return -EFAULT;
	if (mprotect((void *)(uintptr_t)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EPERM;
	if (n == 4 && !(addr & 3)) /* one instruction of a fixed-width set: one store */
		code_store32(addr, bytes[0] | bytes[1] << 8 | bytes[2] << 16 |
				   (uint32_t)bytes[3] << 24);
	else /* byte stores: the first byte's is the one that matters */
		for (size_t i = 0; i < n; i++)
			code_store8(addr + i, bytes[i]);
	/* the data cache cleaned and the instruction cache invalidated to the point of
	 * unification, for every CPU (a no-op where they are coherent, as on x86-64) */
	__builtin___clear_cache((char *)(uintptr_t)addr, (char *)(uintptr_t)(addr + n));
	mprotect((void *)(uintptr_t)lo, hi - lo, prot | prot2);
	sync_cores();
	return 0;
}

/*
 * text_poke_bp(): the breakpoint, the tail, the head, a sync between each. At an install
 * (@site: the new trampoline), the threads stopped inside the range are moved out of it
 * between the breakpoint and the tail; if one does not answer, the breakpoint is undone
 * and -EBUSY returned.
 */
static int text_poke_bp(uint64_t addr, const uint8_t *bytes, size_t n,
			const struct probe_site *site)
{
	int ret = text_poke(addr, arch_brk, ARCH_BRK_LEN);

	if (!ret && site) {
		ret = probe_evac_run(site, false);
		if (ret) {
			text_poke(addr, site->saved, ARCH_BRK_LEN);
			return ret;
		}
	}
	if (!ret && n > ARCH_BRK_LEN)
		ret = text_poke(addr + ARCH_BRK_LEN, bytes + ARCH_BRK_LEN, n - ARCH_BRK_LEN);
	if (!ret)
		ret = text_poke(addr, bytes, ARCH_BRK_LEN);
	return ret;
}

/*
 * Replace @site's bytes (now @old) by @new, by the architecture's plan (arch_poke_plan());
 * @install: a new site, whose trampoline may receive threads moved out of the range.
 */
static int site_poke(const struct probe_site *site, const uint8_t *old, const uint8_t *new,
		     bool install)
{
	int ret;

	switch (arch_poke_plan(old, new, site->len)) {
	case POKE_DIRECT:
		return text_poke(site->addr, new, site->len);
	case POKE_STOP:
		ret = probe_evac_run(site, true);
		if (ret)
			return ret;
		ret = text_poke(site->addr, new, site->len);
		probe_evac_release();
		return ret;
	default:
		ret = trap_install();
		if (ret)
			return ret;
		return text_poke_bp(site->addr, new, site->len, install ? site : NULL);
	}
}

/* --- the trampoline ------------------------------------------------------------------------ */

/* A page within ARCH_TRAMP_REACH of @near (RW, for writing), or NULL. */
static uint8_t *tramp_alloc(uint64_t near)
{
	const uint64_t step = 1u << 20, reach = ARCH_TRAMP_REACH;

	for (uint64_t d = step; d < reach; d += step) {
		for (int dir = -1; dir <= 1; dir += 2) {
			uint64_t hint = (dir < 0 ? near - d : near + d) & ~(uint64_t)0xffff;
			void *p;

			if ((dir < 0 && d > near) || hint < 0x10000)
				continue;
			p = mmap((void *)(uintptr_t)hint, PROBE_TRAMP_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if ((uint64_t)(uintptr_t)p != hint) { /* a kernel without NOREPLACE */
				munmap(p, PROBE_TRAMP_SIZE);
				continue;
			}
			return p;
		}
	}
	return NULL;
}

int probe_site_install(struct probe *p, uint64_t addr, uint64_t func, uint64_t size,
		       probe_handler_t handler, struct probe_site **sitep, const char **why)
{
	struct probe_site *site;
	uint8_t jmp[PROBE_PATCH_MAX];
	unsigned int len;
	int ret, prot;

	*why = NULL;
	prot = prot_of(addr);
	if (prot < 0 || !(prot & PROT_EXEC)) {
		*why = "the address is not in mapped code";
		return -EFAULT;
	}
	if (ld_relaxed(&nr_sites) == SITES_MAX) {
		*why = "too many probe sites";
		return -ENOSPC;
	}
	probe_thread_prepare(); /* before any thread can hit the site */
	ret = arch_site_measure(&addr, func, size, &len, why);
	if (ret)
		return ret;
	site = calloc(1, sizeof(*site));
	if (!site)
		return -ENOMEM;
	site->addr = addr;
	site->len = len;
	memcpy(site->saved, (const void *)(uintptr_t)addr, len);
	site->handler = handler;
	site->tramp = tramp_alloc(addr);
	if (!site->tramp) {
		*why = "no room for a trampoline within reach of a jump";
		free(site);
		return -ENOMEM;
	}
	ret = arch_tramp_build(site, (uint64_t)(uintptr_t)probe_site_entry, why);
	if (!ret)
		__builtin___clear_cache((char *)site->tramp, (char *)site->tramp + PROBE_TRAMP_SIZE);
	if (ret || mprotect(site->tramp, PROBE_TRAMP_SIZE, PROT_READ | PROT_EXEC)) {
		munmap(site->tramp, PROBE_TRAMP_SIZE);
		free(site);
		return ret ? ret : -EPERM;
	}
	probe_tramp_note(site->tramp);
	arch_tramp_unwind(site);
	rcu_publish(site->probe, p); /* the trampoline's handler sees a complete probe */
	sites[nr_sites] = site;
	/* Release: the SIGTRAP handler that sees the count sees the entry (pairs with acquire). */
	st_release(&nr_sites, nr_sites + 1);
	arch_patch_bytes(site, jmp);
	ret = site_poke(site, site->saved, jmp, true);
	if (ret) {
		*why = ret == -EBUSY ? "a thread of the process did not answer (it blocks SIGTRAP)" :
				       "the code could not be written";
		st_relaxed(&site->removing, 1);
		rcu_publish(site->probe, NULL);
		return ret; /* the site stays in the table: a thread may have trapped */
	}
	*sitep = site;
	return 0;
}

int probe_site_remove(struct probe_site *site, bool restore)
{
	uint8_t jmp[PROBE_PATCH_MAX];
	int ret = 0;

	/* Relaxed: the SIGTRAP handler reads it only to pick an entry; both are valid. */
	st_relaxed(&site->removing, 1);
	arch_patch_bytes(site, jmp);
	if (restore)
		ret = site_poke(site, jmp, site->saved, false);
	rcu_publish(site->probe, NULL); /* the caller waits a grace period before freeing it */
	return ret;
}

#else /* no mechanism for this architecture or build */

int probe_site_install(struct probe *p, uint64_t addr, uint64_t func, uint64_t size,
		       probe_handler_t handler, struct probe_site **sitep, const char **why)
{
	(void)p, (void)addr, (void)func, (void)size, (void)handler, (void)sitep;
	*why = "probes need x86-64 with the Zydis decoder, or aarch64";
	return -EOPNOTSUPP;
}

int probe_site_remove(struct probe_site *site, bool restore)
{
	(void)site, (void)restore;
	return -EOPNOTSUPP;
}

bool probe_supported(void)
{
	return false;
}

uint64_t probe_site_addr(const struct probe_site *site)
{
	(void)site;
	return 0;
}

bool probe_site_intact(const struct probe_site *site)
{
	(void)site;
	return false;
}

const uint8_t *probe_site_saved(const struct probe_site *site, size_t *len)
{
	(void)site;
	*len = 0;
	return NULL;
}

#endif
