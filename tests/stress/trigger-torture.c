// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-torture: triggers with counts come and go while writers fire.
 *
 *   - W writer threads, each pinned to a CPU of its own, fire tt_a(w, seq)
 *     and tt_b(w, seq) with sequence numbers, in instance "tt" (both events
 *     enabled); a consumer thread drains the instance's buffer live;
 *   - the control thread (main), in rounds: puts `stacktrace:N [if ...]` on
 *     tt_a and/or tt_b, sometimes `traceon:N` (tracing stays on: it never
 *     changes anything), `enable_event:tt:tt_c:N` (switches tt_c on once) and
 *     `snapshot:N` (swaps the live and snapshot buffers: writers in flight
 *     commit where they reserved; the consumer drains both buffers);
 *     lets the writers run for a random number of events; pauses them (they
 *     acknowledge between two events), reads the counts back and removes
 *     the triggers.
 *
 * Proven, per round and in total:
 *   - counts used exactly: a stacktrace whose count went from N to R made
 *     exactly N - R stack records; traceon:N is still N (it never fired a
 *     change, as the kernel's traceon_count_trigger); enable_event:..:N is
 *     N - 1 (tt_c switched on once) and tt_c is enabled;
 *   - every record accounted for: events fired + stacks made = records read
 *     + losses the consumer was told of (the writers pace themselves on the
 *     consumer, so there are none unless something is wrong); with no loss,
 *     the stack records made by each event's triggers (told apart by their
 *     first frame: each event is fired from a function of its own) are as
 *     many as its counts were used, and each writer's sequence numbers come
 *     without gap or duplicate.
 *
 * Usage: trigger-torture [-d SECONDS]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#include "tracefs-cat.h"
#include "events/event_internal.h"
#include "helpers.h"

#define CREATE_TRACE_POINTS
#include "trigger-torture-tp.h"

#define MAX_WRITERS 4
#define STACK_ID    4 /* ftrace:kernel_stack */

static int nr_writers;
static int cpus[MAX_WRITERS];
static struct evt_instance *tt;
static int stop_writers, stop_consumer, pause_req;
static int paused[MAX_WRITERS];
static uint64_t fired[MAX_WRITERS]; /* events fired (a and b), by the writer */

/* the consumer's findings */
static uint64_t read_events, read_stacks, lost_total, stacks_after[2], bad_stacks;
/* per (buffer, writer, event): the next sequence number at least (they only grow); per
 * (writer, event): how many were read and their sum (0..n-1 once each: n, n(n-1)/2) */
static uint64_t next_seq[2][MAX_WRITERS][2], seq_count[MAX_WRITERS][2], seq_sum[MAX_WRITERS][2];
static struct evt_ring_buffer *bufs[2]; /* the live buffer and the snapshot buffer */
static int seq_errors;
static unsigned int id_a, id_b;
/* Records the consumer has taken (read or told lost): writers stay at most BACKLOG events
 * ahead, so the buffer (4 MiB per CPU) never overflows and the exact checks always apply. */
static uint64_t consumed;
#define BACKLOG 20000

static uint64_t total_fired(void);

/* Each event fired from a function of its own: a stack record's first frame (the
 * caller of trace_tt_x()) says which event's trigger made it. */
__attribute__((noinline)) static void fire_a(unsigned int w, uint64_t seq)
{
	trace_tt_a(w, seq);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void fire_b(unsigned int w, uint64_t seq)
{
	trace_tt_b(w, seq);
	__asm__ volatile("" ::: "memory");
}

static void *writer(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t seq = 0;

	if (t_pin_to_cpu(cpus[w]))
		t_fail("cannot pin writer %d to CPU %d", w, cpus[w]);
	while (!__atomic_load_n(&stop_writers, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&pause_req, __ATOMIC_ACQUIRE)) {
			/* Release: the events fired so far are done (the control thread reads
			 * the counts only after every writer said so). */
			__atomic_store_n(&paused[w], 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&pause_req, __ATOMIC_ACQUIRE))
				sched_yield();
			__atomic_store_n(&paused[w], 0, __ATOMIC_RELEASE);
			continue;
		}
		if (total_fired() > __atomic_load_n(&consumed, __ATOMIC_ACQUIRE) + BACKLOG) {
			sched_yield();
			continue;
		}
		fire_a((unsigned int)w, seq);
		fire_b((unsigned int)w, seq);
		seq++;
		__atomic_store_n(&fired[w], 2 * seq, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Which of fire_a (0), fire_b (1) holds return address @ip; -1: neither (below both). */
static int fire_fn_of(uint64_t ip)
{
	uint64_t a = (uint64_t)(uintptr_t)fire_a, b = (uint64_t)(uintptr_t)fire_b;
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;

	if (ip <= lo)
		return -1;
	/* the function with the highest start below @ip: frames are inside one of them */
	return ip > hi ? (hi == b) : (lo == b);
}

/* One record of buffer @bi. */
static void take(int bi, const void *data, size_t len)
{
	const struct evt_trace_entry *ent = data;

	if (len < sizeof(*ent)) {
		seq_errors++;
		return;
	}
	if (ent->common_type == STACK_ID) {
		int32_t nr = 0;
		uint64_t ip = 0;
		int k;

		read_stacks++;
		if (len >= 24) {
			memcpy(&nr, (const char *)data + 12, 4);
			memcpy(&ip, (const char *)data + 16, 8);
		}
		k = nr > 0 ? fire_fn_of(ip) : -1;
		if (k < 0)
			bad_stacks++;
		else
			stacks_after[k]++;
		return;
	}
	if (ent->common_type == id_a || ent->common_type == id_b) {
		const struct evt_raw_tt_a *r = data;
		int k = ent->common_type == id_b;

		read_events++;
		if (len < sizeof(*r) || r->writer >= (unsigned int)nr_writers) {
			seq_errors++;
			return;
		}
		if (r->seq < next_seq[bi][r->writer][k])
			seq_errors++;
		next_seq[bi][r->writer][k] = r->seq + 1;
		seq_count[r->writer][k]++;
		seq_sum[r->writer][k] += r->seq;
		return;
	}
	seq_errors++;
}

static void drain_one(int bi)
{
	struct evt_ring_buffer *rb = bufs[bi];
	int nr = evt_ring_buffer_nr_cpus(rb);

	for (int c = 0; c < nr; c++) {
		struct evt_ring_buffer_event *e;
		unsigned long lost = 0;

		while ((e = evt_ring_buffer_consume(rb, c, NULL, &lost))) {
			lost_total += lost;
			take(bi, evt_ring_buffer_event_data(e), evt_ring_buffer_event_length(e));
			lost = 0;
		}
		lost_total += lost;
	}
}

/* Both buffers: a snapshot swaps them, and a writer commits where it reserved. */
static void drain(void)
{
	drain_one(0);
	drain_one(1);
	/* Release: nothing to order but the count itself (writers only pace on it). */
	__atomic_store_n(&consumed, read_events + read_stacks + lost_total, __ATOMIC_RELEASE);
}

static void *consumer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop_consumer, __ATOMIC_ACQUIRE)) {
		drain();
		sched_yield();
	}
	drain();
	return NULL;
}

static ssize_t write_file(const char *path, const char *text)
{
	return evt_tracefs_write(tt, path, text, strlen(text), EVT_TRACEFS_APPEND);
}

static uint64_t total_fired(void)
{
	uint64_t n = 0;

	for (int w = 0; w < nr_writers; w++)
		n += __atomic_load_n(&fired[w], __ATOMIC_ACQUIRE);
	return n;
}

static void pause_writers(bool on)
{
	__atomic_store_n(&pause_req, on, __ATOMIC_RELEASE);
	for (int w = 0; on && w < nr_writers; w++)
		while (!__atomic_load_n(&paused[w], __ATOMIC_ACQUIRE))
			sched_yield();
}

/* The count of the `name` trigger in @text (-1: unlimited, -2: not there). */
static long count_of(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	if (!p)
		return -2;
	p = strchr(p, ':');
	while (p && strncmp(p, ":count=", 7) && strncmp(p, ":unlimited", 10))
		p = strchr(p + 1, ':');
	if (!p)
		return -2;
	return !strncmp(p, ":unlimited", 10) ? -1 : strtol(p + 7, NULL, 10);
}

static unsigned int event_id(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "events/tt/%s/id", name);
	return (unsigned int)strtoul(t_tracefs_cat(tt, path), NULL, 10);
}

int main(int argc, char **argv)
{
	static const char *const filters[] = { "", " if writer == 0", " if writer != 1",
					       " if seq > 100" };
	static const char *const trig[2] = { "events/tt/tt_a/trigger", "events/tt/tt_b/trigger" };
	double secs = t_parse_duration(argc, argv, 2.0), end;
	uint64_t expected_stacks[2] = { 0, 0 }, rounds = 0, swaps = 0;
	pthread_t wt[MAX_WRITERS], ct;
	struct t_rand r;
	cpu_set_t set;
	char cmd[128];

	t_rand_init(&r, 0);
	if (sched_getaffinity(0, sizeof(set), &set))
		t_skip("sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE && nr_writers < MAX_WRITERS; c++)
		if (CPU_ISSET(c, &set))
			cpus[nr_writers++] = c;
	T_ASSERT_OK(evt_instance_create("tt", &tt));
	T_ASSERT_OK(evt_instance_resize_kb(tt, -1, 4096));
	T_ASSERT(write_file("events/tt/tt_a/enable", "1\n") == 2);
	T_ASSERT(write_file("events/tt/tt_b/enable", "1\n") == 2);
	/* the snapshot buffer, allocated now, for the snapshot triggers to swap with */
	T_ASSERT(write_file("snapshot", "1\n") == 2);
	bufs[0] = tt->snap_bufs[0];
	bufs[1] = tt->snap_bufs[1];
	T_ASSERT(bufs[0] && bufs[1]);
	T_ASSERT_OK(evt_ring_buffer_reset(bufs[0]));
	T_ASSERT_OK(evt_ring_buffer_reset(bufs[1]));
	id_a = event_id("tt_a");
	id_b = event_id("tt_b");
	T_ASSERT(id_a && id_b && id_a != id_b);

	T_ASSERT_EQ(pthread_create(&ct, NULL, consumer, NULL), 0);
	for (int w = 0; w < nr_writers; w++)
		T_ASSERT_EQ(pthread_create(&wt[w], NULL, writer, (void *)(intptr_t)w), 0);

	end = t_seconds_now() + secs;
	while (t_seconds_now() < end) {
		long n[2] = { -1, -1 }, on = -1, en = -1, sn = -1, got;
		uint64_t until;
		const char *text;

		/* stacktrace:N on tt_a, tt_b or both; traceon:N on tt_b; enable_event on tt_a */
		for (int k = 0; k < 2; k++) {
			if (t_rand_range(&r, 0, 2) == 0 && k == 1 && n[0] < 0)
				continue;
			n[k] = (long)t_rand_range(&r, 1, 40);
			snprintf(cmd, sizeof(cmd), "stacktrace:%ld%s\n", n[k],
				 filters[t_rand_range(&r, 0, 3)]);
			T_ASSERT_EQ(write_file(trig[k], cmd), (ssize_t)strlen(cmd));
		}
		if (t_rand_range(&r, 0, 1)) {
			on = (long)t_rand_range(&r, 1, 9);
			snprintf(cmd, sizeof(cmd), "traceon:%ld\n", on);
			T_ASSERT_EQ(write_file(trig[1], cmd), (ssize_t)strlen(cmd));
		}
		if (t_rand_range(&r, 0, 1)) {
			en = (long)t_rand_range(&r, 1, 9);
			snprintf(cmd, sizeof(cmd), "enable_event:tt:tt_c:%ld\n", en);
			T_ASSERT_EQ(write_file(trig[0], cmd), (ssize_t)strlen(cmd));
		}
		if (t_rand_range(&r, 0, 1)) {
			sn = (long)t_rand_range(&r, 1, 30);
			snprintf(cmd, sizeof(cmd), "snapshot:%ld%s\n", sn,
				 filters[t_rand_range(&r, 0, 3)]);
			T_ASSERT_EQ(write_file(trig[1], cmd), (ssize_t)strlen(cmd));
		}
		/* let them run for some events (not for some time) */
		until = total_fired() + t_rand_range(&r, 2, 4000);
		while (total_fired() < until && t_seconds_now() < end + 10)
			sched_yield();
		pause_writers(true);
		for (int k = 0; k < 2; k++) {
			text = t_tracefs_cat(tt, trig[k]);
			if (n[k] >= 0) {
				got = count_of(text, "stacktrace");
				if (got < 0 || got > n[k])
					t_fail("stacktrace:%ld read back %ld:\n%s", n[k], got, text);
				expected_stacks[k] += (uint64_t)(n[k] - got);
			}
			if (k == 1 && on >= 0 && count_of(text, "traceon") != on)
				t_fail("traceon:%ld used while tracing was on:\n%s", on, text);
			if (k == 0 && en >= 0) {
				got = count_of(text, "enable_event");
				/*
				 * At least one tt_a fired in the round: tt_c switched on, and
				 * then the count stops being used (enabling an enabled event
				 * changes nothing). Exactly once: writers that see tt_c off at
				 * the same time do not each use one (the kernel's
				 * event_enable_count_trigger() has that window; trigger_post()
				 * checks, counts and changes under a per-trigger flag).
				 */
				if (got != en - 1)
					t_fail("enable_event:tt:tt_c:%ld read back %ld:\n%s", en, got,
					       text);
				T_ASSERT(!strcmp(t_tracefs_cat(tt, "events/tt/tt_c/enable"), "1\n") ||
					 !strcmp(t_tracefs_cat(tt, "events/tt/tt_c/enable"), "1*\n"));
			}
		}
		if (n[0] >= 0)
			T_ASSERT_EQ(write_file(trig[0], "!stacktrace\n"), 12);
		if (n[1] >= 0)
			T_ASSERT_EQ(write_file(trig[1], "!stacktrace\n"), 12);
		if (on >= 0)
			T_ASSERT_EQ(write_file(trig[1], "!traceon\n"), 9);
		if (sn >= 0) {
			got = count_of(t_tracefs_cat(tt, trig[1]), "snapshot");
			T_ASSERT(got >= 0 && got <= sn);
			swaps += (uint64_t)(sn - got);
			T_ASSERT_EQ(write_file(trig[1], "!snapshot\n"), 10);
		}
		if (en >= 0) {
			T_ASSERT_EQ(write_file(trig[0], "!enable_event:tt:tt_c\n"), 22);
			T_ASSERT_EQ(write_file("events/tt/tt_c/enable", "0\n"), 2);
		}
		rounds++;
		pause_writers(false);
	}
	__atomic_store_n(&stop_writers, 1, __ATOMIC_RELEASE);
	for (int w = 0; w < nr_writers; w++)
		pthread_join(wt[w], NULL);
	__atomic_store_n(&stop_consumer, 1, __ATOMIC_RELEASE);
	pthread_join(ct, NULL);

	printf("trigger-torture: %d writers, %llu rounds, %llu events, %llu snapshots, %llu stacks "
	       "(%llu from tt_a, %llu from tt_b), %llu lost\n",
	       nr_writers, (unsigned long long)rounds, (unsigned long long)total_fired(),
	       (unsigned long long)swaps,
	       (unsigned long long)read_stacks, (unsigned long long)stacks_after[0],
	       (unsigned long long)stacks_after[1], (unsigned long long)lost_total);
	T_ASSERT_EQ(seq_errors, 0);
	/* every record accounted for */
	T_ASSERT_EQ(total_fired() + expected_stacks[0] + expected_stacks[1],
		    read_events + read_stacks + lost_total);
	if (!lost_total) {
		T_ASSERT_EQ(read_events, total_fired());
		T_ASSERT_EQ(bad_stacks, 0);
		T_ASSERT_EQ(stacks_after[0], expected_stacks[0]);
		T_ASSERT_EQ(stacks_after[1], expected_stacks[1]);
		for (int w = 0; w < nr_writers; w++) {
			uint64_t n = fired[w] / 2;

			for (int k = 0; k < 2; k++) {
				T_ASSERT_EQ(seq_count[w][k], n);
				T_ASSERT_EQ(seq_sum[w][k], n * (n - 1) / 2);
			}
		}
	}
	T_ASSERT_OK(evt_instance_destroy(tt));
	return 0;
}
