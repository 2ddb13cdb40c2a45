// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-pid: set_event_pid per instance: by thread id (the kernel's
 * meaning), by process id (EVT_PID_PROCESS), appending, clearing; the
 * list as the file shows it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "events-util.h"

static pid_t other_tid;
static pthread_barrier_t go, done;

static void *other(void *arg)
{
	(void)arg;
	other_tid = (pid_t)syscall(SYS_gettid);
	for (int round = 0; round < 5; round++) {
		pthread_barrier_wait(&go);
		trace_evtest_seq(2, (uint64_t)round, 0);
		pthread_barrier_wait(&done);
	}
	return NULL;
}

/* One event from this thread (writer 1) and one from the other (writer 2). */
static void fire_both(int round)
{
	trace_evtest_seq(1, (uint64_t)round, 0);
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&done);
}

static unsigned int writers_seen;

static void seen(const void *rec, unsigned int len, void *arg)
{
	const struct evt_raw_evtest_seq *e = rec;

	(void)arg;
	if (len >= sizeof(*e) && e->ent.common_type == evt_event_id(__evt_def_evtest_seq.event))
		writers_seen |= 1u << e->writer;
}

static unsigned int round_writers(struct evt_instance *inst, int round)
{
	writers_seen = 0;
	fire_both(round);
	t_consume(inst, seen, NULL);
	return writers_seen;
}

int main(void)
{
	struct evt_instance *inst = t_instance("pid");
	pid_t me = (pid_t)syscall(SYS_gettid), list[2];
	char buf[256];
	pthread_t th;

	pthread_barrier_init(&go, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&th, NULL, other, NULL);
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evtest", "evtest_seq", true), 1);

	T_ASSERT_EQ(round_writers(inst, 0), 6);		/* no list: everyone */

	T_ASSERT_OK(evt_instance_set_event_pid(inst, &me, 1, 0));
	T_ASSERT_EQ(round_writers(inst, 1), 2);		/* this thread only */
	T_ASSERT(evt_instance_pid_allowed(inst, me, getpid()));
	T_ASSERT(!evt_instance_pid_allowed(inst, other_tid, getpid()));

	T_ASSERT_OK(evt_instance_set_event_pid(inst, &other_tid, 1, EVT_PID_APPEND));
	T_ASSERT_EQ(round_writers(inst, 2), 6);
	evt_instance_event_pid_text(inst, buf, sizeof(buf));
	list[0] = me < other_tid ? me : other_tid;
	list[1] = me < other_tid ? other_tid : me;
	{
		char want[64];

		snprintf(want, sizeof(want), "%d\n%d\n", (int)list[0], (int)list[1]);
		T_ASSERT(!strcmp(buf, want));
	}

	/* replace with a pid that is not ours: nothing */
	list[0] = 1;
	T_ASSERT_OK(evt_instance_set_event_pid(inst, list, 1, 0));
	T_ASSERT_EQ(round_writers(inst, 3), 0);

	/* the process: every thread of it */
	list[0] = getpid();
	T_ASSERT_OK(evt_instance_set_event_pid(inst, list, 1, EVT_PID_PROCESS));
	T_ASSERT_EQ(round_writers(inst, 4), 6);

	/* bad input; clear */
	list[0] = 0;
	T_ASSERT_EQ(evt_instance_set_event_pid(inst, list, 1, 0), -EINVAL);
	T_ASSERT_OK(evt_instance_set_event_pid(inst, NULL, 0, 0));
	evt_instance_event_pid_text(inst, buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, ""));
	pthread_join(th, NULL);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
