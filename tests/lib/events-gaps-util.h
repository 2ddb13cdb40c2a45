/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/events-gaps-util.h - what events-bitmask, events-vstring and events-fn share:
 * the TRACE_EVENT_FN callbacks counting their calls, and the oracle comparing the event
 * bodies ("name: fields") of an instance's `trace`, of our trace.dat reader and of
 * `trace-cmd report`. Defined in events-gaps-util.c of the test library, which also
 * defines the events: include events-gaps-tp.h without CREATE_TRACE_POINTS.
 */
#ifndef EVT_TESTS_EVENTS_GAPS_UTIL_H
#define EVT_TESTS_EVENTS_GAPS_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

#include "events-util.h"
#include "helpers.h"

/* The calls of gaps_fn_reg() and gaps_fn_unreg(), and what gaps_fn_reg() returns. */
extern int gaps_reg_calls, gaps_unreg_calls, gaps_reg_ret;

/* The definition of event gaps_fn (defined in the library), to unregister and register it. */
struct evt_event_def *gaps_fn_def(void);

/*
 * The oracle: @inst's `trace` bodies equal @expect (sorted by the caller or
 * not: sorted here), then written as trace.dat (which consumes the buffer),
 * our reader's and, when installed, trace-cmd report's.
 */
void gaps_check_all(struct evt_instance *inst, const char *what, const char *const *expect,
		    int nexpect);

#endif /* EVT_TESTS_EVENTS_GAPS_UTIL_H */
