// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-remove-soft-disabled: removing the last trigger of an event that
 * is off (soft mode, soft-disabled: "0*") never lets a record through while
 * writers fire it. The flags were cleared before the event left the
 * writers' active set, so a writer holding the old set found it neither
 * soft-disabled nor gone and recorded it (the soak of issue 11 found such a
 * record of a disabled event). Two ways into the state: a trigger added to
 * a disabled event, and an enabled event with a trigger turned off; and the
 * other way round, an event enable_event left on ("1*") stays on.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

#define ENABLE "events/tfs_test/tfs_tick/enable"

static atomic_int stop;

static void *writer(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++)
		trace_tfs_tick(i);
	return NULL;
}

static unsigned long entries(void)
{
	return evt_ring_buffer_entries(evt_instance_ring_buffer(evt_instance_top()));
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 1), t0 = t_seconds_now();
	unsigned long rounds = 0;
	pthread_t th[2];

	T_ECHO("0\n", ENABLE);
	for (int i = 0; i < 2; i++)
		T_ASSERT_EQ(pthread_create(&th[i], NULL, writer, NULL), 0);
	while (t_seconds_now() - t0 < secs) {
		unsigned long n0 = entries();

		/* off all along: a trigger comes and goes */
		T_ECHO("hist:keys=n\n", TICK);
		T_ASSERT_STR(cat(ENABLE), "0*\n");
		T_ECHO("!hist:keys=n\n", TICK);
		T_ASSERT_STR(cat(ENABLE), "0\n");
		T_ASSERT_EQ(entries(), n0);
		/* on, a trigger, off (soft-disabled), the trigger goes */
		T_ECHO("hist:keys=n\n", TICK);
		T_ECHO("1\n", ENABLE);
		T_ECHO("0\n", ENABLE);
		T_ASSERT_STR(cat(ENABLE), "0*\n");
		usleep(10000);	/* the writes under way when it went off are in */
		n0 = entries();
		T_ECHO("!hist:keys=n\n", TICK);
		T_ASSERT_STR(cat(ENABLE), "0\n");
		T_ASSERT_EQ(entries(), n0);
		rounds++;
	}
	/* enable_event's target, left on by it, stays on when the trigger goes */
	T_ECHO("enable_event:tfs_test:tfs_req\n", TICK);
	T_ECHO("1\n", ENABLE);
	trace_tfs_tick(0);
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/enable"), "1*\n");
	T_ECHO("!enable_event:tfs_test:tfs_req\n", TICK);
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/enable"), "1\n");
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("trigger-remove-soft-disabled: PASS (%lu rounds)\n", rounds);
	return 0;
}
