// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-commit-migrated: a thread that moves to another CPU between a
 * tracepoint's reserve and its commit (inside TP_fast_assign) still commits
 * its record, into the page of the CPU it reserved on. The event writer
 * keeps the reservation's CPU and commits with a restartable add on it
 * (ringbuf/rb_writer.h); after a migration that add aborts and the general
 * commit must take over, or the record would never become readable (or its
 * count would land on the wrong CPU's page). Every record is read back, in
 * order, on the CPU buffer it was reserved on, with the ring buffer's
 * write path in rseq mode and (EVTRACE_RSEQ=0, the second run) CAS mode.
 * The same for records a filter discards (committed as padding): the
 * records after them on the same pages are readable only if the discarded
 * bytes were committed too.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "events-nest-tp.h"

#include "events-util.h"

#define ROUNDS 200

static int other_cpu = -1;	/* the hook moves the thread there, then back */

void evnest_hook(void)
{
	static int where;

	if (other_cpu < 0)
		return;
	where = !where;
	T_ASSERT_OK(t_pin_to_cpu(where ? other_cpu : 0));
}

struct seen {
	int next;	/* the n expected next on this CPU */
	int count;
};

static void check(const void *rec, unsigned int len, void *arg)
{
	const struct evt_trace_entry *ent = rec;
	struct seen *s = arg;
	int n;

	T_ASSERT(len >= sizeof(*ent) + sizeof(int));
	memcpy(&n, (const char *)rec + sizeof(*ent), sizeof(n));
	T_ASSERT(n >= s->next);	/* in order within the CPU buffer */
	s->next = n + 1;
	s->count++;
}

static int run(const char *filter, int expect_per_cpu)
{
	struct evt_instance *inst = t_instance("migrated");
	struct evt_ring_buffer *rb = evt_instance_ring_buffer(inst);
	struct seen on[2] = { { 0, 0 }, { 0, 0 } };

	T_ASSERT_EQ(evt_instance_event_enable(inst, "evnest", "evnest_outer", true), 1);
	if (filter)
		T_ASSERT(evt_instance_event_filter(inst, "evnest", "evnest_outer", filter) >= 0);
	T_ASSERT_OK(t_pin_to_cpu(0));
	/* reserved on 0, then the other, then 0...; each committed on the other one */
	for (int n = 0; n < ROUNDS; n++)
		trace_evnest_outer(n);
	T_ASSERT_OK(t_unpin());
	evt_instance_event_enable(inst, "evnest", "evnest_outer", false);

	/* Reserved alternately on CPU 0 and on the other CPU: half in each buffer. */
	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		struct evt_ring_buffer_event *e;
		struct seen *s = cpu == 0 ? &on[0] : cpu == other_cpu ? &on[1] : NULL;

		while ((e = evt_ring_buffer_consume(rb, cpu, NULL, NULL))) {
			T_ASSERT(s != NULL);
			check(evt_ring_buffer_event_data(e), evt_ring_buffer_event_length(e), s);
		}
	}
	T_ASSERT_EQ(on[0].count, expect_per_cpu);
	T_ASSERT_EQ(on[1].count, expect_per_cpu);
	T_ASSERT_EQ(evt_ring_buffer_entries(rb), 0);
	T_ASSERT_EQ(evt_ring_buffer_overruns(rb), 0);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return 0;
}

int main(void)
{
	cpu_set_t set;

	if (t_nr_cpus() < 2)
		t_skip("needs 2 CPUs");
	/* The hook's other CPU: the second one this process may run on. */
	T_ASSERT_OK(sched_getaffinity(0, sizeof(set), &set));
	for (int c = 1; c < CPU_SETSIZE && other_cpu < 0; c++)
		if (CPU_ISSET(c, &set))
			other_cpu = c;
	if (!CPU_ISSET(0, &set) || other_cpu < 0)
		t_skip("needs CPU 0 and another CPU");
	run(NULL, ROUNDS / 2);
	/* the first half discarded by the filter, between the records kept */
	run("n >= 100", (ROUNDS - 100) / 2);
	if (!getenv("EVTRACE_RSEQ")) {
		/* the same with the CAS write path, in a fresh process */
		T_ASSERT_OK(setenv("EVTRACE_RSEQ", "0", 1));
		execl("/proc/self/exe", "events-commit-migrated", (char *)NULL);
		t_fail("exec: %s", strerror(errno));
	}
	return T_PASS;
}
