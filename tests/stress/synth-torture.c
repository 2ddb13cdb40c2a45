// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth-torture: synthetic events traced by several threads (the hist hook
 * synth_event_trace_vals(), evt_synth_event_trace() and piecewise, on held files) while a
 * control thread enables and disables them in the top instance and in a named one, sets and
 * clears filters, creates and deletes other synthetic events through both files, tries to
 * delete the busy ones (-EBUSY), reads the listings and formats; a reader drains trace_pipe.
 *
 * Phase 1 (-d SECONDS): every line read parses as one of the two events with its exact text.
 * Phase 2: the controls stop, st_a alone on in the top instance; each writer traces N more
 * through the hook; read + lost = written, exactly.
 *
 * Phases: 1 chaos, 2 writers park, 3 drain, 4 counted writes, 6 counted drain, 5 done.
 *
 * Usage: synth-torture [-d SECONDS]
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#include "helpers.h"
#include "pipe-lines.h"
#include "synth/synth.h"

#define WRITERS	      3
#define PHASE2_EVENTS 5000

static atomic_int phase;
static atomic_int parked;
static atomic_int drained;
static atomic_int failures;
static struct synth_event *se_a;
static struct evt_event_file *file_b;
static unsigned long long p2_read, p2_lost;

#define FAIL(...)                               \
	do {                                    \
		fprintf(stderr, __VA_ARGS__);   \
		fputc('\n', stderr);            \
		atomic_fetch_add(&failures, 1); \
	} while (0)

#define U(p) ((uint64_t)(uintptr_t)(p))

static void *writer(void *arg)
{
	unsigned int w = (unsigned int)(long)arg;
	unsigned long long seq = 0;

	while (atomic_load(&phase) == 1) {
		uint64_t vals[3] = { w, seq, U("dynamic string") };
		struct evt_synth_event_trace_state st;
		int ret;

		if (synth_event_trace_vals(se_a, vals, 3))
			FAIL("trace_vals");
		ret = evt_synth_event_trace(file_b, 3, (uint64_t)w, (uint64_t)seq, U("abc"));
		if (ret)
			FAIL("evt_synth_event_trace: %d", ret);
		ret = evt_synth_event_trace_start(file_b, &st);
		if (!ret)
			ret = evt_synth_event_add_val("c", U("abc"), &st);
		if (!ret)
			ret = evt_synth_event_add_val("seq", seq, &st);
		if (!ret)
			ret = evt_synth_event_add_val("w", w, &st);
		if (ret)
			FAIL("piecewise: %d", ret);
		evt_synth_event_trace_end(&st);
		seq++;
	}
	atomic_fetch_add(&parked, 1);
	while (atomic_load(&phase) < 4)
		usleep(100);
	for (unsigned int i = 0; i < PHASE2_EVENTS; i++) {
		uint64_t vals[3] = { w, i, U("dynamic string") };

		synth_event_trace_vals(se_a, vals, 3);
	}
	atomic_fetch_add(&parked, -1);
	return NULL;
}

static void parse_line(const char *line)
{
	const char *p = strstr(line, ": st_");
	unsigned long long seq, n;
	unsigned int w;
	int cpu, end = 0;

	int ph = atomic_load(&phase);

	if (sscanf(line, "CPU:%d [LOST %llu EVENTS]", &cpu, &n) == 2) {
		if (ph == 4 || ph == 6)
			p2_lost += n;
		return;
	}
	if (!p) {
		FAIL("line: %s", line);
		return;
	}
	if (sscanf(p, ": st_a: w=%u seq=%llu s=dynamic string%n", &w, &seq, &end) == 2 && !p[end] &&
	    w < WRITERS) {
		if (ph == 4 || ph == 6)
			p2_read++;
		return;
	}
	if (sscanf(p, ": st_b: w=%u seq=%llu c=abc%n", &w, &seq, &end) == 2 && !p[end] &&
	    w < WRITERS)
		return;
	FAIL("bad record: %s", line);
}

/* trace_pipe is empty: tell the main thread the phase is drained; stop in phase 5 */
static bool pipe_empty(void)
{
	int ph = atomic_load(&phase);

	if (ph == 3 || ph == 6)
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

static void put(const char *path, const char *text, unsigned int flags, long want)
{
	long n = evt_tracefs_write(NULL, path, text, strlen(text), flags);

	if (n != want && !(want == 0 && n == (long)strlen(text)))
		FAIL("echo '%s' > %s: %ld, want %ld", text, path, n, want);
}

static void control_once(unsigned int r, unsigned int *tmp)
{
	static const char *const enables[] = {
		"events/synthetic/st_a/enable",
		"events/synthetic/st_b/enable",
		"instances/synthtort/events/synthetic/st_a/enable",
		"instances/synthtort/events/synthetic/st_b/enable",
	};
	char cmd[128];

	switch (r % 8) {
	case 0:
	case 1:
		put(enables[(r >> 3) % 4], (r >> 5) & 1 ? "1" : "0", EVT_TRACEFS_TRUNC, 0);
		break;
	case 2:
		put("events/synthetic/st_a/filter", (r >> 3) & 1 ? "seq > 3 && w < 9" : "0",
		    EVT_TRACEFS_TRUNC, 0);
		break;
	case 3:
		snprintf(cmd, sizeof(cmd), "st_tmp%u u64 x; char y[%u]; char z[]\n", *tmp,
			 1 + r % 200);
		put("synthetic_events", cmd, EVT_TRACEFS_APPEND, 0);
		snprintf(cmd, sizeof(cmd), "events/synthetic/st_tmp%u/enable", *tmp);
		put(cmd, "1", EVT_TRACEFS_TRUNC, 0);
		put(cmd, "0", EVT_TRACEFS_TRUNC, 0);
		snprintf(cmd, sizeof(cmd), (r >> 3) & 1 ? "!st_tmp%u\n" : "-:st_tmp%u\n", *tmp);
		put((r >> 3) & 1 ? "synthetic_events" : "dynamic_events", cmd, EVT_TRACEFS_APPEND,
		    0);
		(*tmp)++;
		break;
	case 4:
		put("synthetic_events", "!st_a\n", EVT_TRACEFS_APPEND, -EBUSY);
		put("dynamic_events", "-:st_b\n", EVT_TRACEFS_APPEND, -EBUSY);
		break;
	case 5: {
		char buf[8192];
		long n = evt_tracefs_read(NULL, "synthetic_events", buf, sizeof(buf) - 1, 0);

		buf[n > 0 ? n : 0] = '\0';
		if (!strstr(buf, "st_a\tu32 w; u64 seq; char[] s\n"))
			FAIL("listing: %s", buf);
		break;
	}
	default: {
		char buf[4096];

		if (evt_tracefs_read(NULL, "events/synthetic/st_b/format", buf, sizeof(buf), 0) <=
		    0)
			FAIL("format");
		break;
	}
	}
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 3), end;
	pthread_t wt[WRITERS], rt;
	unsigned int tmp = 0;
	struct t_rand rnd;
	unsigned long long want;

	T_ASSERT_OK(evt_tracefs_write(
		NULL, "synthetic_events",
		"st_a u32 w; u64 seq; char s[]\nst_b u32 w; u64 seq; char c[16]\n", 61,
		EVT_TRACEFS_APPEND));
	T_ASSERT_OK(evt_tracefs_mkdir(NULL, "instances/synthtort"));
	se_a = synth_event_find("st_a");
	T_ASSERT(se_a);
	T_ASSERT_OK(evt_trace_get_event_file(NULL, "synthetic", "st_b", &file_b));
	t_rand_init(&rnd, 0);
	atomic_store(&phase, 1);
	T_ASSERT_EQ(pthread_create(&rt, NULL, reader, NULL), 0);
	for (long w = 0; w < WRITERS; w++)
		T_ASSERT_EQ(pthread_create(&wt[w], NULL, writer, (void *)w), 0);
	end = t_seconds_now() + secs;
	while (t_seconds_now() < end)
		control_once((unsigned int)t_rand_next(&rnd), &tmp);

	/* phase 2: st_a alone, in the top instance, no filter */
	atomic_store(&phase, 2);
	while (atomic_load(&parked) < WRITERS)
		usleep(100);
	put("events/synthetic/st_a/filter", "0", EVT_TRACEFS_TRUNC, 0);
	put("events/synthetic/st_b/enable", "0", EVT_TRACEFS_TRUNC, 0);
	put("instances/synthtort/events/synthetic/st_a/enable", "0", EVT_TRACEFS_TRUNC, 0);
	put("instances/synthtort/events/synthetic/st_b/enable", "0", EVT_TRACEFS_TRUNC, 0);
	put("events/synthetic/st_a/enable", "1", EVT_TRACEFS_TRUNC, 0);
	atomic_store(&drained, 0);
	atomic_store(&phase, 3);
	while (!atomic_load(&drained))
		usleep(100);
	atomic_store(&phase, 4);
	while (atomic_load(&parked) > 0)
		usleep(100);
	for (long w = 0; w < WRITERS; w++)
		pthread_join(wt[w], NULL);
	atomic_store(&drained, 0);
	atomic_store(&phase, 6);
	while (!atomic_load(&drained))
		usleep(100);
	atomic_store(&phase, 5);
	pthread_join(rt, NULL);
	want = (unsigned long long)WRITERS * PHASE2_EVENTS;
	printf("phase 2: read %llu + lost %llu, written %llu; %u temporary events\n", p2_read,
	       p2_lost, want, tmp);
	if (p2_read + p2_lost != want)
		FAIL("phase 2: read %llu + lost %llu != %llu", p2_read, p2_lost, want);

	put("events/synthetic/st_a/enable", "0", EVT_TRACEFS_TRUNC, 0);
	synth_event_put(se_a);
	evt_trace_put_event_file(file_b);
	T_ASSERT_OK(evt_tracefs_rmdir(NULL, "instances/synthtort"));
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "", 0, EVT_TRACEFS_TRUNC), 0);
	return atomic_load(&failures) ? T_FAIL : T_PASS;
}
