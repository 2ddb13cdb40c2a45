// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rcu-grace: the RCU of compat/rcu.h (the tracepoints' read side).
 *   1. rcu_sync() waits for a reader inside a section begun before it, and
 *      returns once that reader leaves;
 *   2. an updater frees only after: readers check a published object's
 *      magic while the updater replaces, syncs, poisons and frees the old one;
 *   3. a signal handler's section nests inside its thread's (and the count
 *      comes back as it was), and handlers interrupting sections at random
 *      points leave no reader stuck;
 *   4. a fork child whose parent had a thread inside a section can sync;
 *   5. a thread's record is given back at its exit and reused;
 *   6. 1 and 2 again without membarrier (EVTRACE_MEMBARRIER=0, the readers'
 *      fence), in a child run with that environment.
 * Each part is bounded (under a second in all); alarm() turns a hang into a failure.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/rcu.h"
#include "helpers.h"

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 }, NULL);
}

/* --- 1. a grace period waits for a reader inside --------------------------------------- */

static int reader_in, reader_go, sync_done;

static void *inside_reader(void *arg)
{
	(void)arg;
	rcu_lock();
	st_release(&reader_in, 1);
	while (!ld_acquire(&reader_go))
		sleep_ms(1);
	rcu_unlock();
	return NULL;
}

static void *syncer(void *arg)
{
	(void)arg;
	rcu_sync();
	st_release(&sync_done, 1);
	return NULL;
}

static void test_waits_for_reader(void)
{
	pthread_t r, s;

	T_ASSERT_OK(pthread_create(&r, NULL, inside_reader, NULL));
	while (!ld_acquire(&reader_in))
		sleep_ms(1);
	T_ASSERT_OK(pthread_create(&s, NULL, syncer, NULL));
	sleep_ms(100);
	T_ASSERT_EQ(ld_acquire(&sync_done), 0);	/* the reader is still inside */
	st_release(&reader_go, 1);
	T_ASSERT_OK(pthread_join(s, NULL));
	T_ASSERT_EQ(ld_acquire(&sync_done), 1);
	T_ASSERT_OK(pthread_join(r, NULL));
	rcu_sync();	/* nobody inside: returns at once */
}

/* --- 2. an updater frees only after the readers are done ------------------------------- */

#define MAGIC 0x5eedf00dcafe1234ull

struct obj {
	uint64_t magic;
	uint64_t serial;
};

static struct obj *cur;
static int stop;
static unsigned long bad;

static void *checker(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!ld_acquire(&stop)) {
		rcu_lock();
		struct obj *o = rcu_deref(cur);

		for (int i = 0; i < 32; i++)
			if (ld_relaxed(&o->magic) != MAGIC)
				add_relaxed(&bad, 1);
		rcu_unlock();
		n++;
	}
	T_ASSERT(n > 0);
	return NULL;
}

static void test_free_after(void)
{
	pthread_t t[2];
	double end = t_seconds_now() + 0.4;
	unsigned int swaps = 0;

	cur = calloc(1, sizeof(*cur));
	T_ASSERT(cur);
	cur->magic = MAGIC;
	for (int i = 0; i < 2; i++)
		T_ASSERT_OK(pthread_create(&t[i], NULL, checker, NULL));
	while (t_seconds_now() < end) {
		struct obj *o = calloc(1, sizeof(*o)), *old = cur;

		T_ASSERT(o);
		o->magic = MAGIC;
		o->serial = ++swaps;
		rcu_publish(cur, o);
		rcu_sync();
		st_relaxed(&old->magic, 0);	/* poison: a reader still here would see it */
		free(old);
	}
	st_release(&stop, 1);
	for (int i = 0; i < 2; i++)
		T_ASSERT_OK(pthread_join(t[i], NULL));
	T_ASSERT_EQ(ld_relaxed(&bad), 0);
	T_ASSERT(swaps > 10);
	free(cur);
	st_relaxed(&stop, 0);
}

/* --- 3. a signal handler's section nests ----------------------------------------------- */

static uint64_t seen_in_handler;
static unsigned long handler_runs;

static void handler(int sig)
{
	(void)sig;
	rcu_lock();
	seen_in_handler = ld_relaxed(&rcu_me->ctr);
	rcu_lock();
	rcu_unlock();
	rcu_unlock();
	add_relaxed(&handler_runs, 1);
}

static void *signalled_reader(void *arg)
{
	(void)arg;
	while (!ld_acquire(&stop)) {
		rcu_lock();
		rcu_lock();
		rcu_unlock();
		rcu_unlock();
	}
	T_ASSERT_EQ(ld_relaxed(&rcu_me->ctr) & RCU_NEST_MASK, 0);
	return NULL;
}

static void test_signal_nesting(void)
{
	struct sigaction sa = { .sa_handler = handler };
	uint64_t before;
	pthread_t t;

	T_ASSERT_OK(sigaction(SIGUSR1, &sa, NULL));
	/* A handler inside this thread's section: nesting 2, the same counter. */
	rcu_lock();
	before = ld_relaxed(&rcu_me->ctr);
	raise(SIGUSR1);
	T_ASSERT_EQ(seen_in_handler, before + 1);
	T_ASSERT_EQ(ld_relaxed(&rcu_me->ctr), before);
	rcu_unlock();
	T_ASSERT_EQ(ld_relaxed(&rcu_me->ctr) & RCU_NEST_MASK, 0);

	/* Handlers landing at random points of another thread's lock/unlock. */
	T_ASSERT_OK(pthread_create(&t, NULL, signalled_reader, NULL));
	for (int i = 0; i < 2000; i++) {
		pthread_kill(t, SIGUSR1);
		if (i % 100 == 0)
			rcu_sync();	/* returns: nobody is left inside */
	}
	rcu_sync();
	st_release(&stop, 1);
	T_ASSERT_OK(pthread_join(t, NULL));
	T_ASSERT(ld_relaxed(&handler_runs) > 1);
	st_relaxed(&stop, 0);
}

/* --- 4. fork while another thread is inside a section ---------------------------------- */

static void test_fork(void)
{
	pthread_t r;
	int status;
	pid_t pid;

	st_relaxed(&reader_in, 0);
	st_relaxed(&reader_go, 0);
	T_ASSERT_OK(pthread_create(&r, NULL, inside_reader, NULL));
	while (!ld_acquire(&reader_in))
		sleep_ms(1);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		alarm(5);	/* a hang is a failure */
		rcu_sync();	/* the reader thread is gone: its record is free */
		rcu_lock();
		rcu_unlock();
		rcu_sync();
		_exit(0);
	}
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	st_release(&reader_go, 1);
	T_ASSERT_OK(pthread_join(r, NULL));
}

/* --- 5. records are given back at thread exit ------------------------------------------ */

static void *record_of(void *arg)
{
	(void)arg;
	rcu_lock();
	rcu_unlock();
	return rcu_me;
}

static void test_thread_exit(void)
{
	void *first = NULL, *rec;
	int reused = 0;

	for (int i = 0; i < 50; i++) {
		pthread_t t;

		T_ASSERT_OK(pthread_create(&t, NULL, record_of, NULL));
		T_ASSERT_OK(pthread_join(t, &rec));
		T_ASSERT(rec != NULL);
		if (!first)
			first = rec;
		else if (rec == first)
			reused++;
	}
	/* Threads one after another: each takes the record the last one gave back. */
	T_ASSERT(reused >= 45);
	rcu_sync();
}

/* Part 6: this program again, with EVTRACE_MEMBARRIER=0 and the argument "fence". */
static void test_fence_mode(const char *self)
{
	int status;
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		setenv("EVTRACE_MEMBARRIER", "0", 1);
		execl(self, self, "fence", (char *)NULL);
		_exit(127);
	}
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
	alarm(30);
	if (argc > 1 && !strcmp(argv[1], "fence")) {
		rcu_init();
		T_ASSERT(ld_relaxed(&rcu_gp) & RCU_GP_FENCE);
		test_waits_for_reader();
		test_free_after();
		printf("rcu-grace: fence mode ok\n");
		return 0;
	}
	test_waits_for_reader();
	test_free_after();
	test_signal_nesting();
	test_fork();
	test_thread_exit();
	test_fence_mode("/proc/self/exe");
	printf("rcu-grace: ok\n");
	return 0;
}
