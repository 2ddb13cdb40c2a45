// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist-strvars: histogram.rst 2.2 with what hist-vars does not cover, on the
 * stand-in events of hist-tp.h (the time stamp is a field the test sets, so
 * that latencies are exact):
 *
 *  - string variables (wcomm=comm of a char[16] field, who=common_pid.execname
 *    as char[]) passed as $wcomm/$who to a synthetic event's char[16]/char[]
 *    fields, and what the kernel refuses with them (operands of expressions,
 *    values, a char[] into a char[16] field);
 *  - key variables as the kernel has them: keys=$saved_pid:saved_pid=pid (the
 *    key is the field, printed with the field's name; saved_pid is a variable
 *    other histograms read), histogram.rst's wakeup_latency example with
 *    $saved_pid, and its wakeup_new_test example (keys=$testpid, onmatch()
 *    of the event itself, both action forms); `keys=timer_pid=common_pid`
 *    and `timer_pid=common_pid:key=timer_pid` are refused as by the kernel
 *    ("Couldn't find field");
 *  - action params that are fields of another event (sys.event.field, or an
 *    unqualified field of the onmatch() event): a histogram
 *    keys=<keys>:synthetic_<field>=<field> made on that event (shown in its
 *    trigger file, as the kernel's create_field_var_hist()), removed with the
 *    trigger that needed it; its errors.
 *
 * The golden files (tests/data/hist/strvars-*.txt) are the kernel's text as
 * its printing code (hist_trigger_print_key(), event_hist_trigger_print())
 * makes it: this machine's kernel has no CONFIG_HIST_TRIGGERS to record them.
 */
#include <sys/prctl.h>

#include "hist-util.h"

#define CREATE_TRACE_POINTS
#include "hist-tp.h"

#define WAKING "events/hist_test/sched_waking/"
#define WAKEUP "events/hist_test/sched_wakeup/"
#define SWITCH "events/hist_test/sched_switch/"
#define LAT    "events/synthetic/wakeup_latency/"
#define CLAT   "events/synthetic/comm_latency/"

static void cmd(const char *c, const char *path)
{
	char buf[700];

	snprintf(buf, sizeof(buf), "%s\n", c);
	if (echo(buf, path) != (ssize_t)strlen(buf))
		t_fail("'%s' > %s: %zd", c, path, echo(buf, path));
}

static void synth(const char *def)
{
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", def, strlen(def), GGT),
		    (ssize_t)strlen(def));
}

/*
 * '@c > @path' gives -@err and logs @msg for event @ev with the caret under the
 * first occurrence of @at in "hist:..." (the kernel's err_pos()); @msg NULL:
 * nothing logged.
 */
static void check(const char *c, const char *path, const char *ev, int err, const char *msg,
		  const char *at)
{
	char buf[700], want[2048];
	ssize_t ret;

	T_ASSERT_EQ(evt_tracefs_write(NULL, "error_log", "\n", 1, EVT_TRACEFS_TRUNC), 1);
	snprintf(buf, sizeof(buf), "%s\n", c);
	ret = echo(buf, path);
	if (ret != -err)
		t_fail("'%s': %zd, want %d", c, ret, -err);
	if (!msg) {
		T_ASSERT_STR(elog(), "");
		return;
	}
	T_ASSERT(strstr(c, at) != NULL);
	snprintf(want, sizeof(want), "hist:hist_test:%s: error: %s\n  Command: %s\n%*s^\n", ev, msg,
		 c, (int)(strstr(c, at) - c) + 11, "");
	/* the first entry (the kernel logs more after it on some paths) */
	if (strncmp(elog(), want, strlen(want)))
		T_ASSERT_STR(elog(), want);
}

static void string_variables(void)
{
	synth("comm_latency u64 lat; int pid; char waker[16]; char comm[]\n");
	/* the kernel's execname is the entry's first thread's name */
	T_ASSERT_OK(prctl(PR_SET_NAME, "strvars-main"));
	cmd("hist:keys=pid:ts0=ts:wcomm=comm,who=common_pid.execname", WAKEUP "trigger");
	T_ASSERT_STR(cat(WAKEUP "trigger"),
		     "hist:keys=pid:vals=hitcount:ts0=ts,wcomm=comm,who=common_pid.execname:"
		     "sort=hitcount:size=2048 [active]\n");
	cmd("hist:keys=next_pid:lat=ts-$ts0:"
	    "onmatch(hist_test.sched_wakeup).comm_latency($lat,next_pid,$wcomm,$who)",
	    SWITCH "trigger");
	cmd("hist:keys=waker,comm,lat", CLAT "trigger");
	cmd("1", CLAT "enable");

	trace_sched_wakeup("cyclictest", 10, 120, 1000);
	trace_sched_switch("swapper", 0, "cyclictest", 10, 120, 1007); /* 7 */
	trace_sched_wakeup("kworker/0:1", 11, 120, 2000);
	trace_sched_switch("cyclictest", 10, "kworker/0:1", 11, 120, 2003); /* 3 */
	trace_sched_wakeup("cyclictest", 10, 120, 3000);
	trace_sched_switch("swapper", 0, "cyclictest", 10, 120, 3007); /* 7 */

	T_ASSERT_EQ(count(cat("trace"), "comm_latency: lat=7 pid=10 waker=cyclictest "
					"comm=strvars-main"),
		    2);
	T_ASSERT_EQ(count(cat("trace"), "comm_latency: lat=3 pid=11 waker=kworker/0:1 "
					"comm=strvars-main"),
		    1);
	golden("strvars-comm-latency", cat(CLAT "hist"));
	golden("strvars-wakeup", cat(WAKEUP "hist"));

	/* what the kernel refuses with strings */
	check("hist:keys=next_pid:x=next_comm+1", SWITCH "trigger", "sched_switch", EINVAL,
	      "String type can not be an operand in expression", "next_comm");
	check("hist:keys=next_pid:x=1-$wcomm", SWITCH "trigger", "sched_switch", EINVAL,
	      "String type can not be an operand in expression", "$wcomm");
	check("hist:keys=next_pid:vals=next_comm", SWITCH "trigger", "sched_switch", EINVAL, NULL,
	      NULL);
	check("hist:keys=next_pid:vals=$wcomm", SWITCH "trigger", "sched_switch", EINVAL, NULL,
	      NULL);
	/* a char[] (execname, size 256 for the kernel) into a char[16] field; a string
	 * into a number */
	check("hist:keys=next_pid:l=ts-$ts0:"
	      "onmatch(hist_test.sched_wakeup).comm_latency($l,next_pid,$who,$who)",
	      SWITCH "trigger", "sched_switch", EINVAL,
	      "Param type doesn't match synthetic event field type", "$who");
	check("hist:keys=next_pid:l=ts-$ts0:"
	      "onmatch(hist_test.sched_wakeup).comm_latency($wcomm,next_pid,$wcomm,$who)",
	      SWITCH "trigger", "sched_switch", EINVAL,
	      "Param type doesn't match synthetic event field type", "$wcomm");

	cmd("!hist:keys=next_pid:lat=ts-$ts0:"
	    "onmatch(hist_test.sched_wakeup).comm_latency($lat,next_pid,$wcomm,$who)",
	    SWITCH "trigger");
	cmd("!hist:keys=waker,comm,lat", CLAT "trigger");
	cmd("0", CLAT "enable");

	/* a string variable of a variable (an alias): the text is copied again */
	cmd("hist:keys=next_pid:lat=ts-$ts0,c2=$wcomm:"
	    "onmatch(hist_test.sched_wakeup).comm_latency($lat,next_pid,$c2,$who)",
	    SWITCH "trigger");
	cmd("1", CLAT "enable");
	trace_sched_wakeup("alias", 12, 120, 100);
	trace_sched_switch("swapper", 0, "alias", 12, 120, 150);
	T_ASSERT_EQ(count(cat("trace"), "comm_latency: lat=50 pid=12 waker=alias "), 1);
	cmd("0", CLAT "enable");
	cmd("!hist:keys=next_pid:lat=ts-$ts0,c2=$wcomm:"
	    "onmatch(hist_test.sched_wakeup).comm_latency($lat,next_pid,$c2,$who)",
	    SWITCH "trigger");

	/* save() of $variables: of another histogram (a string and the one the
	 * expression reads once, shared as the kernel's) and of this one */
	cmd("hist:keys=next_pid:lat=ts-$ts0,me=next_comm:onmax($lat).save($wcomm,$ts0,$me,prev_pid)",
	    SWITCH "trigger");
	trace_sched_wakeup("saved", 14, 120, 100);
	trace_sched_switch("swapper", 5, "me-14", 14, 120, 142);
	golden("strvars-save", cat(SWITCH "hist"));
	cmd("!hist:keys=next_pid:lat=ts-$ts0,me=next_comm:onmax($lat).save($wcomm,$ts0,$me,prev_pid)",
	    SWITCH "trigger");
	/*
	 * every hist_err() of the kernel's path: parse_var_ref(), parse_field() of
	 * "$nosuch" (parse_atom() goes on), create_field_var(), action_create()
	 */
	T_ASSERT_EQ(evt_tracefs_write(NULL, "error_log", "\n", 1, EVT_TRACEFS_TRUNC), 1);
	T_ASSERT_EQ(echo("hist:keys=next_pid:lat=ts-$ts0:onmax($lat).save($nosuch)\n",
			 SWITCH "trigger"), -EINVAL);
#define NOSUCH_ERR(msg, caret)                                                                    \
	"hist:hist_test:sched_switch: error: " msg "\n"                                           \
	"  Command: hist:keys=next_pid:lat=ts-$ts0:onmax($lat).save($nosuch)\n"                   \
	"           " caret "^\n"
#define NOSUCH_AT "                                                "
	T_ASSERT_STR(elog(), NOSUCH_ERR("Couldn't find variable", NOSUCH_AT " ")
			     NOSUCH_ERR("Couldn't find field", NOSUCH_AT)
			     NOSUCH_ERR("Couldn't parse field variable", NOSUCH_AT)
			     NOSUCH_ERR("Couldn't create field variable", NOSUCH_AT));
	/* a variable is looked up with this histogram's key: the same layout */
	check("hist:keys=next_comm:onmatch(hist_test.sched_wakeup).comm_latency(ts,next_pid,$wcomm,"
	      "$who)",
	      SWITCH "trigger", "sched_switch", EINVAL, "Couldn't find variable", "wcomm");

	/* onmax().trace() with the string variables: traced when the max grows */
	cmd("hist:keys=next_pid:lat=ts-$ts0:onmax($lat).trace(comm_latency,$lat,next_pid,$wcomm,"
	    "$who)",
	    SWITCH "trigger");
	cmd("1", CLAT "enable");
	trace_sched_wakeup("max-a", 13, 120, 100);
	trace_sched_switch("swapper", 0, "m", 13, 120, 120); /* 20: a new max */
	trace_sched_wakeup("max-b", 13, 120, 200);
	trace_sched_switch("swapper", 0, "m", 13, 120, 210); /* 10: none */
	trace_sched_wakeup("max-c", 13, 120, 300);
	trace_sched_switch("swapper", 0, "m", 13, 120, 330); /* 30: a new max */
	T_ASSERT_EQ(count(cat("trace"), "comm_latency: lat=20 pid=13 waker=max-a "), 1);
	T_ASSERT_EQ(count(cat("trace"), "waker=max-b "), 0);
	T_ASSERT_EQ(count(cat("trace"), "comm_latency: lat=30 pid=13 waker=max-c "), 1);
	cmd("0", CLAT "enable");
	cmd("!hist:keys=next_pid:lat=ts-$ts0:onmax($lat).trace(comm_latency,$lat,next_pid,$wcomm,"
	    "$who)",
	    SWITCH "trigger");

	cmd("!hist:keys=pid:ts0=ts:wcomm=comm,who=common_pid.execname", WAKEUP "trigger");
	T_ASSERT_STR(cat(WAKEUP "trigger"), NONE);
	T_ASSERT_STR(cat(SWITCH "trigger"), NONE);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "!comm_latency\n", 14, GGT), 14);
}

/* histogram.rst 2.2.3: the wakeup_latency example with keys=$saved_pid */
static void key_variables(void)
{
	synth("wakeup_latency u64 lat; pid_t pid; int prio\n");
	cmd("hist:keys=$saved_pid:saved_pid=pid:ts0=ts", WAKING "trigger");
	T_ASSERT_STR(cat(WAKING "trigger"),
		     "hist:keys=pid:vals=hitcount:saved_pid=pid,ts0=ts:sort=hitcount:size=2048 "
		     "[active]\n");
	cmd("hist:keys=next_pid:wakeup_lat=ts-$ts0:"
	    "onmatch(hist_test.sched_waking).wakeup_latency($wakeup_lat,$saved_pid,next_prio) "
	    "if next_comm==\"cyclictest\"",
	    SWITCH "trigger");
	cmd("hist:keys=pid,prio,lat:sort=pid,lat", LAT "trigger");
	cmd("1", LAT "enable");

	trace_sched_waking(2035, 9, 1000);
	trace_sched_switch("swapper/1", 0, "cyclictest", 2035, 9, 1004);
	trace_sched_waking(2034, 120, 2000);
	trace_sched_switch("swapper/0", 0, "cyclictest", 2034, 120, 2005);
	trace_sched_waking(2035, 9, 3000);
	trace_sched_switch("swapper/1", 0, "cyclictest", 2035, 9, 3004);
	trace_sched_waking(2036, 9, 4000);
	trace_sched_switch("swapper/1", 0, "bash", 2036, 9, 4004); /* filtered out */

	golden("strvars-key-latency", cat(LAT "hist"));
	golden("strvars-key-waking", cat(WAKING "hist"));
	T_ASSERT_EQ(count(cat("trace"), "wakeup_latency: lat=4 pid=2035 prio=9"), 2);

	cmd("!hist:keys=next_pid:wakeup_lat=ts-$ts0:"
	    "onmatch(hist_test.sched_waking).wakeup_latency($wakeup_lat,$saved_pid,next_prio) "
	    "if next_comm==\"cyclictest\"",
	    SWITCH "trigger");
	cmd("!hist:keys=pid,prio,lat:sort=pid,lat", LAT "trigger");
	cmd("0", LAT "enable");
	cmd("!hist:keys=$saved_pid:saved_pid=pid:ts0=ts", WAKING "trigger");
	T_ASSERT_STR(cat(WAKING "trigger"), NONE);

	/* histogram.rst 2.2.3: wakeup_new_test, onmatch() of the event itself, both forms */
	synth("wakeup_new_test pid_t pid\n");
	cmd("hist:keys=$testpid:testpid=child_pid:onmatch(hist_test.process_fork)."
	    "wakeup_new_test($testpid) if child_comm==\"cyclictest\"",
	    FORK "trigger");
	T_ASSERT_STR(cat(FORK "trigger"),
		     "hist:keys=child_pid:vals=hitcount:testpid=child_pid:sort=hitcount:size=2048:"
		     "onmatch(hist_test.process_fork).wakeup_new_test($testpid) "
		     "if child_comm==\"cyclictest\" [active]\n");
	cmd("hist:keys=pid:sort=pid", "events/synthetic/wakeup_new_test/trigger");
	trace_process_fork("cyclictest", 2101);
	trace_process_fork("bash", 2102);
	trace_process_fork("cyclictest", 2103);
	trace_process_fork("cyclictest", 2101);
	golden("strvars-wakeup-new", cat("events/synthetic/wakeup_new_test/hist"));
	cmd("!hist:keys=$testpid:testpid=child_pid:onmatch(hist_test.process_fork)."
	    "wakeup_new_test($testpid) if child_comm==\"cyclictest\"",
	    FORK "trigger");
	cmd("hist:keys=$testpid:testpid=child_pid:onmatch(hist_test.process_fork)."
	    "trace(wakeup_new_test,$testpid) if child_comm==\"cyclictest\"",
	    FORK "trigger");
	trace_process_fork("cyclictest", 2104);
	T_ASSERT(strstr(cat("events/synthetic/wakeup_new_test/hist"),
			"{ pid:       2104 } hitcount:          1\n"));
	cmd("!hist:keys=$testpid:testpid=child_pid:onmatch(hist_test.process_fork)."
	    "trace(wakeup_new_test,$testpid) if child_comm==\"cyclictest\"",
	    FORK "trigger");
	cmd("!hist:keys=pid:sort=pid", "events/synthetic/wakeup_new_test/trigger");
	T_ASSERT_STR(cat(FORK "trigger"), NONE);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "!wakeup_new_test\n", 17, GGT), 17);

	/* the kernel has no variable on a key but through $var: the key is a field name */
	check("hist:timer_pid=common_pid:key=timer_pid", WAKING "trigger", "sched_waking", EINVAL,
	      "Couldn't find field", "timer_pid");
	check("hist:keys=timer_pid=common_pid", WAKING "trigger", "sched_waking", EINVAL,
	      "Couldn't find field", "timer_pid=common_pid");
	/* a key that is a variable of another histogram */
	cmd("hist:keys=pid:ts0=ts", WAKING "trigger");
	check("hist:keys=$ts0", SWITCH "trigger", "sched_switch", EINVAL,
	      "Using variable references in keys not supported", "$ts0");
	cmd("!hist:keys=pid:ts0=ts", WAKING "trigger");
}

/* the kernel's trigger-field-variable-support selftest, on the stand-ins */
static void field_variables(void)
{
	const char *sw = "hist:keys=next_pid:wakeup_lat=ts-$ts0:"
			 "onmatch(hist_test.sched_waking).wakeup_latency($wakeup_lat,next_pid,"
			 "hist_test.sched_waking.prio)";
	char rm[400];

	cmd("hist:keys=pid:ts0=ts if prio < 100", WAKING "trigger");
	cmd(sw, SWITCH "trigger");
	/* the field variable's histogram: the keys and filter of the one there */
	T_ASSERT_STR(cat(WAKING "trigger"),
		     "hist:keys=pid:vals=hitcount:ts0=ts:sort=hitcount:size=2048 if prio < 100 "
		     "[active]\n"
		     "hist:keys=pid:vals=hitcount:synthetic_prio=prio:sort=hitcount:size=2048 "
		     "if prio < 100 [active]\n");
	/* it is in use */
	T_ASSERT_EQ(echo("!hist:keys=pid:synthetic_prio=prio if prio < 100\n", WAKING "trigger"),
		    -EBUSY);
	cmd("1", LAT "enable");
	trace_sched_waking(77, 33, 1000);
	trace_sched_switch("swapper", 0, "rt", 77, 120, 1100);
	T_ASSERT_EQ(count(cat("trace"), "wakeup_latency: lat=100 pid=77 prio=33"), 1);
	golden("strvars-field-var-waking", cat(WAKING "hist"));
	T_ASSERT_EQ(echo("!hist:keys=pid:ts0=ts if prio < 100\n", WAKING "trigger"), -EBUSY);

	/* the same field unqualified: the onmatch() event's; the histogram is reused */
	cmd("hist:keys=next_pid:l2=ts-$ts0:"
	    "onmatch(hist_test.sched_waking).wakeup_latency($l2,next_pid,prio)",
	    SWITCH "trigger");
	T_ASSERT_EQ(count(cat(WAKING "trigger"), "synthetic_prio=prio"), 1);
	/* removing the first leaves the histogram to the second */
	snprintf(rm, sizeof(rm), "!%s", sw);
	cmd(rm, SWITCH "trigger");
	T_ASSERT_EQ(count(cat(WAKING "trigger"), "synthetic_prio=prio"), 1);
	trace_sched_waking(78, 44, 2000);
	trace_sched_switch("swapper", 0, "rt", 78, 120, 2050);
	T_ASSERT_EQ(count(cat("trace"), "wakeup_latency: lat=50 pid=78 prio=44"), 1);
	/* filtered out on the waking side: no ts0, no prio: no event */
	trace_sched_waking(79, 120, 3000);
	trace_sched_switch("swapper", 0, "rt", 79, 120, 3050);
	T_ASSERT_EQ(count(cat("trace"), "pid=79"), 0);
	cmd("!hist:keys=next_pid:l2=ts-$ts0:"
	    "onmatch(hist_test.sched_waking).wakeup_latency($l2,next_pid,prio)",
	    SWITCH "trigger");
	/* the last user gone, the field variable's histogram goes too */
	T_ASSERT_STR(cat(WAKING "trigger"),
		     "hist:keys=pid:vals=hitcount:ts0=ts:sort=hitcount:size=2048 if prio < 100 "
		     "[active]\n");
	cmd("0", LAT "enable");

	/* a string field of another event into a char[16] field */
	synth("wake_comm int pid; char comm[16]\n");
	cmd("hist:keys=pid:c=comm", WAKEUP "trigger");
	cmd("hist:keys=next_pid:onmatch(hist_test.sched_wakeup).wake_comm(next_pid,"
	    "hist_test.sched_wakeup.comm)",
	    SWITCH "trigger");
	cmd("1", "events/synthetic/wake_comm/enable");
	trace_sched_wakeup("irq/9-acpi", 90, 50, 0);
	trace_sched_switch("swapper", 0, "x", 90, 50, 0);
	T_ASSERT_EQ(count(cat("trace"), "wake_comm: pid=90 comm=irq/9-acpi"), 1);
	cmd("0", "events/synthetic/wake_comm/enable");

	/* errors (the kernel's texts; its first error_log entry) */
	check("hist:keys=next_pid:l=ts-$ts0:onmatch(hist_test.sched_waking).wakeup_latency("
	      "$l,next_pid,hist_test.sched_waking.nosuch)",
	      SWITCH "trigger", "sched_switch", EINVAL, "Couldn't find field", "nosuch");
	check("hist:keys=next_pid:l=ts-$ts0:onmatch(hist_test.sched_waking).wakeup_latency("
	      "$l,next_pid,nosuch)",
	      SWITCH "trigger", "sched_switch", EINVAL, "Couldn't find field", "nosuch");
	check("hist:keys=next_pid:l=ts-$ts0:onmatch(hist_test.sched_waking).wakeup_latency("
	      "$l,next_pid,no.such.prio)",
	      SWITCH "trigger", "sched_switch", EINVAL, "Event file not found", "prio)");
	check("hist:keys=next_pid:l=ts-$ts0:onmatch(hist_test.sched_waking).wakeup_latency("
	      "$l,next_pid,hist_test.kmalloc.gfp_flags)",
	      SWITCH "trigger", "sched_switch", EINVAL, "Matching event histogram not found",
	      "gfp_flags");
	check("hist:keys=next_pid:l=ts-$ts0:onmatch(hist_test.sched_waking).wakeup_latency("
	      "$l,next_pid,sched_waking.prio)",
	      SWITCH "trigger", "sched_switch", EINVAL, NULL, NULL);
	/* a char[16] of another event into an int */
	check("hist:keys=next_pid:l=ts-$ts0:onmatch(hist_test.sched_wakeup).wakeup_latency("
	      "$l,next_pid,hist_test.sched_wakeup.comm)",
	      SWITCH "trigger", "sched_switch", EINVAL,
	      "Param type doesn't match synthetic event field type", "hist_test.sched_wakeup.comm");

	/* numbers: the same type, or the same size and signedness (check_synth_field()) */
	synth("num_test u64 a; unsigned int b\n");
	check("hist:keys=next_pid:onmatch(hist_test.sched_wakeup).num_test(next_pid,next_pid)",
	      SWITCH "trigger", "sched_switch", EINVAL,
	      "Param type doesn't match synthetic event field type", "next_pid");
	check("hist:keys=next_pid:onmatch(hist_test.sched_wakeup).num_test(ts,next_pid)",
	      SWITCH "trigger", "sched_switch", EINVAL,
	      "Param type doesn't match synthetic event field type", "next_pid");
	cmd("hist:keys=next_pid:onmatch(hist_test.sched_wakeup).num_test(ts,common_cpu)",
	    SWITCH "trigger");
	cmd("!hist:keys=next_pid:onmatch(hist_test.sched_wakeup).num_test(ts,common_cpu)",
	    SWITCH "trigger");
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "!num_test\n", 10, GGT), 10);

	cmd("!hist:keys=next_pid:onmatch(hist_test.sched_wakeup).wake_comm(next_pid,"
	    "hist_test.sched_wakeup.comm)",
	    SWITCH "trigger");
	T_ASSERT_STR(cat(WAKEUP "trigger"),
		     "hist:keys=pid:vals=hitcount:c=comm:sort=hitcount:size=2048 [active]\n");
	cmd("!hist:keys=pid:c=comm", WAKEUP "trigger");
	cmd("!hist:keys=pid:ts0=ts if prio < 100", WAKING "trigger");
	T_ASSERT_STR(cat(WAKING "trigger"), NONE);
	T_ASSERT_STR(cat(SWITCH "trigger"), NONE);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "!wake_comm\n", 11, GGT), 11);
}

int main(void)
{
	string_variables();
	key_variables();
	field_variables();

	/* an instance destroyed with a field variable histogram in place leaves nothing */
	struct evt_instance *inst;
	static const char *const cmds[][2] = {
		{ "hist:keys=pid:ts0=ts\n", WAKING "trigger" },
		{ "hist:keys=next_pid:d=ts-$ts0:onmatch(hist_test.sched_waking)."
		  "wakeup_latency($d,next_pid,prio)\n",
		  SWITCH "trigger" },
	};

	T_ASSERT_OK(evt_instance_create("hist-strvars", &inst));
	for (unsigned int i = 0; i < 2; i++)
		T_ASSERT_EQ(evt_tracefs_write(inst, cmds[i][1], cmds[i][0], strlen(cmds[i][0]),
					      GGT),
			    (ssize_t)strlen(cmds[i][0]));
	T_ASSERT(strstr(t_tracefs_cat(inst, WAKING "trigger"), "synthetic_prio=prio"));
	trace_sched_waking(1, 2, 3);
	trace_sched_switch("a", 0, "b", 1, 2, 5);
	T_ASSERT(strstr(t_tracefs_cat(inst, SWITCH "hist"), "Hits: 1\n"));
	T_ASSERT_OK(evt_instance_destroy(inst));
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "!wakeup_latency\n", 16, GGT), 16);
	return 0;
}
