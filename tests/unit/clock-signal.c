// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-signal: the clocks from a signal handler, before, during and
 * after the calibration, and errno left alone.
 *
 *   default: a timer signal every 50 µs interrupts the main thread while
 *            it calibrates in evt_clock_init(): the handler's reads never
 *            wait (that would deadlock), never go back, and its own
 *            evt_clock_init() says -EDEADLK instead of hanging (or 0).
 *   "lazy":  (the test runs itself again, to start uncalibrated) the
 *            first clock read of the process is in a signal handler: it
 *            calibrates there.
 *
 * The measurement path is forced (EVTRACE_TSC_CALIB=measure) so that the
 * calibration lasts long enough (~18 ms) to be interrupted.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock/clock_internal.h"
#include "helpers.h"

#define MAX_HITS	100000

static uint64_t hit_local[MAX_HITS], hit_counter[MAX_HITS];
static volatile sig_atomic_t nhits, errno_clobbered, init_deadlk, init_ok, init_other;
static volatile sig_atomic_t hits_uncalibrated;

static void on_alarm(int sig)
{
	int saved = errno, ret;

	(void)sig;
	if (nhits >= MAX_HITS)
		return;
	errno = 4242;
	if (__atomic_load_n(&tclock.mode, __ATOMIC_ACQUIRE) == TCLOCK_MODE_UNINIT)
		hits_uncalibrated++;
	hit_local[nhits] = evt_clock_read(EVT_CLOCK_LOCAL);
	hit_counter[nhits] = evt_clock_read(EVT_CLOCK_COUNTER);
	(void)evt_clock_read(EVT_CLOCK_TSC);
	(void)evt_clock_read(EVT_CLOCK_MONO);
	ret = evt_clock_init();
	if (ret == 0)
		init_ok++;
	else if (ret == -EDEADLK)
		init_deadlk++;
	else
		init_other++;
	if (errno != 4242)
		errno_clobbered++;
	nhits++;
	errno = saved;
}

static void timer(long usec)
{
	struct itimerval it = { { 0, usec }, { 0, usec } };

	T_ASSERT_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
}

static void check_hits(void)
{
	for (int i = 1; i < nhits; i++) {
		if (hit_local[i] < hit_local[i - 1])
			t_fail("local went back in the handler: hit %d, %" PRIu64 " after %" PRIu64,
			       i, hit_local[i], hit_local[i - 1]);
		if (hit_counter[i] <= hit_counter[i - 1])
			t_fail("counter did not increase in the handler at hit %d", i);
	}
	if (errno_clobbered)
		t_fail("%d handler runs saw errno changed", (int)errno_clobbered);
	if (init_other)
		t_fail("evt_clock_init() in the handler failed unexpectedly %d times",
		       (int)init_other);
}

static int lazy(void)
{
	uint64_t end;

	timer(50);
	/* No clock call here until the handler has calibrated: spin on the mode. */
	while (__atomic_load_n(&tclock.mode, __ATOMIC_ACQUIRE) == TCLOCK_MODE_UNINIT)
		;
	end = t_ns_now() + 20000000;
	while (t_ns_now() < end)
		;
	timer(0);
	check_hits();
	T_ASSERT(nhits > 0);
	T_ASSERT(evt_clock_read(EVT_CLOCK_LOCAL) >= hit_local[nhits - 1]);
	T_ASSERT_EQ(evt_clock_init(), 0);
	printf("lazy: the handler calibrated (%s, %.1f ms); %d handler runs, %d -EDEADLK\n",
	       tclock_source_name(), (double)tclock.calib_ns / 1e6, (int)nhits, (int)init_deadlk);
	return T_PASS;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	uint64_t after;
	int status, ret;
	pid_t pid;

	setenv("EVTRACE_TSC_CALIB", "measure", 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	T_ASSERT_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	if (argc > 1 && !strcmp(argv[1], "lazy"))
		return lazy();

	timer(50);
	errno = EXDEV;
	ret = evt_clock_init();
	if (errno != EXDEV)
		t_fail("evt_clock_init() changed errno to %d", errno);
	T_ASSERT_EQ(ret, 0);
	after = evt_clock_read(EVT_CLOCK_LOCAL);
	timer(0);
	check_hits();
	/*
	 * (A handler that ran before the main thread claimed the calibration
	 * calibrated itself and got 0: -EDEADLK is not guaranteed to be seen.)
	 */
	printf("during calibration: %d handler runs, %d of them before it was done (%d -EDEADLK)\n",
	       (int)nhits, (int)hits_uncalibrated, (int)init_deadlk);
	for (int i = 0; i < nhits; i++)
		if (hit_local[i] > after && hit_local[i] - after > 1000000)
			t_fail("handler read %" PRIu64 " is ahead of the later %" PRIu64, hit_local[i],
			       after);

	/* the lazy case, in a fresh process */
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "lazy", (char *)NULL);
		_exit(T_SKIP);
	}
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status));
	if (WEXITSTATUS(status) == T_SKIP)
		printf("lazy: cannot run /proc/self/exe again here (an emulator?): not tested\n");
	else if (WEXITSTATUS(status) != T_PASS)
		t_fail("the lazy case exited %d", WEXITSTATUS(status));
	printf("clock-signal: PASS\n");
	return T_PASS;
}
