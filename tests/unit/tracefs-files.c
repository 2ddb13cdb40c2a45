// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-files: every other file of the tree on the fake backend, with the
 * kernel's read-backs (the files of tests/data/tracefs/): tracing_on, trace_clock,
 * buffer_size_kb (and "X"), buffer_total_size_kb, set_event_pid, format, id,
 * trigger, trace_marker, trace, trace_pipe, per_cpu/cpuN/ files, stats,
 * saved_cmdlines, instances/, and the directory listings.
 */
#include <pthread.h>
#include <regex.h>

#include "tracefs-fake.h"

static struct evt_instance *top;

static bool matches(const char *text, const char *re_text)
{
	regex_t re;
	bool ok;

	T_ASSERT_EQ(regcomp(&re, re_text, REG_EXTENDED | REG_NEWLINE), 0);
	ok = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

static const char header[] =
	"#\n"
	"#                                _-----=> irqs-off/BH-disabled\n"
	"#                               / _----=> need-resched\n"
	"#                              | / _---=> hardirq/softirq\n"
	"#                              || / _--=> preempt-depth\n"
	"#                              ||| / _-=> migrate-disable\n"
	"#                              |||| /     delay\n"
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"#              | |         |   |||||     |         |\n";

static void *interrupter(void *arg)
{
	usleep(20000);
	evt_tracefs_file_interrupt(arg);
	return NULL;
}

int main(void)
{
	int nr_cpus, tid = (int)gettid();
	char want[256], path[64];
	const char *s;

	fake_install();
	top = tb_top();
	nr_cpus = evt_ring_buffer_nr_cpus(tb_buffer(top));

	/* the listings */
	T_ASSERT_STR(
		t_tracefs_ls(NULL, "/"),
		"available_events available_tracers buffer_size_kb "
		"buffer_total_size_kb current_tracer dynamic_events error_log events/ instances/ "
		"kprobe_events "
		"per_cpu/ saved_cmdlines set_event set_event_pid synthetic_events trace "
		"trace_clock trace_marker "
		"trace_pipe tracing_on ");
	T_ASSERT_STR(t_tracefs_ls(NULL, "events"),
		     "enable header_event header_page ftrace/ sched/ irq/ app/ ");
	T_ASSERT_STR(t_tracefs_ls(NULL, "events/ftrace"), "print/ ");
	T_ASSERT_STR(t_tracefs_ls(NULL, "events/ftrace/print"), "format hist id trigger ");
	T_ASSERT_STR(fake_cat(top, "events/ftrace/print/id"), "405\n");
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "events/ftrace/print/enable", NULL), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "events/ftrace/nosuch", NULL), -ENOENT);
	/* the kernel's text, with our page size */
	T_ASSERT_STR(fake_cat(top, "events/header_page"),
		     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		     "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n");
	T_ASSERT(!strncmp(fake_cat(top, "events/header_event"), "# compressed entry header\n", 26));
	T_ASSERT_STR(t_tracefs_ls(NULL, "events/sched"),
		     "enable filter sched_switch/ sched_wakeup/ ");
	T_ASSERT_STR(t_tracefs_ls(NULL, "events/sched/sched_switch"),
		     "enable filter format hist id trigger ");
	T_ASSERT(!strncmp(t_tracefs_ls(NULL, "per_cpu"), "cpu0/ ", 6));
	T_ASSERT_STR(t_tracefs_ls(NULL, "per_cpu/cpu0"),
		     "buffer_size_kb stats trace trace_pipe trace_pipe_raw ");
	T_ASSERT_STR(t_tracefs_ls(NULL, "instances"), "");
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "events/nosuch", NULL), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "events/sched/nosuch", NULL), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "per_cpu/cpu01", NULL), -ENOENT);
	snprintf(path, sizeof(path), "per_cpu/cpu%d", nr_cpus);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, path, NULL), -ENOENT);

	/* "?": an enable file that affects no event */
	fake_nr_events = 0;
	T_ASSERT_STR(fake_cat(top, "events/enable"), "?\n");
	T_ASSERT_STR(fake_cat(top, "available_events"), "");
	T_ASSERT_EQ(fake_echo(top, "*:*", GT, "set_event"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "1", GT, "events/enable"), 1);
	fake_nr_events = FAKE_NR_EVENTS;
	T_ASSERT_STR(fake_cat(top, "events/enable"), "0\n");

	/* the only tracer is nop */
	T_ASSERT_STR(fake_cat(top, "current_tracer"), "nop\n");
	T_ASSERT_STR(fake_cat(top, "available_tracers"), "nop\n");
	T_ASSERT_EQ(fake_echo(top, "nop\n", GT, "current_tracer"), 4);
	T_ASSERT_EQ(fake_echo(top, "function\n", GT, "current_tracer"), -EINVAL);

	/* tracing_on */
	T_ASSERT_STR(fake_cat(top, "tracing_on"), "1\n");
	T_ASSERT_EQ(fake_echo(top, "0\n", GT, "tracing_on"), 2);
	T_ASSERT_STR(fake_cat(top, "tracing_on"), "0\n");
	T_ASSERT_EQ(fake_echo(top, "5\n", GT, "tracing_on"), 2);
	T_ASSERT_STR(fake_cat(top, "tracing_on"), "1\n");
	T_ASSERT_EQ(fake_echo(top, "x\n", GT, "tracing_on"), -EINVAL);

	/* trace_clock */
	T_ASSERT_STR(fake_cat(top, "trace_clock"),
		     "[local] global counter mono mono_raw boot x86-tsc\n");
	T_ASSERT_EQ(fake_echo(top, "global\n", GT, "trace_clock"), 7);
	T_ASSERT_STR(fake_cat(top, "trace_clock"),
		     "local [global] counter mono mono_raw boot x86-tsc\n");
	T_ASSERT_EQ(fake_echo(top, "nosuch\n", GT, "trace_clock"), -EINVAL);
	T_ASSERT_STR(fake_cat(top, "trace_clock"),
		     "local [global] counter mono mono_raw boot x86-tsc\n");
	T_ASSERT_EQ(fake_echo(top, "local", GT, "trace_clock"), 5);

	/* buffer_size_kb: one figure, "X" when the CPUs differ */
	T_ASSERT_EQ(fake_echo(top, "128\n", GT, "buffer_size_kb"), 4);
	T_ASSERT_STR(fake_cat(top, "buffer_size_kb"), "128\n");
	T_ASSERT_STR(fake_cat(top, "per_cpu/cpu0/buffer_size_kb"), "128\n");
	snprintf(want, sizeof(want), "%d\n", 128 * nr_cpus);
	T_ASSERT_STR(fake_cat(top, "buffer_total_size_kb"), want);
	if (nr_cpus > 1) {
		T_ASSERT_EQ(fake_echo(top, "256\n", GT, "per_cpu/cpu0/buffer_size_kb"), 4);
		T_ASSERT_STR(fake_cat(top, "buffer_size_kb"), "X\n");
		T_ASSERT_STR(fake_cat(top, "per_cpu/cpu0/buffer_size_kb"), "256\n");
		T_ASSERT_STR(fake_cat(top, "per_cpu/cpu1/buffer_size_kb"), "128\n");
		snprintf(want, sizeof(want), "%d\n", 128 * nr_cpus + 128);
		T_ASSERT_STR(fake_cat(top, "buffer_total_size_kb"), want);
	}
	T_ASSERT_EQ(fake_echo(top, "0\n", GT, "buffer_size_kb"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "abc\n", GT, "buffer_size_kb"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "99999999999999999999\n", GT, "buffer_size_kb"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "64\n", GT, "buffer_size_kb"), 3);
	T_ASSERT_STR(fake_cat(top, "buffer_size_kb"), "64\n");
	T_ASSERT_EQ(fake_echo(top, "1", GT, "buffer_total_size_kb"), -EACCES);

	/* set_event_pid: '>' replaces, '>>' adds, sorted; a bad id changes nothing */
	snprintf(want, sizeof(want), "%d\n", tid);
	T_ASSERT_EQ(fake_echo(top, want, GT, "set_event_pid"), (ssize_t)strlen(want));
	T_ASSERT_STR(fake_cat(top, "set_event_pid"), want);
	T_ASSERT_EQ(fake_echo(top, "1 2\n", GGT, "set_event_pid"), 4);
	snprintf(want, sizeof(want), "1\n2\n%d\n", tid);
	T_ASSERT_STR(fake_cat(top, "set_event_pid"), want);
	T_ASSERT_EQ(fake_echo(top, "abc\n", GGT, "set_event_pid"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "3 abc\n", GGT, "set_event_pid"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "1,2\n", GGT, "set_event_pid"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "!5\n", GGT, "set_event_pid"), -EINVAL);
	T_ASSERT_STR(fake_cat(top, "set_event_pid"), want);
	T_ASSERT_EQ(fake_echo(top, "  3   4 \n", GT, "set_event_pid"), 9);
	T_ASSERT_STR(fake_cat(top, "set_event_pid"), "3\n4\n");
	T_ASSERT_EQ(fake_echo(top, "5\n6\n", GGT, "set_event_pid"), 4);
	T_ASSERT_STR(fake_cat(top, "set_event_pid"), "3\n4\n5\n6\n");
	T_ASSERT_EQ(fake_echo(top, "\n", GT, "set_event_pid"), 1);
	T_ASSERT_STR(fake_cat(top, "set_event_pid"), "");

	/* format, id, trigger */
	T_ASSERT(!strncmp(fake_cat(top, "events/sched/sched_switch/format"),
			  "name: sched_switch\nID: 400\nformat:\n", 34));
	T_ASSERT_STR(fake_cat(top, "events/irq/softirq_entry/id"), "403\n");
	T_ASSERT_STR(fake_cat(top, "events/irq/softirq_entry/trigger"), "");
	T_ASSERT_EQ(fake_echo(top, "traceon\n", GT, "events/irq/softirq_entry/trigger"), -EINVAL);
	T_ASSERT_EQ(fake_echo(top, "\n", GT, "events/irq/softirq_entry/trigger"), 1);
	T_ASSERT_EQ(fake_echo(top, "1", GT, "events/irq/softirq_entry/id"), -EACCES);
	T_ASSERT_EQ(fake_echo(top, "1", GT, "available_events"), -EACCES);

	/* trace: the kernel's header, empty */
	T_ASSERT_EQ(fake_echo(top, "", GT, "trace"), 0);
	snprintf(want, sizeof(want),
		 "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:%ld\n",
		 sysconf(_SC_NPROCESSORS_ONLN));
	s = fake_cat(top, "trace");
	T_ASSERT(!strncmp(s, want, strlen(want)));
	T_ASSERT_STR(s + strlen(want), header);
	T_ASSERT_EQ(evt_tracefs_read(top, "trace_marker", want, 1, 0), -EACCES);

	/* trace_marker: a line "comm-tid [cpu] flags ts: tracing_mark_write: text" */
	T_ASSERT_EQ(fake_echo(top, "hello marker\n", GT, "trace_marker"), 13);
	s = fake_cat(top, "trace");
	T_ASSERT(strstr(s, "entries-in-buffer/entries-written: 1/1 "));
	snprintf(want, sizeof(want),
		 "^ {0,15}[^ ]+-%-7d \\[[0-9]{3}\\] \\.\\.\\.\\.\\. +[0-9]+\\.[0-9]{6}: "
		 "tracing_mark_write: hello marker$", tid);
	if (!matches(s, want))
		t_fail("trace:\n%s\nwant a line matching %s", s, want);
	/* tracing off: the marker is refused, as the kernel does */
	T_ASSERT_EQ(fake_echo(top, "0", GT, "tracing_on"), 1);
	T_ASSERT_EQ(fake_echo(top, "x\n", GT, "trace_marker"), -EBADF);
	T_ASSERT_EQ(fake_echo(top, "1", GT, "tracing_on"), 1);

	/* events in the trace: their print format after "name: " */
	/* one word per write, as the kernel: the second is written again */
	T_ASSERT_EQ(fake_echo(top, "sched:sched_switch irq:irq_handler_entry", GT, "set_event"),
		    19);
	T_ASSERT_EQ(fake_echo(top, "irq:irq_handler_entry", GGT, "set_event"), 21);
	T_ASSERT_EQ(fake_fire(top, EV_SWITCH, tid, 42, "bash"), 1);
	T_ASSERT_EQ(fake_fire(top, EV_IRQ, tid, 7, NULL), 1);
	T_ASSERT_EQ(fake_fire(top, EV_WAKEUP, tid, 7, "x"), 0);	/* not enabled */
	s = fake_cat(top, "trace");
	T_ASSERT(strstr(s, "entries-in-buffer/entries-written: 3/3 "));
	T_ASSERT(matches(s, ": sched_switch: bash prev_pid=42 next_pid=43$"));
	T_ASSERT(matches(s, ": irq_handler_entry: irq=7$"));
	/* the lines are in time order */
	T_ASSERT(strstr(s, "hello marker") < strstr(s, "sched_switch:"));
	T_ASSERT(strstr(s, "sched_switch:") < strstr(s, "irq_handler_entry:"));
	/* reading trace consumes nothing */
	T_ASSERT(strstr(fake_cat(top, "trace"), "irq=7"));

	/* per_cpu: the records of one CPU; stats */
	{
		int total = 0;

		for (int c = 0; c < nr_cpus; c++) {
			const char *p;

			snprintf(path, sizeof(path), "per_cpu/cpu%d/trace", c);
			for (p = fake_cat(top, path); (p = strstr(p, "\n ")); p++)
				total++;
			snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", c);
			s = fake_cat(top, path);
			T_ASSERT(matches(s, "^entries: [0-9]+\noverrun: 0\ncommit overrun: 0\n"
					    "bytes: [0-9]+\noldest event ts: +[0-9]+\\.[0-9]{6}\n"
					    "now ts: +[0-9]+\\.[0-9]{6}\ndropped events: 0\n"
					    "read events: 0\ncorrupt: 0\n$"));
		}
		T_ASSERT_EQ(total, 3);
	}

	/* saved_cmdlines knows the writer */
	snprintf(want, sizeof(want), "(^|\n)%d [^\n]+\n", tid);
	T_ASSERT(matches(fake_cat(top, "saved_cmdlines"), want));

	/* trace_pipe consumes; non-blocking gives -EAGAIN when empty */
	{
		struct evt_tracefs_file *f;
		char buf[8192];
		ssize_t n;
		size_t len = 0;

		T_ASSERT_OK(evt_tracefs_open(top, "trace_pipe",
					     EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK, &f));
		while ((n = evt_tracefs_file_read(f, buf + len, 10)) > 0)
			len += (size_t)n;
		T_ASSERT_EQ(n, -EAGAIN);
		buf[len] = '\0';
		T_ASSERT(!strchr(buf, '#'));	/* no header */
		T_ASSERT(strstr(buf, "hello marker\n"));
		T_ASSERT(strstr(buf, "irq=7\n"));
		T_ASSERT_EQ(evt_tracefs_file_read(f, buf, sizeof(buf)), -EAGAIN);
		/* a blocking read returns as soon as a record is there */
		T_ASSERT_EQ(fake_fire(top, EV_IRQ, tid, 8, NULL), 1);
		evt_tracefs_close(f);
		T_ASSERT_OK(evt_tracefs_open(top, "trace_pipe", EVT_TRACEFS_READ, &f));
		n = evt_tracefs_file_read(f, buf, sizeof(buf) - 1);
		T_ASSERT(n > 0);
		buf[n] = '\0';
		T_ASSERT(strstr(buf, "irq=8\n"));
		/* something was read and tracing is off: end of file, no waiting (the kernel's) */
		T_ASSERT_EQ(fake_echo(top, "0", GT, "tracing_on"), 1);
		T_ASSERT_EQ(evt_tracefs_file_read(f, buf, sizeof(buf)), 0);
		T_ASSERT_EQ(fake_echo(top, "1", GT, "tracing_on"), 1);
		evt_tracefs_close(f);
	}
	T_ASSERT(strstr(fake_cat(top, "trace"), "entries-in-buffer/entries-written: 0/"));

	/* a waiting read ends with -EINTR when another thread interrupts it */
	{
		struct evt_tracefs_file *f;
		pthread_t th;
		char buf[256];

		T_ASSERT_OK(evt_tracefs_open(top, "trace_pipe", EVT_TRACEFS_READ, &f));
		T_ASSERT_OK(evt_tracefs_file_interrupt(f));	/* before: the next wait ends */
		T_ASSERT_EQ(evt_tracefs_file_read(f, buf, sizeof(buf)), -EINTR);
		T_ASSERT_EQ(pthread_create(&th, NULL, interrupter, f), 0);
		T_ASSERT_EQ(evt_tracefs_file_read(f, buf, sizeof(buf)), -EINTR);
		pthread_join(th, NULL);
		evt_tracefs_close(f);
		T_ASSERT_EQ(evt_tracefs_file_interrupt(NULL), -EINVAL);
	}

	/* trace_pipe_raw: whole pages */
	{
		struct evt_tracefs_file *f;
		unsigned int psize = evt_ring_buffer_page_size(tb_buffer(top));
		static char page[1 << 16];
		int cpu = -1;
		ssize_t n;

		T_ASSERT_EQ(fake_fire(top, EV_IRQ, tid, 9, NULL), 1);
		for (int c = 0; c < nr_cpus && cpu < 0; c++)
			if (!evt_ring_buffer_empty_cpu(tb_buffer(top), c))
				cpu = c;
		T_ASSERT(cpu >= 0);
		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		T_ASSERT_OK(evt_tracefs_open(top, path, EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK,
					     &f));
		n = evt_tracefs_file_read(f, page, sizeof(page));
		T_ASSERT_EQ(n, psize);
		{
			struct evt_rb_page_iter it;
			const struct evt_ring_buffer_event *e;
			uint64_t ts;

			T_ASSERT_OK(evt_rb_page_iter_init(&it, page, psize));
			e = NULL;
			T_ASSERT(evt_rb_page_iter_next(&it, &e, &ts) > 0 && e);
		}
		T_ASSERT_EQ(evt_tracefs_file_read(f, page, sizeof(page)), -EAGAIN);
		evt_tracefs_close(f);
	}

	/* per_cpu/cpuN/trace_pipe: that CPU's records only; '>' on its trace empties that CPU */
	{
		unsigned long before[256] = { 0 };
		int cpu = -1;

		T_ASSERT_EQ(fake_echo(top, "", GT, "trace"), 0);
		T_ASSERT_EQ(fake_fire(top, EV_IRQ, tid, 77, NULL), 1);
		for (int c = 0; c < nr_cpus && c < 256; c++) {
			before[c] = evt_ring_buffer_entries_cpu(tb_buffer(top), c);
			if (before[c])
				cpu = c;
		}
		T_ASSERT(cpu >= 0);
		for (int c = 0; c < nr_cpus && c < 256; c++) {
			snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe", c);
			s = fake_cat(top, path);
			T_ASSERT_EQ(strstr(s, "irq=77\n") != NULL, c == cpu);
		}
		T_ASSERT_EQ(fake_fire(top, EV_IRQ, tid, 78, NULL), 1);
		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace", cpu);
		T_ASSERT(strstr(fake_cat(top, path), "irq=78\n") || nr_cpus > 1);
		for (int c = 0; c < nr_cpus; c++) {
			snprintf(path, sizeof(path), "per_cpu/cpu%d/trace", c);
			T_ASSERT_EQ(fake_echo(top, "", GT, path), 0);
		}
		T_ASSERT(!strstr(fake_cat(top, "trace"), "irq=78"));
	}

	/* instances: mkdir, their own tree, EBUSY while a file is open, rmdir */
	T_ASSERT_OK(evt_tracefs_mkdir(NULL, "instances/foo"));
	T_ASSERT_EQ(evt_tracefs_mkdir(NULL, "instances/foo"), -EEXIST);
	T_ASSERT_STR(t_tracefs_ls(NULL, "instances"), "foo/ ");
	T_ASSERT_STR(t_tracefs_ls(NULL, "instances/foo"), "available_events available_tracers "
		     "buffer_size_kb buffer_total_size_kb current_tracer error_log events/ "
		     "per_cpu/ set_event set_event_pid trace trace_clock trace_marker trace_pipe "
		     "tracing_on ");
	/* no instances/ inside an instance, as the kernel (ENOENT) */
	T_ASSERT_EQ(evt_tracefs_mkdir(NULL, "instances/foo/instances/x"), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_mkdir(NULL, "events/x"), -EPERM);
	{
		struct evt_tracefs_file *f;

		T_ASSERT_OK(evt_tracefs_open(NULL, "instances/foo/trace", EVT_TRACEFS_READ, &f));
		T_ASSERT_EQ(evt_tracefs_rmdir(NULL, "instances/foo"), -EBUSY);
		evt_tracefs_close(f);
	}
	T_ASSERT_OK(evt_tracefs_rmdir(NULL, "instances/foo"));
	T_ASSERT_EQ(evt_tracefs_rmdir(NULL, "instances/foo"), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_rmdir(NULL, "events"), -EPERM);
	return T_PASS;
}
