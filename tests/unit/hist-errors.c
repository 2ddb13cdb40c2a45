// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist-errors: bad hist commands give the kernel's errno and, where the
 * kernel's hist_err() logs one, its error_log entry: location
 * "hist:<system>:<event>", the message of trace_events_hist.c's table, the
 * command with its "hist:" prefix and the caret where the kernel's
 * err_pos() puts it (the first occurrence of the offending text).
 */
#include "hist-util.h"

#define CREATE_TRACE_POINTS
#include "hist-tp.h"

#define T KMALLOC "trigger"

static void clear_log(void)
{
	T_ASSERT_EQ(evt_tracefs_write(NULL, "error_log", "\n", 1, EVT_TRACEFS_TRUNC), 1);
}

/* @cmd gives -@err and the log then reads @log ("" = nothing logged) */
static void check(const char *cmd, int err, const char *log)
{
	char buf[600];
	ssize_t ret;

	clear_log();
	snprintf(buf, sizeof(buf), "%s\n", cmd);
	ret = echo(buf, T);
	if (ret != (err ? -err : (ssize_t)strlen(buf)))
		t_fail("'%s': %zd, want %d", cmd, ret, -err);
	T_ASSERT_STR(elog(), log);
}

#define LOC "hist:hist_test:kmalloc: error: "

int main(void)
{
	/* no log: what the kernel rejects before hist_err() or without it */
	check("hist", EINVAL, "");
	check("hist:vals=bytes_req", EINVAL, "");
	check("hist:keys=call_site:size=100000000", EINVAL, "");
	check("hist:keys=call_site:size=0x", EINVAL, "");
	check("hist:keys=call_site,ptr,bytes_req,bytes_alloc", EINVAL, "");
	check("hist:keys=call_site:vals=bytes_req,bytes_alloc,gfp_flags", EINVAL, "");
	check("hist:keys=call_site:foo", EINVAL, "");
	check("hist:keys=call_site:onmax($x).save(ptr)", EINVAL,
	      LOC "Couldn't find onmax or onchange variable\n"
		  "  Command: hist:keys=call_site:onmax($x).save(ptr)\n"
		  "                                   ^\n");

	check("hist:keys=", EINVAL,
	      LOC "Empty assignment\n"
		  "  Command: hist:keys=\n"
		  "                ^\n");
	check("hist:keys=nosuch", EINVAL,
	      LOC "Couldn't find field\n"
		  "  Command: hist:keys=nosuch\n"
		  "                     ^\n");
	check("hist:keys=call_site.foo", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site.foo\n"
		  "                               ^\n");
	check("hist:keys=ptr.execname", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=ptr.execname\n"
		  "                         ^\n");
	check("hist:keys=call_site:vals=bytes_req.log2", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site:vals=bytes_req.log2\n"
		  "                                    ^\n");
	/*
	 * .buckets: parse_field() moves its modifier pointer along "bucket[s]=" and
	 * errpos() finds where it stopped: the number (its first occurrence in
	 * the command: the 0 of "size=2048" would come first), the end of the text
	 * (err_pos() of "" is 0)
	 */
	check("hist:keys=call_site.buckets=0", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site.buckets=0\n"
		  "                                       ^\n");
	check("hist:keys=call_site.bucket=x", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site.bucket=x\n"
		  "                                      ^\n");
	check("hist:keys=call_site.buckets", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site.buckets\n"
		  "           ^\n");
	check("hist:keys=call_site.bucketsx10", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site.bucketsx10\n"
		  "                                      ^\n");
	/* "-" splits the key as an expression first: "call_site.buckets=" then "1" */
	check("hist:keys=call_site.buckets=-1", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site.buckets=-1\n"
		  "           ^\n");
	check("hist:keys=call_site.buckets=+8:vals=bytes_req.buckets=0", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site.buckets=+8:vals=bytes_req.buckets=0\n"
		  "                                                                 ^\n");
	/* a variable: parse_field() refuses .percent/.graph itself (the caret at the
	 * modifier), __create_val_field() refuses .log2/.buckets (at the expression) */
	check("hist:keys=call_site:x=bytes_req.percent", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site:x=bytes_req.percent\n"
		  "                                           ^\n");
	check("hist:keys=call_site:x=bytes_req.graph", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site:x=bytes_req.graph\n"
		  "                                           ^\n");
	check("hist:keys=call_site:x=bytes_req.log2", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site:x=bytes_req.log2\n"
		  "                                 ^\n");
	check("hist:keys=call_site.percent", EINVAL,
	      LOC "Invalid field modifier\n"
		  "  Command: hist:keys=call_site.percent\n"
		  "                               ^\n");
	check("hist:keys=call_site:sort=foo", EINVAL,
	      LOC "Sort field must be a key or a val\n"
		  "  Command: hist:keys=call_site:sort=foo\n"
		  "                                    ^\n");
	check("hist:keys=call_site:sort=hitcount.up", EINVAL,
	      LOC "Invalid sort modifier\n"
		  "  Command: hist:keys=call_site:sort=hitcount.up\n"
		  "                                             ^\n");
	check("hist:keys=call_site:sort=hitcount,call_site,ptr", EINVAL,
	      LOC "Too many sort fields (Max = 2)\n"
		  "  Command: hist:keys=call_site:sort=hitcount,call_site,ptr\n"
		  "                               ^\n");
	check("hist:keys=call_site:sort=,hitcount", EINVAL,
	      LOC "Empty sort field\n"
		  "  Command: hist:keys=call_site:sort=,hitcount\n"
		  "                               ^\n");
	check("hist:keys=common_timestamp:clock=nosuch", EINVAL,
	      LOC "Couldn't set trace_clock\n"
		  "  Command: hist:keys=common_timestamp:clock=nosuch\n"
		  "                                            ^\n");
	check("hist:keys=ptr:nohitcount", ENOENT,
	      LOC "Non-hitcount value is required for 'nohitcount'\n"
		  "  Command: hist:keys=ptr:nohitcount\n"
		  "           ^\n");
	check("hist:keys=ptr:cont", ENOENT,
	      LOC "Can't clear or continue a nonexistent hist trigger\n"
		  "  Command: hist:keys=ptr:cont\n"
		  "           ^\n");
	check("hist:keys=ptr:clear", ENOENT,
	      LOC "Can't clear or continue a nonexistent hist trigger\n"
		  "  Command: hist:keys=ptr:clear\n"
		  "           ^\n");

	/* variables and expressions */
	/* parse_var_ref() logs, then parse_atom() tries "$nosuch" as a field: two entries */
	check("hist:keys=call_site:x=bytes_req-$nosuch", EINVAL,
	      LOC "Couldn't find variable\n"
		  "  Command: hist:keys=call_site:x=bytes_req-$nosuch\n"
		  "                                            ^\n"
	      LOC "Couldn't find field\n"
		  "  Command: hist:keys=call_site:x=bytes_req-$nosuch\n"
		  "                                           ^\n");
	check("hist:keys=call_site:x=bytes_req/0", EDOM,
	      LOC "Division by zero\n"
		  "  Command: hist:keys=call_site:x=bytes_req/0\n"
		  "                                           ^\n");
	check("hist:keys=call_site:x=bytes_req,x=ptr", EINVAL,
	      LOC "Variable already defined\n"
		  "  Command: hist:keys=call_site:x=bytes_req,x=ptr\n"
		  "                               ^\n");
	check("hist:keys=call_site:x=common_timestamp.usecs-common_timestamp", EINVAL,
	      LOC "Timestamp units in expression don't match\n"
		  "  Command: hist:keys=call_site:x=common_timestamp.usecs-common_timestamp\n"
		  "           ^\n");
	check("hist:keys=call_site:x=-bytes_req", EINVAL, "");
	check("hist:keys=call_site:x=bytes_req:onmatch(hist_test.nosuch).trace(y,$x)", EINVAL,
	      LOC
	      "Invalid subsystem or event name\n"
	      "  Command: hist:keys=call_site:x=bytes_req:onmatch(hist_test.nosuch).trace(y,$x)\n"
	      "                                                             ^\n");
	check("hist:keys=call_site:x=bytes_req:onmatch(hist_test.kmalloc).trace(nosuch,$x)", EINVAL,
	      LOC
	      "Couldn't find synthetic event\n"
	      "  Command: hist:keys=call_site:x=bytes_req:onmatch(hist_test.kmalloc).trace(nosuch,$x)\n"
	      "                                                                            ^\n");

	/* the same trigger twice; removing what is not there is no error */
	check("hist:keys=call_site if bytes_req > 8", 0, "");
	check("hist:keys=call_site if bytes_req > 8", EEXIST,
	      LOC "Hist trigger already exists\n"
		  "  Command: hist:keys=call_site if bytes_req > 8\n"
		  "           ^\n");
	/* another filter is another trigger */
	check("hist:keys=call_site", 0, "");
	check("!hist:keys=ptr", 0, "");
	check("!hist:keys=call_site if bytes_req > 8", 0, "");
	check("!hist:keys=call_site", 0, "");
	T_ASSERT_STR(cat(T), NONE);

	/* named: the second must match the first */
	check("hist:name=n1:keys=call_site:vals=bytes_req", 0, "");
	check("hist:name=n1:keys=ptr", EINVAL,
	      LOC "Named hist trigger doesn't match existing named trigger (includes variables)\n"
		  "  Command: hist:name=n1:keys=ptr\n"
		  "                ^\n");
	check("!hist:name=n1:keys=call_site:vals=bytes_req", 0, "");
	T_ASSERT_STR(cat(T), NONE);
	return 0;
}
