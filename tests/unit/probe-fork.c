// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-fork: the seeds' GTSC example (a relay channel fed from the kernel's do_fork
 * with the child's pid) in a new form: a return probe on the program's own fork()
 * wrapper records the child's pid ($retval) with no line of tracing code in the program,
 * and an entry probe its argument. The parent's record holds the pid fork() gave it; the
 * child, which returns through the same return trampoline with a copy of the shadow
 * stack, records 0 into the buffer it shares with its parent (a MAP_SHARED memfd), as
 * the kernel's do_fork probe would see the child's side of the return.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "probe-util.h"

/* The program's own wrapper, as a server's spawn helper would be. */
__attribute__((noinline)) pid_t spawn_worker(int worker_id)
{
	pid_t pid;

	asm volatile("" : "+r"(worker_id));
	pid = fork();
	if (pid == 0) {
		/* the child's work: nothing; it returns and exits */
		asm volatile("" ::: "memory");
	}
	return pid;
}

int main(void)
{
	char want[96];
	unsigned char before[32];
	const char *t;
	pid_t child;
	int st;

	probe_require();
	memcpy(before, (void *)spawn_worker, sizeof(before));
	if (echo("p:gtsc/spawn spawn_worker worker=%di:s32", "kprobe_events") < 0 ||
	    echo("r:gtsc/spawned spawn_worker child=$retval:s32", "kprobe_events") < 0)
		t_fail("%s", cat("error_log"));
	T_ECHO("1", "events/gtsc/enable");
	child = spawn_worker(7);
	if (child == 0)
		_exit(0);
	T_ASSERT(child > 0);
	T_ASSERT_EQ(waitpid(child, &st, 0), child);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	T_ECHO("0", "events/gtsc/enable");

	t = cat("trace");
	T_ASSERT_HAS(t, "spawn: (spawn_worker+0x0/0x");
	T_ASSERT_HAS(t, ") worker=7\n");
	snprintf(want, sizeof(want), " <- spawn_worker) child=%d\n", (int)child);
	T_ASSERT_HAS(t, want);
	/* the child's own return, recorded by the child with its pid as common_pid */
	snprintf(want, sizeof(want), "-%d ", (int)child);
	T_ASSERT_HAS(t, want);
	T_ASSERT_HAS(t, " <- spawn_worker) child=0\n");

	T_ECHO("-:gtsc/spawn", "kprobe_events");
	T_ECHO("-:gtsc/spawned", "kprobe_events");
	T_ASSERT(memcmp(before, (void *)spawn_worker, sizeof(before)) == 0);
	return 0;
}
