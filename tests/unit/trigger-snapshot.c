// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-snapshot: the snapshot trigger allocates the instance's snapshot
 * buffer when it registers (as the kernel's) and keeps it (`echo 0 >
 * snapshot` is EBUSY while it exists); firing swaps the buffers, so the
 * `snapshot` file shows the moments before the trigger fired; counts and
 * filters; one per event (EEXIST); the text read back as the kernel prints it.
 */
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

#define ALLOCATED "# tracer: nop\n#\n#\n# * Snapshot is allocated *\n"

int main(void)
{
	const char *t;

	T_ECHO("1\n", "events/tfs_test/tfs_req/enable");
	T_ECHO("snapshot\n", TICK);
	T_ASSERT_STR(cat(TICK), "snapshot:unlimited\n");
	T_ASSERT(!strncmp(cat("snapshot"), ALLOCATED, strlen(ALLOCATED)));
	T_ASSERT_EQ(echo("0\n", "snapshot"), -EBUSY);
	T_ASSERT_EQ(echo("snapshot:2\n", TICK), -EEXIST);
	T_ASSERT_EQ(echo("snapshot if n == 2\n", TICK), -EEXIST);

	/* fired (soft mode, no filter: before anything is recorded) */
	for (int i = 1; i <= 5; i++)
		trace_tfs_req(i, "/before");
	trace_tfs_tick(1);
	trace_tfs_req(6, "/after");
	t = cat("snapshot");
	T_ASSERT_EQ(count(t, "tfs_req: id="), 5);
	T_ASSERT(strstr(t, "id=1 path=/before") && strstr(t, "id=5 path=/before"));
	T_ASSERT_EQ(count(t, "/after"), 0);
	t = cat("trace");
	T_ASSERT_EQ(count(t, "tfs_req: id="), 1);
	T_ASSERT(strstr(t, "id=6 path=/after"));
	T_ECHO("!snapshot\n", TICK);
	T_ASSERT_STR(cat(TICK), NONE);
	/* the buffer stays allocated after the trigger (as the kernel) */
	T_ASSERT_EQ(count(cat("snapshot"), "tfs_req: id="), 5);

	/* a count and a filter, on an enabled event: the triggering record is in the
	 * snapshot (the filter needs it committed first, as the kernel's post_call) */
	T_ECHO("1\n", "events/tfs_test/tfs_tick/enable");
	T_ECHO("snapshot:1 if n > 5\n", TICK);
	T_ASSERT_STR(cat(TICK), "snapshot:count=1 if n > 5\n");
	trace_tfs_tick(3);
	trace_tfs_tick(6);
	trace_tfs_req(7, "/later");
	trace_tfs_tick(8); /* count used up: no second swap */
	T_ASSERT_STR(cat(TICK), "snapshot:count=0 if n > 5\n");
	t = cat("snapshot");
	T_ASSERT(strstr(t, "tfs_tick: n=3\n") && strstr(t, "tfs_tick: n=6\n"));
	T_ASSERT(strstr(t, "id=6 path=/after"));
	T_ASSERT_EQ(count(t, "/later"), 0);
	t = cat("trace");
	T_ASSERT(strstr(t, "id=7 path=/later") && strstr(t, "tfs_tick: n=8\n"));
	T_ASSERT_EQ(count(t, "tfs_tick: n=6"), 0);
	T_ECHO("!snapshot\n", TICK);
	T_ECHO("0\n", "snapshot");
	T_ASSERT_EQ(count(cat("snapshot"), "Snapshot is freed"), 1);

	/* a trigger in an instance allocates that instance's snapshot only */
	{
		struct evt_instance *inst;

		T_ASSERT_EQ(evt_instance_create("trs", &inst), 0);
		T_ECHO("snapshot\n", "instances/trs/" TICK);
		T_ASSERT_EQ(count(cat("instances/trs/snapshot"), "Snapshot is allocated"), 1);
		T_ASSERT_EQ(count(cat("snapshot"), "Snapshot is freed"), 1);
		/* destroyed with its trigger and snapshot in place */
		T_ASSERT_EQ(evt_instance_destroy(inst), 0);
	}
	T_ECHO("0\n", "events/tfs_test/tfs_tick/enable");
	T_ECHO("0\n", "events/tfs_test/tfs_req/enable");
	return 0;
}
