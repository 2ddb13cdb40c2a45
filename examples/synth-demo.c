// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth-demo: synthetic events (events.rst 7.1, 7.2), defined and traced from the program
 * itself, as a kernel module does with the in-kernel API:
 *
 *   - "schedtest" created with the gen_cmd calls, "latency" with one line written to
 *     synthetic_events (what `echo 'latency u64 lat_ns; char op[]' >> synthetic_events` does);
 *   - both enabled, traced all at once, from an array and piecewise;
 *   - the trace printed, then everything removed.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#define U(p) ((uint64_t)(uintptr_t)(p))

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* cat @path: a file is read until it gives 0 (trace streams its text) */
static void cat(const char *path)
{
	struct evt_tracefs_file *f;
	char chunk[4096];
	ssize_t n;

	printf("# cat %s\n", path);
	if (evt_tracefs_open(NULL, path, EVT_TRACEFS_READ, &f))
		return;
	while ((n = evt_tracefs_file_read(f, chunk, sizeof(chunk))) > 0)
		fwrite(chunk, 1, (size_t)n, stdout);
	evt_tracefs_close(f);
}

int main(void)
{
	const char *def = "latency u64 lat_ns; char op[]\n";
	struct evt_synth_event_trace_state st;
	struct evt_event_file *sched, *lat;
	char buf[EVT_MAX_DYNEVENT_CMD_LEN];
	struct evt_dynevent_cmd cmd;
	uint64_t vals[3], t0;
	int ret;

	/* 7.1: step by step */
	evt_synth_event_cmd_init(&cmd, buf, sizeof(buf));
	ret = evt_synth_event_gen_cmd_start(&cmd, "schedtest", "pid_t", "next_pid_field",
					    "char[16]", "next_comm_field");
	if (!ret)
		ret = evt_synth_event_add_field(&cmd, "u64", "ts_ns");
	if (!ret)
		ret = evt_synth_event_gen_cmd_end(&cmd);
	/* the file, as a shell would */
	if (!ret &&
	    evt_tracefs_write(NULL, "synthetic_events", def, strlen(def), EVT_TRACEFS_APPEND) < 0)
		ret = -1;
	if (ret) {
		fprintf(stderr, "synth-demo: creating the events: %d\n", ret);
		return 1;
	}
	cat("synthetic_events");
	cat("events/synthetic/latency/format");

	/* 7.2: hold them, enable them, trace them */
	if (evt_trace_get_event_file(NULL, "synthetic", "schedtest", &sched) ||
	    evt_trace_get_event_file(NULL, "synthetic", "latency", &lat))
		return 1;
	evt_trace_array_set_clr_event(NULL, "synthetic", "schedtest", true);
	evt_trace_array_set_clr_event(NULL, "synthetic", "latency", true);

	t0 = now_ns();
	evt_synth_event_trace(sched, 3, (uint64_t)444, U("clackers"), now_ns());
	vals[0] = 777;
	vals[1] = U("tiddlywinks");
	vals[2] = now_ns();
	evt_synth_event_trace_array(sched, vals, 3);
	if (!evt_synth_event_trace_start(sched, &st)) {
		evt_synth_event_add_val("ts_ns", now_ns(), &st);
		evt_synth_event_add_val("next_comm_field", U("slinky"), &st);
		evt_synth_event_add_val("next_pid_field", 778, &st);
	}
	evt_synth_event_trace_end(&st); /* always */
	evt_synth_event_trace(lat, 2, now_ns() - t0, U("three schedtest events"));

	cat("trace");

	/* remove: disable, put, delete */
	evt_trace_array_set_clr_event(NULL, "synthetic", "schedtest", false);
	evt_trace_array_set_clr_event(NULL, "synthetic", "latency", false);
	evt_trace_put_event_file(sched);
	evt_trace_put_event_file(lat);
	ret = evt_synth_event_delete("schedtest");
	if (!ret)
		ret = evt_synth_event_delete("latency");
	return ret ? 1 : 0;
}
