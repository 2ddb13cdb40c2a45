// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat/rcu.c - reader records and grace periods of the RCU in compat/rcu.h.
 *
 * Reader records live in chunks that are never freed (the first one static,
 * the others mmap()ed), so an updater may read any record at any time. A
 * thread claims one with a CAS on its first rcu_lock() (signals blocked, so
 * a handler of the same thread cannot claim a second one meanwhile) and gives
 * it back from a thread-specific-data destructor at its exit; a thread that
 * traces after its destructors ran claims one again, which is at worst
 * leaked: it is quiescent (ctr 0) outside a section. A fork child gives back
 * every record but its own thread's (the other threads are gone, perhaps
 * inside a section).
 *
 * The grace period (rcu_sync()): add RCU_GP_STEP to rcu_gp, membarrier, and
 * wait for every record whose section began before that (nesting non-zero
 * and a counter other than the new one). A thread that keeps entering
 * sections does not hold the updater: each new section carries the new
 * counter.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compat/rcu.h"

#define RCU_CHUNK_BYTES 4096
#define RCU_CHUNK_RECS	(RCU_CHUNK_BYTES / sizeof(struct rcu_reader) - 1)

struct rcu_chunk {
	struct rcu_chunk *next;		/* the next chunk (acquire/release) */
	struct rcu_reader rec[RCU_CHUNK_RECS] __cacheline_aligned;
};
_Static_assert(sizeof(struct rcu_chunk) == RCU_CHUNK_BYTES, "a chunk is one page");

uint64_t rcu_gp;
__thread struct rcu_reader *rcu_me __attribute__((tls_model("initial-exec")));

static struct rcu_chunk rcu_first __cacheline_aligned;
static pthread_mutex_t rcu_gp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t rcu_once = PTHREAD_ONCE_INIT;
static pthread_key_t rcu_key;
static int rcu_key_ok;

enum { RCU_MB_PRIVATE, RCU_MB_GLOBAL, RCU_MB_NONE };
static int rcu_mb;	/* how rcu_sync() orders the readers (under rcu_gp_lock after init) */

static long rcu_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/* Give @r back: its thread is leaving (or gone). */
static void rcu_release(struct rcu_reader *r)
{
	/* Release: the thread's last section is over before anyone claims the record. */
	st_release(&r->ctr, 0);
	st_release(&r->owned, 0);
}

static void rcu_thread_exit(void *arg)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rcu_me = NULL;
	rcu_release(arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void rcu_before_fork(void)
{
	pthread_mutex_lock(&rcu_gp_lock);
}

static void rcu_after_fork_parent(void)
{
	pthread_mutex_unlock(&rcu_gp_lock);
}

static void rcu_after_fork_child(void)
{
	struct rcu_reader *me = rcu_me;

	/* The other threads are gone: their records, even inside a section, are free. */
	for (struct rcu_chunk *c = &rcu_first; c; c = ld_acquire(&c->next))
		for (size_t i = 0; i < RCU_CHUNK_RECS; i++)
			if (&c->rec[i] != me)
				rcu_release(&c->rec[i]);
	pthread_mutex_unlock(&rcu_gp_lock);
}

static void rcu_init_once(void)
{
	const char *env = secure_getenv("EVTRACE_MEMBARRIER");
	/* EVTRACE_MEMBARRIER=0: as if the kernel had none (the readers fence; tests). */
	long cmds = env && !strcmp(env, "0") ? 0 : rcu_membarrier(MEMBARRIER_CMD_QUERY);

	rcu_key_ok = !pthread_key_create(&rcu_key, rcu_thread_exit);
	pthread_atfork(rcu_before_fork, rcu_after_fork_parent, rcu_after_fork_child);
	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    !rcu_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		rcu_mb = RCU_MB_PRIVATE;
	} else if (cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL)) {
		rcu_mb = RCU_MB_GLOBAL;
	} else {
		rcu_mb = RCU_MB_NONE;
		/* Relaxed: no section can have begun (every thread's first
		 * rcu_lock() comes through pthread_once(), which orders this). */
		or_relaxed(&rcu_gp, RCU_GP_FENCE);
	}
}

/**
 * rcu_init() - set up the RCU: membarrier registration, fork and thread-exit handlers.
 *
 * Called from the event layer's init (not a signal handler: pthread_atfork()
 * is not async-signal-safe) and, in case no init ran first, from the first
 * rcu_lock() of a thread and from rcu_sync(). Idempotent.
 */
void rcu_init(void)
{
	pthread_once(&rcu_once, rcu_init_once);
}

static struct rcu_reader *rcu_claim(void)
{
	struct rcu_chunk *c = &rcu_first, *fresh, *head;

	for (;;) {
		for (size_t i = 0; i < RCU_CHUNK_RECS; i++) {
			uint32_t free_rec = 0;

			/* Acquire: the last owner's release of the record comes before. */
			if (!ld_relaxed(&c->rec[i].owned) &&
			    cas_acq_rel(&c->rec[i].owned, &free_rec, 1))
				return &c->rec[i];
		}
		/* Acquire: pairs with the release that linked the chunk. */
		struct rcu_chunk *next = ld_acquire(&c->next);

		if (!next)
			break;
		c = next;
	}
	/* mmap(2) is async-signal-safe; the chunk is never unmapped. */
	fresh = mmap(NULL, RCU_CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (fresh == MAP_FAILED)
		return NULL;
	fresh->rec[0].owned = 1;
	head = ld_relaxed(&rcu_first.next);
	do {
		fresh->next = head;
		/* Release: the chunk's contents before its address (rcu_sync()'s scan). */
	} while (!cas_release(&rcu_first.next, &head, fresh));
	return &fresh->rec[0];
}

/**
 * rcu_register() - the calling thread's reader record, claimed on its first rcu_lock().
 *
 * Context: any thread, any time, including a signal handler (signals are
 * blocked while it claims). Without memory for a new chunk of records it
 * waits for one to be given back or for memory.
 * Return: the record, also stored in rcu_me.
 */
struct rcu_reader *rcu_register(void)
{
	struct rcu_reader *r;
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rcu_init();
	while (!(r = rcu_claim()))
		sched_yield();
	rcu_me = r;
	/* The destructor gives the record back at the thread's exit. */
	if (rcu_key_ok)
		pthread_setspecific(rcu_key, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* Every running thread of the process executes a full barrier. */
static void rcu_barrier_all(void)
{
	if (rcu_mb == RCU_MB_PRIVATE) {
		if (!rcu_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
			return;
		/* A fork child may have to register again. */
		if (errno == EPERM && !rcu_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) &&
		    !rcu_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
			return;
		rcu_mb = RCU_MB_GLOBAL;
	}
	if (rcu_mb == RCU_MB_GLOBAL && !rcu_membarrier(MEMBARRIER_CMD_GLOBAL))
		return;
	/* RCU_MB_NONE: the readers fence themselves (RCU_GP_FENCE); this is the other half. */
	fence_seq_cst();
}

/* Wait until @r is outside any section begun before the counter became @gp. */
static void rcu_wait_reader(struct rcu_reader *r, uint64_t gp)
{
	for (unsigned int spins = 0;; spins++) {
		/* Acquire: pairs with the release in rcu_unlock(): the section's
		 * accesses happen before what the updater does next. */
		uint64_t v = ld_acquire(&r->ctr);

		if (!(v & RCU_NEST_MASK) || (v & ~RCU_NEST_MASK) == (gp & ~RCU_NEST_MASK))
			return;
		if (spins < 100)
			sched_yield();
		else
			nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	}
}

/**
 * rcu_sync() - wait until every read-side critical section begun before the call has ended.
 *
 * Context: not inside a read-side critical section, not from a signal
 * handler. Sleeps; serialised by a mutex.
 */
void rcu_sync(void)
{
	uint64_t gp;

	rcu_init();
	pthread_mutex_lock(&rcu_gp_lock);
	/* Seq-cst: what the caller unpublished before the new counter (a reader that
	 * loads it sees those stores: the acquire in rcu_lock()). */
	gp = __atomic_add_fetch(&rcu_gp, RCU_GP_STEP, __ATOMIC_SEQ_CST);
	/* A reader's store of ctr is before its loads of the section for this scan. */
	rcu_barrier_all();
	for (struct rcu_chunk *c = &rcu_first; c; c = ld_acquire(&c->next))
		for (size_t i = 0; i < RCU_CHUNK_RECS; i++)
			rcu_wait_reader(&c->rec[i], gp);
	pthread_mutex_unlock(&rcu_gp_lock);
}
