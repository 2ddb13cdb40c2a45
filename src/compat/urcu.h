/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat/urcu.h - the RCU evtrace uses: liburcu-bp, read side inlined.
 *
 * The "bulletproof" flavour needs no thread registration, so a call site
 * in any thread (or signal handler) may enter a read-side critical
 * section. The read side (rcu_lock/rcu_unlock) is inlined from liburcu's
 * LGPL static headers; synchronize_rcu() is a call into liburcu-bp.
 *
 * Pointers are published with rcu_publish() (a release store) and read
 * with rcu_deref() (an acquire load): the same ordering as liburcu's
 * rcu_assign_pointer()/rcu_dereference(), spelled with compiler atomics so
 * that ThreadSanitizer sees it.
 */
#ifndef EVT_COMPAT_URCU_H
#define EVT_COMPAT_URCU_H

#if !defined(_LGPL_SOURCE) && !defined(EVT_URCU_CALL)
#define _LGPL_SOURCE
#endif
#include <urcu-bp.h>

#include "compat/atomic.h"

/*
 * liburcu declares its per-thread reader record 128-byte aligned but allocates
 * it 32-byte aligned, so UBSan's alignment check trips inside its inline read
 * side. UBSan builds (EVT_URCU_CALL, set by cmake/EvtEvents.cmake) call the
 * library's out-of-line functions instead, which are not instrumented.
 */
static inline void rcu_lock(void)
{
	urcu_bp_read_lock();
}

static inline void rcu_unlock(void)
{
	urcu_bp_read_unlock();
}

/* Wait until every read-side critical section begun before the call has ended. */
static inline void rcu_sync(void)
{
	urcu_bp_synchronize_rcu();
}

/* Release: the pointed-to object is initialised before readers can see the pointer. */
#define rcu_publish(p, v)	st_release(&(p), (v))
/* Acquire: pairs with rcu_publish(); what the pointer points to is then visible. */
#define rcu_deref(p)		ld_acquire(&(p))

#endif /* EVT_COMPAT_URCU_H */
