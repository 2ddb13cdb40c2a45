/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock/clock_internal.h - the trace clocks' hot path, inlined into the
 * ring buffer's writers.
 *
 * "local" is the cycle counter (x86-64 TSC, aarch64 CNTVCT_EL0) scaled
 * to nanoseconds in the writer:
 *
 *	ns = offset + ((cycles * mult) >> shift)	(128-bit product, mod 2^64)
 *
 * That is the kernel's sched_clock arithmetic (and the perf mmap page's
 * time_zero/time_mult/time_shift) on the absolute counter value, not on
 * (cycles - base): a counter a few cycles behind the calibrating CPU's
 * cannot make a negative delta wrap into the far future. The result is a
 * non-decreasing function of the counter, so "local" never goes back on
 * a CPU whose counter does not. offset makes it read like
 * CLOCK_MONOTONIC at the moment of calibration; the rate is the
 * counter's (CLOCK_MONOTONIC_RAW's), not NTP's.
 *
 * Actors:
 *   - the calibrator: the one thread that wins the UNINIT -> BUSY
 *     transition of calib_state (clock.c), in evt_clock_init() or lazily
 *     in tclock_local_slow(). It fills every field of tclock, then
 *     publishes mode (st_release), then sets calib_state READY.
 *   - readers: every tclock_read(EVT_CLOCK_LOCAL) (ring buffer writers,
 *     signal handlers, any thread) and tclock_tsc_to_ns().
 *
 * Ordering: tclock.mode is the only field read atomically. The hot path
 * loads it with acquire, pairing with the calibrator's release store,
 * so a reader that sees mode != TCLOCK_MODE_UNINIT also sees mult, shift
 * and offset, which are written before and never again: after that
 * they are read with plain loads (no data race: happens-before is
 * established, and nothing writes them any more). On x86-64 the acquire
 * load is a plain mov; on aarch64 an ldar next to an isb.
 *
 * State of tclock.mode (written once, UNINIT -> CYCLES or MONO):
 *
 *   UNINIT   not calibrated yet: tclock_read(LOCAL) takes the cold path,
 *            which calibrates on the spot if nobody has started, else
 *            returns CLOCK_MONOTONIC without waiting.
 *   CYCLES   "local" = scaled cycle counter (invariant counter).
 *   MONO     "local" = CLOCK_MONOTONIC (counter not invariant, or
 *            EVTRACE_TSC=0 in the environment).
 *
 * Before calibration "local" reads CLOCK_MONOTONIC; the calibration sets
 * offset from the upper end of a bracket (CLOCK_MONOTONIC read after the
 * counter), so the first scaled reading is not below a fallback reading
 * taken before it (up to NTP slew over the microseconds between).
 */
#ifndef EVT_CLOCK_CLOCK_INTERNAL_H
#define EVT_CLOCK_CLOCK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <evtrace/clock.h>

#include "compat/atomic.h"
#include "compat/compiler.h"

#define TCLOCK_HIDDEN	__attribute__((visibility("hidden")))

/* tclock.mode: see the state table above. */
enum tclock_mode {
	TCLOCK_MODE_UNINIT = 0,
	TCLOCK_MODE_CYCLES,
	TCLOCK_MODE_MONO,
};

/* Where mult and shift came from (tclock.source). */
enum tclock_source {
	TCLOCK_SRC_NONE = 0,	/* no cycle counter: "cycles" are CLOCK_MONOTONIC_RAW ns */
	TCLOCK_SRC_PERF,	/* the kernel's own scale, from a perf mmap page */
	TCLOCK_SRC_CNTFRQ,	/* aarch64: the architected counter frequency */
	TCLOCK_SRC_MEASURED,	/* measured against CLOCK_MONOTONIC_RAW */
};

/*
 * The calibration. Written by the calibrator only, before mode is
 * published; read-only afterwards. Cache-line aligned so that nothing
 * written at run time shares its first line, which every writer reads.
 */
struct tclock_calib {
	/* hot: read by every "local" reading */
	uint32_t mode;		/* enum tclock_mode; st_release once, ld_acquire by readers */
	uint32_t shift;		/* ns = offset + ((cycles * mult) >> shift) */
	uint64_t mult;
	uint64_t offset;	/* mod 2^64 */
	/* cold: for to_ns() of the TSC clock (same scale), reports and tests */
	bool tsc_ok;		/* mode == TCLOCK_MODE_CYCLES: "local" runs on the counter */
	bool invariant;		/* the counter has a constant rate and does not stop */
	uint16_t source;	/* enum tclock_source */
	int32_t err;		/* 0, or -errno: CLOCK_MONOTONIC does not work */
	uint64_t freq_hz;	/* counter cycles per second (rounded) */
	uint64_t base_cyc;	/* the counter reading offset was computed from */
	uint64_t base_ns;	/* CLOCK_MONOTONIC just after base_cyc */
	uint64_t bracket_ns;	/* width of the measurement's tightest bracket (0: exact) */
	uint64_t calib_ns;	/* how long the calibration took */
} __cacheline_aligned;

/* A process-wide event counter on a cache line of its own (it is written at event rate). */
struct tclock_counter {
	uint64_t v;
} __cacheline_aligned;

extern struct tclock_calib tclock TCLOCK_HIDDEN;
extern struct tclock_counter tclock_counter TCLOCK_HIDDEN;

/* Cold path of tclock_read(EVT_CLOCK_LOCAL): not calibrated yet, or no invariant counter. */
uint64_t tclock_local_slow(void) TCLOCK_HIDDEN __attribute__((cold));
/* Counter cycles to ns with the calibration (calibrates first if needed). */
uint64_t tclock_tsc_to_ns(uint64_t cycles) TCLOCK_HIDDEN;
/* "perf", "cntfrq", "measured" or "none": where the calibration came from. */
const char *tclock_source_name(void) TCLOCK_HIDDEN;

/*
 * Calibration building blocks, exposed for tests/unit/clock-calib.c.
 * tclock_scale(): the mult/shift for @cycles counter cycles per @ns
 * nanoseconds, with the largest shift that keeps mult below 2^63.
 * tclock_measure(): measure against CLOCK_MONOTONIC_RAW over @ms
 * milliseconds (up to 5 times, until the brackets bound the error to
 * 10 ppm); 0 and the best, with the summed width of its two brackets in
 * @bracket_ns, or -EAGAIN if no try gave a usable pair.
 * tclock_perf_scale(): the perf mmap page's scale; 0, -errno or -ENOTSUP.
 */
int tclock_scale(uint64_t ns, uint64_t cycles, uint64_t *mult, uint32_t *shift) TCLOCK_HIDDEN;
int tclock_measure(unsigned int ms, uint64_t *mult, uint32_t *shift,
		   uint64_t *bracket_ns) TCLOCK_HIDDEN;
int tclock_perf_scale(uint64_t *mult, uint32_t *shift) TCLOCK_HIDDEN;

/*
 * tclock_cycles() - read the cycle counter, unordered: no fence, as the
 * kernel's sched_clock. Successive reads on one CPU do not go back.
 */
static inline uint64_t tclock_cycles(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	/* isb: keeps the counter read from being speculated ahead of the previous one. */
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec t = { 0, 0 };

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

/* clock_gettime() in ns (vDSO: no system call for the clocks used here). */
static inline uint64_t tclock_posix(clockid_t id)
{
	struct timespec t = { 0, 0 };

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Scale a counter reading. Only once mode != UNINIT has been seen with acquire. */
static inline uint64_t tclock_scale_cycles(uint64_t cycles)
{
	/*
	 * shift < 64 by construction (tclock_scale(), the perf page's is checked):
	 * saying so lets the compiler shift the 128-bit product with one shrd
	 * instead of testing for shifts of 64 and more.
	 */
	uint32_t shift = tclock.shift & 63;

	return tclock.offset + (uint64_t)(((unsigned __int128)cycles * tclock.mult) >> shift);
}

static inline uint64_t tclock_read_local(void)
{
	/* Acquire: pairs with the calibrator's st_release of mode; orders mult/shift/offset. */
	if (likely(ld_acquire(&tclock.mode) == TCLOCK_MODE_CYCLES))
		return tclock_scale_cycles(tclock_cycles());
	return tclock_local_slow();
}

/**
 * tclock_read() - read trace clock @id.
 * @id: the clock; an unknown id reads CLOCK_MONOTONIC.
 *
 * Context: any thread or signal handler, before or after calibration.
 * No system call and no function call for "local" (once calibrated, on
 * an invariant counter), "x86-tsc" and "counter"; the others go through
 * the vDSO. Never touches errno.
 * Return: the reading, in the clock's units.
 */
static inline uint64_t tclock_read(enum evt_clock_id id)
{
	if (likely(id == EVT_CLOCK_LOCAL))
		return tclock_read_local();
	switch (id) {
	case EVT_CLOCK_TSC:
		return tclock_cycles();
	case EVT_CLOCK_COUNTER:
		/*
		 * Relaxed: all RMWs of one object are totally ordered, so every
		 * value is unique and a later read (in happens-before) gets a
		 * larger one; ordering the events that carry it is the ring
		 * buffer's job (its own CAS), not the counter's.
		 */
		return add_relaxed(&tclock_counter.v, 1) + 1;
	case EVT_CLOCK_MONO_RAW:
		return tclock_posix(CLOCK_MONOTONIC_RAW);
	case EVT_CLOCK_BOOT:
		return tclock_posix(CLOCK_BOOTTIME);
	default:	/* EVT_CLOCK_GLOBAL, EVT_CLOCK_MONO */
		return tclock_posix(CLOCK_MONOTONIC);
	}
}

/**
 * tclock_to_ns() - convert a reading of clock @id to nanoseconds.
 * @id: the clock @v was read from.
 * @v: the reading.
 *
 * Context: any thread; async-signal-safe once calibrated.
 * Return: @v in ns; unchanged for ns clocks and "counter".
 */
static inline uint64_t tclock_to_ns(enum evt_clock_id id, uint64_t v)
{
	return id == EVT_CLOCK_TSC ? tclock_tsc_to_ns(v) : v;
}

#endif /* EVT_CLOCK_CLOCK_INTERNAL_H */
