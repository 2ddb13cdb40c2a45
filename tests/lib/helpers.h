/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/helpers.h - what every test program shares.
 *
 * A test is one program; it exits T_PASS (0), T_FAIL (1) or T_SKIP (77).
 */
#ifndef EVT_TESTS_HELPERS_H
#define EVT_TESTS_HELPERS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define T_PASS	0
#define T_FAIL	1
#define T_SKIP	77

/* T_UNDER_SANITIZER: defined in ASan and TSan builds (gcc's macros, clang's __has_feature). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define T_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define T_UNDER_SANITIZER 1
#endif
#endif

#define T_ASSERT(cond)								\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: %s: assertion failed: %s\n",	\
				__FILE__, __LINE__, __func__, #cond);		\
			exit(T_FAIL);						\
		}								\
	} while (0)

/* Integers (any width, signed or not: compared as 64-bit patterns). */
#define T_ASSERT_EQ(a, b)							\
	do {									\
		unsigned long long t_a_ = (unsigned long long)(a);		\
		unsigned long long t_b_ = (unsigned long long)(b);		\
		if (t_a_ != t_b_) {						\
			fprintf(stderr, "%s:%d: %s: %s == %s: %lld (%#llx) != %lld (%#llx)\n", \
				__FILE__, __LINE__, __func__, #a, #b, (long long)t_a_,	\
				t_a_, (long long)t_b_, t_b_);			\
			exit(T_FAIL);						\
		}								\
	} while (0)

/* An int-returning evtrace call succeeded (>= 0; errors are negative errno values). */
#define T_ASSERT_OK(expr)							\
	do {									\
		long long t_r_ = (long long)(expr);				\
		if (t_r_ < 0) {							\
			fprintf(stderr, "%s:%d: %s: %s returned %lld\n",	\
				__FILE__, __LINE__, __func__, #expr, t_r_);	\
			exit(T_FAIL);						\
		}								\
	} while (0)

/* Print why and exit 77. */
void t_skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Print and exit 1. */
void t_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

int t_nr_cpus(void);				/* CPUs this process may run on */
int t_pin_to_cpu(int cpu);			/* 0 or -errno */
int t_unpin(void);				/* allow every CPU again */
double t_seconds_now(void);			/* CLOCK_MONOTONIC in seconds */
/* Run the shell command printf(@fmt, ...): its exit status, or 128 if a signal ended it. */
int t_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* @rel made absolute against the current directory (unless it is), into @out (@cap bytes). */
void t_abspath(char *out, size_t cap, const char *rel);
/* Run @fn in a forked child (which exits 0 if @fn returns); its wait status. */
int t_child_status(void (*fn)(void));
uint64_t t_ns_now(void);
/* "-d SECONDS" (or -dSECONDS) from argv, else @def; a bad value fails the test. */
double t_parse_duration(int argc, char **argv, double def);

/* xorshift64*: a seeded, reproducible generator; the seed is printed. */
struct t_rand {
	uint64_t s;
};
/* seed 0: $T_SEED if set, else the time; the seed is printed either way */
void t_rand_init(struct t_rand *r, uint64_t seed);
uint64_t t_rand_next(struct t_rand *r);
uint64_t t_rand_range(struct t_rand *r, uint64_t lo, uint64_t hi);	/* [lo, hi] */

#endif /* EVT_TESTS_HELPERS_H */
