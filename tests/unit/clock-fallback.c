// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-fallback: "local" without the cycle counter (EVTRACE_TSC=0, as on
 * a machine whose counter is not invariant) is CLOCK_MONOTONIC itself,
 * monotonic, and the counter clock still converts to nanoseconds that
 * read like it.
 */
#include <stdlib.h>
#include <time.h>

#include "clock/clock_internal.h"
#include "helpers.h"

int main(void)
{
	setenv("EVTRACE_TSC", "0", 1);
	T_ASSERT_EQ(evt_clock_init(), 0);
	T_ASSERT(!tclock.tsc_ok);
	T_ASSERT_EQ(tclock.mode, TCLOCK_MODE_MONO);
	printf("local on CLOCK_MONOTONIC; counter scale from %s\n", tclock_source_name());

	for (int i = 0; i < 100000; i++) {
		uint64_t a = t_ns_now(), l = evt_clock_read(EVT_CLOCK_LOCAL), b = t_ns_now();

		if (l < a || l > b)
			t_fail("local %" PRIu64 " outside CLOCK_MONOTONIC [%" PRIu64 ", %" PRIu64 "]",
			       l, a, b);
	}
	if (tclock.source != TCLOCK_SRC_NONE) {
		uint64_t c = evt_clock_read(EVT_CLOCK_TSC), l = evt_clock_read(EVT_CLOCK_LOCAL);
		uint64_t n = evt_clock_to_ns(EVT_CLOCK_TSC, c);

		/*
		 * calibrated well under a second ago: a few µs at most apart, either
		 * way (the scale's error can put the converted count a few ns ahead)
		 */
		if ((n > l ? n - l : l - n) > 100000)
			t_fail("to_ns(tsc) %" PRIu64 " vs local %" PRIu64, n, l);
	}
	printf("clock-fallback: PASS\n");
	return T_PASS;
}
