/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/clock.h - trace clocks, selectable like ftrace's trace_clock.
 *
 * Every ring buffer records time stamps from one of these clocks. The
 * names are the ones ftrace prints in its trace_clock file, so a user
 * who knows "echo mono > trace_clock" knows these.
 *
 *   local     TSC scaled to nanoseconds (the default). Falls back to
 *             CLOCK_MONOTONIC where the TSC is not invariant.
 *   global    CLOCK_MONOTONIC through the vDSO: the same on every CPU.
 *   counter   a process-wide atomic counter: not time, but strictly
 *             ordered across all CPUs.
 *   mono      CLOCK_MONOTONIC.
 *   mono_raw  CLOCK_MONOTONIC_RAW.
 *   boot      CLOCK_BOOTTIME.
 *   x86-tsc   raw TSC cycles (on aarch64 the virtual counter, named
 *             "tsc"); evt_clock_to_ns() converts.
 *
 * Synchronization: all functions are thread- and async-signal-safe
 * once the clock is calibrated; evt_clock_init() (called by the ring
 * buffer on first allocation) does the one-time calibration.
 */
#ifndef EVTRACE_CLOCK_H
#define EVTRACE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum evt_clock_id {
	EVT_CLOCK_LOCAL = 0,
	EVT_CLOCK_GLOBAL,
	EVT_CLOCK_COUNTER,
	EVT_CLOCK_MONO,
	EVT_CLOCK_MONO_RAW,
	EVT_CLOCK_BOOT,
	EVT_CLOCK_TSC,
	EVT_CLOCK__COUNT,
};

/**
 * evt_clock_init() - calibrate the TSC clock (idempotent).
 *
 * Return: 0, or a negative errno if no clock source works at all.
 */
int evt_clock_init(void);

/**
 * evt_clock_read() - read clock @id.
 * @id: the clock.
 *
 * Return: the time in the clock's own units (nanoseconds for all but
 * "counter" and "x86-tsc").
 */
uint64_t evt_clock_read(enum evt_clock_id id);

/**
 * evt_clock_to_ns() - convert a reading of clock @id to nanoseconds.
 * @id: the clock the value came from.
 * @ts: the reading.
 *
 * Return: @ts in nanoseconds ("counter" is returned unchanged).
 */
uint64_t evt_clock_to_ns(enum evt_clock_id id, uint64_t ts);

/**
 * evt_clock_name() - the ftrace name of clock @id.
 *
 * Return: a static string, or NULL for an unknown id.
 */
const char *evt_clock_name(enum evt_clock_id id);

/**
 * evt_clock_by_name() - look a clock up by its ftrace name.
 * @name: e.g. "local", "mono", "x86-tsc" (also accepted: "tsc").
 *
 * Return: the clock id (>= 0), or -EINVAL.
 */
int evt_clock_by_name(const char *name);

/**
 * evt_clock_is_ns() - whether clock @id counts nanoseconds.
 *
 * Return: true for nanosecond clocks, false for "counter", "x86-tsc" and an unknown id.
 */
bool evt_clock_is_ns(enum evt_clock_id id);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_CLOCK_H */
