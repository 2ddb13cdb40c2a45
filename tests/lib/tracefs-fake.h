/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/tracefs-fake.h - a small fake of the layers under the tracing tree, for the
 * tracefs-* tests and the tracefs-write fuzz target: five events in three systems,
 * instances with real ring buffers, enable bits, pid lists and filters (compiled by the
 * real filter compiler). fake_fire() writes a record as a tracepoint would.
 * Defined in tracefs-fake.c of the test library; call fake_install() first.
 */
#ifndef EVT_TESTS_TRACEFS_FAKE_H
#define EVT_TESTS_TRACEFS_FAKE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#include "helpers.h"
#include "tracefs-cat.h"
#include "events/error_log.h"
#include "filter/filter.h"
#include "tracefs/tfs_backend.h"

#define FAKE_NR_EVENTS	5

/* The fake's events, in listing order (their ids are 400 up; ftrace:print is 405). */
enum { EV_SWITCH, EV_WAKEUP, EV_IRQ, EV_SOFTIRQ, EV_APP };

/* How many events are registered now: the first n of the five (tests set it to 0 and back). */
extern int fake_nr_events;

/* The size of each instance's ring buffer, in bytes (set before fake_install()). */
extern unsigned long fake_buf_size;

/* Make the top instance and install the fake as the tree's backend (tfs_backend). */
void fake_install(void);

/* The top instance. */
struct evt_instance *fake_top(void);

/*
 * Fire event @e in @in as thread @pid with @value (and "comm" for the sched
 * events). Return: 1 recorded, 0 not (off, disabled, pid or filter), <0 error.
 */
int fake_fire(struct evt_instance *in, int e, int pid, int value, const char *comm);

/* `cat PATH` in @in. */
static inline __attribute__((unused)) const char *fake_cat(struct evt_instance *in,
							   const char *path)
{
	return t_tracefs_cat(in, path);
}

/* write @text to @path (one call); @flags GT (">") or GGT (">>"). Bytes or -errno. */
static inline __attribute__((unused)) ssize_t fake_echo(struct evt_instance *in, const char *text,
							unsigned int flags, const char *path)
{
	return t_tracefs_echo(in, path, text, flags);
}

/* The shell's echo: one open, write(2) again after a short count. Bytes or -errno. */
static inline __attribute__((unused)) ssize_t fake_echo_sh(struct evt_instance *in,
							   const char *text, unsigned int flags,
							   const char *path)
{
	return t_tracefs_echo(in, path, text, flags | T_ECHO_SH);
}

#endif /* EVT_TESTS_TRACEFS_FAKE_H */
