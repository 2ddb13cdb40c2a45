/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/gtsc.h - Generic Trace Setup and Control (shared/seeds/gtsc.txt)
 * on top of relay channels.
 *
 * evt_trace_setup() makes the directory <root>/<name>/ (root NULL:
 * $XDG_RUNTIME_DIR/evtrace) holding the relay files trace0 ... traceN
 * and the control files, small text files another process reads and
 * writes:
 *
 *   state      "setup", "start" or "stop"; write start or stop
 *   dropped    records lost to a full buffer (no-overwrite mode)
 *   rewind     write anything: the next read starts at the oldest data
 *   nr_sub     number of sub-buffers
 *   sub_size   size of a sub-buffer
 *
 * The traced process applies writes to state and rewind (an inotify
 * watch on the directory) and refreshes dropped at its control points:
 * every 64th evt_trace_running(), every sub-buffer switch, and every
 * evt_trace_start()/evt_trace_stop(). No thread is started.
 */
#ifndef EVTRACE_GTSC_H
#define EVTRACE_GTSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/relay.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Overwrite ("flight recorder") mode instead of no-overwrite. */
#define EVT_TRACE_FLIGHT_CHANNEL 0x1u
/* One global buffer instead of one per CPU. */
#define EVT_TRACE_GLOBAL_CHANNEL 0x2u

enum evt_trace_state {
	EVT_TRACE_SETUP = 0,
	EVT_TRACE_RUNNING,
	EVT_TRACE_STOPPED,
};

/*
 * struct evt_trace_info - a GTSC trace. @rchan is the relay channel the
 * data layer writes into (evt_relay_write(), evt_relay_reserve()).
 */
struct evt_trace_info {
	struct evt_rchan *rchan;
	unsigned int flags;
};

int evt_trace_setup(const char *root, const char *name, size_t subbuf_size, size_t n_subbufs,
		    unsigned int flags, struct evt_trace_info **tracep);
int evt_trace_start(struct evt_trace_info *trace);
int evt_trace_stop(struct evt_trace_info *trace);
bool evt_trace_running(struct evt_trace_info *trace);
uint64_t evt_trace_timestamp(void);
uint64_t evt_trace_dropped(struct evt_trace_info *trace);
void evt_trace_cleanup(struct evt_trace_info *trace);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_GTSC_H */
