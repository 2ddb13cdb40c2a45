/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat/atomic.h - the one place evtrace gets its atomics from.
 *
 * Everything is C11/GCC __atomic with an explicit memory order, so every
 * call site says what it orders. Shared words are plain integer fields
 * accessed only through these helpers (the ring buffer's control words
 * live in memory another process maps, where _Atomic types would say
 * nothing more and make the layout harder to state).
 *
 * The ring buffer's write state is two 64-bit words updated as one by a
 * 16-byte compare-and-swap (cmpxchg16b on x86-64, casp or ldxp/stxp on
 * aarch64). GCC and clang inline __sync_bool_compare_and_swap on
 * unsigned __int128 when the target has it (-mcx16 on x86-64), and TSan
 * understands it. The pair is read as two 8-byte acquire loads: a torn
 * read is harmless because the CAS that follows compares all 16 bytes
 * and fails on it.
 */
#ifndef EVT_COMPAT_ATOMIC_H
#define EVT_COMPAT_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#define ld_relaxed(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define ld_acquire(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define st_relaxed(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define st_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define add_relaxed(p, v)	__atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define add_release(p, v)	__atomic_fetch_add((p), (v), __ATOMIC_RELEASE)
#define sub_relaxed(p, v)	__atomic_fetch_sub((p), (v), __ATOMIC_RELAXED)
#define xchg_acq_rel(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#define or_relaxed(p, v)	__atomic_fetch_or((p), (v), __ATOMIC_RELAXED)
#define and_relaxed(p, v)	__atomic_fetch_and((p), (v), __ATOMIC_RELAXED)
#define and_release(p, v)	__atomic_fetch_and((p), (v), __ATOMIC_RELEASE)

/* 8-byte CAS; on failure *expected is updated with the current value. */
#define cas_acq_rel(p, expected, desired)					\
	__atomic_compare_exchange_n((p), (expected), (desired), false,		\
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)

/* CAS of any size; on failure *expected is updated with the current value. */
#define cas_relaxed(p, expected, desired)					\
	__atomic_compare_exchange_n((p), (expected), (desired), false,		\
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#define cas_release(p, expected, desired)					\
	__atomic_compare_exchange_n((p), (expected), (desired), false,		\
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED)

#define fence_acquire()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define fence_release()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define fence_seq_cst()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
/* Orders against a signal handler running on this thread only. */
#define signal_fence()		__atomic_signal_fence(__ATOMIC_SEQ_CST)

typedef unsigned __int128 evt_u128;

/* A pair of 64-bit words that is compared and swapped as one. */
struct evt_pair {
	uint64_t lo;
	uint64_t hi;
} __attribute__((aligned(16)));

static inline evt_u128 pair_pack(uint64_t lo, uint64_t hi)
{
	return ((evt_u128)hi << 64) | lo;
}

/*
 * pair_load - read both words, each with acquire order.
 * The two loads are not one atomic read; callers must validate the
 * pair by a pair_cas() before acting on it, or tolerate a torn pair.
 */
static inline void pair_load(const struct evt_pair *p, uint64_t *lo, uint64_t *hi)
{
	*lo = ld_acquire(&p->lo);
	*hi = ld_acquire(&p->hi);
}

/*
 * pair_cas - compare {old_lo, old_hi} with *p and store {lo, hi} if equal.
 * A full barrier (lock cmpxchg16b / casal): everything before it is
 * visible before the new pair, and nothing after it moves before.
 */
static inline bool pair_cas(struct evt_pair *p, uint64_t old_lo, uint64_t old_hi,
			    uint64_t lo, uint64_t hi)
{
	return __sync_bool_compare_and_swap((evt_u128 *)p, pair_pack(old_lo, old_hi),
					    pair_pack(lo, hi));
}

#endif /* EVT_COMPAT_ATOMIC_H */
