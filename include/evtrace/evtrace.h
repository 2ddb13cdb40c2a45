/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/evtrace.h - everything a program that traces itself includes.
 */
#ifndef EVTRACE_EVTRACE_H
#define EVTRACE_EVTRACE_H

#include <evtrace/version.h>
#include <evtrace/error.h>
#include <evtrace/clock.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/relay.h>
#include <evtrace/gtsc.h>
#include <evtrace/tracepipe.h>
#include <evtrace/seq.h>
#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/dynevent.h>
#include <evtrace/synth.h>
#include <evtrace/kprobe.h>
#include <evtrace/tracefs.h>
#include <evtrace/tracedat.h>
#include <evtrace/export.h>
#include <evtrace/control.h>

#endif /* EVTRACE_EVTRACE_H */
