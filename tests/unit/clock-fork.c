// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-fork: a process that forks while one of its threads calibrates.
 * The child has a copy of the claim ("BUSY, owned by thread T") but no
 * thread T: its evt_clock_init() must notice and calibrate itself rather
 * than wait forever. Also: a child forked after the calibration keeps it.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock/clock_internal.h"
#include "helpers.h"

static void *calibrate_thread(void *arg)
{
	(void)arg;
	T_ASSERT_EQ(evt_clock_init(), 0);
	return NULL;
}

static void child(bool expect_same, uint64_t mult)
{
	uint64_t a, b;

	alarm(10);	/* a hang is a failure, not a stuck test run */
	if (evt_clock_init() != 0)
		_exit(2);
	if (tclock.mode == TCLOCK_MODE_UNINIT)
		_exit(3);
	a = evt_clock_read(EVT_CLOCK_LOCAL);
	b = evt_clock_read(EVT_CLOCK_LOCAL);
	if (b < a)
		_exit(4);
	if (expect_same && tclock.mult != mult)
		_exit(5);
	_exit(0);
}

static void run_child(bool expect_same, const char *what)
{
	/* (only read once calibrated: the other thread may still be writing it) */
	uint64_t mult = expect_same ? tclock.mult : 0;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		child(expect_same, mult);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		t_fail("%s: child killed by signal %d (hung?)", what, WTERMSIG(status));
	if (WEXITSTATUS(status))
		t_fail("%s: child failed with %d", what, WEXITSTATUS(status));
	printf("%s: child calibrated and reads local\n", what);
}

int main(void)
{
	struct timespec nap = { 0, 5000000 };
	bool busy;
	pthread_t th;

	setenv("EVTRACE_TSC_CALIB", "measure", 1);
	T_ASSERT_EQ(pthread_create(&th, NULL, calibrate_thread, NULL), 0);
	nanosleep(&nap, NULL);
	/* Acquire: the mode the other thread publishes. */
	busy = __atomic_load_n(&tclock.mode, __ATOMIC_ACQUIRE) == TCLOCK_MODE_UNINIT;
	run_child(false, busy ? "fork during calibration" : "fork (calibration already over)");
	T_ASSERT_EQ(pthread_join(th, NULL), 0);
	run_child(true, "fork after calibration");
	printf("clock-fork: PASS\n");
	return T_PASS;
}
