// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-stacktrace: the stacktrace trigger records the traced program's
 * stack as an ftrace:kernel_stack record, printed as the kernel prints one
 * ("<stack trace>", then " => symbol+0xoff/0xsize" from the caller of the
 * trace_<event>() call up); counts and filters; one per event (EEXIST);
 * nothing recorded while tracing is off. The program is linked with
 * -rdynamic (EvtTests.cmake) so dladdr() finds its functions.
 */
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

__attribute__((noinline)) void st_inner(unsigned int n);
__attribute__((noinline)) void st_outer(unsigned int n);

__attribute__((noinline)) void st_inner(unsigned int n)
{
	trace_tfs_tick(n);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void st_outer(unsigned int n)
{
	st_inner(n);
	__asm__ volatile("" ::: "memory");
}

/* The kernel's (6.18) events/ftrace/kernel_stack/format print fmt line, its adjacent string
 * literals joined (as the registry stores every print format). */
#define KERNEL_STACK_FMT                                                                    \
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n" \
	"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "              \
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], (void "    \
	"*)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n"

static int add_name(void *arg, const char *name, unsigned int mode)
{
	(void)mode;
	strcat(arg, name);
	strcat(arg, " ");
	return 0;
}

int main(void)
{
	char names[256] = "";
	const char *t, *p;

	T_ASSERT_OK(evt_tracefs_readdir(NULL, "events/ftrace", add_name, names));
	T_ASSERT_STR(names, "kernel_stack print ");
	T_ASSERT_STR(cat("events/ftrace/kernel_stack/id"), "<error -2>");

	/* the record's format, as the kernel's (its size field at 8, ours after common_tgid) */
	t = cat("events/ftrace/kernel_stack/format");
	T_ASSERT(!strncmp(t, "name: kernel_stack\nID: 4\nformat:\n", 33));
	T_ASSERT(strstr(t, "\tfield:int size;\toffset:12;\tsize:4;\tsigned:1;\n"
			   "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"));
	p = strstr(t, "print fmt: ");
	T_ASSERT(p != NULL);
	T_ASSERT_STR(p, KERNEL_STACK_FMT);

	T_ECHO("stacktrace\n", TICK);
	T_ASSERT_STR(cat(TICK), "stacktrace:unlimited\n");
	T_ASSERT_EQ(echo("stacktrace:3\n", TICK), -EEXIST);
	T_ASSERT_EQ(echo("stacktrace if n == 1\n", TICK), -EEXIST);
	/* soft mode: the event records nothing, its trigger a stack */
	T_ASSERT_STR(cat("events/tfs_test/tfs_tick/enable"), "0*\n");
	st_outer(1);
	t = cat("trace");
	T_ASSERT_EQ(count(t, "tfs_tick:"), 0);
	T_ASSERT_EQ(count(t, ": <stack trace>\n"), 1);
	/* the first frame is the function that called trace_tfs_tick(), then its caller */
	p = strstr(t, "<stack trace>\n => st_inner+0x");
	if (!p)
		t_fail("no st_inner frame first:\n%s", t);
	p = strchr(p + 15, '\n');
	T_ASSERT(p && !strncmp(p, "\n => st_outer+0x", 16));
	T_ASSERT(strstr(t, " => main+0x") != NULL);
	T_ASSERT(strstr(p, "/0x") != NULL);
	T_ECHO("!stacktrace\n", TICK);
	T_ASSERT_STR(cat(TICK), NONE);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "trace", "", 0, GT), 0);

	/* a count and a filter, on an enabled event: the event's record, then the stack */
	T_ECHO("1\n", "events/tfs_test/tfs_tick/enable");
	T_ECHO("stacktrace:2 if n > 5\n", TICK);
	T_ASSERT_STR(cat(TICK), "stacktrace:count=2 if n > 5\n");
	for (unsigned int n = 4; n < 10; n++)
		st_outer(n);
	t = cat("trace");
	T_ASSERT_EQ(count(t, "tfs_tick:"), 6);
	T_ASSERT_EQ(count(t, "<stack trace>"), 2);
	p = strstr(t, "tfs_tick: n=6\n");
	T_ASSERT(p && strstr(p, "<stack trace>") && strstr(p, "<stack trace>") < strstr(p, "n=7"));
	T_ASSERT_STR(cat(TICK), "stacktrace:count=0 if n > 5\n");
	T_ECHO("!stacktrace\n", TICK);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "trace", "", 0, GT), 0);

	/* tracing off: no stack is recorded */
	T_ECHO("stacktrace\n", TICK);
	T_ECHO("0\n", "tracing_on");
	st_outer(1);
	T_ECHO("1\n", "tracing_on");
	T_ASSERT_EQ(count(cat("trace"), "<stack trace>"), 0);
	st_outer(1);
	T_ASSERT_EQ(count(cat("trace"), "<stack trace>"), 1);
	T_ECHO("!stacktrace\n", TICK);
	T_ECHO("0\n", "events/tfs_test/tfs_tick/enable");
	T_ASSERT_STR(cat(TICK), NONE);
	return 0;
}
