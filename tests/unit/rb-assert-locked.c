// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-assert-locked: the ring buffer's rb_*_locked functions start with
 * rb_assert_ctl_locked() (the kernel's lockdep_assert_held()): in a build without
 * NDEBUG, called without the buffer's ctl_lock held by this thread it aborts,
 * naming the function; under rb_ctl_lock() or evt_ring_buffer_lock() it passes, and
 * another buffer's lock, or this buffer's lock held by another thread, does not count.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#include "helpers.h"
#include "ringbuf/rb_internal.h"

static struct evt_ring_buffer *rb, *rb2;

static void locked(void)
{
	rb_ctl_lock(rb);
	rb_assert_ctl_locked(rb);
	rb_ctl_unlock(rb);
	evt_ring_buffer_lock(rb);
	rb_assert_ctl_locked(rb);
	evt_ring_buffer_unlock(rb);
}

static void unlocked(void)
{
	rb_assert_ctl_locked(rb);
}

static void other_buffer(void)
{
	rb_ctl_lock(rb2);
	rb_assert_ctl_locked(rb);
}

static void *holder(void *arg)
{
	(void)arg;
	rb_ctl_lock(rb);
	pause(); /* until the child exits */
	return NULL;
}

static void other_thread(void)
{
	pthread_t t;

	pthread_create(&t, NULL, holder, NULL);
	/* the holder has the lock once trylock fails */
	while (pthread_mutex_trylock(&rb->ctl_lock) == 0)
		pthread_mutex_unlock(&rb->ctl_lock);
	rb_assert_ctl_locked(rb);
}

int main(void)
{
	int st;

#ifdef NDEBUG
	t_skip("NDEBUG: rb_assert_ctl_locked() checks nothing in this build");
#endif
	T_ASSERT_OK(evt_ring_buffer_alloc(1 << 16, 0, &rb));
	T_ASSERT_OK(evt_ring_buffer_alloc(1 << 16, 0, &rb2));
	st = t_child_status(locked);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fprintf(stderr, "(three messages expected: \"called without the ring buffer's ctl_lock\")\n");
	st = t_child_status(unlocked);
	T_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	st = t_child_status(other_buffer);
	T_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	st = t_child_status(other_thread);
	T_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	evt_ring_buffer_free(rb2);
	evt_ring_buffer_free(rb);
	printf("rb-assert-locked: ok\n");
	return 0;
}
