/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/rb-test.h - small helpers shared by the ring buffer tests, defined in
 * rb-test.c of the test library; the payload pattern helpers stay inline for the torture
 * loops. The names (rbt_*) do not collide with the project-wide t_* helpers of helpers.h.
 * Failures print file:line and exit(1); a test that cannot run here exits 77 (skip).
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

void rbt_vfail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

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

uint64_t rbt_clock_ns(clockid_t id);

static inline uint64_t rbt_now_ns(void)
{
	return rbt_clock_ns(CLOCK_MONOTONIC);
}

void rbt_sleep_ns(uint64_t ns);

/* -d SECONDS (fractions allowed); @def when absent. */
double rbt_duration(int argc, char **argv, double def);

/* ---- CPUs ------------------------------------------------------------------ */

/* The CPUs this process may run on, in increasing order; returns how many. */
int rbt_allowed_cpus(int *cpus, int max);

/* Pin the calling thread to @cpu. Return 0 or -errno. */
int rbt_pin(int cpu);

/* Pin to the first allowed CPU, or skip the test. Return the CPU. */
int rbt_pin_first(void);

/* Let the calling thread run on all CPUs it was allowed at start. */
void rbt_unpin(const int *cpus, int n);

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

void rbt_rec_fill(void *buf, size_t len, uint32_t tag, uint64_t seq);

/* Check a record read back from @ev; returns its seq. Fails the test on damage. */
#define rbt_rec_check(ev, tag, len) rbt_rec_check_(__FILE__, __LINE__, ev, tag, len)
uint64_t rbt_rec_check_(const char *file, int line,
				      struct evt_ring_buffer_event *ev, uint32_t tag, size_t len);

/* Write one record; return write()'s result. */
int rbt_write_rec(struct evt_ring_buffer *rb, size_t len, uint32_t tag,
				uint64_t seq);

/* ---- buffers ----------------------------------------------------------------- */

struct evt_ring_buffer *rbt_alloc_opts(size_t size, unsigned int flags,
						     unsigned int page_size, int nr_cpus,
						     enum evt_clock_id clock);

static inline struct evt_ring_buffer *rbt_alloc(size_t size, unsigned int flags)
{
	return rbt_alloc_opts(size, flags, 0, 0, EVT_CLOCK_LOCAL);
}

/* Consume everything currently readable on @cpu; return the count. */
unsigned long rbt_drain_cpu(struct evt_ring_buffer *rb, int cpu);

unsigned long rbt_drain(struct evt_ring_buffer *rb);

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
int rbt_wait_child(pid_t pid, double timeout_s);

#endif /* EVT_TESTS_RB_TEST_H */
