// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist-examples: the examples of histogram.rst section 2 ("6.2 'hist'
 * trigger examples") on stand-in events (hist-tp.h), each `hist` file read
 * back against tests/data/hist/<example>.txt: header, trigger info, key and
 * value columns, sort order, Totals. Also the `trigger` file's lines, and
 * pause, cont, clear, several hist triggers on one event, named triggers
 * shared by two events, log2/buckets keys, percent/graph values, nohitcount.
 * (.sym, .execname and common_timestamp vary from run to run:
 * hist-modifiers checks them.)
 */
#include <sys/syscall.h>

#include "hist-util.h"

#define CREATE_TRACE_POINTS
#include "hist-tp.h"

#define CS(i) (0xffffffff81000000ul + (unsigned long)(i)*0x1234)

/* kmalloc calls: call site i is hit i + 1 times, asking i * 8 + j each time */
static void kmalloc_load(void)
{
	for (int i = 0; i < 6; i++)
		for (int j = 0; j <= i; j++)
			trace_kmalloc(CS(i), 0, (unsigned long)(i * 8 + j),
				      (unsigned long)(64 << (i % 3)), 0);
}

static void cmd_ok(const char *cmd, const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s\n", cmd);
	if (echo(buf, path) != (ssize_t)strlen(buf))
		t_fail("'%s' > %s: %zd", cmd, path, echo(buf, path));
}

static void kmalloc_examples(void)
{
	/* the first: a key and a value; the trigger file shows the defaults */
	cmd_ok("hist:key=call_site:val=bytes_req", KMALLOC "trigger");
	T_ASSERT_STR(
		cat(KMALLOC "trigger"),
		"hist:keys=call_site:vals=hitcount,bytes_req:sort=hitcount:size=2048 [active]\n");
	kmalloc_load();
	golden("kmalloc-call_site", cat(KMALLOC "hist"));
	cmd_ok("!hist:key=call_site:val=bytes_req", KMALLOC "trigger");
	T_ASSERT_STR(cat(KMALLOC "hist"), "");

	cmd_ok("hist:key=call_site.hex:val=bytes_req", KMALLOC "trigger");
	kmalloc_load();
	golden("kmalloc-hex", cat(KMALLOC "hist"));
	cmd_ok("!hist:key=call_site.hex:val=bytes_req", KMALLOC "trigger");

	cmd_ok("hist:key=call_site.hex:val=bytes_req:sort=bytes_req.descending", KMALLOC "trigger");
	kmalloc_load();
	golden("kmalloc-sort-descending", cat(KMALLOC "hist"));
	cmd_ok("!hist:key=call_site.hex:val=bytes_req:sort=bytes_req.descending",
	       KMALLOC "trigger");

	cmd_ok("hist:keys=call_site.hex:values=bytes_req,bytes_alloc:sort=bytes_alloc.descending",
	       KMALLOC "trigger");
	kmalloc_load();
	golden("kmalloc-two-values", cat(KMALLOC "hist"));
	cmd_ok("!hist:keys=call_site.hex:values=bytes_req,bytes_alloc:sort=bytes_alloc.descending",
	       KMALLOC "trigger");

	/* log2 and buckets keys, percent and graph values, nohitcount */
	cmd_ok("hist:keys=bytes_req.log2:vals=bytes_alloc", KMALLOC "trigger");
	cmd_ok("hist:keys=bytes_req.buckets=10:sort=bytes_req", KMALLOC "trigger");
	cmd_ok("hist:keys=call_site.hex:vals=bytes_req.percent,bytes_alloc.graph:sort=call_site",
	       KMALLOC "trigger");
	cmd_ok("hist:keys=bytes_alloc:vals=bytes_req:nohitcount", KMALLOC "trigger");
	kmalloc_load();
	golden("kmalloc-modifiers", cat(KMALLOC "hist"));
	golden("kmalloc-modifiers-trigger", cat(KMALLOC "trigger"));
	cmd_ok("!hist:keys=bytes_req.log2:vals=bytes_alloc", KMALLOC "trigger");
	cmd_ok("!hist:keys=bytes_req.buckets=10:sort=bytes_req", KMALLOC "trigger");
	cmd_ok("!hist:keys=call_site.hex:vals=bytes_req.percent,bytes_alloc.graph:sort=call_site",
	       KMALLOC "trigger");
	cmd_ok("!hist:keys=bytes_alloc:vals=bytes_req:nohitcount", KMALLOC "trigger");
	T_ASSERT_STR(cat(KMALLOC "trigger"), NONE);
}

/* syscalls: numbers and sizes chosen so that no two entries tie */
static void syscall_load(void)
{
	static const long ids[] = { 0, 1, 16, 16, 16, 7, 1, 16, 0, 202 };

	for (int r = 0; r < 3; r++)
		for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			trace_sys_enter(ids[i], (int)(i % 4) * 100 + r);
}

static void syscall_examples(void)
{
#if defined(__x86_64__)
	/* the names are x86-64's: the numbers are the kernel's there */
	cmd_ok("hist:key=id.syscall:val=hitcount", SYSENTER "trigger");
	syscall_load();
	golden("sys_enter-syscall", cat(SYSENTER "hist"));
	cmd_ok("!hist:key=id.syscall:val=hitcount", SYSENTER "trigger");

	cmd_ok("hist:key=id.syscall,size:val=hitcount:sort=id,hitcount", SYSENTER "trigger");
	syscall_load();
	golden("sys_enter-compound", cat(SYSENTER "hist"));
	cmd_ok("!hist:key=id.syscall,size:val=hitcount:sort=id,hitcount", SYSENTER "trigger");

	cmd_ok("hist:key=id.syscall,size:val=hitcount:sort=id,hitcount if id == 16",
	       SYSENTER "trigger");
	syscall_load();
	golden("sys_enter-filter", cat(SYSENTER "hist"));
	cmd_ok("!hist:key=id.syscall,size:val=hitcount:sort=id,hitcount if id == 16",
	       SYSENTER "trigger");
#endif
	/* two keys as sort keys */
	cmd_ok("hist:key=id,size:val=hitcount:sort=id,size", SYSENTER "trigger");
	syscall_load();
	golden("sys_enter-sort-keys", cat(SYSENTER "hist"));
	cmd_ok("!hist:key=id,size:val=hitcount:sort=id,size", SYSENTER "trigger");
	T_ASSERT_STR(cat(SYSENTER "trigger"), NONE);
}

static void fork_load(int rounds)
{
	static const char *const comms[] = { "bash", "dconf worker", "postgres", "evolution",
					     "firefox-very-long-name" };

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < 5; i++)
			for (int j = 0; j <= i; j++)
				trace_process_fork(comms[i], 100 + i);
}

static void fork_examples(void)
{
	/* a string key, a small table; pause, cont, clear with >> */
	cmd_ok("hist:key=child_comm:val=hitcount:size=256", FORK "trigger");
	fork_load(1);
	golden("fork-string-key", cat(FORK "hist"));
	cmd_ok("hist:key=child_comm:val=hitcount:size=256:pause", FORK "trigger");
	fork_load(1);
	golden("fork-paused", cat(FORK "hist"));
	cmd_ok("hist:key=child_comm:val=hitcount:size=256:cont", FORK "trigger");
	fork_load(2);
	golden("fork-continued", cat(FORK "hist"));
	cmd_ok("hist:key=child_comm:val=hitcount:size=256:clear", FORK "trigger");
	golden("fork-cleared", cat(FORK "hist"));
	fork_load(1);
	T_ASSERT(strstr(cat(FORK "hist"), "Hits: 15\n"));
	cmd_ok("!hist:key=child_comm:val=hitcount:size=256", FORK "trigger");
	T_ASSERT_STR(cat(FORK "trigger"), NONE);
}

static void net_load(void)
{
	for (int i = 0; i < 8; i++) {
		trace_netif_receive_skb(0xffff88005f3d0000ul + (unsigned long)(i % 4) * 0x100,
					(unsigned int)(i * 700 + 46), "lo");
		trace_netif_rx(0xffff88009fe00000ul + (unsigned long)(i % 3) * 0x100,
			       (unsigned int)(i * 10 + 40));
	}
}

static void net_examples(void)
{
	/* several hist triggers on one event: the hist file shows each, oldest first */
	cmd_ok("hist:keys=skbaddr.hex:vals=len if len < 0", RECV "trigger");
	cmd_ok("hist:keys=skbaddr.hex:vals=len if len > 4096", RECV "trigger");
	cmd_ok("hist:keys=skbaddr.hex:vals=len if len == 256", RECV "trigger");
	cmd_ok("hist:keys=skbaddr.hex:vals=len", RECV "trigger");
	cmd_ok("hist:keys=len:vals=common_preempt_count", RECV "trigger");
	net_load();
	golden("netif-multiple", cat(RECV "hist"));
	golden("netif-multiple-trigger", cat(RECV "trigger"));
	cmd_ok("!hist:keys=skbaddr.hex:vals=len if len < 0", RECV "trigger");
	cmd_ok("!hist:keys=skbaddr.hex:vals=len if len > 4096", RECV "trigger");
	cmd_ok("!hist:keys=skbaddr.hex:vals=len if len == 256", RECV "trigger");
	cmd_ok("!hist:keys=skbaddr.hex:vals=len", RECV "trigger");
	cmd_ok("!hist:keys=len:vals=common_preempt_count", RECV "trigger");
	T_ASSERT_STR(cat(RECV "trigger"), NONE);

	/* named: two events update one table */
	cmd_ok("hist:name=foo:keys=skbaddr.hex:vals=len", RECV "trigger");
	cmd_ok("hist:name=foo:keys=skbaddr.hex:vals=len", RX "trigger");
	net_load();
	golden("netif-named", cat(RECV "hist"));
	T_ASSERT_STR(cat(RX "hist"), cat(RECV "hist"));
	/* a named trigger that does not match the first */
	T_ASSERT_EQ(echo("hist:name=foo:keys=len\n", RX "trigger"), -EINVAL);
	/* an unnamed removal does not remove a named trigger */
	cmd_ok("!hist:keys=skbaddr.hex:vals=len", RX "trigger");
	T_ASSERT(strstr(cat(RX "trigger"), "hist:name=foo:"));
	cmd_ok("!hist:name=foo:keys=skbaddr.hex:vals=len", RX "trigger");
	cmd_ok("!hist:name=foo:keys=skbaddr.hex:vals=len", RECV "trigger");
	T_ASSERT_STR(cat(RX "trigger"), NONE);
	T_ASSERT_STR(cat(RECV "trigger"), NONE);
}

int main(void)
{
	kmalloc_examples();
	syscall_examples();
	fork_examples();
	net_examples();
	return 0;
}
