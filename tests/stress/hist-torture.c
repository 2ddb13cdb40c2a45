// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist-torture: hist triggers under writer threads.
 *
 *   - exact round: W threads fire kmalloc(call_site = i % 64, bytes_req = 3)
 *     N times each into `hist:keys=call_site:vals=bytes_req`; the hist file
 *     then shows exactly 64 entries, Hits = W * N, Dropped 0, and every
 *     entry's bytes_req = 3 * its hitcount, the hitcounts summing to Hits;
 *   - churn: for -d seconds the threads keep firing while the main thread
 *     pauses, continues and clears that trigger, adds and removes a second
 *     one with a compound key and a filter and a named pair on two events,
 *     and an inter-event pair: string variables on sched_wakeup read by a
 *     sched_switch histogram whose onmatch() traces a synthetic event with
 *     them and with a field of sched_wakeup (a field variable histogram made
 *     and removed with it); every hist file read stays consistent (Hits = the
 *     sum of the shown hitcounts, bytes_req = 3 * hitcount per entry).
 *
 * Usage: hist-torture [-d SECONDS] [-w WRITERS]
 */
#include <pthread.h>
#include <stdlib.h>

#include "hist-util.h"

#define CREATE_TRACE_POINTS
#include "../unit/hist-tp.h"

#define MAX_W	8
#define N_EXACT 50000

static int nr_writers = 4;
static volatile int stop;
static pthread_barrier_t go;
static unsigned long long fired;

static void *writer(void *arg)
{
	unsigned long me = (unsigned long)(uintptr_t)arg;

	pthread_barrier_wait(&go);
	for (unsigned long i = 0; i < N_EXACT; i++)
		trace_kmalloc(i % 64, me, 3, 8, 0);
	pthread_barrier_wait(&go); /* the exact round is checked */
	pthread_barrier_wait(&go);
	unsigned long i;

	for (i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++) {
		trace_kmalloc(i % 64, me, 3, 8, 0);
		if (!(i & 15))
			trace_netif_rx(i % 7, 1);
		if (!(i & 7)) {
			int pid = (int)(i % 16);

			trace_sched_wakeup(i & 8 ? "a-long-thread-nam" : "w", pid, (int)me, i);
			trace_sched_switch("p", 0, i & 16 ? "n" : "next-thread-name", pid, 1,
					   i + me);
		}
	}
	__atomic_add_fetch(&fired, i, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * Every table of @text: Hits = the sum of the hitcounts shown; with @exact
 * (no writer running) also bytes_req = 3 * hitcount (a reader may see an
 * entry's hitcount and bytes_req between a writer's two adds).
 */
static unsigned long long check_text(const char *text, unsigned long long *entries, bool exact)
{
	unsigned long long hits_total = 0;
	const char *p = text;

	*entries = 0;
	while ((p = strstr(p, "# event histogram\n"))) {
		const char *end = strstr(p, "\nTotals:\n");
		unsigned long long sum = 0, hits, n = 0, drops;

		T_ASSERT(end != NULL);
		for (const char *l = strchr(p, '{'); l && l < end; l = strchr(l + 1, '{')) {
			unsigned long long hc, br;
			const char *h = strstr(l, "hitcount:");

			T_ASSERT(h && sscanf(h, "hitcount: %llu", &hc) == 1);
			sum += hc;
			n++;
			if (exact && strstr(l, "bytes_req:") &&
			    strstr(l, "bytes_req:") < strchr(l, '\n')) {
				T_ASSERT(sscanf(strstr(l, "bytes_req:"), "bytes_req: %llu", &br) ==
					 1);
				T_ASSERT_EQ(br, 3 * hc);
			}
		}
		T_ASSERT(sscanf(end,
				"\nTotals:\n    Hits: %llu\n    Entries: %*u\n    Dropped: %llu",
				&hits, &drops) == 2);
		T_ASSERT_EQ(hits, sum);
		hits_total += hits;
		*entries += n;
		p = end;
	}
	return hits_total;
}

#define WAKEUP	 "events/hist_test/sched_wakeup/"
#define SWITCH	 "events/hist_test/sched_switch/"
#define WAKEUP_H "hist:keys=pid:ts0=ts,wc=comm,who=common_pid.execname"
#define SWITCH_H                                                                       \
	"hist:keys=next_pid:lat=ts-$ts0,nc=next_comm:onmatch(hist_test.sched_wakeup)." \
	"tort_lat($lat,next_pid,$wc,$who,prio,$nc)"

static void cmd(const char *c, const char *path)
{
	char buf[300];
	ssize_t r;

	snprintf(buf, sizeof(buf), "%s\n", c);
	r = echo(buf, path);
	if (r != (ssize_t)strlen(buf))
		t_fail("'%s' > %s: %zd", c, path, r);
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 2), end;
	unsigned long long entries, hits;
	pthread_t th[MAX_W];
	unsigned long long switch_hits = 0;
	int round = 0;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-w"))
			nr_writers = atoi(argv[i + 1]);
	if (nr_writers < 1 || nr_writers > MAX_W)
		nr_writers = 4;
	pthread_barrier_init(&go, NULL, (unsigned int)nr_writers + 1);
	cmd("tort_lat u64 lat; int pid; char wc[16]; char who[]; int prio; char nc[]",
	    "synthetic_events");
	cmd("1", "events/synthetic/tort_lat/enable");
	cmd("hist:keys=call_site:vals=bytes_req", KMALLOC "trigger");
	for (int i = 0; i < nr_writers; i++)
		T_ASSERT(!pthread_create(&th[i], NULL, writer, (void *)(uintptr_t)i));
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&go);
	hits = check_text(cat(KMALLOC "hist"), &entries, true);
	T_ASSERT_EQ(hits, (unsigned long long)nr_writers * N_EXACT);
	T_ASSERT_EQ(entries, 64);
	T_ASSERT(strstr(cat(KMALLOC "hist"), "Dropped: 0\n"));
	pthread_barrier_wait(&go);

	end = t_seconds_now() + secs;
	while (t_seconds_now() < end) {
		switch (round++ % 6) {
		case 0:
			cmd("hist:keys=call_site:vals=bytes_req:pause", KMALLOC "trigger");
			break;
		case 1:
			cmd("hist:keys=call_site:vals=bytes_req:cont", KMALLOC "trigger");
			cmd("hist:keys=call_site,ptr:vals=bytes_req if call_site < 32",
			    KMALLOC "trigger");
			break;
		case 2:
			cmd("hist:keys=call_site:vals=bytes_req:clear", KMALLOC "trigger");
			cmd("hist:name=tort:keys=common_pid", KMALLOC "trigger");
			cmd("hist:name=tort:keys=common_pid", RX "trigger");
			cmd(WAKEUP_H, WAKEUP "trigger");
			cmd(SWITCH_H, SWITCH "trigger");
			break;
		case 3:
			cmd("!hist:keys=call_site,ptr:vals=bytes_req if call_site < 32",
			    KMALLOC "trigger");
			break;
		case 4:
			cmd("!hist:name=tort:keys=common_pid", RX "trigger");
			cmd("!hist:name=tort:keys=common_pid", KMALLOC "trigger");
			cmd("!" SWITCH_H, SWITCH "trigger");
			cmd("!" WAKEUP_H, WAKEUP "trigger");
			break;
		default:
			break;
		}
		check_text(cat(KMALLOC "hist"), &entries, false);
		check_text(cat(RX "hist"), &entries, false);
		check_text(cat(WAKEUP "hist"), &entries, false);
		switch_hits += check_text(cat(SWITCH "hist"), &entries, false);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nr_writers; i++)
		pthread_join(th[i], NULL);
	check_text(cat(KMALLOC "hist"), &entries, true);
	/* whatever the churn left, then nothing */
	echo("hist:keys=call_site:vals=bytes_req:cont\n", KMALLOC "trigger");
	echo("!hist:keys=call_site,ptr:vals=bytes_req if call_site < 32\n", KMALLOC "trigger");
	echo("!hist:name=tort:keys=common_pid\n", RX "trigger");
	echo("!hist:name=tort:keys=common_pid\n", KMALLOC "trigger");
	cmd("!hist:keys=call_site:vals=bytes_req", KMALLOC "trigger");
	echo("!" SWITCH_H "\n", SWITCH "trigger");
	echo("!" WAKEUP_H "\n", WAKEUP "trigger");
	T_ASSERT_STR(cat(WAKEUP "trigger"), NONE);
	T_ASSERT_STR(cat(SWITCH "trigger"), NONE);
	cmd("0", "events/synthetic/tort_lat/enable");
	cmd("!tort_lat", "synthetic_events");
	T_ASSERT_STR(cat(KMALLOC "trigger"), NONE);
	T_ASSERT_STR(cat(RX "trigger"), NONE);
	/* the onmatch() pair worked while it was there (its hits need both variables) */
	if (round > 12)
		T_ASSERT(switch_hits > 0);
	printf("%d rounds of churn, %llu events, %llu sched_switch hits\n", round, fired,
	       switch_hits);
	return 0;
}
