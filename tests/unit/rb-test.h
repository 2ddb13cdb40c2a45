/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/rb-test.h - small helpers shared by the ring buffer tests.
 *
 * Everything is static: each test is its own program, and the names
 * (rbt_*) do not collide with the project-wide t_* helpers linked in
 * from tests/lib/helpers.c. Failures print file:line and exit(1); a test
 * that cannot run here exits 77 (skip).
 */
#ifndef EVT_TESTS_RB_TEST_H
#define EVT_TESTS_RB_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/clock.h>
#include <evtrace/ring_buffer.h>

#define RBT_PASS	0
#define RBT_FAIL	1
#define RBT_SKIP	77

#if defined(__SANITIZE_THREAD__)
#define RBT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RBT_TSAN 1
#endif
#endif
#ifndef RBT_TSAN
#define RBT_TSAN 0
#endif

#define RBT_ALIGN4(x)	(((x) + 3u) & ~3u)

static inline void rbt_vfail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static inline void rbt_vfail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: FAIL: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	exit(RBT_FAIL);
}

#define RBT_FAILF(...)	rbt_vfail(__FILE__, __LINE__, __VA_ARGS__)

#define RBT_ASSERT(cond)							\
	do {									\
		if (!(cond))							\
			RBT_FAILF("assertion '%s' failed", #cond);		\
	} while (0)

#define RBT_ASSERTF(cond, ...)							\
	do {									\
		if (!(cond))							\
			RBT_FAILF(__VA_ARGS__);					\
	} while (0)

/* Compare as unsigned 64-bit values and print both on failure. */
#define RBT_EQ_U(a, b)								\
	do {									\
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);		\
		if (a_ != b_)							\
			RBT_FAILF("%s == %s: %" PRIu64 " != %" PRIu64,		\
				  #a, #b, a_, b_);				\
	} while (0)

/* Compare as signed 64-bit values (return codes). */
#define RBT_EQ_I(a, b)								\
	do {									\
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);			\
		if (a_ != b_)							\
			RBT_FAILF("%s == %s: %" PRId64 " != %" PRId64,		\
				  #a, #b, a_, b_);				\
	} while (0)

static inline void rbt_skip(const char *why)
{
	printf("SKIP: %s\n", why);
	fflush(stdout);
	exit(RBT_SKIP);
}

/* ---- time ----------------------------------------------------------------- */

static inline uint64_t rbt_clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uint64_t rbt_now_ns(void)
{
	return rbt_clock_ns(CLOCK_MONOTONIC);
}

static inline void rbt_sleep_ns(uint64_t ns)
{
	struct timespec t = { .tv_sec = (time_t)(ns / 1000000000u),
			      .tv_nsec = (long)(ns % 1000000000u) };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

/* -d SECONDS (fractions allowed); @def when absent. */
static inline double rbt_duration(int argc, char **argv, double def)
{
	for (int i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "-d"))
			return atof(argv[i + 1]);
	return def;
}

/* ---- CPUs ------------------------------------------------------------------ */

/* The CPUs this process may run on, in increasing order; returns how many. */
static inline int rbt_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* Pin the calling thread to @cpu. Return 0 or -errno. */
static inline int rbt_pin(int cpu)
{
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (ret)
		return -ret;
	/* make sure we are there before the caller writes */
	for (int i = 0; i < 1000 && sched_getcpu() != cpu; i++)
		sched_yield();
	return sched_getcpu() == cpu ? 0 : -EAGAIN;
}

/* Pin to the first allowed CPU, or skip the test. Return the CPU. */
static inline int rbt_pin_first(void)
{
	int cpus[CPU_SETSIZE];
	int n = rbt_allowed_cpus(cpus, CPU_SETSIZE);

	if (n < 1 || rbt_pin(cpus[0]) < 0)
		rbt_skip("cannot pin to a CPU");
	return cpus[0];
}

/* Let the calling thread run on all CPUs it was allowed at start. */
static inline void rbt_unpin(const int *cpus, int n)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* ---- deterministic payloads ------------------------------------------------ */

static inline uint64_t rbt_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* xorshift64*: a per-thread random stream. */
static inline uint64_t rbt_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* Byte @i of the pattern for (@seed). */
static inline unsigned char rbt_pat(uint64_t seed, size_t i)
{
	return (unsigned char)(rbt_mix64(seed + (i >> 3)) >> ((i & 7) * 8));
}

static inline void rbt_fill(void *buf, size_t len, uint64_t seed)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = rbt_pat(seed, i);
}

static inline bool rbt_check(const void *buf, size_t len, uint64_t seed)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i] != rbt_pat(seed, i))
			return false;
	return true;
}

/*
 * A tagged record used by most unit tests: 16 bytes of header, then a
 * pattern derived from (tag, seq) up to @len bytes. @len must be >= 16.
 */
struct rbt_rec {
	uint32_t tag;
	uint32_t len;
	uint64_t seq;
};

static inline void rbt_rec_fill(void *buf, size_t len, uint32_t tag, uint64_t seq)
{
	struct rbt_rec r = { .tag = tag, .len = (uint32_t)len, .seq = seq };

	memcpy(buf, &r, sizeof(r));
	rbt_fill((unsigned char *)buf + sizeof(r), len - sizeof(r),
		 ((uint64_t)tag << 40) ^ seq);
}

/* Check a record read back from @ev; returns its seq. Fails the test on damage. */
#define rbt_rec_check(ev, tag, len) rbt_rec_check_(__FILE__, __LINE__, ev, tag, len)
static inline uint64_t rbt_rec_check_(const char *file, int line,
				      struct evt_ring_buffer_event *ev, uint32_t tag, size_t len)
{
	struct rbt_rec r;
	unsigned char *p;

	if (!ev)
		rbt_vfail(file, line, "no event");
	p = evt_ring_buffer_event_data(ev);
	if (evt_ring_buffer_event_length(ev) != RBT_ALIGN4(len))
		rbt_vfail(file, line, "event length %u, want %u",
			  evt_ring_buffer_event_length(ev), (unsigned int)RBT_ALIGN4(len));
	memcpy(&r, p, sizeof(r));
	if (r.tag != tag || r.len != len)
		rbt_vfail(file, line, "record tag %u len %u, want tag %u len %zu",
			  r.tag, r.len, tag, len);
	if (!rbt_check(p + sizeof(r), len - sizeof(r), ((uint64_t)tag << 40) ^ r.seq))
		rbt_vfail(file, line, "payload of record %" PRIu64 " damaged", r.seq);
	return r.seq;
}

/* Write one record; return write()'s result. */
static inline int rbt_write_rec(struct evt_ring_buffer *rb, size_t len, uint32_t tag,
				uint64_t seq)
{
	unsigned char buf[8192];

	if (len > sizeof(buf))
		return -E2BIG;
	rbt_rec_fill(buf, len, tag, seq);
	return evt_ring_buffer_write(rb, len, buf);
}

/* ---- buffers ----------------------------------------------------------------- */

static inline struct evt_ring_buffer *rbt_alloc_opts(size_t size, unsigned int flags,
						     unsigned int page_size, int nr_cpus,
						     enum evt_clock_id clock)
{
	struct evt_ring_buffer_opts o = {
		.size = size, .flags = flags, .page_size = page_size,
		.nr_cpus = nr_cpus, .clock = clock,
	};
	struct evt_ring_buffer *rb = NULL;
	int ret = evt_ring_buffer_alloc_opts(&o, &rb);

	if (ret < 0 || !rb)
		RBT_FAILF("evt_ring_buffer_alloc_opts(size %zu, flags %u, page %u): %d",
			  size, flags, page_size, ret);
	return rb;
}

static inline struct evt_ring_buffer *rbt_alloc(size_t size, unsigned int flags)
{
	return rbt_alloc_opts(size, flags, 0, 0, EVT_CLOCK_LOCAL);
}

/* Consume everything currently readable on @cpu; return the count. */
static inline unsigned long rbt_drain_cpu(struct evt_ring_buffer *rb, int cpu)
{
	unsigned long n = 0;

	while (evt_ring_buffer_consume(rb, cpu, NULL, NULL))
		n++;
	return n;
}

static inline unsigned long rbt_drain(struct evt_ring_buffer *rb)
{
	unsigned long n = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++)
		n += rbt_drain_cpu(rb, cpu);
	return n;
}

/* Bytes an event with @len bytes of payload takes in a page (kernel encoding). */
static inline unsigned int rbt_event_size(size_t len)
{
	unsigned int l = RBT_ALIGN4(len ? (unsigned int)len : 1u);

	return l > EVT_RB_MAX_SMALL_DATA ? l + 8 : l + 4;
}

/* ---- child processes ----------------------------------------------------------- */

/*
 * Wait for child @pid with a timeout; return its exit status, or -1 if it
 * was killed by a signal (printed), -2 on timeout (the child is killed).
 */
static inline int rbt_wait_child(pid_t pid, double timeout_s)
{
	uint64_t deadline = rbt_now_ns() + (uint64_t)(timeout_s * 1e9);
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -3;
		if (rbt_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fprintf(stderr, "child %d timed out\n", (int)pid);
			return -2;
		}
		rbt_sleep_ns(1000000);
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "child %d killed by signal %d (%s)\n", (int)pid,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return -1;
	}
	return WEXITSTATUS(status);
}

#endif /* EVT_TESTS_RB_TEST_H */
