// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-threads: writers fire events without a pause while the main thread
 * adds and removes triggers (lists republished, old ones freed after a grace
 * period) and the counts run down concurrently: no crash, no use after free
 * (ASan), no race (TSan), and a count never goes below zero nor fires more
 * than it allows: disable_event:...:N on an event that enable_event turns back
 * on each time can disable it at most N times.
 */
#include <pthread.h>

#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

static int stop;

static void *writer(void *arg)
{
	unsigned int n = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		trace_tfs_tick(n++ & 7);
		trace_tfs_misc((int)n);
		trace_tfs_req((int)n, "w");
	}
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	const char *s;
	long c;

	for (int i = 0; i < 2; i++)
		T_ASSERT_EQ(pthread_create(&th[i], NULL, writer, NULL), 0);
	for (int i = 0; i < 100; i++) {
		T_ECHO("disable_event:tfs_test:tfs_req:5 if n > 3\n", TICK);
		T_ECHO("enable_event:tfs_test:tfs_req\n", MISC);
		T_ECHO("traceon\n", REQ);
		T_ECHO("!enable_event:tfs_test:tfs_req\n", MISC);
		T_ECHO("!traceon\n", REQ);
		s = cat(TICK);
		T_ASSERT(sscanf(s, "disable_event:tfs_test:tfs_req:count=%ld if n > 3\n", &c) == 1);
		T_ASSERT(c >= 0 && c <= 5);
		T_ECHO("!disable_event:tfs_test:tfs_req\n", TICK);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	T_ASSERT_STR(cat(TICK), NONE);
	T_ASSERT_STR(cat(MISC), NONE);
	T_ASSERT_STR(cat(REQ), NONE);
	T_ASSERT_STR(cat("tracing_on"), "1\n");
	return 0;
}
