// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/helpers.c - the t_* helpers of tests/lib/helpers.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* CPU_SET, sched_setaffinity */
#endif
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

void t_skip(const char *fmt, ...)
{
	va_list ap;

	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(T_SKIP);
}

void t_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(T_FAIL);
}

int t_nr_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return CPU_COUNT(&set);
}

int t_pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

int t_unpin(void)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_CONF);

	CPU_ZERO(&set);
	for (long i = 0; i < n && i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

uint64_t t_ns_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

double t_seconds_now(void)
{
	return (double)t_ns_now() / 1e9;
}

double t_parse_duration(int argc, char **argv, double def)
{
	const char *arg = NULL;
	char *end;
	double d;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc)
			arg = argv[++i];
		else if (!strncmp(argv[i], "-d", 2) && argv[i][2])
			arg = argv[i] + 2;
	}
	if (!arg)
		return def;
	d = strtod(arg, &end);
	if (end == arg || *end || !(d >= 0))
		t_fail("-d %s: not a number of seconds", arg);
	return d;
}

void t_rand_init(struct t_rand *r, uint64_t seed)
{
	const char *env = getenv("T_SEED");

	if (!seed && env && *env)
		seed = strtoull(env, NULL, 0);
	if (!seed)
		seed = t_ns_now() ^ ((uint64_t)getpid() << 32);
	/* xorshift has one fixed point, 0: never start there */
	r->s = seed ? seed : 0x9e3779b97f4a7c15ull;
	printf("seed %" PRIu64 " (T_SEED=%" PRIu64 " repeats this run)\n", seed, seed);
	fflush(stdout);
}

uint64_t t_rand_next(struct t_rand *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

uint64_t t_rand_range(struct t_rand *r, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo + 1;

	/* span 0: the whole 64-bit range */
	return span ? lo + t_rand_next(r) % span : t_rand_next(r);
}

void t_abspath(char *out, size_t cap, const char *rel)
{
	char cwd[4096];

	if (rel[0] == '/') {
		snprintf(out, cap, "%s", rel);
		return;
	}
	T_ASSERT(getcwd(cwd, sizeof(cwd)));
	snprintf(out, cap, "%s/%s", cwd, rel);
}

int t_sh(const char *fmt, ...)
{
	char cmd[16384];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		t_fail("t_sh: a command of %d bytes", n);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * Every test's stdout is line-buffered, also into ctest's pipe: a test killed by
 * its time limit still shows how far it got.
 */
__attribute__((constructor)) static void t_stdout_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

int t_child_status(void (*fn)(void))
{
	pid_t pid = fork();
	int st = 0;

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	T_ASSERT_EQ(waitpid(pid, &st, 0), pid);
	return st;
}
