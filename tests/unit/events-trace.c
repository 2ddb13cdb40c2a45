// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-trace: the `trace` text in the kernel's layout (header, columns,
 * one line per record merged across CPUs by time stamp), per_cpu/cpuN
 * text, trace_pipe (consuming: lines go away), trace_marker lines,
 * saved_cmdlines, the counter clock's raw time stamps, a line that does
 * not fit the builder being kept for the next call.
 */
#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "events-util.h"

static const char header_tail[] =
	"#\n"
	"#                                _-----=> irqs-off/BH-disabled\n"
	"#                               / _----=> need-resched\n"
	"#                              | / _---=> hardirq/softirq\n"
	"#                              || / _--=> preempt-depth\n"
	"#                              ||| / _-=> migrate-disable\n"
	"#                              |||| /     delay\n"
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"#              | |         |   |||||     |         |\n";

static void check_line(const char *line, const char *comm, const char *body)
{
	char pat[512];
	regex_t re;
	int ok;

	/* "%16s-%-7d [%03d] %5s %5lu.%06lu: " then the body */
	snprintf(pat, sizeof(pat),
		 "^ *%s-%d +\\[[0-9]{3}\\] \\.\\.\\.\\.\\. +[0-9]+\\.[0-9]{6}: %s$",
		 comm, (int)syscall(SYS_gettid), body);
	T_ASSERT(regcomp(&re, pat, REG_EXTENDED | REG_NEWLINE) == 0);
	ok = regexec(&re, line, 0, NULL, 0) == 0;
	regfree(&re);
	if (!ok)
		t_fail("line [%s] does not match [%s]", line, pat);
}

static void *thread_fire(void *arg)
{
	prctl(PR_SET_NAME, "evt-other", 0, 0, 0);
	trace_evtest_seq(9, (uint64_t)(uintptr_t)arg, 0);
	return NULL;
}

int main(void)
{
	struct evt_instance *inst = t_instance("trace");
	struct evt_trace_iter *it;
	char want[1024], lines[8][512], buf[256];
	const char *t, *p;
	struct evt_seq s;
	int n, ret, ncpus;

	prctl(PR_SET_NAME, "evt-trace-main", 0, 0, 0);
	/* empty: the header only */
	t = t_trace_text(inst, -1);
	snprintf(want, sizeof(want),
		 "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:%d\n%s",
		 evt_instance_nr_cpus(inst), header_tail);
	T_ASSERT(!strcmp(t, want));

	T_ASSERT_EQ(evt_instance_event_enable(inst, "evtest", "evtest_seq", true), 1);
	ncpus = t_nr_cpus();
	t_pin_to_cpu(0);
	for (int i = 0; i < 3; i++)
		trace_evtest_seq(1, (uint64_t)i, 0xab);
	T_ASSERT_EQ(evt_instance_trace_marker(inst, "hello marker", 12), 12);
	if (ncpus > 1)
		t_pin_to_cpu(1);
	trace_evtest_seq(1, 3, 0xcd);
	t_unpin();
	{
		pthread_t th;

		pthread_create(&th, NULL, thread_fire, (void *)(uintptr_t)4);
		pthread_join(th, NULL);
	}

	t = t_trace_text(inst, -1);
	snprintf(want, sizeof(want), "# entries-in-buffer/entries-written: 6/6   #P:%d\n",
		 evt_instance_nr_cpus(inst));
	T_ASSERT(strstr(t, want));
	p = strstr(t, header_tail);
	T_ASSERT(p);
	p += strlen(header_tail);
	for (n = 0; *p && n < 8; n++) {
		const char *nl = strchr(p, '\n');

		T_ASSERT(nl);
		snprintf(lines[n], sizeof(lines[n]), "%.*s", (int)(nl - p), p);
		p = nl + 1;
	}
	T_ASSERT_EQ(n, 6);
	/* in time order, whichever CPU */
	check_line(lines[0], "evt-trace-main", "evtest_seq: writer=1 seq=0 check=ab");
	check_line(lines[2], "evt-trace-main", "evtest_seq: writer=1 seq=2 check=ab");
	check_line(lines[3], "evt-trace-main", "tracing_mark_write: hello marker");
	check_line(lines[4], "evt-trace-main", "evtest_seq: writer=1 seq=3 check=cd");
	T_ASSERT(strstr(lines[5], "evt-other-"));
	T_ASSERT(strstr(lines[5], "evtest_seq: writer=9 seq=4 check=0"));

	/* per CPU */
	if (ncpus > 1) {
		t = t_trace_text(inst, 1);
		T_ASSERT(strstr(t, "seq=3 check=cd"));
		T_ASSERT(!strstr(t, "seq=0 check=ab"));
	}

	/* saved_cmdlines */
	{
		static char cl[65536];

		snprintf(want, sizeof(want), "%d evt-trace-main\n", (int)syscall(SYS_gettid));
		evt_saved_cmdlines_text(cl, sizeof(cl));
		T_ASSERT(strstr(cl, want));
	}

	/* a builder too small: -ENOSPC, nothing appended, the line kept */
	T_ASSERT_OK(evt_trace_iter_open(inst, -1, EVT_ITER_CONSUME, &it));
	evt_seq_init(&s, buf, 40);
	evt_seq_puts(&s, "x");
	T_ASSERT_EQ(evt_trace_iter_next_line(it, &s), -ENOSPC);
	T_ASSERT_EQ(s.len, 1);
	T_ASSERT_EQ(evt_instance_destroy(inst), -EBUSY);
	{
		/* an empty builder the line can never fit: "[LINE TOO BIG]", and on */
		struct evt_trace_iter *it2;
		char small[40];
		struct evt_seq s2;

		T_ASSERT_OK(evt_trace_iter_open(inst, -1, 0, &it2));
		evt_seq_init(&s2, small, sizeof(small));
		T_ASSERT_EQ(evt_trace_iter_next_line(it2, &s2), 1);
		T_ASSERT(!strcmp(small, "[LINE TOO BIG]\n"));
		evt_trace_iter_close(it2);
	}
	evt_seq_init(&s, buf, sizeof(buf));
	T_ASSERT_EQ(evt_trace_iter_next_line(it, &s), 1);
	T_ASSERT(strstr(buf, "seq=0 check=ab\n"));
	/* trace_pipe consumed it: `trace` no longer has it */
	evt_trace_iter_close(it);
	t = t_trace_text(inst, -1);
	T_ASSERT(!strstr(t, "seq=0 check=ab"));
	T_ASSERT(strstr(t, "seq=1 check=ab"));
	T_ASSERT_OK(evt_trace_iter_open(inst, -1, EVT_ITER_CONSUME, &it));
	for (n = 0; (ret = evt_trace_iter_next_line(it, (evt_seq_reset(&s), &s))) == 1; n++)
		;
	T_ASSERT_EQ(ret, 0);
	T_ASSERT_EQ(n, 5);
	evt_trace_iter_close(it);

	/* an overrun buffer: one LOST line per batch, and written = read + lost */
	{
		struct evt_instance *small = t_instance("trace-lost");
		unsigned long lost = 0, read = 0, l;
		char *p2;

		T_ASSERT_OK(evt_instance_resize_kb(small, -1, 8));
		T_ASSERT_EQ(evt_instance_event_enable(small, "evtest", "evtest_seq", true), 1);
		t_pin_to_cpu(0);
		for (int i = 0; i < 3000; i++)
			trace_evtest_seq(1, (uint64_t)i, 0);
		t_unpin();
		T_ASSERT_OK(evt_trace_iter_open(small, 0, EVT_ITER_CONSUME, &it));
		for (;;) {
			evt_seq_reset(&s);
			ret = evt_trace_iter_next_line(it, &s);
			if (ret != 1)
				break;
			p2 = strstr(buf, "[LOST ");
			if (p2) {
				T_ASSERT(sscanf(p2, "[LOST %lu EVENTS]", &l) == 1);
				T_ASSERT(!strncmp(buf, "CPU:0 [LOST ", 12));
				lost += l;
				T_ASSERT_EQ(read, 0);		/* before the first record only */
			} else {
				read++;
			}
		}
		T_ASSERT_EQ(ret, 0);
		T_ASSERT(lost > 0);
		T_ASSERT_EQ(lost + read, 3000);
		evt_trace_iter_close(it);
		T_ASSERT_OK(evt_instance_destroy(small));
	}

	/* the counter clock prints raw counts */
	T_ASSERT_OK(evt_instance_set_clock(inst, "counter"));
	T_ASSERT(!strcmp(evt_instance_clock(inst), "counter"));
	evt_instance_clock_list(inst, buf, sizeof(buf));
	T_ASSERT(strstr(buf, "[counter]"));
	T_ASSERT_EQ(evt_instance_set_clock(inst, "nosuch"), -EINVAL);
	trace_evtest_seq(1, 7, 0);
	t = t_trace_text(inst, -1);
	{
		regex_t re;

		T_ASSERT(regcomp(&re, "\\] \\.\\.\\.\\.\\. +[0-9]+: evtest_seq",
				 REG_EXTENDED) == 0);
		T_ASSERT(regexec(&re, t, 0, NULL, 0) == 0);
		regfree(&re);
	}
	/* buffer size */
	{
		unsigned long kb;

		T_ASSERT_OK(evt_instance_resize_kb(inst, -1, 64));
		T_ASSERT_OK(evt_instance_buffer_size_kb(inst, -1, &kb));
		T_ASSERT_EQ(kb, 64);
		T_ASSERT_EQ(evt_instance_buffer_total_size_kb(inst),
			    64ul * (unsigned long)evt_instance_nr_cpus(inst));
	}
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
