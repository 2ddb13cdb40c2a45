// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-hist: `evtrace hist` prints the histograms that have entries, under
 * "==> SYS:EVENT (PATH) <==", and leaves out a histogram without entries (its
 * Totals lines are not entries); -a prints that one too, but never an event
 * with no histogram (an empty hist file); EVENT selects (evtrace-hist(1)).
 */
#include <errno.h>
#include <stdbool.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"
#include "cmd-ctl-child.h"

static const char *hist(const char *a1, const char *a2)
{
	char *h[] = { "evtrace", "hist", "-p", cct_pid, (char *)a1, (char *)a2, NULL };

	T_ASSERT_EQ(crt_tool(cct_out, sizeof(cct_out), h), 0);
	return cct_out;
}

int main(int argc, char **argv)
{
	bool hits = false;
	pid_t prog;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return cct_child_main(argv[2]);
	prog = cct_start();

	/* ctl_tick: a histogram that never gets an entry; ctl_msg: one that does */
	if (cct_write("events/ctltest/ctl_tick/trigger", "hist:keys=worker if worker > 100",
		      true)) {
		kill(prog, SIGTERM);
		t_skip("no hist trigger in this library");
	}
	T_ASSERT_EQ(cct_write("events/ctltest/ctl_msg/trigger", "hist:keys=worker", true), 0);
	for (int i = 0; i < 1000 && !hits; i++) {
		hits = strstr(cct_cat("events/ctltest/ctl_msg/hist"), "{ worker:") != NULL;
		if (!hits)
			usleep(5000);
	}
	T_ASSERT(hits);

	hist(NULL, NULL);
	printf("evtrace hist:\n%s", cct_out);
	T_ASSERT(strstr(cct_out, "==> ctltest:ctl_msg (events/ctltest/ctl_msg/hist) <==\n"));
	T_ASSERT(!strstr(cct_out, "ctltest:ctl_tick"));
	T_ASSERT(!strstr(cct_out, "ftrace:print"));

	hist("-a", NULL);
	T_ASSERT(strstr(cct_out, "==> ctltest:ctl_msg "));
	T_ASSERT(strstr(cct_out, "==> ctltest:ctl_tick (events/ctltest/ctl_tick/hist) <==\n"));
	/* events without any hist trigger: an empty hist file, not a histogram */
	T_ASSERT(!strstr(cct_out, "ftrace:print"));

	hist("-a", "ctl_tick");
	T_ASSERT(strstr(cct_out, "==> ctltest:ctl_tick "));
	T_ASSERT(!strstr(cct_out, "ctl_msg"));
	hist("ctltest:*", NULL);
	T_ASSERT(strstr(cct_out, "==> ctltest:ctl_msg "));

	kill(prog, SIGTERM);
	T_ASSERT_EQ(cmdt_wait_status(prog), 0);
	return 0;
}
