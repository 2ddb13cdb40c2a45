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

#endif /* EVTRACE_RECTIME_H */
