/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/control.h - the control endpoint: the tracing file tree served
 * to other processes (the evtrace command) over a Unix socket.
 *
 * evt_control_start() creates $XDG_RUNTIME_DIR/evtrace/<pid>.sock
 * (/run/evtrace/<pid>.sock for root; directory 0700, socket 0600) and a
 * thread that serves it: reads and writes of any file of the tree,
 * streaming reads of trace_pipe, and the ring buffer's memfd for a
 * consumer that maps it (docs/control.md). Only processes of the same
 * user, and root, are served (SO_PEERCRED). Writers are never blocked by
 * it. The endpoint also starts by itself when the program runs with
 * EVTRACE_CONTROL=1 in its environment (which `evtrace record` sets, with
 * EVTRACE_CONTROL_HOLD: the program's first event waits until the recorder
 * has set its filters and triggers; docs/control.md, "The start-up hold").
 *
 * Synchronization: both functions may be called from any thread (not
 * from a signal handler, not from a thread the endpoint started).
 *
 * Errors: negative errno values; errno is never touched.
 */
#ifndef EVTRACE_CONTROL_H
#define EVTRACE_CONTROL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* evt_control_start() flags: none defined yet (pass 0). */

int evt_control_start(unsigned int flags);
int evt_control_stop(void);
int evt_control_path(char *buf, size_t len);

/*
 * What went wrong with the endpoint, for a program to report (the endpoint
 * that failed to start cannot be asked): evt_control_stats(3).
 */
struct evt_control_stats {
	unsigned long start_failures; /* evt_control_start() (or EVTRACE_CONTROL=1) failed */
	unsigned long accept_errors;  /* accept() failed (out of descriptors: backed off) */
	unsigned long refused;	      /* peers refused: another user (SO_PEERCRED) */
	int last_error;		      /* negative errno of the last failure, or 0 */
	int reserved;
};

int evt_control_stats(struct evt_control_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_CONTROL_H */
