// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-format: the `format` text of an event, byte for byte in the
 * kernel's layout; checked against a literal copy and, where tracefs is
 * mounted, against the kernel's own sched:sched_process_exec, which has
 * the same fields (ours are 4 bytes further: common_tgid). Also the IDs
 * (distinct, stable, >= 32), available_events and lookups by glob.
 */
#include <errno.h>
#include <stdlib.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "events-util.h"

static const char *expected_fmt =
	"name: evtest_exec\n"
	"ID: %u\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:int common_tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] filename;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"filename=%%s pid=%%d old_pid=%%d\", __get_str(filename), REC->pid, "
	"REC->old_pid\n";

/* The kernel's format with our differences applied: name, ID, common_tgid, +4 offsets. */
static void kernel_compare(const char *ours)
{
	FILE *f = fopen("/sys/kernel/tracing/events/sched/sched_process_exec/format", "r");
	char line[512], want[8192] = "";
	size_t len = 0;

	if (!f) {
		printf("kernel comparison skipped: no tracefs\n");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char type_name[256];
		unsigned int off, size, sgn;

		if (!strncmp(line, "name: ", 6)) {
			len += (size_t)snprintf(want + len, sizeof(want) - len,
						"name: evtest_exec\n");
		} else if (!strncmp(line, "ID: ", 4)) {
			len += (size_t)snprintf(want + len, sizeof(want) - len, "ID: %u\n",
						evt_event_id(__evt_def_evtest_exec.event));
		} else if (sscanf(line, "\tfield:%255[^;];\toffset:%u;\tsize:%u;\tsigned:%u;",
				  type_name, &off, &size, &sgn) == 4) {
			if (off >= 8)
				off += 4;
			len += (size_t)snprintf(want + len, sizeof(want) - len,
						"\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
						type_name, off, size, sgn);
			if (!strcmp(type_name, "int common_pid"))
				len += (size_t)snprintf(want + len, sizeof(want) - len,
					"\tfield:int common_tgid;\toffset:8;"
					"\tsize:4;\tsigned:1;\n");
		} else {
			len += (size_t)snprintf(want + len, sizeof(want) - len, "%s", line);
		}
	}
	fclose(f);
	if (strcmp(want, ours)) {
		fprintf(stderr, "kernel (adjusted):\n%s\nours:\n%s\n", want, ours);
		t_fail("format differs from the kernel's layout");
	}
	printf("kernel comparison: same layout as sched:sched_process_exec\n");
}

static int collect(struct evt_event *ev, void *arg)
{
	unsigned int *ids = arg;

	for (int i = 0; ids[i]; i++)
		T_ASSERT(ids[i] != evt_event_id(ev));
	for (int i = 0;; i++)
		if (!ids[i]) {
			ids[i] = evt_event_id(ev);
			break;
		}
	return 0;
}

int main(void)
{
	static char buf[16384], want[4096];
	unsigned int ids[64] = { 0 };
	unsigned int id = evt_event_id(__evt_def_evtest_exec.event);
	int n;

	T_ASSERT(id >= 32);
	snprintf(want, sizeof(want), expected_fmt, id);
	n = evt_event_format_text("evtest", "evtest_exec", buf, sizeof(buf));
	T_ASSERT_EQ(n, strlen(want));
	if (strcmp(buf, want)) {
		fprintf(stderr, "want:\n%s\ngot:\n%s\n", want, buf);
		return T_FAIL;
	}
	kernel_compare(buf);

	/* snprintf semantics: truncated copy, full length back */
	T_ASSERT_EQ(evt_event_format_text("evtest", "evtest_exec", buf, 10), strlen(want));
	T_ASSERT_EQ(strlen(buf), 9);
	T_ASSERT_EQ(evt_event_format_text("evtest", "nosuch", buf, sizeof(buf)), -ENOENT);

	/* the arrays and the kernel's char[16] spelling */
	evt_event_format_text("evtest", "evtest_arrays", buf, sizeof(buf));
	T_ASSERT(strstr(buf, "\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:1;\n"));
	T_ASSERT(strstr(buf, "\tfield:short fixed[3];\toffset:28;\tsize:6;\tsigned:1;\n"));
	T_ASSERT(strstr(buf, "\tfield:__data_loc char[] name;\toffset:36;\tsize:4;\tsigned:0;\n"));
	T_ASSERT(strstr(buf, "\tfield:__data_loc int[] vals;\toffset:40;\tsize:4;\tsigned:1;\n"));
	evt_event_format_text("evtest", "evtest_ints", buf, sizeof(buf));
	T_ASSERT(strstr(buf, "\tfield:uint64_t u64;\toffset:36;\tsize:8;\tsigned:0;\n"));
	T_ASSERT(strstr(buf, "\tfield:const void * ptr;\toffset:"));
	/* adjacent literals of TP_printk are one string in the format, as the kernel's */
	T_ASSERT(strstr(buf, "b=%d c=%c l=%ld ul=%lu\", REC->s8, REC->u8, "));
	/* ftrace:print, the trace_marker event, has the kernel's ID 5 */
	evt_event_format_text("ftrace", "print", buf, sizeof(buf));
	T_ASSERT(!strncmp(buf, "name: print\nID: 5\n", 18));

	/* IDs: distinct; lookups by glob */
	T_ASSERT_OK(evt_event_foreach(NULL, NULL, collect, ids));
	T_ASSERT_EQ(evt_event_count("evtest", NULL), 5);
	T_ASSERT_EQ(evt_event_count("evtest", "evtest_[ae]*"), 2);
	T_ASSERT_EQ(evt_event_count("ev*", "*seq"), 1);
	T_ASSERT_EQ(evt_event_count("nosuch", NULL), 0);

	/* available_events: sorted "system:name" lines; built-in events are not listed */
	n = evt_available_events(buf, sizeof(buf));
	T_ASSERT(n > 0);
	T_ASSERT(strstr(buf, "evtest:evtest_arrays\nevtest:evtest_bench\nevtest:evtest_exec\n"));
	T_ASSERT(!strstr(buf, "ftrace:print"));
	/* a second registration of the same definition is a no-op giving the ID */
	T_ASSERT_EQ(evt_event_register(&__evt_def_evtest_exec), id);
	return T_PASS;
}
