// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the tracing tree takes any write (tracefs-fuzz.h has the
 * input's format), on the real event layer: events of this program named as
 * the fake backend's (tracefs-core-tp.h), instances, filters published with
 * RCU, the trace iterator. The seeds are tracefs-write's.
 */
#include <stdio.h>

#include <evtrace/evtrace.h>

#include "fuzz/tracefs-fuzz.h"

#define CREATE_TRACE_POINTS
#include "tracefs-core-tp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fire(int value)
{
	trace_sched_switch("fuzz", value, value + 1);
	trace_sched_wakeup("fuzz", value);
	trace_irq_handler_entry(value, value & 1 ? "eth0" : "");
	trace_softirq_entry((unsigned int)value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool once;

	if (!once) {
		evt_tracefs_write(NULL, "buffer_size_kb", "8", 1, EVT_TRACEFS_TRUNC);
		once = true;
	}
	fuzz_commands(data, size);
	return 0;
}
