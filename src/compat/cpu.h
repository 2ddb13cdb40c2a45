/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat/cpu.h - which CPU is this thread on, cheaply.
 *
 * glibc 2.35 and later register an rseq area for every thread; the
 * kernel keeps its cpu_id field current across every migration, so the
 * CPU number is one load from the thread pointer (~1 ns, no system
 * call, async-signal-safe). Where rseq is not registered (older glibc,
 * GLIBC_TUNABLES=glibc.pthread.rseq=0, or a kernel without rseq) we
 * fall back to sched_getcpu() (vDSO). The answer can be stale by the
 * time it is used: the ring buffer does not rely on it for correctness,
 * only for locality.
 */
#ifndef EVT_COMPAT_CPU_H
#define EVT_COMPAT_CPU_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/compiler.h"

/* glibc's rseq ABI symbols (weak, so an older glibc still links). */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

/* The first fields of struct rseq (linux/rseq.h), as the kernel lays them out. */
struct evt_rseq_head {
	uint32_t cpu_id_start;
	int32_t cpu_id;
};

/*
 * evt_cpu_current() without its sched_getcpu() fallback: -1 where that would
 * be needed. For fast paths that must not make a call (the event writer's).
 */
static inline int evt_cpu_current_nocall(void)
{
#if (defined(__x86_64__) || defined(__aarch64__)) && (defined(__clang__) || __GNUC__ >= 11)
	if (likely(&__rseq_size && __rseq_size != 0)) {
		const struct evt_rseq_head *rs = (const struct evt_rseq_head *)
			((char *)__builtin_thread_pointer() + __rseq_offset);
		/* The kernel rewrites cpu_id on migration; a relaxed load sees a current value. */
		int32_t cpu = __atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);

		if (likely(cpu >= 0))
			return cpu;
	}
#endif
	return -1;
}

static inline int evt_cpu_current(void)
{
#if (defined(__x86_64__) || defined(__aarch64__)) && (defined(__clang__) || __GNUC__ >= 11)
	if (likely(&__rseq_size && __rseq_size != 0)) {
		const struct evt_rseq_head *rs = (const struct evt_rseq_head *)
			((char *)__builtin_thread_pointer() + __rseq_offset);
		/* The kernel rewrites cpu_id on migration; a relaxed load sees a current value. */
		int32_t cpu = __atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);

		if (likely(cpu >= 0))
			return cpu;
	}
#endif
	{
		int cpu = sched_getcpu();

		return cpu < 0 ? 0 : cpu;
	}
}

#endif /* EVT_COMPAT_CPU_H */
