// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness-selftest: the test helpers themselves (tests/lib/helpers.h). A failing
 * assertion exits 1 with file:line and both values, t_skip() exits 77, the
 * random generator repeats for a seed, -d is parsed, CPUs can be counted and
 * pinned to, the clock moves forward. Everything else in tests/ relies on it.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#include "helpers.h"

/*
 * Run @fn in a child with stderr and stdout in a pipe; return its exit status
 * (or 128 + signal) and what it printed in @out.
 */
static int run_child(void (*fn)(void), char *out, size_t len)
{
	size_t got = 0;
	int status;
	int fd[2];
	pid_t pid;
	ssize_t n;

	T_ASSERT(pipe(fd) == 0);
	fflush(NULL);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], STDOUT_FILENO);
		dup2(fd[1], STDERR_FILENO);
		fn();
		exit(42);	/* fn() was to exit by itself */
	}
	close(fd[1]);
	while (got + 1 < len && (n = read(fd[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fd[0]);
	T_ASSERT(waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void child_assert_false(void)
{
	int x = 3;

	T_ASSERT(x == 4);
}

static void child_assert_eq_differs(void)
{
	uint64_t big = UINT64_MAX;

	T_ASSERT_EQ(big, 17);
}

static void child_assert_eq_same(void)
{
	/* signed against unsigned of the same value: equal */
	T_ASSERT_EQ(-1, UINT64_MAX);
	T_ASSERT_EQ((uint8_t)200, 200);
	exit(T_PASS);
}

static void child_assert_ok_negative(void)
{
	T_ASSERT_OK(-EINVAL);
}

static void child_skip(void)
{
	t_skip("no %s here", "widget");
}

static void child_fail(void)
{
	t_fail("broke after %d steps", 7);
}

static void child_bad_duration(void)
{
	char *argv[] = { "prog", "-d", "soon", NULL };

	t_parse_duration(3, argv, 1.0);
}

static void test_exit_codes(void)
{
	char out[1024];

	T_ASSERT_EQ(run_child(child_assert_false, out, sizeof(out)), T_FAIL);
	T_ASSERT(strstr(out, "harness-selftest.c:"));
	T_ASSERT(strstr(out, "x == 4"));

	T_ASSERT_EQ(run_child(child_assert_eq_differs, out, sizeof(out)), T_FAIL);
	T_ASSERT(strstr(out, "big == 17"));
	T_ASSERT(strstr(out, "0xffffffffffffffff"));
	T_ASSERT(strstr(out, "(0x11)"));

	T_ASSERT_EQ(run_child(child_assert_eq_same, out, sizeof(out)), T_PASS);

	T_ASSERT_EQ(run_child(child_assert_ok_negative, out, sizeof(out)), T_FAIL);
	T_ASSERT(strstr(out, "returned -22"));

	T_ASSERT_EQ(run_child(child_skip, out, sizeof(out)), T_SKIP);
	T_ASSERT(strstr(out, "SKIP: no widget here"));

	T_ASSERT_EQ(run_child(child_fail, out, sizeof(out)), T_FAIL);
	T_ASSERT(strstr(out, "FAIL: broke after 7 steps"));

	T_ASSERT_EQ(run_child(child_bad_duration, out, sizeof(out)), T_FAIL);
}

static void test_duration(void)
{
	char *a1[] = { "prog", NULL };
	char *a2[] = { "prog", "-d", "60", NULL };
	char *a3[] = { "prog", "-v", "-d0.5", NULL };
	char *a4[] = { "prog", "-d", NULL };

	T_ASSERT(t_parse_duration(1, a1, 3.0) == 3.0);
	T_ASSERT(t_parse_duration(3, a2, 3.0) == 60.0);
	T_ASSERT(t_parse_duration(3, a3, 3.0) == 0.5);
	/* a trailing -d without a value: the default */
	T_ASSERT(t_parse_duration(2, a4, 3.0) == 3.0);
}

static void test_rand(void)
{
	struct t_rand a, b, c;
	int differ = 0;

	t_rand_init(&a, 12345);
	t_rand_init(&b, 12345);
	t_rand_init(&c, 0);	/* from $T_SEED or the time: must still work */
	for (int i = 0; i < 1000; i++) {
		uint64_t x = t_rand_next(&a);
		uint64_t r = t_rand_range(&c, 10, 20);

		T_ASSERT_EQ(x, t_rand_next(&b));
		T_ASSERT(r >= 10 && r <= 20);
		differ += x != t_rand_next(&c);
	}
	T_ASSERT(differ > 900);
	T_ASSERT_EQ(t_rand_range(&a, 5, 5), 5);
	(void)t_rand_range(&a, 0, UINT64_MAX);	/* the full range: no division by zero */
}

static void test_cpus_and_time(void)
{
	int n = t_nr_cpus();
	cpu_set_t set;
	double t0, t1;
	uint64_t n0;
	int cpu = -1;

	T_ASSERT(n >= 1);
	T_ASSERT(sched_getaffinity(0, sizeof(set), &set) == 0);
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;	/* the last CPU we may use */
	T_ASSERT(cpu >= 0);
	T_ASSERT_OK(t_pin_to_cpu(cpu));
	T_ASSERT_EQ(sched_getcpu(), cpu);
	T_ASSERT(t_pin_to_cpu(CPU_SETSIZE + 1) < 0);	/* out of range: an error, no crash */
	T_ASSERT(sched_setaffinity(0, sizeof(set), &set) == 0);
	T_ASSERT_EQ(t_nr_cpus(), n);

	t0 = t_seconds_now();
	n0 = t_ns_now();
	usleep(2000);
	t1 = t_seconds_now();
	T_ASSERT(t1 - t0 >= 0.0015 && t1 - t0 < 5.0);
	T_ASSERT(t_ns_now() - n0 >= 1500000);
}

int main(void)
{
	/* the library links and has a version: the harness sees it as a test program would */
	T_ASSERT(strlen(EVTRACE_VERSION) > 0);
	T_ASSERT(evt_strerror(-EINVAL) != NULL);

	test_exit_codes();
	test_duration();
	test_rand();
	test_cpus_and_time();
	printf("harness-selftest: ok\n");
	return T_PASS;
}
