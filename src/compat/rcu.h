/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat/rcu.h - the RCU evtrace uses: an inline read side of its own, grace
 * periods made with membarrier(2).
 *
 * Every thread may enter a read-side critical section without registering
 * first (a call site in any thread, or in a signal handler): its first
 * rcu_lock() claims a reader record (rcu.c) and keeps its address in one
 * initial-exec thread-local pointer (8 bytes of the library's static TLS).
 * The record's one word, ctr, is 0 or a nesting count in its low 16 bits
 * with, above them, the grace-period counter as the outermost rcu_lock()
 * read it. Only its thread writes it (and signal handlers of that thread,
 * which always leave it as they found it: each lock/unlock is a load and a
 * store of the thread's own word, and a handler runs whole between them).
 *
 * rcu_sync() advances the counter, then makes every running thread of the
 * process execute a full barrier (membarrier PRIVATE_EXPEDITED), then waits
 * for each record that is inside a section begun with an older counter.
 * The barrier is what the reader would otherwise need between its store of
 * ctr and its loads of the protected pointers (a store-load fence, ~20
 * cycles): a reader whose store the scan does not see ran its loads after
 * the barrier, so it sees what was unpublished before. Where membarrier is
 * not available the counter carries RCU_GP_FENCE and readers fence
 * themselves (the branch tests a value the lock loads anyway).
 *
 * Pointers are published with rcu_publish() (a release store) and read
 * with rcu_deref() (an acquire load), spelled with compiler atomics so that
 * ThreadSanitizer sees them; the unlock is a release store and the scan's
 * load an acquire, so TSan sees a section end before the updater goes on.
 */
#ifndef EVT_COMPAT_RCU_H
#define EVT_COMPAT_RCU_H

#include <stdint.h>

#include "compat/atomic.h"
#include "compat/compiler.h"

#define RCU_NEST_MASK	UINT64_C(0xffff)	/* ctr: nesting depth */
#define RCU_GP_STEP	UINT64_C(0x10000)	/* one grace period, in rcu_gp */
#define RCU_GP_FENCE	UINT64_C(1)		/* rcu_gp: readers fence (no membarrier) */

/* One thread's reader record: a cache line of its own (every section writes it twice). */
struct rcu_reader {
	uint64_t ctr;		/* 0, or nesting | the counter at the outermost lock */
	uint32_t owned;		/* claimed by a live thread (rcu.c) */
} __cacheline_aligned;

/* The grace-period counter (multiple of RCU_GP_STEP) | RCU_GP_FENCE when readers fence. */
extern uint64_t rcu_gp __attribute__((visibility("hidden")));
extern __thread struct rcu_reader *rcu_me
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

struct rcu_reader *rcu_register(void) __attribute__((visibility("hidden")));
void rcu_init(void);

/* Enter a read-side critical section. Async-signal-safe; nests. */
static inline void rcu_lock(void)
{
	struct rcu_reader *r = rcu_me;
	uint64_t v;

	if (unlikely(!r))
		r = rcu_register();
	/* Relaxed: the thread's own word (see the top of the file). */
	v = ld_relaxed(&r->ctr);
	if (likely(!(v & RCU_NEST_MASK))) {
		/* Acquire: pairs with rcu_sync()'s increment; what was unpublished
		 * before it is seen by the loads of this section. */
		uint64_t gp = ld_acquire(&rcu_gp);

		st_relaxed(&r->ctr, (gp & ~RCU_NEST_MASK) | 1);
		/*
		 * The store of ctr before the section's loads: for the compiler
		 * here; for the CPU, rcu_sync()'s membarrier (or this fence when
		 * it has none) orders the store before the loads.
		 */
		if (unlikely(gp & RCU_GP_FENCE))
			fence_seq_cst();
		else
			signal_fence();
	} else {
		st_relaxed(&r->ctr, v + 1);
	}
}

/* Leave it. Async-signal-safe. */
static inline void rcu_unlock(void)
{
	struct rcu_reader *r = rcu_me;

	/* Release: the section's loads and stores happen before an updater that sees
	 * the count drop (the acquire load in rcu_sync()) frees anything. */
	st_release(&r->ctr, ld_relaxed(&r->ctr) - 1);
}

/*
 * Wait until every read-side critical section begun before the call has
 * ended. Not from inside one (it would wait for itself), nor from a signal
 * handler. Serialised internally.
 */
void rcu_sync(void);

/* Release: the pointed-to object is initialised before readers can see the pointer. */
#define rcu_publish(p, v)	st_release(&(p), (v))
/* Acquire: pairs with rcu_publish(); what the pointer points to is then visible. */
#define rcu_deref(p)		ld_acquire(&(p))

#endif /* EVT_COMPAT_RCU_H */
