/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat/rseq.h - per-CPU operations without a lock prefix, through
 * restartable sequences (rseq, Linux 4.18; glibc 2.35 registers it).
 *
 * A restartable sequence is a short run of instructions ending in one
 * "commit" store. If the thread is preempted, migrated or interrupted by
 * a signal while inside it, the kernel moves it to an abort handler
 * instead of letting it continue, so the commit happens only if the
 * whole sequence ran on one CPU without interruption. Among threads
 * that touch a per-CPU word only through such sequences, on the CPU the
 * word belongs to, that is mutual exclusion - the user-space version of
 * the kernel's preempt_disable() - and it costs no locked instruction.
 *
 * The two operations here (the ring buffer's whole need):
 *   evt_rseq_cmp2_store2(): if {w[0], w[1]} == {e0, e1}, store {n0, n1}
 *       with one 16-byte store: the per-CPU compare-and-swap of a
 *       buffer's write state.
 *   evt_rseq_addv(): *v += count with one non-locked add: a commit.
 * Both return 0 on success, 1 on compare failure, -1 if aborted (the
 * thread was not on @cpu, or was preempted/signalled in the sequence).
 *
 * Rules the callers keep (rb_frontend.c):
 *   - every update of a word done this way is done this way, on the
 *     word's CPU; an update from another CPU (control operations) uses
 *     a locked instruction and then MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
 *     which restarts every sequence running in this process, and re-reads
 *     (rb_backend.c);
 *   - the 16-byte store is a single SSE instruction, so other CPUs see
 *     each 8-byte half either old or new (all they need).
 *
 * Available on x86-64 with glibc's rseq registration; elsewhere (and in
 * ThreadSanitizer builds, which cannot see inside the asm)
 * EVT_HAVE_RSEQ_OPS is 0 and the ring buffer uses 16-byte CAS instead.
 */
#ifndef EVT_COMPAT_RSEQ_H
#define EVT_COMPAT_RSEQ_H

#include <stdint.h>

#include "compat/compiler.h"
#include "compat/cpu.h"

#if defined(__x86_64__) && !defined(EVT_TSAN) && !defined(EVT_NO_RSEQ) && \
	(defined(__clang__) || __GNUC__ >= 11)
#define EVT_HAVE_RSEQ_OPS 1
#else
#define EVT_HAVE_RSEQ_OPS 0
#endif

/* Whether this process can use the operations (decided once, by rseq_ops_init()). */
extern int rseq_ops_usable;
int rseq_ops_init(void);
/* Restart every rseq critical section of this process running right now. */
int rseq_ops_fence(void);

#if EVT_HAVE_RSEQ_OPS

#define EVT_RSEQ_SIG 0x53053053

/* struct rseq as the kernel defines it (linux/rseq.h). */
struct evt_rseq_abi {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
} __attribute__((aligned(32)));

static inline struct evt_rseq_abi *evt_rseq_area(void)
{
	return (struct evt_rseq_abi *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

typedef long long evt_v2di __attribute__((vector_size(16)));

/*
 * The critical-section descriptor goes to section __rseq_cs, the abort
 * handler (after the 4-byte signature the kernel checks) to
 * __rseq_failure, as glibc and librseq lay them out.
 */
#define EVT_RSEQ_CS_BEGIN(label_start, label_post, label_abort)			\
	".pushsection __rseq_cs, \"aw\"\n\t"					\
	".balign 32\n\t"							\
	"3:\n\t"								\
	".long 0x0, 0x0\n\t"							\
	".quad " #label_start "f, (" #label_post "f - " #label_start "f), "	\
	#label_abort "f\n\t"							\
	".popsection\n\t"							\
	"leaq 3b(%%rip), %%rax\n\t"						\
	"movq %%rax, %[rseq_cs]\n\t"

#define EVT_RSEQ_CS_ABORT(label_abort, c_label)					\
	".pushsection __rseq_failure, \"ax\"\n\t"				\
	".byte 0x0f, 0xb9, 0x3d\n\t"						\
	".long 0x53053053\n\t"							\
	#label_abort ":\n\t"							\
	"jmp %l[" #c_label "]\n\t"						\
	".popsection\n\t"

static inline int evt_rseq_cmp2_store2(uint64_t *w, uint64_t e0, uint64_t e1, uint64_t n0,
				       uint64_t n1, uint32_t cpu)
{
	struct evt_rseq_abi *rs = evt_rseq_area();
	evt_v2di nv = { (long long)n0, (long long)n1 };

	__asm__ __volatile__ goto(
		EVT_RSEQ_CS_BEGIN(1, 2, 4)
		"1:\n\t"
		"cmpl %[cpu], %[cur_cpu]\n\t"
		"jnz 4f\n\t"
		"cmpq %[e0], 0(%[w])\n\t"
		"jnz %l[cmpfail]\n\t"
		"cmpq %[e1], 8(%[w])\n\t"
		"jnz %l[cmpfail]\n\t"
		/* commit: one 16-byte store */
		"movdqa %[nv], 0(%[w])\n\t"
		"2:\n\t"
		EVT_RSEQ_CS_ABORT(4, abort)
		:
		: [cpu] "r"(cpu), [cur_cpu] "m"(rs->cpu_id), [rseq_cs] "m"(rs->rseq_cs),
		  [w] "r"(w), [e0] "r"(e0), [e1] "r"(e1), [nv] "x"(nv)
		: "memory", "cc", "rax"
		: abort, cmpfail);
	return 0;
abort:
	return -1;
cmpfail:
	return 1;
}

static inline int evt_rseq_addv(uint64_t *v, uint64_t count, uint32_t cpu)
{
	struct evt_rseq_abi *rs = evt_rseq_area();

	__asm__ __volatile__ goto(
		EVT_RSEQ_CS_BEGIN(1, 2, 4)
		"1:\n\t"
		"cmpl %[cpu], %[cur_cpu]\n\t"
		"jnz 4f\n\t"
		/* commit: one non-locked add */
		"addq %[count], 0(%[v])\n\t"
		"2:\n\t"
		EVT_RSEQ_CS_ABORT(4, abort)
		:
		: [cpu] "r"(cpu), [cur_cpu] "m"(rs->cpu_id), [rseq_cs] "m"(rs->rseq_cs),
		  [v] "r"(v), [count] "r"(count)
		: "memory", "cc", "rax"
		: abort);
	return 0;
abort:
	return -1;
}

/* The CPU this thread is on, from the rseq area (valid when rseq_ops_usable). */
static inline uint32_t evt_rseq_cpu(void)
{
	return __atomic_load_n(&evt_rseq_area()->cpu_id_start, __ATOMIC_RELAXED);
}

#endif /* EVT_HAVE_RSEQ_OPS */

#endif /* EVT_COMPAT_RSEQ_H */
