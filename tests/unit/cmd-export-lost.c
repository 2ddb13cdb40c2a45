// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-export-lost: events overwritten in a small buffer come out of
 * `evtrace export` as global instant events "events dropped" (cat evtrace,
 * args cpu and count) before the record that follows them: records +
 * counts = events written, and metadata.dropped_events is the sum
 * (tests/unit/cmd-export-check.py, mode lost). SKIP without python3.
 */
#include <sys/wait.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

#define WRITTEN 5000

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif

int main(void)
{
	const char *slash = strrchr(__FILE__, '/');
	struct evt_instance *inst = NULL;
	char name[64], cmd[2048], js[300];
	char *path;
	int st;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	if (system("command -v python3 >/dev/null 2>&1"))
		t_skip("python3 is missing (it checks the JSON)");
	snprintf(name, sizeof(name), "export-lost-%d", (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT_OK(evt_instance_resize_kb(inst, -1, 8));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", "td_ints", true) == 1);
	t_pin_to_cpu(0);
	for (int i = 0; i < WRITTEN; i++)
		trace_td_ints(0, i);
	t_unpin();
	path = td_write_tmp(inst, "export-lost");
	snprintf(js, sizeof(js), "%s.json", path);

	snprintf(cmd, sizeof(cmd), "%s export -o %s %s", EVT_TOOL, js, path);
	st = system(cmd);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof(cmd), "python3 %.*scmd-export-check.py lost %s %d",
		 slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__, js, WRITTEN);
	st = system(cmd);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	unlink(js);
	unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
