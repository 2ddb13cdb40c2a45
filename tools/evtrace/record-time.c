// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-time.c - where a recording sits on the wall clock (evtrace-rectime.h):
 * the offset from a trace clock to CLOCK_REALTIME, read now in this process,
 * for the DATE option of `evtrace record --date` (trace-cmd's text: "0x" and
 * the hex microseconds) and the CTF clock's offset from the epoch.
 *
 * The nanosecond trace clocks are the system's (global, mono, mono_raw, boot)
 * or follow CLOCK_MONOTONIC (local: the TSC scaled and offset to it at each
 * process's calibration), so the recorder reads the same clock the traced
 * process stamps with. The reading is bracketed by two CLOCK_REALTIME reads,
 * the narrowest of a few tries kept: the offset is good to a microsecond or
 * so (the DATE option carries microseconds). The counting clocks (counter,
 * x86-tsc) have no such offset in the DATE option; for the CTF clock of
 * `record --format=ctf`, x86-tsc gets its frequency and the same offset from
 * its count (cmd_clock_freq()).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <evtrace/clock.h>

#include "evtrace-rectime.h"

static long long rt_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int cmd_clock_epoch_offset(const char *clock, long long *offset_ns)
{
	int id = evt_clock_by_name(clock && *clock ? clock : "local");
	long long best = -1;

	if (id < 0 || !evt_clock_is_ns(id) || evt_clock_init())
		return -EINVAL;
	for (int i = 0; i < 5; i++) {
		long long a = rt_ns();
		long long c = (long long)evt_clock_read(id);
		long long b = rt_ns();

		if (best < 0 || b - a < best) {
			best = b - a;
			*offset_ns = a + (b - a) / 2 - c;
		}
	}
	return 0;
}

int cmd_clock_freq(const char *clock, unsigned long long *hz, long long *epoch_ns)
{
	const uint64_t span = 1ULL << 36; /* counts: the scale's rounding is lost in it */
	int id = evt_clock_by_name(clock ? clock : "");
	long long best = -1;
	uint64_t a, b;

	if (id != EVT_CLOCK_TSC || evt_clock_init())
		return -EINVAL;
	a = evt_clock_to_ns(EVT_CLOCK_TSC, span);
	b = evt_clock_to_ns(EVT_CLOCK_TSC, 2 * span);
	if (b <= a || b - a == span) /* uncalibrated: the counts come back unchanged */
		return -EINVAL;
	*hz = (unsigned long long)((unsigned __int128)span * 1000000000U / (b - a));
	if (!*hz)
		return -EINVAL;
	for (int i = 0; i < 5; i++) {
		long long r0 = rt_ns();
		uint64_t c = evt_clock_read(EVT_CLOCK_TSC);
		long long r1 = rt_ns();

		if (best < 0 || r1 - r0 < best) {
			best = r1 - r0;
			*epoch_ns = r0 + (r1 - r0) / 2 -
				    (long long)((unsigned __int128)c * 1000000000U / *hz);
		}
	}
	return 0;
}

int cmd_date_option(const char *clock, char *buf, size_t len)
{
	long long off;
	int ret = cmd_clock_epoch_offset(clock, &off);

	if (ret)
		return ret;
	/* trace-cmd's form: "0x%llx" of the microseconds (two's complement if negative) */
	snprintf(buf, len, "0x%llx", (unsigned long long)(off / 1000));
	return 0;
}
