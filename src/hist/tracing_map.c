// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist/tracing_map.c - the histogram map (see tracing_map.h).
 *
 * Design (the kernel's tracing_map, written again for threads and signals):
 *
 *   Actors: any number of writers (event call sites, signal handlers nested
 *   in them) inserting keys and adding to sums; readers (the `hist` file)
 *   walking the table; one updater creating and destroying maps under
 *   event_mutex, and only destroying a map after an RCU grace period once no
 *   writer can hold it.
 *
 *   Memory: everything is allocated by tmap_create(): a table of 2 * max_elts
 *   slots {hash, elt} (open addressing, linear probing, at most half full)
 *   and a pool of max_elts elements (key, sums, vars, comm), handed out in
 *   order by an atomic index (next_elt). Nothing is ever freed or reused
 *   while the map lives: a key, once in the table, stays.
 *
 *   A slot's states and who moves it:
 *
 *     {0, NULL}  --CAS hash (a writer claims it)-->  {h, NULL}
 *     {h, NULL}  --elt from pool, key copied, release store-->  {h, elt}
 *     {h, NULL}  --pool empty: hash back to 0 (the claimer)-->  {0, NULL}
 *
 *   {h, elt} is final. A writer probing a slot {h, NULL} with its own hash
 *   (someone is inserting a key with that hash, maybe the same key) waits
 *   for the element by re-reading the slot, nr_slots times, then yielding
 *   the CPU between reads TMAP_CLAIM_YIELDS times (a claimer preempted
 *   between its claim and its store: on a loaded machine this is what lets
 *   it finish), then drops its hit and counts it in busy_drops too. This is
 *   the only wait, bounded, and it never waits for good on a thread it
 *   interrupted (a signal handler nesting into an insert on the same slot
 *   gives up after those reads and yields).
 *
 *   Invariants: a key is in at most one published slot (two writers with
 *   the same key probe the same sequence; the second sees the first's
 *   claim before any free slot further on). An element is reachable from at
 *   most one slot. hits counts inserts that returned an element, drops those
 *   that did not: every insert counts exactly one of them.
 *
 *   Readers load elt with acquire: the key and comm written before the
 *   release store are then complete. Sums and vars are relaxed atomics.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "hist/tracing_map.h"

struct tmap *tmap_create(unsigned int bits, unsigned int key_size, unsigned int n_sums,
			 unsigned int n_vars, unsigned int str_size)
{
	size_t per, total;
	struct tmap *map;
	unsigned char *p;

	if (bits < TMAP_BITS_MIN || bits > TMAP_BITS_MAX || !key_size || key_size > 4096 ||
	    n_sums > TMAP_VALS_MAX || n_vars > 2 * TMAP_VARS_MAX || str_size > 65536)
		return NULL;
	key_size = (key_size + 7) & ~7u;
	map = calloc(1, sizeof(*map));
	if (!map)
		return NULL;
	map->bits = bits;
	map->max_elts = 1u << bits;
	map->nr_slots = 2u << bits;
	map->key_size = key_size;
	map->n_sums = n_sums;
	map->n_vars = n_vars;
	map->count_hits = true;
	str_size = (str_size + 7) & ~7u;
	per = key_size + 8 * (size_t)(n_sums + 2 * n_vars) + str_size; /* vars: values, flags */
	total = per * map->max_elts;
	map->slots = calloc(map->nr_slots, sizeof(*map->slots));
	map->elts = calloc(map->max_elts, sizeof(*map->elts));
	map->mem = calloc(1, total);
	if (!map->slots || !map->elts || !map->mem) {
		tmap_destroy(map);
		return NULL;
	}
	p = map->mem;
	for (unsigned int i = 0; i < map->max_elts; i++) {
		struct tmap_elt *e = &map->elts[i];

		e->sums = (uint64_t *)(void *)p;
		e->vars = e->sums + n_sums;
		e->key = e->vars + 2 * n_vars;
		e->str = str_size ? (char *)e->key + key_size : NULL;
		p += per;
	}
	return map;
}

void tmap_destroy(struct tmap *map)
{
	if (!map)
		return;
	free(map->slots);
	free(map->elts);
	free(map->mem);
	free(map);
}

/* sched_yield()s a writer grants a claimer before it drops (see the design above) */
#define TMAP_CLAIM_YIELDS 32

static inline uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

uint32_t tmap_hash(const void *key, unsigned int len)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
	uint32_t r;

	/* one multiply per 8-byte word, a final avalanche */
	for (unsigned int i = 0; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	r = (uint32_t)(mix64(h) >> 32);
	return r ? r : 1;
}

/* An element from the pool, or NULL when it is empty (the kernel's get_free_elt). */
static struct tmap_elt *elt_take(struct tmap *map)
{
	uint32_t idx = ld_relaxed(&map->next_elt);

	do {
		if (idx >= map->max_elts)
			return NULL;
		/* Relaxed is enough: the index only hands out distinct elements; what
		 * the element holds is published by the slot's release store. */
	} while (!__atomic_compare_exchange_n(&map->next_elt, &idx, idx + 1, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return &map->elts[idx];
}

static inline bool keys_equal(const void *a, const void *b, unsigned int len)
{
	uint64_t x, y;

	if (len != 8)
		return !memcmp(a, b, len);
	memcpy(&x, a, 8); /* the common case: one numeric key, one compare */
	memcpy(&y, b, 8);
	return x == y;
}

static struct tmap_elt *tmap_find(struct tmap *map, const void *key,
				  void (*init)(struct tmap_elt *), bool insert)
{
	uint32_t hash = tmap_hash(key, map->key_size);
	unsigned int mask = map->nr_slots - 1;
	unsigned int idx = (hash >> (31 - map->bits)) & mask;
	unsigned int tries = 0, waits = 0, yields = 0;
	bool busy = false;

	while (tries < map->nr_slots) {
		struct tmap_slot *s = &map->slots[idx];
		/* Relaxed: the hash is only a hint; the element is read with acquire. */
		uint32_t h = ld_relaxed(&s->hash);

		if (h == hash) {
			/* Acquire: the element's key (and comm) are complete (pairs with the
			 * release store below). */
			struct tmap_elt *elt = ld_acquire(&s->elt);

			if (elt && keys_equal(elt->key, key, map->key_size)) {
				if (insert && map->count_hits)
					add_relaxed(&map->hits, 1); /* relaxed: a statistic */
				return elt;
			}
			if (!elt) {
				/* claimed, element not there yet: read the slot again */
				if (++waits > map->nr_slots) {
					/* the claimer may be preempted: let it run, a few times */
					if (yields++ < TMAP_CLAIM_YIELDS) {
						sched_yield();
						continue;
					}
					busy = true;
					break;
				}
				continue;
			}
		} else if (!h) {
			uint32_t zero = 0;
			struct tmap_elt *elt;

			if (!insert)
				return NULL;
			/* Acq_rel: claim the free slot; a writer of the same key that lost
			 * the race then sees our hash and waits for our element. */
			if (!cas_acq_rel(&s->hash, &zero, hash)) {
				if (++waits > map->nr_slots)
					break;
				continue; /* someone claimed it: look at it again */
			}
			elt = elt_take(map);
			if (!elt) {
				/* Release: give the slot back (pool empty); waiters drop. */
				st_release(&s->hash, 0);
				break;
			}
			memcpy(elt->key, key, map->key_size);
			if (init)
				init(elt);
			/* Release: key and comm before the element is seen (pairs with the
			 * acquire loads of lookups and readers). */
			st_release(&s->elt, elt);
			if (map->count_hits)
				add_relaxed(&map->hits, 1); /* relaxed: a statistic */
			return elt;
		}
		idx = (idx + 1) & mask;
		tries++;
	}
	if (insert) {
		add_relaxed(&map->drops, 1); /* relaxed: a statistic */
		if (busy)
			add_relaxed(&map->busy_drops, 1); /* relaxed: a statistic */
	}
	return NULL;
}

struct tmap_elt *tmap_insert(struct tmap *map, const void *key, void (*init)(struct tmap_elt *))
{
	return tmap_find(map, key, init, true);
}

struct tmap_elt *tmap_lookup(struct tmap *map, const void *key)
{
	return tmap_find(map, key, NULL, false);
}

int tmap_for_each(struct tmap *map, int (*fn)(struct tmap_elt *elt, void *arg), void *arg)
{
	for (unsigned int i = 0; i < map->nr_slots; i++) {
		/* Acquire: the element's key and comm are complete (the insert's release). */
		struct tmap_elt *elt = ld_acquire(&map->slots[i].elt);
		int ret;

		if (!elt)
			continue;
		ret = fn(elt, arg);
		if (ret)
			return ret;
	}
	return 0;
}
