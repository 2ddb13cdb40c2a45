// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-fork: a child made by fork() (without exec) records with its own
 * ids: common_pid and common_tgid are the child's, not the cached ones of
 * the parent thread that forked.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "events-util.h"

static pid_t child_pid, parent_pid;
static int child_seen, parent_seen;

static void seen(const void *rec, unsigned int len, void *arg)
{
	const struct evt_raw_evtest_seq *e = rec;

	(void)arg;
	if (len < sizeof(*e) || e->ent.common_type != evt_event_id(__evt_def_evtest_seq.event))
		return;
	if (e->writer == 2) {
		T_ASSERT_EQ(e->ent.common_pid, child_pid);
		T_ASSERT_EQ(e->ent.common_tgid, child_pid);
		child_seen++;
	} else {
		T_ASSERT_EQ(e->ent.common_pid, parent_pid);
		T_ASSERT_EQ(e->ent.common_tgid, parent_pid);
		parent_seen++;
	}
}

int main(void)
{
	struct evt_instance *inst = t_instance("fork");
	int status;

	T_ASSERT_EQ(evt_instance_event_enable(inst, "evtest", "evtest_seq", true), 1);
	parent_pid = getpid();
	trace_evtest_seq(1, 0, 0);		/* caches the parent's ids */
	child_pid = fork();
	T_ASSERT(child_pid >= 0);
	if (child_pid == 0) {
		child_pid = getpid();
		trace_evtest_seq(2, 0, 0);
		/* the record lands in the buffer the parent shares (a memfd mapping) or
		 * in the child's copy; either way the ids must be the child's */
		t_consume(inst, seen, NULL);
		_exit(child_seen == 1 ? 0 : 3);
	}
	T_ASSERT(waitpid(child_pid, &status, 0) == child_pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	t_consume(inst, seen, NULL);
	T_ASSERT(parent_seen <= 1);
	trace_evtest_seq(1, 1, 0);
	t_consume(inst, seen, NULL);
	T_ASSERT(parent_seen >= 1);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
