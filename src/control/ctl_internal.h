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

#endif /* EVT_CONTROL_CTL_INTERNAL_H */
