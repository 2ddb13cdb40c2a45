/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs-fuzz.h - the command interpreter both tracefs fuzz targets share
 * (tracefs-write: the tree on the fake backend; tracefs-core: on the real
 * event layer). The input is a list of commands, each
 *
 *   u8 op | u8 path (< 224: one of paths[]; else a length, then that many
 *   bytes of path) | u16 len (little endian) | len bytes of data
 *
 * op % 8: 0 write '>', 1 write '>>', 2 write with no flag, 3 read at an
 * offset, 4 mkdir, 5 rmdir, 6 readdir, 7 a huge write (the data repeated
 * past 1 MiB) and events fired (fuzz_fire(), from the target). Every call
 * must return a count or a clean negative errno, never crash or hang.
 */
#ifndef EVT_TESTS_TRACEFS_FUZZ_H
#define EVT_TESTS_TRACEFS_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/tracefs.h>

static void fuzz_fire(int value);

static const char *const paths[] = {
	"set_event", "set_event_pid", "available_events", "events/enable",
	"events/sched/enable", "events/sched/filter", "events/sched/sched_switch/enable",
	"events/sched/sched_switch/filter", "events/sched/sched_wakeup/filter",
	"events/irq/irq_handler_entry/filter", "events/sched/sched_switch/format",
	"events/sched/sched_switch/id", "events/sched/sched_switch/trigger", "tracing_on",
	"trace", "trace_pipe", "per_cpu/cpu0/trace", "per_cpu/cpu0/trace_pipe",
	"per_cpu/cpu0/trace_pipe_raw", "per_cpu/cpu0/stats", "per_cpu/cpu0/buffer_size_kb",
	"buffer_size_kb", "buffer_total_size_kb", "trace_clock", "trace_marker",
	"saved_cmdlines", "error_log", "instances", "instances/a", "instances/a/set_event",
	"instances/a/events/sched/sched_switch/filter", "instances/a/trace", "/", "events",
};
#define NR_PATHS (sizeof(paths) / sizeof(paths[0]))

static int ignore(void *arg, const char *name, unsigned int mode)
{
	(void)arg;
	(void)mode;
	return name[0] == '\0';	/* never: names are not empty */
}

static void run(uint8_t op, const char *path, const uint8_t *d, size_t len)
{
	static char buf[1 << 16];
	static char huge[(1 << 20) + 4096];
	unsigned int flags[] = { EVT_TRACEFS_TRUNC, EVT_TRACEFS_APPEND, 0 };
	char name[520];
	ssize_t r = 0;

	switch (op % 8) {
	case 0:
	case 1:
	case 2:
		r = evt_tracefs_write(NULL, path, d, len, flags[op % 8]);
		break;
	case 3:
		r = evt_tracefs_read(NULL, path, buf, sizeof(buf), len ? d[0] * 7u : 0);
		break;
	case 4:
	case 5:
		snprintf(name, sizeof(name), "%s/%.*s", path, (int)(len > 200 ? 200 : len),
			 (const char *)d);
		r = op % 8 == 4 ? evt_tracefs_mkdir(NULL, name) : evt_tracefs_rmdir(NULL, name);
		break;
	case 6:
		r = evt_tracefs_readdir(NULL, path, ignore, NULL);
		break;
	case 7:
		for (size_t i = 0; len && i < sizeof(huge); i++)
			huge[i] = (char)d[i % len];
		r = evt_tracefs_write(NULL, path, huge, sizeof(huge), EVT_TRACEFS_APPEND);
		fuzz_fire(len ? d[0] : 0);
		break;
	}
	if (r > 0 && (op % 8) < 3 && (size_t)r > len)
		abort();	/* a write never claims more than it was given */
	if (r < 0 && r < -4095)
		abort();	/* errors are errno values */
}

static void fuzz_commands(const uint8_t *data, size_t size)
{
	char path[300];
	size_t pos = 0;

	while (pos + 4 <= size) {
		uint8_t op = data[pos], sel = data[pos + 1];
		size_t len;

		pos += 2;
		if (sel < 224) {
			snprintf(path, sizeof(path), "%s", paths[sel % NR_PATHS]);
		} else {
			size_t n = data[pos++];

			if (pos + n > size)
				n = size - pos;
			memcpy(path, data + pos, n > 299 ? 299 : n);
			path[n > 299 ? 299 : n] = '\0';
			pos += n;
		}
		if (pos + 2 > size)
			break;
		len = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
		pos += 2;
		if (len > size - pos)
			len = size - pos;
		run(op, path, data + pos, len);
		pos += len;
	}
}

#endif /* EVT_TESTS_TRACEFS_FUZZ_H */
