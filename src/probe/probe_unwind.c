// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_unwind.c - return probes and unwinders (docs/probes.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "probe/probe_arch.h"
#include "probe/probe_cfi.h"

#ifdef PROBE_HAVE_ARCH

/*
 * Unwinders: C++ exceptions, pthread_exit(), pthread_cancel().
 *
 * An unwinder walks the stack by the return addresses it finds there; one we replaced
 * points at the return trampoline, which has no unwind information: the unwinder would
 * find no frame and terminate the program. (On aarch64 the return address is in x30 at
 * the entry, and the function's prologue stores it in its frame: arch_ret_stack_slot()
 * finds that word between the frame's entry sp and the next frame's.) So, as uftrace
 * does, when the first return probe is created, internal entry hooks (probe sites of ours, no event) go on the
 * functions through which every unwind starts (libgcc_s: _Unwind_RaiseException,
 * _Unwind_Resume, _Unwind_Resume_or_Rethrow, _Unwind_ForcedUnwind):
 *
 *   unwind_restore  (at an unwinder's entry) every entry of this thread whose frame is
 *                   still on the stack gets its original return address back in its
 *                   slot (`restored`); entries of frames below the caller are dropped;
 *   unwind_catch    (at __cxa_begin_catch, when libstdc++ is loaded: a catch clause
 *                   begins) entries of frames the exception unwound are dropped, each a
 *                   lost return (counted in the probe's nmissed); the frames that are
 *                   still there get the return trampoline again: their returns are
 *                   recorded as if nothing had happened.
 *
 * A thread that ends by pthread_exit() or pthread_cancel() loses the returns of its
 * probed frames (counted). Both hooks run in the thread that unwinds, inside
 * probe_site_entry() (the re-entry guard, RCU read side), and touch only its own shadow
 * stack. Not covered: an unwinder linked into the program (-static-libgcc, LLVM's
 * libunwind), and a catch by other means than __cxa_begin_catch (a foreign runtime): the
 * frames above it return to their original addresses, their returns unrecorded.
 */

/* Where frame @i of @t keeps its return address on the stack, if it holds @want there. */
static uint64_t *frame_slot(struct probe_thread *t, unsigned int i, uint64_t low, uint64_t want)
{
	/* the frame lies between the entry's sp and the next probed frame's (or the hook's) */
	if (i + 1 < t->depth)
		low = t->ent[i + 1].sp;
	return arch_ret_stack_slot(t->ent[i].sp, low, want);
}

static void unwind_restore(struct probe *unused, struct probe_ctx *ctx)
{
	struct probe_thread *t = probe_shadow_thread();
	uint64_t tramp = probe_ret_tramp(), *slot;

	(void)unused;
	if (!t)
		return;
	/* the hooked function's own frame starts at ctx->sp: frames at or below it went */
	while (t->depth && t->ent[t->depth - 1].sp <= ctx->sp)
		probe_shadow_drop(t);
	for (unsigned int i = 0; i < t->depth; i++) {
		struct shadow_ent *e = &t->ent[i];

		if (e->restored)
			continue;
		slot = frame_slot(t, i, ctx->sp, tramp);
		if (slot) {
			*slot = e->ret;
			e->uslot = slot;
			e->restored = true;
		}
	}
}

static void unwind_catch(struct probe *unused, struct probe_ctx *ctx)
{
	struct probe_thread *t = probe_shadow_thread();
	uint64_t tramp = probe_ret_tramp();

	(void)unused;
	if (!t)
		return;
	while (t->depth && t->ent[t->depth - 1].sp <= ctx->sp)
		probe_shadow_drop(t); /* unwound by the exception this clause catches */
	for (unsigned int i = 0; i < t->depth; i++) {
		struct shadow_ent *e = &t->ent[i];

		if (e->restored && *e->uslot == e->ret) {
			*e->uslot = tramp;
			e->restored = false;
		}
	}
}

static const char unwind_sentinel; /* the "probe" of the hooks' sites: no event */

/* Hook @name of @lib; 0, or -errno: the hook is missing (nothing changed). */
static int unwind_hook(const char *lib, const char *name, probe_handler_t handler)
{
	struct probe_site *site;
	struct probe_sym sym;
	const char *why;
	int ret;

	ret = probe_sym_lookup(lib, name, &sym);
	if (ret)
		return ret;
	return probe_site_install((struct probe *)(uintptr_t)&unwind_sentinel, sym.addr,
				  sym.addr, sym.size, handler, &site, &why);
}

/**
 * probe_unwind_hooks() - hook the unwinders before the first return probe (libgcc_s is loaded for it if it is not:
 * glibc loads it at the first pthread_exit() anyway), and __cxa_begin_catch once libstdc++
 * is there (checked again at each return probe). -EOPNOTSUPP if an unwinder entry cannot
 * be hooked: a return probe could then kill the program.
 * Context: event_mutex held.
 */
int probe_unwind_hooks(void)
{
	static const char *const entries[] = { "_Unwind_RaiseException", "_Unwind_Resume",
					       "_Unwind_Resume_or_Rethrow",
					       "_Unwind_ForcedUnwind" };
	static bool done[sizeof(entries) / sizeof(entries[0])], catch; /* event_mutex */
	int ret;

	for (unsigned int i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		if (done[i])
			continue;
		if (!probe_libgcc_s())
			return -EOPNOTSUPP;
		ret = unwind_hook("libgcc_s", entries[i], unwind_restore);
		if (ret && ret != -ENOENT) /* -ENOENT: an older libgcc, fewer entries */
			return -EOPNOTSUPP;
		done[i] = true;
	}
	if (!catch && dlopen("libstdc++.so.6", RTLD_NOW | RTLD_NOLOAD)) {
		ret = unwind_hook("libstdc++", "__cxa_begin_catch", unwind_catch);
		if (ret && ret != -ENOENT)
			return -EOPNOTSUPP;
		catch = true;
	}
	return 0;
}


#endif
