// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-rate: "local" keeps time. Over 200 ms it runs at the rate of
 * CLOCK_MONOTONIC_RAW (the counter's own rate: the calibration's) and of
 * CLOCK_MONOTONIC (which NTP may slew: the bound widens by the slew seen
 * in the same interval), and it reads like CLOCK_MONOTONIC. The counter
 * clock converted by evt_clock_to_ns() is "local": exactly, when local
 * runs on the counter.
 *
 * Bounds: calibration errors measured on the development VM are below
 * 1 ppm and this test's own brackets add ~0.2 ppm; a wrong scale (a
 * shift off by one, a frequency off by a percent) is >= 10000 ppm. The
 * bound, 50 ppm, fails on the latter, never on the former.
 */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "clock/clock_internal.h"
#include "helpers.h"

#define RATE_PPM	50.0
#define SPAN_MS		200

struct pair {
	uint64_t ref;	/* the reference clock, midpoint of the tightest bracket */
	uint64_t local;
	uint64_t width;
};

static uint64_t ns_of(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* "local" against clock @id: the tightest of 64 (ref, local, ref) brackets. */
static struct pair sample(clockid_t id)
{
	struct pair best = { 0, 0, UINT64_MAX };

	for (int i = 0; i < 64; i++) {
		uint64_t a = ns_of(id), l = evt_clock_read(EVT_CLOCK_LOCAL), b = ns_of(id);

		if (b - a < best.width) {
			best.ref = a + (b - a) / 2;
			best.local = l;
			best.width = b - a;
		}
	}
	return best;
}

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

static double ppm(uint64_t dl, uint64_t dref)
{
	return ((double)dl / (double)dref - 1.0) * 1e6;
}

int main(void)
{
	struct timespec nap = { 0, SPAN_MS * 1000000L };
	struct pair m0, r0, m1, r1;
	double vs_mono, vs_raw, slew;
	int64_t off;

	T_ASSERT_EQ(evt_clock_init(), 0);
	printf("local: %s, calibration %s, %.6f GHz, brackets %" PRIu64 " ns, took %.1f ms\n",
	       tclock.tsc_ok ? "cycle counter" : "CLOCK_MONOTONIC", tclock_source_name(),
	       (double)tclock.freq_hz / 1e9, tclock.bracket_ns, (double)tclock.calib_ns / 1e6);
	if (tclock.source != TCLOCK_SRC_NONE && (tclock.freq_hz < 1000000 ||
						tclock.freq_hz > 100000000000ull))
		t_fail("counter frequency %" PRIu64 " Hz is absurd", tclock.freq_hz);

	/* rate and offset over SPAN_MS */
	m0 = sample(CLOCK_MONOTONIC);
	r0 = sample(CLOCK_MONOTONIC_RAW);
	while (nanosleep(&nap, &nap))
		;
	m1 = sample(CLOCK_MONOTONIC);
	r1 = sample(CLOCK_MONOTONIC_RAW);
	vs_mono = ppm(m1.local - m0.local, m1.ref - m0.ref);
	vs_raw = ppm(r1.local - r0.local, r1.ref - r0.ref);
	slew = dabs(vs_raw - vs_mono);	/* MONOTONIC's rate against RAW's, to first order */
	off = (int64_t)(m1.local - m1.ref);
	printf("local vs CLOCK_MONOTONIC_RAW: %+.3f ppm; vs CLOCK_MONOTONIC: %+.3f ppm "
	       "(NTP slew %.3f ppm); local - CLOCK_MONOTONIC = %+" PRId64 " ns\n",
	       vs_raw, vs_mono, slew, off);
	if (vs_raw < -RATE_PPM || vs_raw > RATE_PPM)
		t_fail("local runs %+.3f ppm off CLOCK_MONOTONIC_RAW (bound %.0f)", vs_raw, RATE_PPM);
	if (vs_mono < -RATE_PPM - slew || vs_mono > RATE_PPM + slew)
		t_fail("local runs %+.3f ppm off CLOCK_MONOTONIC (bound %.0f + slew)", vs_mono,
		       RATE_PPM);
	/* Since calibration (well under a second ago): a few µs of rate error, and the slew. */
	if (llabs(off) > 100000 + (int64_t)(slew * 1e-6 * 1e9))
		t_fail("local is %+" PRId64 " ns off CLOCK_MONOTONIC", off);

	/* the counter clock, converted, is local */
	T_ASSERT_EQ(t_pin_to_cpu(sched_getcpu()), 0);
	for (int i = 0; i < 10000; i++) {
		uint64_t l0 = evt_clock_read(EVT_CLOCK_LOCAL);
		uint64_t c = evt_clock_read(EVT_CLOCK_TSC);
		uint64_t l1 = evt_clock_read(EVT_CLOCK_LOCAL);
		uint64_t n = evt_clock_to_ns(EVT_CLOCK_TSC, c);

		if (tclock.tsc_ok ? (n < l0 || n > l1) : (n + 100000 < l0 || n > l1 + 100000))
			t_fail("to_ns(tsc) = %" PRIu64 " outside local [%" PRIu64 ", %" PRIu64 "]",
			       n, l0, l1);
	}
	T_ASSERT_EQ(t_unpin(), 0);
	printf("clock-rate: PASS\n");
	return T_PASS;
}
