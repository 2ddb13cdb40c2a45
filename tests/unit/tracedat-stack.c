// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-stack: the stacktrace trigger's ftrace:kernel_stack records in a
 * trace.dat: the file carries the format, `trace-cmd report` reads them
 * (as the kernel's stack records: the caller addresses) and so does ours.
 * Skips (77) when trace-cmd is not installed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <evtrace/tracedat.h>

#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

__attribute__((noinline)) static void fire(unsigned int n)
{
	trace_tfs_tick(n);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	char path[] = "/tmp/tracedat-stack-XXXXXX", cmd[256], line[4096];
	int fd, stacks = 0, ticks = 0;
	FILE *p;

	if (system("command -v trace-cmd >/dev/null 2>&1") != 0)
		t_skip("trace-cmd is not installed");
	T_ECHO("1\n", "events/tfs_test/tfs_tick/enable");
	T_ECHO("stacktrace:2\n", TICK);
	for (unsigned int n = 1; n <= 3; n++)
		fire(n);
	T_ASSERT_EQ(count(cat("trace"), "<stack trace>"), 2);
	fd = mkstemp(path);
	T_ASSERT(fd >= 0);
	T_ASSERT(evt_tracedat_write(evt_instance_top(), fd, 0) > 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>&1", path);
	p = popen(cmd, "r");
	T_ASSERT(p != NULL);
	while (fgets(line, sizeof(line), p)) {
		fputs(line, stdout);
		if (strstr(line, "kernel_stack:"))
			stacks++;
		if (strstr(line, "tfs_tick:"))
			ticks++;
	}
	T_ASSERT_EQ(pclose(p), 0);
	/* our reader: the same records, the stacks printed as `trace` prints them */
	{
		struct evt_tracedat_record rec;
		struct evt_tracedat *td;
		char buf[8192];
		struct evt_seq s;
		int n = 0, st = 0;

		T_ASSERT_OK(evt_tracedat_open(path, &td));
		while (evt_tracedat_next(td, &rec) == 1) {
			evt_seq_init(&s, buf, sizeof(buf));
			T_ASSERT_OK(evt_tracedat_print(td, &rec, &s));
			buf[s.len < sizeof(buf) ? s.len : sizeof(buf) - 1] = '\0';
			fputs(buf, stdout);
			n++;
			st += strstr(buf, "<stack trace>\n => ") != NULL;
		}
		evt_tracedat_close(td);
		T_ASSERT_EQ(n, 5);
		T_ASSERT_EQ(st, 2);
	}
	unlink(path);
	T_ASSERT_EQ(ticks, 3);
	T_ASSERT_EQ(stacks, 2);
	T_ECHO("!stacktrace\n", TICK);
	return 0;
}
