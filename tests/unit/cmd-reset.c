// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-reset: `evtrace reset` leaves a traced process as evtrace-reset(1)
 * promises, also when its triggers have counts and one of them has fired:
 * a traceoff with a count (removed by "!" + its printed line, which the
 * kernel accepts), an enable_event trigger that turned its target on (the
 * target stays enabled when the trigger goes, as in the kernel: reset must
 * disable it after removing the triggers), a filter; hist triggers (one
 * with a filter, which only a removal with the same filter removes, one with
 * a log2 key as sort key, a named one). Afterwards: exit 0,
 * set_event empty, every enable 0, no trigger, filters "none", tracing on.
 * The enable_event trigger is unlimited and its event comes every ~100 us, so
 * that it fires again between reset's first emptying of set_event and the
 * trigger's removal; whether it does is up to the scheduler, so without the
 * second emptying this test fails often, not always; with it, always passes.
 */
#include <errno.h>
#include <stdbool.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"
#include "cmd-ctl-child.h"

/* no line of a trigger file but its "# Available triggers" header */
static bool no_trigger(const char *text)
{
	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (*l != '#' && *l != '\n')
			return false;
	return true;
}

int main(int argc, char **argv)
{
	bool fired = false;
	pid_t prog;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return cct_child_main(argv[2]);
	prog = cct_start();

	T_ASSERT_EQ(cct_write("events/ctltest/ctl_tick/trigger", "traceoff:1 if seq > 999999999",
			      true),
		    0);
	T_ASSERT_EQ(cct_write("events/ctltest/ctl_msg/trigger", "enable_event:ctltest:ctl_tick",
			      true),
		    0);
	T_ASSERT_EQ(cct_write("events/ctltest/ctl_msg/filter", "worker == 0", false), 0);
	/*
	 * hist triggers: one removed only with its filter, one whose line prints its sort key
	 * as "seq.log2" (which no parser takes back), a named one
	 */
	T_ASSERT_EQ(cct_write("events/ctltest/ctl_tick/trigger",
			      "hist:keys=seq.log2,worker:sort=seq,worker.descending if worker < 5",
			      true),
		    0);
	T_ASSERT_EQ(cct_write("events/ctltest/ctl_msg/trigger", "hist:name=rst:keys=worker", true),
		    0);
	/* wait until ctl_msg's trigger turned ctl_tick on */
	for (int i = 0; i < 1000 && !fired; i++) {
		fired = !strcmp(cct_cat("events/ctltest/ctl_tick/enable"), "1*\n");
		if (!fired)
			usleep(5000);
	}
	T_ASSERT(fired);
	printf("before reset: ctl_tick trigger %s", cct_cat("events/ctltest/ctl_tick/trigger"));

	{
		char *r[] = { "evtrace", "reset", "-p", cct_pid, NULL };

		T_ASSERT_EQ(crt_tool(cct_out, sizeof(cct_out), r), 0);
	}
	T_ASSERT_EQ(strcmp(cct_cat("set_event"), ""), 0);
	T_ASSERT_EQ(strcmp(cct_cat("events/ctltest/ctl_tick/enable"), "0\n"), 0);
	T_ASSERT_EQ(strcmp(cct_cat("events/ctltest/ctl_msg/enable"), "0\n"), 0);
	T_ASSERT(no_trigger(cct_cat("events/ctltest/ctl_tick/trigger")));
	T_ASSERT(no_trigger(cct_cat("events/ctltest/ctl_msg/trigger")));
	T_ASSERT_EQ(strcmp(cct_cat("events/ctltest/ctl_msg/filter"), "none\n"), 0);
	T_ASSERT_EQ(strcmp(cct_cat("tracing_on"), "1\n"), 0);

	kill(prog, SIGTERM);
	T_ASSERT_EQ(cmdt_wait_status(prog), 0);
	return 0;
}
