/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/clock_internal.h - the trace clocks' hot path, inlined into the
 * ring buffer's writers.
 *
 * The calibration (tclock) is written once by evt_clock_init() before any
 * buffer exists and read with relaxed loads afterwards: the ring buffer
 * calls evt_clock_init() from evt_ring_buffer_alloc(), and a buffer
 * pointer only reaches a writer through some synchronization of the
 * program's own (thread creation, a mutex, an atomic publish), which
 * orders the calibration stores before the writer's loads.
 */
#ifndef EVT_CORE_CLOCK_INTERNAL_H
#define EVT_CORE_CLOCK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <evtrace/clock.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

struct tclock_calib {
	bool tsc_ok;		/* the cycle counter is usable for "local" */
	uint32_t shift;		/* ns = base_ns + ((cycles - base_cyc) * mult) >> shift */
	uint64_t mult;
	uint64_t base_cyc;
	uint64_t base_ns;
	uint64_t freq_hz;	/* cycles per second (informational) */
};

extern struct tclock_calib tclock;
extern uint64_t tclock_counter;

static inline uint64_t tclock_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

static inline uint64_t tclock_posix(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uint64_t tclock_cycles_to_ns(uint64_t cyc)
{
	uint64_t d = cyc - __atomic_load_n(&tclock.base_cyc, __ATOMIC_RELAXED);

	return __atomic_load_n(&tclock.base_ns, __ATOMIC_RELAXED) +
	       (uint64_t)(((unsigned __int128)d * __atomic_load_n(&tclock.mult, __ATOMIC_RELAXED)) >>
			  __atomic_load_n(&tclock.shift, __ATOMIC_RELAXED));
}

/**
 * tclock_read() - read trace clock @id.
 * @id: the clock.
 *
 * Context: any thread or signal handler; no system call for "local",
 * "x86-tsc" and "counter" (the others go through the vDSO).
 * Return: the reading, in the clock's units.
 */
static inline uint64_t tclock_read(enum evt_clock_id id)
{
	switch (id) {
	case EVT_CLOCK_LOCAL:
		if (__builtin_expect(__atomic_load_n(&tclock.tsc_ok, __ATOMIC_RELAXED), 1))
			return tclock_cycles_to_ns(tclock_cycles());
		return tclock_posix(CLOCK_MONOTONIC);
	case EVT_CLOCK_TSC:
		return tclock_cycles();
	case EVT_CLOCK_COUNTER:
		/* Relaxed: the counter orders itself (one modification order); the ring
		 * buffer's own CAS orders the events that carry its values. */
		return __atomic_fetch_add(&tclock_counter, 1, __ATOMIC_RELAXED) + 1;
	case EVT_CLOCK_MONO_RAW:
		return tclock_posix(CLOCK_MONOTONIC_RAW);
	case EVT_CLOCK_BOOT:
		return tclock_posix(CLOCK_BOOTTIME);
	case EVT_CLOCK_GLOBAL:
	case EVT_CLOCK_MONO:
	default:
		return tclock_posix(CLOCK_MONOTONIC);
	}
}

#endif /* EVT_CORE_CLOCK_INTERNAL_H */
