/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * control/ctl_internal.h - what the rest of the library calls in the control layer.
 */
#ifndef EVT_CONTROL_CTL_INTERNAL_H
#define EVT_CONTROL_CTL_INTERNAL_H

/*
 * ctl_start_from_env() - start the endpoint if EVTRACE_CONTROL=1.
 * Called once by the library's start (src/init.c).
 * Context: any thread; takes the control lock; idempotent.
 */
void ctl_start_from_env(void);

/*
 * ctl_hold_wait - the start-up hold (docs/control.md): with
 * EVTRACE_CONTROL_HOLD=<our pid> (or "all"), ctl_start_from_env() installs it as
 * the writers' hold hook (event_set_hold_hook()) and arms event_hold_armed; the
 * first event a program thread fires parks here until a client sends
 * CTL_OP_RELEASE or EVTRACE_CONTROL_HOLD_TIMEOUT seconds (default 10) pass.
 * Context: a writer, outside any write (no RCU read section, no lock held:
 * event_locks_held); a futex wait, async-signal-safe; returns at once on the
 * endpoint's own threads.
 */
void ctl_hold_wait(void);

#endif /* EVT_CONTROL_CTL_INTERNAL_H */
