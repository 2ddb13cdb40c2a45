// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_shadow.c - return probes (docs/probes.md): an entry handler
 * replaces the function's return address (on the stack on x86-64, in x30 on
 * aarch64: arch_ret_addr()) with the return trampoline's and pushes the
 * original on the thread's shadow stack; the return trampoline calls
 * probe_ret_entry(), which pops it, records the return and goes back there.
 * Entries of frames that were abandoned (longjmp, exceptions, thread exit)
 * are dropped as lost returns (nmissed).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/rcu.h"
#include "probe/probe_arch.h"
#include "probe/probe_cfi.h"

#ifdef PROBE_HAVE_ARCH


/* The one thread-local pointer (general-dynamic TLS: the library stays dlopen()able); the
 * re-entry guard is in its record, not a TLS byte of its own (compile/tls-budget). */
static __thread struct probe_thread *probe_thr;
static pthread_key_t thr_key;
static pthread_once_t thr_once = PTHREAD_ONCE_INIT;
static uint8_t *ret_tramp; /* written once under event_mutex before any hijack */


/* At thread exit (a key destructor, in the thread): frames left never return. */
static void thr_free(void *arg)
{
	struct probe_thread *t = arg;

	while (t->depth)
		probe_shadow_drop(t);
	probe_thr = NULL;
	munmap(t, sizeof(*t));
}

static void thr_key_init(void)
{
	pthread_key_create(&thr_key, thr_free);
}

static struct probe_thread *thr_get(void)
{
	struct probe_thread *t = probe_thr;
	void *m;

	if (likely(t))
		return t;
	m = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	t = m;
	probe_thr = t;
	/* glibc's keys below 32 live in the thread descriptor: no allocation here */
	pthread_setspecific(thr_key, t);
	return t;
}

void probe_thread_prepare(void)
{
	pthread_once(&thr_once, thr_key_init);
}

/* A hit begins: false if this thread is in a hit already, or has no record (no memory). */
bool probe_enter(void)
{
	struct probe_thread *t = thr_get();

	if (!t || t->nest)
		return false;
	t->nest = 1;
	signal_fence(); /* the flag is set before the handler's body, for a signal handler */
	return true;
}

void probe_leave(void)
{
	signal_fence(); /* the handler's body is done before the flag clears */
	probe_thr->nest = 0; /* probe_enter() made the record; only thr_free() unmaps it */
}

struct probe_thread *probe_shadow_thread(void)
{
	return probe_thr;
}

unsigned int probe_shadow_depth(void)
{
	return probe_thr ? probe_thr->depth : 0;
}

/**
 * probe_shadow_drop() - pop the top entry of a frame that will never return through us.
 * @t: this thread's shadow stack (not empty)
 *
 * Counted as a lost return of its probe (nmissed). Context: the thread of @t.
 */
void probe_shadow_drop(struct probe_thread *t)
{
	const struct shadow_ent *e = &t->ent[t->depth - 1];

	probe_ret_lost(e->p, e->slot, e->serial);
	t->depth--;
}

bool probe_ret_hijack(struct probe *p, struct probe_ctx *ctx, unsigned int maxactive)
{
	struct probe_thread *t = thr_get();
	struct shadow_ent *e;
	unsigned int mine = 0;

	if (!t || !ret_tramp)
		return false;
	/* entries at or below this frame belong to frames a longjmp() abandoned */
	while (t->depth && t->ent[t->depth - 1].sp <= ctx->sp)
		probe_shadow_drop(t);
	if (t->depth == SHADOW_MAX)
		return false;
	if (maxactive) {
		for (unsigned int i = 0; i < t->depth; i++)
			mine += t->ent[i].p == p;
		if (mine >= maxactive)
			return false;
	}
	e = &t->ent[t->depth];
	memcpy(&e->ret, arch_ret_addr(ctx), 8);
	e->sp = ctx->sp;
	e->func = ctx->ip;
	e->p = p;
	e->restored = false;
	probe_ident(p, &e->slot, &e->serial);
	signal_fence(); /* the entry is complete before a signal handler's hit can see it */
	t->depth++;
	{
		uint64_t r = (uint64_t)(uintptr_t)ret_tramp;

		memcpy(arch_ret_addr(ctx), &r, 8);
	}
	return true;
}

/*
 * Called by the return trampoline with the registers at the return; gives the
 * address to go back to. The matching entry is the one saved at this frame:
 * entries below it were abandoned (longjmp, exceptions) and are dropped.
 */
static uint64_t __attribute__((noinline)) probe_ret_entry(struct probe_regs *regs)
{
	struct probe_thread *t = probe_thr;
	uint64_t sp = arch_ret_frame(regs); /* the frame's key: its entry's ctx->sp */
	struct shadow_ent e;
	struct probe_ctx ctx;

	while (t && t->depth && t->ent[t->depth - 1].sp < sp)
		probe_shadow_drop(t);
	if (!t || !t->depth || t->ent[t->depth - 1].sp != sp) {
		/* cannot happen: a hijacked frame always has its entry */
		static const char msg[] = "evtrace: return probe lost its return address\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	e = t->ent[t->depth - 1];
	t->depth--;
	signal_fence(); /* popped before the handler, which may hit probes itself */
	arch_ret_unwind_set(regs, e.ret); /* a stack trace goes on from the caller */
	if (probe_enter()) {
		rcu_lock();
		if (probe_live_rcu(e.p, e.slot, e.serial)) {
			ctx.regs = regs;
			ctx.sp = arch_ret_sp(sp);
			ctx.ip = e.ret;
			ctx.retval = arch_retval(regs);
			ctx.is_return = true;
			probe_ret_record(e.p, &ctx, e.func, e.ret);
		}
		rcu_unlock();
		probe_leave();
	}
	return e.ret;
}

/* The return trampoline (once). */
static int ret_tramp_build(void)
{
	uint8_t *page;

	if (ret_tramp)
		return 0;
	page = mmap(NULL, PROBE_TRAMP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (page == MAP_FAILED)
		return -ENOMEM;
	if (arch_ret_tramp_build(page, (uint64_t)(uintptr_t)probe_ret_entry) ||
	    (__builtin___clear_cache((char *)page, (char *)page + PROBE_TRAMP_SIZE),
	     mprotect(page, PROBE_TRAMP_SIZE, PROT_READ | PROT_EXEC))) {
		munmap(page, PROBE_TRAMP_SIZE);
		return -EPERM;
	}
	probe_tramp_note(page);
	arch_ret_tramp_unwind(page);
	pthread_once(&thr_once, thr_key_init);
	/* Release: a hijack that reads it sees the finished page (pairs with nothing weaker
	 * than the hit's own loads; it is set before any return probe is armed). */
	st_release(&ret_tramp, page);
	return 0;
}

uint64_t probe_ret_tramp(void)
{
	return (uint64_t)(uintptr_t)ld_relaxed(&ret_tramp); /* set once before any hijack */
}

int probe_ret_prepare(void)
{
	int ret = ret_tramp_build();

	return ret ? ret : probe_unwind_hooks();
}

#else /* no mechanism */

bool probe_ret_hijack(struct probe *p, struct probe_ctx *ctx, unsigned int maxactive)
{
	(void)p, (void)ctx, (void)maxactive;
	return false;
}

int probe_ret_prepare(void)
{
	return -EOPNOTSUPP;
}

unsigned int probe_shadow_depth(void)
{
	return 0;
}

#endif
