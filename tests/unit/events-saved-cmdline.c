// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-saved-cmdline: evt_saved_cmdline() gives the name a thread had at its
 * first event (the kernel's saved_cmdlines), "<...>" for a thread that never
 * wrote one and for tid 0, always NUL-terminated within 16 bytes; a thread
 * whose name is 15 bytes keeps all 15; the name stays after the thread ends.
 */
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "events-util.h"

static pid_t child_tid;

static void *named_writer(void *arg)
{
	prctl(PR_SET_NAME, (const char *)arg, 0, 0, 0);
	child_tid = (pid_t)syscall(SYS_gettid);
	trace_evtest_seq(2, 1, 0);
	return NULL;
}

static void expect(pid_t tid, const char *want)
{
	char comm[16];

	memset(comm, 'X', sizeof(comm));
	evt_saved_cmdline(tid, comm);
	T_ASSERT(memchr(comm, '\0', sizeof(comm)));
	if (strcmp(comm, want))
		t_fail("tid %d: \"%s\", want \"%s\"", (int)tid, comm, want);
}

int main(void)
{
	struct evt_instance *inst = t_instance("cmdline");
	pthread_t th;

	T_ASSERT_EQ(evt_instance_event_enable(inst, "evtest", "evtest_seq", true), 1);

	/* never wrote an event: unknown */
	expect(0, "<...>");
	pthread_create(&th, NULL, named_writer, "fifteen-chars-x");
	pthread_join(th, NULL);
	/* ended, but its name is kept */
	expect(child_tid, "fifteen-chars-x");
	/* a tid that maps to the same slot but never wrote: unknown, not the other's name */
	expect(child_tid + 1024, "<...>");

	prctl(PR_SET_NAME, "cmdl-main", 0, 0, 0);
	trace_evtest_seq(1, 1, 0);
	expect((pid_t)syscall(SYS_gettid), "cmdl-main");
	expect(0, "<...>");
	return 0;
}
