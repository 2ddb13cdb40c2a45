// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * init.c - the one place that starts the library.
 *
 * A lower layer never calls up (DESIGN.md, "Layers"): the layers above the event
 * layer register themselves with the ones below, here, bottom first:
 *   trigger   its commands, its runners as the writer's trigger hooks, and each
 *             event's `trigger` file in the tracing tree
 *   synth     synthetic_events, dynamic_events and kprobe_events in the tree
 *   hist      hist, enable_hist and disable_hist as trigger commands, and each
 *             event's `hist` file
 *   probe     p:/r: lines as a type of dynamic event (kprobe_events, dynamic_events)
 *   control   EVTRACE_CONTROL=1: the endpoint, and its start-up hold as the
 *             writer's hold hook (EVTRACE_CONTROL_HOLD)
 *
 * It runs as the library's constructor, before the program's constructors (which
 * may fire events: the start-up hold must be armed by then, and a recorder that
 * attaches at the hold must find the events they register): libevtrace.so runs it
 * when it is loaded, before the program's; in a static link its priority (101, the
 * first after the toolchain's) puts it before the program's unprioritized ones. A
 * static link pulls this object in with -Wl,--undefined=evtrace_init (CMakeLists.txt,
 * evtrace_static), which would otherwise leave it out: nothing calls it.
 */
#include <pthread.h>

#include "control/ctl_internal.h"
#include "hist/hist.h"
#include "probe/probe.h"
#include "synth/synth.h"
#include "trigger/trigger.h"

/* The priority on the first declaration: gcc ignores it on a later one. */
void evtrace_init(void) __attribute__((constructor(101)));

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void evtrace_init_once(void)
{
	trigger_init();
	/*
	 * The files of the tree fail only by a programming error (a name twice, more than
	 * TFS_REGISTERED_MAX): tests/unit/tracefs-registered sees each one there.
	 */
	(void)trigger_file_register();
	(void)synth_init();
	/* -ENOMEM is all it could fail with: the hist commands are then unknown (-EINVAL) */
	(void)hist_init();
	probe_register();
	/* last: a client may connect as soon as the socket listens */
	ctl_start_from_env();
}

/* The library's start (the constructor; idempotent). */
void evtrace_init(void)
{
	pthread_once(&init_once, evtrace_init_once);
}
