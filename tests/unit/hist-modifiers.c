// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist-modifiers: what varies from run to run, checked by shape: .sym and
 * .sym-offset (resolved with dladdr; "0x..." when nothing is there),
 * .execname (the thread's name, "%-16s[%10llu]"), common_cpu,
 * common_timestamp(.usecs) (":clock=global" in the trigger info), a
 * histogram in an instance apart from the top one's, enable_hist and
 * disable_hist, and an event that records while its hist trigger counts.
 */
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "hist-util.h"

#define CREATE_TRACE_POINTS
#include "hist-tp.h"

static volatile int reps = 2;

static __attribute__((noinline)) void path_a(void)
{
	trace_kmalloc(1, 2, 5, 4, 0);
	__asm__ __volatile__("" ::: "memory"); /* not a tail call */
}

static __attribute__((noinline)) void path_b(void)
{
	trace_kmalloc(1, 2, 7, 4, 0);
	__asm__ __volatile__("" ::: "memory");
}

int main(void)
{
	unsigned long qs = (unsigned long)(uintptr_t)&qsort;
	struct evt_instance *inst;
	char want[128];
	const char *h;

	/* .sym, .sym-offset: a libc function, an address inside it, and nothing */
	T_ECHO("hist:keys=call_site.sym\n", KMALLOC "trigger");
	T_ECHO("hist:keys=ptr.sym-offset\n", KMALLOC "trigger");
	trace_kmalloc(qs, qs + 3, 1, 1, 0);
	trace_kmalloc(0x1234, 0x1234, 1, 1, 0);
	h = cat(KMALLOC "hist");
	snprintf(want, sizeof(want), "{ call_site: [%lx] ", qs);
	T_ASSERT(strstr(h, want));
	T_ASSERT(strstr(h, "sort") && strstr(strstr(h, want), "qsort"));
	snprintf(want, sizeof(want), "{ ptr: [%lx] ", qs + 3);
	T_ASSERT(strstr(h, want));
	T_ASSERT(strstr(strstr(h, want), "+0x3/0x"));
	snprintf(want, sizeof(want), "{ call_site: [1234] %-45s } hitcount:          1\n",
		 "0x1234");
	T_ASSERT(strstr(h, want));
	snprintf(want, sizeof(want), "{ ptr: [1234] %-55s } hitcount:          1\n", "0x1234");
	T_ASSERT(strstr(h, want));
	T_ECHO("!hist:keys=call_site.sym\n", KMALLOC "trigger");
	T_ECHO("!hist:keys=ptr.sym-offset\n", KMALLOC "trigger");

	/* .execname: the name of the thread that made the entry */
	prctl(PR_SET_NAME, "hist-mod");
	T_ECHO("hist:keys=common_pid.execname:vals=bytes_req:sort=bytes_req.descending\n",
	       KMALLOC "trigger");
	T_ASSERT_STR(cat(KMALLOC "trigger"),
		     "hist:keys=common_pid.execname:vals=hitcount,bytes_req:"
		     "sort=bytes_req.descending:size=2048 [active]\n");
	trace_kmalloc(1, 2, 30, 4, 0);
	trace_kmalloc(1, 2, 12, 4, 0);
	snprintf(want, sizeof(want),
		 "{ common_pid: hist-mod        [%10ld] } hitcount:          2"
		 "  bytes_req:         42\n",
		 (long)syscall(SYS_gettid));
	T_ASSERT(strstr(cat(KMALLOC "hist"), want));
	T_ECHO("!hist:keys=common_pid.execname:vals=bytes_req:sort=bytes_req.descending\n",
	       KMALLOC "trigger");

	/* common_comm: the writing thread's name as a string key */
	T_ECHO("hist:keys=common_comm:vals=bytes_req\n", KMALLOC "trigger");
	trace_kmalloc(1, 2, 3, 4, 0);
	snprintf(want, sizeof(want),
		 "{ common_comm: %-50s } hitcount:          1  bytes_req:          3\n",
		 "hist-mod");
	T_ASSERT(strstr(cat(KMALLOC "hist"), want));
	T_ECHO("!hist:keys=common_comm:vals=bytes_req\n", KMALLOC "trigger");

	/* common_cpu and common_timestamp */
	T_ECHO("hist:keys=common_cpu\n", KMALLOC "trigger");
	T_ECHO("hist:keys=bytes_req:vals=common_timestamp.usecs\n", KMALLOC "trigger");
	trace_kmalloc(1, 2, 3, 4, 0);
	h = cat(KMALLOC "hist");
	T_ASSERT(strstr(h, "# trigger info: hist:keys=common_cpu:vals=hitcount:sort=hitcount:"
			   "size=2048 [active]\n"));
	T_ASSERT(strstr(h, "{ common_cpu: "));
	T_ASSERT(strstr(h, "hist:keys=bytes_req:vals=hitcount,common_timestamp.usecs:"
			   "sort=hitcount:size=2048:clock=global [active]\n"));
	T_ASSERT(strstr(h, "{ bytes_req:          3 } hitcount:          1  common_timestamp: "));
	T_ECHO("!hist:keys=common_cpu\n", KMALLOC "trigger");
	T_ECHO("!hist:keys=bytes_req:vals=common_timestamp.usecs\n", KMALLOC "trigger");

	/*
	 * cpu, CPU, comm, COMM: the kernel's generic fields. parse_field() keeps the
	 * field it found, so hist_field_name() (the entries, expressions, sort keys)
	 * gives the name as written; hist_field_print() (the trigger line) names the
	 * CPU and comm fields by their flag: common_cpu, common_comm.
	 */
	{
		static const char *const gen[][3] = {
			{ "cpu", "common_cpu", "{ cpu: " },
			{ "CPU", "common_cpu", "{ CPU: " },
			{ "comm", "common_comm", "{ comm: hist-mod" },
			{ "COMM", "common_comm", "{ COMM: hist-mod" },
		};
		char cmd[128];

		for (unsigned int i = 0; i < sizeof(gen) / sizeof(gen[0]); i++) {
			snprintf(cmd, sizeof(cmd), "hist:keys=%s:sort=%s\n", gen[i][0], gen[i][0]);
			T_ECHO(cmd, KMALLOC "trigger");
			trace_kmalloc(1, 2, 3, 4, 0);
			h = cat(KMALLOC "hist");
			snprintf(want, sizeof(want),
				 "# trigger info: hist:keys=%s:vals=hitcount:sort=%s:size=2048 "
				 "[active]\n",
				 gen[i][1], gen[i][1]);
			if (!strstr(h, want) || !strstr(h, gen[i][2]))
				t_fail("keys=%s:\n%s", gen[i][0], h);
			snprintf(cmd, sizeof(cmd), "!hist:keys=%s:sort=%s\n", gen[i][0],
				 gen[i][0]);
			T_ECHO(cmd, KMALLOC "trigger");
			T_ASSERT_STR(cat(KMALLOC "hist"), "");
		}
	}

	/* an instance has its own histograms */
	T_ASSERT_OK(evt_instance_create("hist-mod", &inst));
	T_ASSERT_EQ(evt_tracefs_write(inst, RX "trigger", "hist:keys=len\n", 14, GGT), 14);
	T_ECHO("hist:keys=len\n", RX "trigger");
	trace_netif_rx(1, 10);
	T_ASSERT(strstr(t_tracefs_cat(inst, RX "hist"), "Hits: 1\n"));
	T_ASSERT(strstr(cat(RX "hist"), "Hits: 1\n"));
	T_ASSERT_EQ(evt_tracefs_write(inst, RX "trigger", "!hist:keys=len\n", 15, GGT), 15);
	trace_netif_rx(1, 10);
	T_ASSERT_STR(t_tracefs_cat(inst, RX "hist"), "");
	T_ASSERT(strstr(cat(RX "hist"), "Hits: 2\n"));
	T_ASSERT_OK(evt_instance_destroy(inst));

	/* enable_hist / disable_hist: another event pauses and continues it */
	T_ECHO("hist:keys=len:pause\n", RX "trigger");
	T_ECHO("enable_hist:hist_test:netif_rx if len == 1\n", RECV "trigger");
	/* one enable_hist or disable_hist per target and event (the kernel's ETT_HIST_ENABLE) */
	T_ASSERT_EQ(echo("disable_hist:hist_test:netif_rx\n", RECV "trigger"), -EEXIST);
	T_ECHO("disable_hist:hist_test:netif_rx if bytes_req == 2\n", KMALLOC "trigger");
	T_ASSERT_STR(cat(RECV "trigger"), "enable_hist:hist_test:netif_rx:unlimited if len == 1\n");
	T_ASSERT_STR(cat(KMALLOC "trigger"),
		     "disable_hist:hist_test:netif_rx:unlimited if bytes_req == 2\n");
	T_ASSERT(strstr(cat(RX "trigger"),
			"hist:keys=len:vals=hitcount:sort=hitcount:size=2048 [paused]\n"));
	trace_netif_rx(1, 20);
	trace_netif_receive_skb(0, 1, "lo");
	T_ASSERT(strstr(cat(RX "trigger"), "[active]\n"));
	trace_netif_rx(1, 20);
	trace_kmalloc(0, 0, 2, 0, 0);
	trace_netif_rx(1, 20);
	T_ASSERT(strstr(cat(RX "hist"), "{ len:         20 } hitcount:          1\n"));
	T_ASSERT(strstr(cat(RX "hist"), "[paused]\n"));
	T_ECHO("!enable_hist:hist_test:netif_rx\n", RECV "trigger");
	T_ECHO("!disable_hist:hist_test:netif_rx\n", KMALLOC "trigger");
	T_ECHO("!hist:keys=len\n", RX "trigger");
	T_ASSERT_STR(cat(RX "trigger"), NONE);
	T_ASSERT_STR(cat(RECV "trigger"), NONE);
	T_ASSERT_STR(cat(KMALLOC "trigger"), NONE);

	/* stacktrace keys: one entry per call path into the event */
	T_ECHO("hist:keys=stacktrace:vals=bytes_req\n", KMALLOC "trigger");
	T_ASSERT_STR(cat(KMALLOC "trigger"), "hist:keys=common_stacktrace:vals=hitcount,bytes_req:"
					     "sort=hitcount:size=2048 [active]\n");
	for (int i = 0; i < reps; i++)
		path_a(); /* one call site (not unrolled: reps is volatile): one stack */
	path_b();
	h = cat(KMALLOC "hist");
	T_ASSERT_EQ(count(h, "{ common_stacktrace:\n         "), 2);
	T_ASSERT(strstr(h, "\n} hitcount:          1  bytes_req:          7\n"));
	T_ASSERT(strstr(h, "\n} hitcount:          2  bytes_req:         10\n"));
	T_ASSERT(strstr(h, "Entries: 2\n"));
	T_ECHO("!hist:keys=stacktrace:vals=bytes_req\n", KMALLOC "trigger");

	/* an enabled event records and its hist trigger counts */
	T_ECHO("1\n", "events/hist_test/netif_rx/enable");
	T_ECHO("hist:keys=skbaddr.hex\n", RX "trigger");
	trace_netif_rx(0xabc, 5);
	T_ASSERT(strstr(cat(RX "hist"), "{ skbaddr: abc } hitcount:          1\n"));
	T_ASSERT_EQ(count(cat("trace"), "netif_rx: skbaddr=abc len=5"), 1);
	T_ECHO("!hist:keys=skbaddr.hex\n", RX "trigger");
	T_ECHO("0\n", "events/hist_test/netif_rx/enable");
	return 0;
}
