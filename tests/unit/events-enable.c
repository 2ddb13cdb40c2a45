// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-enable: per-instance enable state and its read-back (0/1/X/?),
 * globs, independence of instances, soft-disable, filters per instance
 * (a rejected expression keeps the old filter), set_event text, tracing_on,
 * and EVTRACE_EVENTS (the test runs itself again with the variable set).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "events-util.h"

static unsigned long count_type(struct evt_instance *inst, const struct evt_event_def *def)
{
	struct evt_ring_buffer *rb = evt_instance_ring_buffer(inst);
	unsigned long n = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		struct evt_ring_buffer_event *e;

		while ((e = evt_ring_buffer_consume(rb, cpu, NULL, NULL))) {
			const struct evt_trace_entry *ent = evt_ring_buffer_event_data(e);

			if (ent->common_type == evt_event_id(def->event))
				n++;
		}
	}
	return n;
}

static int child_env(void)
{
	struct evt_instance *top = evt_instance_top();
	char buf[4096];

	/* EVTRACE_EVENTS="evtest:*,!evtest_ints,evtest_seq" was applied at registration */
	T_ASSERT_EQ(evt_instance_event_state(top, "evtest", "evtest_arrays"), '1');
	T_ASSERT_EQ(evt_instance_event_state(top, "evtest", "evtest_ints"), '0');
	T_ASSERT_EQ(evt_instance_event_state(top, "evtest", "evtest_seq"), '1');
	T_ASSERT_EQ(evt_instance_event_state(top, "evtest", NULL), 'X');
	evt_instance_set_event_text(top, buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "evtest:evtest_arrays\nevtest:evtest_bench\nevtest:evtest_exec\n"
			      "evtest:evtest_seq\n"));
	return T_PASS;
}

int main(int argc, char **argv)
{
	struct evt_instance *a, *b;
	char buf[4096];
	int status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "--env-child"))
		return child_env();

	a = t_instance("enable-a");
	b = t_instance("enable-b");
	T_ASSERT(evt_instance_lookup(evt_instance_name(a)) == a);
	T_ASSERT(evt_instance_lookup(NULL) == evt_instance_top());
	T_ASSERT_EQ(evt_instance_create(evt_instance_name(a), NULL), -EEXIST);
	T_ASSERT_EQ(evt_instance_create("bad/name", NULL), -EINVAL);
	T_ASSERT_EQ(evt_instance_destroy(evt_instance_top()), -EINVAL);

	/* read-back */
	T_ASSERT_EQ(evt_instance_event_state(a, NULL, NULL), '0');
	T_ASSERT_EQ(evt_instance_event_state(a, "nosuch", NULL), '?');
	T_ASSERT_EQ(evt_instance_event_enable(a, "evtest", "evtest_seq", true), 1);
	T_ASSERT_EQ(evt_instance_event_state(a, "evtest", "evtest_seq"), '1');
	T_ASSERT_EQ(evt_instance_event_state(a, "evtest", NULL), 'X');
	T_ASSERT_EQ(evt_instance_event_state(b, "evtest", NULL), '0');
	T_ASSERT_EQ(evt_instance_event_enable(a, "evtest", "nosuch", true), -EINVAL);
	T_ASSERT_EQ(evt_instance_event_enable(a, "evt?st", "*", true), 5);
	T_ASSERT_EQ(evt_instance_event_state(a, "evtest", NULL), '1');
	T_ASSERT_EQ(evt_instance_event_enable(a, NULL, "evtest_[ai]*", false), 2);
	evt_instance_set_event_text(a, buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "evtest:evtest_bench\nevtest:evtest_exec\nevtest:evtest_seq\n"));

	/* instances are independent */
	trace_evtest_seq(1, 1, 0);
	T_ASSERT_EQ(count_type(a, &__evt_def_evtest_seq), 1);
	T_ASSERT_EQ(count_type(b, &__evt_def_evtest_seq), 0);
	T_ASSERT_EQ(evt_instance_event_enable(b, "evtest", "evtest_seq", true), 1);
	trace_evtest_seq(1, 2, 0);
	T_ASSERT_EQ(count_type(a, &__evt_def_evtest_seq), 1);
	T_ASSERT_EQ(count_type(b, &__evt_def_evtest_seq), 1);

	/* tracing_on */
	T_ASSERT_OK(evt_instance_tracing_on(a, false));
	T_ASSERT(!evt_instance_tracing_is_on(a));
	trace_evtest_seq(1, 3, 0);
	T_ASSERT_EQ(count_type(a, &__evt_def_evtest_seq), 0);
	T_ASSERT_EQ(count_type(b, &__evt_def_evtest_seq), 1);
	T_ASSERT_EQ(evt_instance_trace_marker(a, "x", 1), -EBADF);
	T_ASSERT_OK(evt_instance_tracing_on(a, true));

	/* soft disable: on (key set) but nothing recorded */
	T_ASSERT_OK(evt_instance_event_soft(a, "evtest", "evtest_seq", true, true));
	T_ASSERT(evt_instance_event_flags(a, "evtest", "evtest_seq") & EVT_FILE_SOFT_DISABLED);
	trace_evtest_seq(1, 4, 0);
	T_ASSERT_EQ(count_type(a, &__evt_def_evtest_seq), 0);
	T_ASSERT_OK(evt_instance_event_soft(a, "evtest", "evtest_seq", false, false));
	T_ASSERT_EQ(evt_instance_event_flags(b, "evtest", "evtest_ints"), 0);
	T_ASSERT_EQ(evt_instance_event_flags(b, "evtest", "nosuch"), -ENOENT);
	count_type(b, &__evt_def_evtest_seq);

	/* filters: per instance; a bad expression keeps the old filter */
	evt_instance_event_filter_text(a, "evtest", "evtest_seq", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "none\n"));
	T_ASSERT_EQ(evt_instance_event_filter(a, "evtest", "evtest_seq", "seq >= 10 && writer == 1"), 1);
	T_ASSERT(evt_instance_event_flags(a, "evtest", "evtest_seq") & EVT_FILE_FILTERED);
	evt_instance_event_filter_text(a, "evtest", "evtest_seq", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "seq >= 10 && writer == 1\n"));
	T_ASSERT(evt_instance_event_filter(a, "evtest", "evtest_seq", "nosuchfield == 1") < 0);
	T_ASSERT(strstr(evt_error_detail(), "(at "));
	evt_instance_event_filter_text(a, "evtest", "evtest_seq", buf, sizeof(buf));
	T_ASSERT(!strcmp(buf, "seq >= 10 && writer == 1\n"));
	for (uint64_t s = 0; s < 20; s++)
		trace_evtest_seq(s % 2, s, 0);
	T_ASSERT_EQ(count_type(a, &__evt_def_evtest_seq), 5);	/* 11 13 15 17 19 */
	T_ASSERT_EQ(count_type(b, &__evt_def_evtest_seq), 20);
	T_ASSERT_EQ(evt_instance_event_filter(a, "evtest", "evtest_seq", "0"), 1);
	trace_evtest_seq(0, 0, 0);
	T_ASSERT_EQ(count_type(a, &__evt_def_evtest_seq), 1);

	/* destroy: b's events stop; the key stays on for a */
	T_ASSERT_OK(evt_instance_destroy(b));
	T_ASSERT(evt_instance_lookup(evt_instance_name(a)) == a);
	T_ASSERT(trace_evtest_seq_enabled());
	T_ASSERT_EQ(evt_instance_event_enable(a, NULL, NULL, false), 5);
	T_ASSERT(!trace_evtest_seq_enabled());
	T_ASSERT_OK(evt_instance_destroy(a));

	/* EVTRACE_EVENTS, read when the events register: in a fresh process */
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		setenv("EVTRACE_EVENTS", "evtest:*,!evtest_ints, evtest_seq", 1);
		setenv("EVTRACE_BUFFER_SIZE_KB", "64", 1);
		execl("/proc/self/exe", argv[0], "--env-child", (char *)NULL);
		_exit(2);
	}
	T_ASSERT(waitpid(pid, &status, 0) == pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return T_PASS;
}
