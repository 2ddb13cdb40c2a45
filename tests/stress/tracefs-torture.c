// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-torture: the tracing tree while events fire.
 *
 * Phase 1 (most of -d SECONDS): writer threads fire tort:tort_always and
 * tort:tort_noise (each with the writer's number and a sequence number per
 * event) while a control thread writes, at random, set_event in every form
 * (leaving tort_always on), the enable files, filters on tort_noise (good
 * and rejected ones, and the subsystem's), buffer_size_kb, tracing_on,
 * set_event_pid, trace_marker, and reads every other file; and a reader
 * drains trace_pipe. Proven: every control write gives a count or the errno
 * expected for it; every line read parses; no record is read twice.
 *
 * Phase 2: the controls stop with tracing on and tort_always alone enabled;
 * each writer fires N more events; the reader must account for every one:
 * read + lost (the "[LOST n EVENTS]" lines) = written, exactly.
 *
 * Usage: tracefs-torture [-d SECONDS]
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#include "helpers.h"
#include "pipe-lines.h"

#define CREATE_TRACE_POINTS
#include "tracefs-torture-tp.h"

#define WRITERS		3
#define PHASE2_EVENTS	20000
#define SEEN_MAX	(1u << 24)

/* 1 chaos, 2 writers park, 3 drain, 4 exact count, 5 done */
static atomic_int phase;
static atomic_uint fired[WRITERS];	/* events fired so far, per writer */
static atomic_int parked;		/* writers waiting for phase 4 */
static atomic_int drained;		/* the reader found trace_pipe empty in phase 3 */
static uint8_t *seen[WRITERS];		/* reader only: seq read (always events) */

static unsigned long long read_always, read_noise, read_other, lost, p2_read, p2_lost;
static atomic_int failures;

#define FAIL(...)							\
	do {								\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		atomic_fetch_add(&failures, 1);				\
	} while (0)

static void *writer(void *arg)
{
	int w = (int)(long)arg;
	unsigned int seq = 0;

	while (atomic_load(&phase) < 2) {
		trace_tort_always(w, seq);
		trace_tort_noise(w, seq, (int)(seq & 1023));
		seq++;
		atomic_store(&fired[w], seq);
		if ((seq & 255) == 0)
			sched_yield();
	}
	atomic_fetch_add(&parked, 1);
	while (atomic_load(&phase) < 4)
		usleep(100);
	for (unsigned int i = 0; i < PHASE2_EVENTS; i++)
		trace_tort_always(w, 0x80000000u | i);
	return NULL;
}

/* one line of trace_pipe */
static void parse_line(const char *line)
{
	unsigned long long n;
	unsigned int seq;
	const char *p;
	int w, cpu;

	if (sscanf(line, "CPU:%d [LOST %llu EVENTS]", &cpu, &n) == 2) {
		lost += n;
		if (atomic_load(&phase) >= 4)
			p2_lost += n;
		return;
	}
	p = strstr(line, ": tort_always: w=");
	if (p && sscanf(p, ": tort_always: w=%d seq=%u", &w, &seq) == 2) {
		if (w < 0 || w >= WRITERS) {
			FAIL("bad writer in: %s", line);
			return;
		}
		if (seq & 0x80000000u) {
			p2_read++;
			return;
		}
		read_always++;
		if (seq < SEEN_MAX) {
			if (seen[w][seq])
				FAIL("read twice: %s", line);
			seen[w][seq] = 1;
		}
		return;
	}
	p = strstr(line, ": tort_noise: w=");
	if (p && sscanf(p, ": tort_noise: w=%d seq=%u", &w, &seq) == 2) {
		read_noise++;
		return;
	}
	if (strstr(line, "tracing_mark_write: ")) {
		read_other++;
		return;
	}
	FAIL("unparsed line: %s", line);
}

/* trace_pipe is empty: tell the main thread the phase is drained; stop in phase 5 */
static bool pipe_empty(void)
{
	int ph = atomic_load(&phase);

	if (ph == 3)
		atomic_store(&drained, 1);
	return ph == 5;
}

static void *reader(void *arg)
{
	int ret;

	(void)arg;
	ret = t_pipe_lines(pipe_empty, parse_line);
	if (ret)
		FAIL("trace_pipe: %d", ret);
	return NULL;
}

static void expect(const char *path, const char *text, unsigned int flags, int want_err)
{
	ssize_t n = evt_tracefs_write(NULL, path, text, strlen(text), flags);

	if (want_err ? n != want_err : n != (ssize_t)strlen(text))
		FAIL("echo '%s' %s %s: %zd, want %d", text, flags & EVT_TRACEFS_TRUNC ? ">" : ">>",
		     path, n, want_err ? want_err : (int)strlen(text));
}

/*
 * As the shell's echo: set_event takes one word per write(2), as the kernel's does, and
 * the rest of the line goes in the next write (appending).
 */
static void expect_echo(const char *path, const char *text, unsigned int flags)
{
	size_t len = strlen(text), off = 0;

	while (off < len) {
		ssize_t n = evt_tracefs_write(NULL, path, text + off, len - off,
					      off ? EVT_TRACEFS_APPEND : flags);

		if (n <= 0) {
			FAIL("echo '%s' > %s: %zd at byte %zu", text, path, n, off);
			return;
		}
		off += (size_t)n;
	}
}

static void readall(const char *path)
{
	static char buf[1 << 16];
	struct evt_tracefs_file *f;
	ssize_t n;

	if (evt_tracefs_open(NULL, path, EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK, &f)) {
		FAIL("open %s", path);
		return;
	}
	while ((n = evt_tracefs_file_read(f, buf, sizeof(buf))) > 0)
		;
	evt_tracefs_close(f);
}

static void control_step(struct t_rand *r)
{
	static const char *const reads[] = {
		"set_event", "available_events", "events/enable", "events/tort/enable",
		"events/tort/tort_noise/filter", "events/tort/filter", "buffer_size_kb",
		"buffer_total_size_kb", "per_cpu/cpu0/stats", "trace_clock", "error_log",
		"set_event_pid", "saved_cmdlines", "events/tort/tort_always/format", "trace",
	};
	char text[64];

	switch (t_rand_range(r, 0, 11)) {
	case 0:
		expect("set_event", "tort:tort_noise", EVT_TRACEFS_APPEND, 0);
		break;
	case 1:
		expect("set_event", "!tort:tort_noise", EVT_TRACEFS_APPEND, 0);
		break;
	case 2:
		expect_echo("set_event", "tort:* !tort_noise", EVT_TRACEFS_TRUNC);
		break;
	case 3:
		expect("events/tort/tort_noise/enable", t_rand_range(r, 0, 1) ? "1" : "0",
		       EVT_TRACEFS_TRUNC, 0);
		break;
	case 4:
		snprintf(text, sizeof(text), "value < %u", (unsigned int)t_rand_range(r, 0, 1024));
		expect("events/tort/tort_noise/filter", text, EVT_TRACEFS_TRUNC, 0);
		break;
	case 5:
		expect("events/tort/tort_noise/filter", "value < ", EVT_TRACEFS_TRUNC, -EINVAL);
		expect("events/tort/tort_noise/filter", "0", EVT_TRACEFS_TRUNC, 0);
		break;
	case 6:
		/* tort_always has no "value": it keeps no filter, tort_noise takes it */
		expect("events/tort/filter", "value != 7", EVT_TRACEFS_TRUNC, 0);
		break;
	case 7:
		snprintf(text, sizeof(text), "%u", (unsigned int)t_rand_range(r, 8, 256));
		expect("buffer_size_kb", text, EVT_TRACEFS_TRUNC, 0);
		break;
	case 8:
		expect("tracing_on", "0", EVT_TRACEFS_TRUNC, 0);
		expect("tracing_on", "1", EVT_TRACEFS_TRUNC, 0);
		break;
	case 9:
		expect("trace_marker", "marker", EVT_TRACEFS_TRUNC, 0);
		break;
	case 10:
		expect("set_event", "nosuch:event", EVT_TRACEFS_APPEND, -EINVAL);
		break;
	case 11:
		readall(reads[t_rand_range(r, 0, sizeof(reads) / sizeof(reads[0]) - 1)]);
		break;
	}
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 3), end;
	pthread_t wt[WRITERS], rt;
	unsigned long long total = 0;
	struct t_rand r;

	t_rand_init(&r, 0);
	for (int w = 0; w < WRITERS; w++) {
		seen[w] = calloc(SEEN_MAX, 1);
		if (!seen[w])
			t_skip("no memory");
	}
	expect("set_event", "", EVT_TRACEFS_TRUNC, 0);
	expect("buffer_size_kb", "256", EVT_TRACEFS_TRUNC, 0);
	expect("set_event", "tort:tort_always", EVT_TRACEFS_APPEND, 0);
	if (pthread_create(&rt, NULL, reader, NULL))
		t_fail("pthread_create");
	for (long w = 0; w < WRITERS; w++)
		if (pthread_create(&wt[w], NULL, writer, (void *)w))
			t_fail("pthread_create");

	atomic_store(&phase, 1);
	end = t_seconds_now() + secs;
	while (t_seconds_now() < end)
		control_step(&r);

	/* writers park; tracing on, tort_always alone, a big buffer; drain; phase 2 */
	atomic_store(&phase, 2);
	while (atomic_load(&parked) < WRITERS)
		usleep(100);
	expect("tracing_on", "1", EVT_TRACEFS_TRUNC, 0);
	expect("set_event", "tort:tort_always", EVT_TRACEFS_TRUNC, 0);
	expect("buffer_size_kb", "1024", EVT_TRACEFS_TRUNC, 0);
	atomic_store(&phase, 3);
	while (!atomic_load(&drained))
		usleep(100);
	atomic_store(&phase, 4);
	for (int w = 0; w < WRITERS; w++)
		pthread_join(wt[w], NULL);
	atomic_store(&phase, 5);
	pthread_join(rt, NULL);

	for (int w = 0; w < WRITERS; w++)
		total += atomic_load(&fired[w]);
	printf("phase 1: %llu fired per kind; read always %llu, noise %llu, markers %llu, "
	       "lost %llu\n", total, read_always, read_noise, read_other, lost - p2_lost);
	printf("phase 2: written %d, read %llu, lost %llu\n", WRITERS * PHASE2_EVENTS, p2_read,
	       p2_lost);
	if (read_always > total)
		FAIL("more always events read (%llu) than fired (%llu)", read_always, total);
	if (p2_read + p2_lost != (unsigned long long)WRITERS * PHASE2_EVENTS)
		FAIL("phase 2: read %llu + lost %llu != written %d", p2_read, p2_lost,
		     WRITERS * PHASE2_EVENTS);
	expect("set_event", "", EVT_TRACEFS_TRUNC, 0);
	expect("events/tort/filter", "0", EVT_TRACEFS_TRUNC, 0);
	for (int w = 0; w < WRITERS; w++)
		free(seen[w]);
	if (failures)
		t_fail("%d failures", failures);
	return T_PASS;
}
