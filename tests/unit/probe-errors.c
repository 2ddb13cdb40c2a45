// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-errors: malformed probe definitions get -EINVAL (or the kernel's other codes) and the
 * kernel's error_log entry: "trace_kprobe: error: <message>", the command, a caret under the
 * offending byte (messages and positions as the host kernel's probe parser gives them).
 * Nothing is created by a failed line.
 */
#include "probe-util.h"

__attribute__((noinline)) int victim(int a, int b)
{
	int r = 0;

	for (int i = 0; i < a; i++)
		r += b ^ i;
	asm volatile("" : "+r"(r));
	return r;
}

#if defined(__x86_64__)
/* Its first instruction is 5 bytes long whatever the build's flags: +1 is inside it. */
__asm__(".text\n"
	".globl probe_odd_start\n"
	".type probe_odd_start, @function\n"
	"probe_odd_start:\n"
	"	movl $0x12345678, %eax\n"
	"	addl %edi, %eax\n"
	"	addl %esi, %eax\n"
	"	addl %edx, %eax\n"
	"	ret\n"
	".size probe_odd_start, .-probe_odd_start\n");
#endif

static void check(const char *cmd, long want_ret, const char *msg, unsigned int caret)
{
	char want[1024];
	const char *log;
	long ret = echo(cmd, "kprobe_events");

	if (ret != want_ret)
		t_fail("%s: returned %ld, want %ld", cmd, ret, want_ret);
	snprintf(want, sizeof(want), "trace_kprobe: error: %s\n  Command: %s\n%*s^\n", msg, cmd,
		 (int)(caret + 11), "");
	log = cat("error_log");
	if (!strstr(log, want))
		t_fail("%s: want\n%s\nin error_log:\n%s", cmd, want, log);
	T_ASSERT_STR(cat("kprobe_events"), "");
	evt_tracefs_write(NULL, "error_log", "", 0, EVT_TRACEFS_TRUNC);
}

int main(void)
{
	probe_require();
	check("p:ev nosuch_function", -ENOENT, "Invalid probed address or symbol", 5);
	check("p1:ev victim", -EINVAL, "Maxactive is not for kprobe", 1);
	check("r1a:ev victim", -EINVAL, "Invalid maxactive number", 1);
	check("p:ev-x victim", -EINVAL, "Event name must follow the same rules as C identifiers", 2);
	check("p:/ev victim", -EINVAL, "Group name is not specified", 2);
	check("p:g/ victim", -EINVAL, "Event name is not specified", 4);
	check("p:9g/ev victim", -EINVAL, "Group name must follow the same rules as C identifiers", 2);
	check("r:ev victim+4", -EINVAL, "Retprobe address must be an function entry", 5);
	check("p:ev victim%ret", -EINVAL, "Invalid probed address suffix", 11);
	check("p:ev victim $retval", -EINVAL, "$retval is not available on probe", 12);
	check("p:ev victim %zz", -EINVAL, "Invalid register name", 12);
	check("p:ev victim $stackx", -EINVAL, "Invalid stack number", 12);
	check("p:ev victim $foo", -EINVAL, "Invalid $-variable specified", 12);
	check("p:ev victim $arg0", -EINVAL, "Invalid argument number", 12);
	check("p:ev victim +x(%di)", -EINVAL, "Invalid dereference offset", 12);
	check("p:ev victim +0%di", -EINVAL, "Dereference needs a brace", 12);
	check("p:ev victim +0(%di", -EINVAL, "Dereference brace is not closed", 18);
	check("p:ev victim +0(%di):u9", -EINVAL, "Unknown type is specified", 20);
	check("p:ev victim +0(%di):b40@2/32", -EINVAL, "Invalid bitfield", 20);
	check("p:ev victim +0(%di):x8[0]", -EINVAL, "Invalid array size", 23);
	check("p:ev victim +0(%di):x8[65]", -EINVAL, "Array number is too big", 23);
	check("p:ev victim +0(%di):x8[2", -EINVAL, "Array is not closed", 24);
	check("p:ev victim %di:string", -EINVAL, "String accepts only memory argument", 12);
	check("p:ev victim a=%di a=%si", -EINVAL, "This argument name is already used", 18);
	check("p:ev victim 1a=%di", -EINVAL,
	      "Argument name must follow the same rules as C identifiers", 12);
	check("p:ev victim =%di", -EINVAL, "Argument name is not specified", 12);
	check("p:ev victim a=", -EINVAL, "No argument expression", 14);
	check("p:ev victim @nosuch_sym", -EINVAL, "Invalid memory address", 12);
	check("p:ev victim \\x", -EINVAL, "Invalid immediate value", 13);
#if defined(__x86_64__)
	check("p:ev probe_odd_start+1", -EINVAL, "Probe point is not an instruction boundary", 5);
#endif
	/* an event name in use */
	T_ECHO("p:ev victim", "kprobe_events");
	T_ASSERT_EQ(echo("p:ev victim", "kprobe_events"), -EEXIST);
	T_ASSERT_HAS(cat("error_log"), "Given group/event name is already used by another event");
	T_ECHO("-:ev", "kprobe_events");
	/* a line that is not a probe is not ours: dynamic_events says -EINVAL */
	T_ASSERT_EQ(echo("x:ev victim", "dynamic_events"), -EINVAL);
	T_ASSERT_EQ(echo("-:nosuch", "kprobe_events"), -ENOENT);
	return 0;
}
