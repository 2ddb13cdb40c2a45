// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist-map: the histogram map (src/hist/tracing_map.c) under threads and
 * signals. W writer threads insert random two-word keys and add 1 (the
 * hitcount) and a value to the element's sums; a timer thread sends them
 * SIGUSR1 and the handler inserts too, nested in whatever insert the thread
 * was doing. Rounds alternate a key space that fits the pool (no drop
 * allowed) and one four times larger (drops).
 *
 * Proven, per round, exactly:
 *   - attempts (every insert, handlers' too) = hits + drops;
 *   - hits = the sum over elements of their hitcount sums;
 *   - the sum of value sums = the values of the inserts that returned an element;
 *   - every key appears once in the table and is one the writers made;
 *   - the number of elements is at most the pool size; when the keys fit, every
 *     drop is one that gave up waiting on a claimed slot (a preempted claimer:
 *     TSan on two cores makes them), never one of a full pool.
 *
 * Usage: hist-map [-d SECONDS] [-w WRITERS]
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "hist/tracing_map.h"

#define MAX_WRITERS 16
#define BITS	    8

static struct tmap *map;
static uint64_t key_space;
static volatile int stop;
static int nr_writers = 4;
static pthread_t th[MAX_WRITERS];

struct wstat {
	uint64_t attempts, ok, value_sum;
	uint64_t rnd;
} __attribute__((aligned(64)));
static struct wstat ws[MAX_WRITERS];
static __thread int me = -1;

static void make_key(uint64_t k, uint64_t key[2])
{
	key[0] = k;
	key[1] = ~k * 0x9e3779b97f4a7c15ull;
}

static void init_comm(struct tmap_elt *e)
{
	memcpy(e->comm, "hist-map", 9);
}

static void one_insert(struct wstat *w)
{
	uint64_t key[2], v;

	w->rnd ^= w->rnd << 13;
	w->rnd ^= w->rnd >> 7;
	w->rnd ^= w->rnd << 17;
	make_key(w->rnd % key_space, key);
	v = w->rnd >> 50;
	struct tmap_elt *e = tmap_insert(map, key, init_comm);

	w->attempts++;
	if (e) {
		tmap_add_sum(e, 0, 1);
		tmap_add_sum(e, 1, v);
		w->ok++;
		w->value_sum += v;
	}
}

/* The handler's own counts: it may interrupt one_insert() on ws[me]. */
static struct wstat hs[MAX_WRITERS];

static void on_signal(int sig)
{
	(void)sig;
	if (me >= 0)
		for (int i = 0; i < 8; i++)
			one_insert(&hs[me]);
}

static void *writer(void *arg)
{
	me = (int)(intptr_t)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		one_insert(&ws[me]);
	return NULL;
}

static int count_elt(struct tmap_elt *e, void *arg)
{
	uint64_t *acc = arg, key[2];
	uint64_t k = ((uint64_t *)e->key)[0];

	make_key(k, key);
	T_ASSERT(k < key_space);
	T_ASSERT(!memcmp(e->key, key, sizeof(key)));
	T_ASSERT(!strcmp(e->comm, "hist-map"));
	T_ASSERT(tmap_lookup(map, key) == e); /* the only slot with this key */
	acc[0]++;
	acc[1] += tmap_read_sum(e, 0);
	acc[2] += tmap_read_sum(e, 1);
	return 0;
}

static void round_run(double secs, uint64_t space, struct t_rand *r)
{
	uint64_t attempts = 0, ok = 0, vsum = 0, acc[3] = { 0, 0, 0 };
	double end;

	map = tmap_create(BITS, 16, 2, 0, 0);
	T_ASSERT(map);
	key_space = space;
	memset(ws, 0, sizeof(ws));
	memset(hs, 0, sizeof(hs));
	for (int i = 0; i < nr_writers; i++) {
		ws[i].rnd = t_rand_next(r) | 1;
		hs[i].rnd = t_rand_next(r) | 1;
	}
	stop = 0;
	for (int i = 0; i < nr_writers; i++)
		T_ASSERT(!pthread_create(&th[i], NULL, writer, (void *)(intptr_t)i));
	end = t_seconds_now() + secs;
	while (t_seconds_now() < end) {
		for (int i = 0; i < nr_writers; i++)
			pthread_kill(th[i], SIGUSR1);
		usleep(200);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nr_writers; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < nr_writers; i++) {
		attempts += ws[i].attempts + hs[i].attempts;
		ok += ws[i].ok + hs[i].ok;
		vsum += ws[i].value_sum + hs[i].value_sum;
	}
	tmap_for_each(map, count_elt, acc);
	printf("space %llu: attempts %llu hits %llu drops %llu (busy %llu) entries %llu\n",
	       (unsigned long long)space, (unsigned long long)attempts,
	       (unsigned long long)tmap_hits(map), (unsigned long long)tmap_drops(map),
	       (unsigned long long)tmap_busy_drops(map), (unsigned long long)acc[0]);
	T_ASSERT_EQ(attempts, tmap_hits(map) + tmap_drops(map));
	T_ASSERT_EQ(ok, tmap_hits(map));
	T_ASSERT_EQ(acc[1], tmap_hits(map));
	T_ASSERT_EQ(acc[2], vsum);
	T_ASSERT(acc[0] <= (1u << BITS));
	/* keys that fit drop only when a claimer was preempted past the bounded wait */
	if (space <= (1u << BITS))
		T_ASSERT_EQ(tmap_drops(map), tmap_busy_drops(map));
	tmap_destroy(map);
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 2);
	struct sigaction sa = { .sa_handler = on_signal };
	struct t_rand r;
	double end;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-w"))
			nr_writers = atoi(argv[i + 1]);
	if (nr_writers < 1 || nr_writers > MAX_WRITERS)
		nr_writers = 4;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	t_rand_init(&r, 0);
	end = t_seconds_now() + secs;
	for (int round = 0; round == 0 || t_seconds_now() < end; round++)
		round_run(secs / 8 > 0.05 ? secs / 8 : 0.05,
			  (round & 1) ? 4u << BITS : (1u << BITS) - 7, &r);
	return 0;
}
