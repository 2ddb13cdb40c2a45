// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-assert-locked: a *_locked function of the event layer called without
 * event_mutex aborts in a build without NDEBUG (event_assert_locked(), the
 * kernel's lockdep_assert_held()), naming the function; with the lock held by
 * this thread it runs, and a lock another thread holds does not count.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "events/event_internal.h"

static void unlocked_call(void)
{
	(void)event_id_limit_locked();
}

static void locked_call(void)
{
	event_lock();
	(void)event_id_limit_locked();
	event_unlock();
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int held;

static void *holder(void *arg)
{
	(void)arg;
	event_lock();
	pthread_mutex_lock(&m);
	held = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	pause(); /* until the child exits */
	return NULL;
}

/* another thread holds event_mutex: this one still may not call a *_locked function */
static void other_holds(void)
{
	pthread_t t;

	pthread_create(&t, NULL, holder, NULL);
	pthread_mutex_lock(&m);
	while (!held)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	(void)event_id_limit_locked();
}

int main(void)
{
	int st;

#ifdef NDEBUG
	t_skip("NDEBUG: event_assert_locked() checks nothing in this build");
#endif
	st = t_child_status(locked_call);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fprintf(stderr, "(two messages expected: \"called without event_mutex\")\n");
	st = t_child_status(unlocked_call);
	T_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	st = t_child_status(other_holds);
	T_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	printf("events-assert-locked: ok\n");
	return 0;
}
