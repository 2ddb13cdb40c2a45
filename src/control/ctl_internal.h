/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * control/ctl_internal.h - what the rest of the library calls in the control layer.
 */
#ifndef EVT_CONTROL_CTL_INTERNAL_H
#define EVT_CONTROL_CTL_INTERNAL_H

/*
 * ctl_start_from_env() - start the endpoint if EVTRACE_CONTROL=1.
 * Called by the library's constructor and by the event layer's one-time
 * init (so that a static link pulls the endpoint in).
 * Context: any thread; takes the control lock; idempotent.
 */
void ctl_start_from_env(void);

/*
 * The start-up hold (docs/control.md): with EVTRACE_CONTROL_HOLD=<our pid> (or "all"),
 * ctl_start_from_env() arms it; the first event a program thread fires
 * parks in ctl_hold_wait() until a client sends
 * CTL_OP_RELEASE or EVTRACE_CONTROL_HOLD_TIMEOUT seconds (default 10) pass.
 * @ctl_hold_armed: non-zero while armed (the writers' cheap test).
 * ctl_hold_wait() - Context: a writer, outside any write (no RCU read
 * section, no lock held); a futex wait, async-signal-safe; returns at
 * once on the endpoint's own threads.
 */
extern int ctl_hold_armed;
void ctl_hold_wait(void);

/*
 * Library locks the calling thread holds that a releasing client needs
 * (event_lock(), tfs_lock()): while non-zero, ctl_hold_wait() does not park
 * (an event fired from a program callback run under event_lock(), a
 * trace_marker write under tfs_lock()). Only this thread reads its count.
 */
extern __thread unsigned int ctl_locks_held;

#endif /* EVT_CONTROL_CTL_INTERNAL_H */
