// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-report-lost: events overwritten in a small buffer. The first page
 * written carries the kernel's missed-events flags and count; our reader
 * gives records read + events lost = events written, `evtrace report`'s
 * and `trace-cmd report`'s "CPU:N [K EVENTS DROPPED]" lines agree (trace-cmd
 * part skipped when it is not installed).
 */
#include <sys/wait.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

#define WRITTEN 5000

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif

/* The "[... EVENTS DROPPED]" lines of a command's output, joined. */
static void dropped_lines(const char *cmd, char *out, size_t size)
{
	char buf[4096];
	size_t len = 0;
	FILE *f = popen(cmd, "r");

	T_ASSERT(f);
	out[0] = '\0';
	while (fgets(buf, sizeof(buf), f)) {
		char *p = strstr(buf, "CPU:");

		if (p && strstr(p, "EVENTS DROPPED]")) {
			int n = snprintf(out + len, size - len, "%s", p);

			if (n > 0 && (size_t)n < size - len)
				len += (size_t)n;
		}
	}
	T_ASSERT_EQ(pclose(f), 0);
}

int main(void)
{
	struct evt_instance *inst = NULL;
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	unsigned long long lost = 0;
	char name[64], ours[1024], theirs[1024], cmd[512];
	char *path;
	int n = 0, ret;

	snprintf(name, sizeof(name), "tracedat-lost-%d", (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT_OK(evt_instance_resize_kb(inst, -1, 8));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", "td_ints", true) == 1);
	t_pin_to_cpu(0);
	for (int i = 0; i < WRITTEN; i++)
		trace_td_ints(0, i);
	t_unpin();
	path = td_write_tmp(inst, "lost");

	ret = evt_tracedat_open(path, &td);
	if (ret)
		t_fail("open: %s", evt_error_detail());
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		T_ASSERT_EQ(rec.cpu, 0);
		if (rec.missed) {
			T_ASSERT(rec.missed != ~0ULL);	/* the count fits: it is stored */
			lost += rec.missed;
		}
		n++;
	}
	T_ASSERT_EQ(ret, 0);
	evt_tracedat_close(td);
	T_ASSERT(lost > 0);
	T_ASSERT_EQ(n + lost, WRITTEN);

	snprintf(cmd, sizeof(cmd), "%s report %s", EVT_TOOL, path);
	dropped_lines(cmd, ours, sizeof(ours));
	snprintf(theirs, sizeof(theirs), "CPU:0 [%llu EVENTS DROPPED]\n", lost);
	if (strcmp(ours, theirs))
		t_fail("evtrace report: [%s], want [%s]", ours, theirs);
	if (system("command -v trace-cmd >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null", path);
		dropped_lines(cmd, theirs, sizeof(theirs));
		snprintf(ours, sizeof(ours), "CPU:0 [%llu EVENTS DROPPED]\n", lost);
		if (strcmp(ours, theirs))
			t_fail("trace-cmd report: [%s], want [%s]", theirs, ours);
	} else {
		printf("trace-cmd not installed: its part not checked\n");
	}
	if (!getenv("TRACEDAT_KEEP"))
		unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
