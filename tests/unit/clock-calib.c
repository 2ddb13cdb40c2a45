// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-calib: the calibration's parts. tclock_scale() keeps 60-63 bits of
 * mult and gives the exact quotient, rounded down; the measurement
 * repeats (and agrees with the kernel's perf scale, where perf gives it)
 * to within 50 ppm plus 4 times the error its brackets allow (their width
 * over the 18 ms: 4.4 ppm on the development VM, ~17 under qemu-user,
 * where the measurement is off by up to 50 ppm). A wrong scale is off by
 * thousands of ppm; the measurement on the development VM, by < 1.
 */
#include <errno.h>
#include <string.h>

#include "clock/clock_internal.h"
#include "helpers.h"

static uint64_t scale(uint64_t cyc, uint64_t mult, uint32_t shift)
{
	return (uint64_t)(((unsigned __int128)cyc * mult) >> shift);
}

static double ppm_apart(uint64_t m0, uint32_t s0, uint64_t m1, uint32_t s1)
{
	/* ns for 10^12 cycles under each scale */
	double a = (double)scale(1000000000000ull, m0, s0);
	double b = (double)scale(1000000000000ull, m1, s1);

	return (b / a - 1.0) * 1e6;
}

static void check_freq(uint64_t hz)
{
	uint64_t mult, at[] = { 1, 1000, hz, 7 * hz + 3, 3600 * hz, 1ull << 50 };
	uint32_t shift;

	T_ASSERT_EQ(tclock_scale(1000000000u, hz, &mult, &shift), 0);
	T_ASSERT(mult < (1ull << 63) && mult >= (1ull << 59));	/* >= 60 bits below 8 GHz */
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		unsigned __int128 exact = (unsigned __int128)at[i] * 1000000000u;
		uint64_t got = scale(at[i], mult, shift), want = (uint64_t)(exact / hz);
		/* mult rounds up: exact, save 1 ns when want's fraction is within 2^-62 of 1 */
		if (got != want && got != want + 1)
			t_fail("%" PRIu64 " Hz: %" PRIu64 " cycles -> %" PRIu64 " ns, want %" PRIu64,
			       hz, at[i], got, want);
	}
	/* whole seconds come out exactly for these frequencies */
	T_ASSERT_EQ(scale(hz, mult, shift), 1000000000u);
}

int main(void)
{
	uint64_t mult, pmult, mm[3], bw[3];
	uint32_t shift, pshift, ms[3];
	double d, bound;
	int ret;

	/* scale arithmetic: common counter frequencies */
	check_freq(1000000000u);	/* aarch64 v8.6+: 1 GHz */
	check_freq(25000000u);
	check_freq(24000000u);		/* 41.666... ns per cycle */
	check_freq(19200000u);
	check_freq(54000000u);
	check_freq(2596120000ull);
	check_freq(3000000000ull);
	check_freq(5800000000ull);
	T_ASSERT_EQ(tclock_scale(0, 1, &mult, &shift), -EINVAL);
	T_ASSERT_EQ(tclock_scale(1, 0, &mult, &shift), -EINVAL);
	T_ASSERT_EQ(tclock_scale(1, 1, &mult, &shift), 0);
	T_ASSERT(mult == 1ull << 62 && shift == 62);

	T_ASSERT_EQ(evt_clock_init(), 0);
	printf("active: %s, %.6f GHz, mult %" PRIu64 " shift %u, local %s\n", tclock_source_name(),
	       (double)tclock.freq_hz / 1e9, tclock.mult, tclock.shift,
	       tclock.tsc_ok ? "on the counter" : "on CLOCK_MONOTONIC");
	if (tclock.source == TCLOCK_SRC_NONE)
		t_skip("no cycle counter on this architecture");

	/* the measurement repeats */
	for (int i = 0; i < 3; i++) {
		ret = tclock_measure(18, &mm[i], &ms[i], &bw[i]);
		if (ret)
			t_fail("measurement %d failed: %d", i, ret);
		d = ppm_apart(tclock.mult, tclock.shift, mm[i], ms[i]);
		bound = 50 + 4 * (double)bw[i] * 1e6 / 18e6;
		printf("measured: %+.3f ppm from active (brackets %" PRIu64 " ns, bound %.1f)\n", d,
		       bw[i], bound);
		if (d > bound || d < -bound)
			t_fail("measurement %d is %+.3f ppm from the active scale", i, d);
	}

	/* the kernel's scale, where perf gives it */
	ret = tclock_perf_scale(&pmult, &pshift);
	if (ret) {
		printf("perf scale: unavailable (%s)\n", strerror(-ret));
	} else {
		d = ppm_apart(pmult, pshift, mm[0], ms[0]);
		bound = 50 + 4 * (double)bw[0] * 1e6 / 18e6;
		printf("perf scale: mult %" PRIu64 " shift %u; measured is %+.3f ppm from it\n",
		       pmult, pshift, d);
		if (d > bound || d < -bound)
			t_fail("measurement disagrees with the kernel's scale by %.3f ppm", d);
	}
	printf("clock-calib: PASS\n");
	return T_PASS;
}
