/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-rectime.h - a trace clock's place on the wall clock (record-time.c).
 */
#ifndef EVTRACE_RECTIME_H
#define EVTRACE_RECTIME_H

#include <stddef.h>

/*
 * cmd_clock_epoch_offset() - CLOCK_REALTIME minus trace clock @clock (its name;
 * NULL or "": local), in ns, read now. Return: 0, or -EINVAL for a clock that does
 * not count nanoseconds (counter, x86-tsc) or is unknown.
 */
int cmd_clock_epoch_offset(const char *clock, long long *offset_ns);

/*
 * cmd_date_option() - the same as trace-cmd's DATE option text ("0x" and hex
 * microseconds) in @buf. Return: 0, -EINVAL as above.
 */
int cmd_date_option(const char *clock, char *buf, size_t len);

/*
 * cmd_clock_freq() - the counts per second of the counting clock @clock on this
 * machine (x86-tsc: the TSC's, as the library calibrated it; on aarch64 the
 * virtual counter's), and in *@epoch_ns CLOCK_REALTIME (ns) when it read 0 (its
 * count now scaled by that frequency, the narrowest of a few bracketed reads).
 * Return: 0, or -EINVAL for a nanosecond clock, "counter" (not time), or a TSC
 * that could not be calibrated.
 */
int cmd_clock_freq(const char *clock, unsigned long long *hz, long long *epoch_ns);

#endif /* EVTRACE_RECTIME_H */
