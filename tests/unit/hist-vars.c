// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist-vars: histogram.rst 2.2 on stand-in events: a variable saved by one
 * event (sched_waking: ts0=ts, the time stamp as a field the test sets so
 * that latencies are exact), an expression using it on another
 * (sched_switch: wakeup_lat=ts-$ts0, read once), onmatch() tracing the
 * synthetic event wakeup_latency, a histogram of that synthetic event (the
 * inter-event latency histogram), onmax().save(); hits whose variable is not
 * set are skipped; a histogram whose variables are used cannot be removed
 * (-EBUSY); the trigger lines; common_timestamp.usecs latencies by shape.
 */
#include "hist-util.h"

#define CREATE_TRACE_POINTS
#include "hist-tp.h"

#define WAKING "events/hist_test/sched_waking/"
#define SWITCH "events/hist_test/sched_switch/"
#define LAT    "events/synthetic/wakeup_latency/"

#define ONMATCH                                  \
	"hist:keys=next_pid:wakeup_lat=ts-$ts0:" \
	"onmatch(hist_test.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio)"

static void cmd(const char *c, const char *path)
{
	char buf[600];

	snprintf(buf, sizeof(buf), "%s\n", c);
	if (echo(buf, path) != (ssize_t)strlen(buf))
		t_fail("'%s' > %s: %zd", c, path, echo(buf, path));
}

int main(void)
{
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events",
				      "wakeup_latency u64 lat; int pid; int prio\n", 43, GGT),
		    43);
	cmd("hist:keys=pid:ts0=ts", WAKING "trigger");
	T_ASSERT_STR(cat(WAKING "trigger"),
		     "hist:keys=pid:vals=hitcount:ts0=ts:sort=hitcount:size=2048 [active]\n");
	cmd(ONMATCH, SWITCH "trigger");
	T_ASSERT_STR(cat(SWITCH "trigger"),
		     "hist:keys=next_pid:vals=hitcount:wakeup_lat=ts-$ts0:sort=hitcount:size=2048:"
		     "onmatch(hist_test.sched_waking).wakeup_latency($wakeup_lat,next_pid,"
		     "next_prio) [active]\n");
	cmd("hist:keys=pid,prio,lat:sort=pid,lat", LAT "trigger");
	cmd("1", LAT "enable");

	trace_sched_waking(10, 120, 1000);
	trace_sched_switch("swapper", 0, "cyclic", 10, 120, 1250); /* 250 */
	trace_sched_waking(11, 99, 2000);
	trace_sched_switch("cyclic", 10, "other", 11, 99, 2100);   /* 100 */
	trace_sched_switch("other", 11, "nowake", 12, 120, 2200);  /* no ts0: skipped */
	trace_sched_switch("nowake", 12, "cyclic", 10, 120, 2300); /* ts0 used: skipped */
	trace_sched_waking(10, 120, 3000);
	trace_sched_switch("swapper", 0, "cyclic", 10, 120, 3010); /* 10 */

	golden("vars-latency", cat(LAT "hist"));
	golden("vars-switch", cat(SWITCH "hist"));
	golden("vars-waking", cat(WAKING "hist"));
	T_ASSERT_EQ(count(cat("trace"), "wakeup_latency: lat=250 pid=10 prio=120"), 1);
	T_ASSERT_EQ(count(cat("trace"), "wakeup_latency: lat=100 pid=11 prio=99"), 1);
	T_ASSERT_EQ(count(cat("trace"), "wakeup_latency:"), 3);

	/* ts0 is used by the switch histogram: the waking one cannot go */
	T_ASSERT_EQ(echo("!hist:keys=pid:ts0=ts\n", WAKING "trigger"), -EBUSY);
	cmd("!" ONMATCH, SWITCH "trigger");
	T_ASSERT_STR(cat(SWITCH "trigger"), NONE);

	/* onmax(): the largest latency per next_pid, and what the switch was */
	cmd("hist:keys=next_pid:wakeup_lat=ts-$ts0:onmax($wakeup_lat).save(next_comm,prev_pid)",
	    SWITCH "trigger");
	T_ASSERT_STR(cat(SWITCH "trigger"),
		     "hist:keys=next_pid:vals=hitcount:wakeup_lat=ts-$ts0:sort=hitcount:size=2048:"
		     "onmax($wakeup_lat).save(next_comm,prev_pid) [active]\n");
	trace_sched_waking(20, 120, 100);
	trace_sched_switch("a", 1, "first", 20, 120, 150); /* 50 */
	trace_sched_waking(20, 120, 200);
	trace_sched_switch("b", 2, "second", 20, 120, 290); /* 90: the max */
	trace_sched_waking(20, 120, 300);
	trace_sched_switch("c", 3, "third", 20, 120, 370); /* 70 */
	golden("vars-onmax", cat(SWITCH "hist"));
	cmd("!hist:keys=next_pid:wakeup_lat=ts-$ts0:onmax($wakeup_lat).save(next_comm,prev_pid)",
	    SWITCH "trigger");

	/* onmax().snapshot(): the buffers swap when the max grows; the hist file tells */
	cmd("hist:keys=next_pid:wakeup_lat=ts-$ts0:onmax($wakeup_lat).snapshot()",
	    SWITCH "trigger");
	T_ASSERT_STR(cat(SWITCH "trigger"),
		     "hist:keys=next_pid:vals=hitcount:wakeup_lat=ts-$ts0:sort=hitcount:size=2048:"
		     "onmax($wakeup_lat).snapshot() [active]\n");
	T_ASSERT(!strstr(cat(SWITCH "hist"), "Snapshot taken"));
	trace_sched_waking(50, 120, 100);
	trace_sched_switch("a", 1, "s", 50, 120, 160); /* 60: a snapshot */
	trace_sched_waking(50, 120, 200);
	trace_sched_switch("a", 1, "s", 50, 120, 230); /* 30: none */
	golden("vars-snapshot", cat(SWITCH "hist"));
	cmd("!hist:keys=next_pid:wakeup_lat=ts-$ts0:onmax($wakeup_lat).snapshot()",
	    SWITCH "trigger");

	/* a qualified reference: sys.event.$var (shown as $sys.event.var) */
	cmd("hist:keys=next_pid:q=ts-hist_test.sched_waking.$ts0:onmax($q).save(prev_pid)",
	    SWITCH "trigger");
	T_ASSERT_STR(
		cat(SWITCH "trigger"),
		"hist:keys=next_pid:vals=hitcount:q=ts-$hist_test.sched_waking.ts0:sort=hitcount:"
		"size=2048:onmax($q).save(prev_pid) [active]\n");
	trace_sched_waking(40, 120, 1000);
	trace_sched_switch("x", 7, "y", 40, 120, 1033);
	T_ASSERT(strstr(cat(SWITCH "hist"), "{ next_pid:         40 } hitcount:          1\n"
					    "\tmax:         33  prev_pid:          7\n"));
	cmd("!hist:keys=next_pid:q=ts-hist_test.sched_waking.$ts0:onmax($q).save(prev_pid)",
	    SWITCH "trigger");

	/* common_timestamp.usecs: the latency of real time */
	cmd("hist:keys=pid:ts1=common_timestamp.usecs", WAKING "trigger");
	/* a value may be a variable of this trigger that is a plain field ($t: common_pid) */
	cmd("hist:keys=next_pid:vals=$t:t=common_pid:lat=common_timestamp.usecs-$ts1",
	    SWITCH "trigger");
	T_ASSERT_STR(
		cat(SWITCH "trigger"),
		"hist:keys=next_pid:vals=hitcount,common_pid:t=common_pid,"
		"lat=common_timestamp.usecs-$ts1:sort=hitcount:size=2048:clock=global [active]\n");
	trace_sched_waking(30, 120, 0);
	trace_sched_switch("a", 1, "ts", 30, 120, 0);
	T_ASSERT(strstr(cat(SWITCH "hist"), "{ next_pid:         30 } hitcount:          1  "
					    "common_pid: "));
	/* usecs and nanoseconds do not mix */
	T_ASSERT_EQ(echo("hist:keys=next_pid:x=common_timestamp-$ts1\n", SWITCH "trigger"),
		    -EINVAL);
	cmd("!hist:keys=next_pid:vals=$t:t=common_pid:lat=common_timestamp.usecs-$ts1",
	    SWITCH "trigger");
	cmd("!hist:keys=pid:ts1=common_timestamp.usecs", WAKING "trigger");

	cmd("!hist:keys=pid:ts0=ts", WAKING "trigger");
	cmd("!hist:keys=pid,prio,lat:sort=pid,lat", LAT "trigger");
	cmd("0", LAT "enable");
	T_ASSERT_STR(cat(WAKING "trigger"), NONE);
	T_ASSERT_STR(cat(SWITCH "trigger"), NONE);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "!wakeup_latency\n", 16, GGT), 16);

	/* an instance destroyed with named and variable histograms in place leaves nothing */
	struct evt_instance *inst;
	static const char *const cmds[][2] = {
		{ "hist:name=gone:keys=pid:ts9=ts\n", WAKING "trigger" },
		{ "hist:keys=next_pid:d=ts-$ts9\n", SWITCH "trigger" },
	};

	T_ASSERT_OK(evt_instance_create("hist-vars", &inst));
	for (unsigned int i = 0; i < 2; i++)
		T_ASSERT_EQ(evt_tracefs_write(inst, cmds[i][1], cmds[i][0], strlen(cmds[i][0]),
					      GGT),
			    (ssize_t)strlen(cmds[i][0]));
	trace_sched_waking(1, 2, 3);
	trace_sched_switch("a", 0, "b", 1, 2, 5);
	T_ASSERT(strstr(t_tracefs_cat(inst, SWITCH "hist"), "Hits: 1\n"));
	T_ASSERT_OK(evt_instance_destroy(inst));
	/* the name and the variable are free again: another layout under that name */
	cmd("hist:name=gone:keys=prio", WAKING "trigger");
	T_ASSERT_EQ(echo("hist:keys=next_pid:d=ts-$ts9\n", SWITCH "trigger"), -EINVAL);
	cmd("!hist:name=gone:keys=prio", WAKING "trigger");
	T_ASSERT_STR(cat(WAKING "trigger"), NONE);
	return 0;
}
