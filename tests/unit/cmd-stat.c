// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-stat: `evtrace stat` prints tracing_on and the clock, a line per CPU
 * and a total (evtrace-stat(1)); -i NAME the buffer of an instance; -i of an
 * instance the process does not have: exit 1 and nothing on standard output
 * (it printed half a header before).
 */
#include <errno.h>
#include <stdbool.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"
#include "cmd-ctl-child.h"

int main(int argc, char **argv)
{
	char *st[] = { "evtrace", "stat", "-p", cct_pid, NULL };
	char *sti[] = { "evtrace", "stat", "-p", cct_pid, "-i", "cs1", NULL };
	char *bad[] = { "evtrace", "stat", "-p", cct_pid, "-i", "nosuch", NULL };
	char *mk[] = { "evtrace", "write", "-p", cct_pid, "instances/cs1/tracing_on", "1", NULL };
	pid_t prog;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return cct_child_main(argv[2]);
	prog = cct_start();

	T_ASSERT_EQ(crt_tool(cct_out, sizeof(cct_out), st), 0);
	printf("%s", cct_out);
	T_ASSERT(strstr(cct_out, ": tracing_on 1, clock [local]"));
	T_ASSERT(strstr(cct_out, "\nCPU "));
	T_ASSERT(strstr(cct_out, "\nall "));

	/* an instance of the traced process (mkdir through its socket) */
	{
		struct ctl_client *c;

		T_ASSERT_OK(ctl_connect_pid(prog, &c));
		T_ASSERT_OK(ctl_mkdir(c, "instances/cs1"));
		ctl_close(c);
	}
	T_ASSERT_EQ(crt_tool(cct_out, sizeof(cct_out), mk), 0);
	T_ASSERT_EQ(crt_tool(cct_out, sizeof(cct_out), sti), 0);
	T_ASSERT(strstr(cct_out, ", instance cs1: tracing_on 1"));
	T_ASSERT(strstr(cct_out, "\nall "));

	T_ASSERT_EQ(crt_tool(cct_out, sizeof(cct_out), bad), 1);
	T_ASSERT_EQ(strcmp(cct_out, ""), 0);

	kill(prog, SIGTERM);
	T_ASSERT_EQ(cmdt_wait_status(prog), 0);
	return 0;
}
