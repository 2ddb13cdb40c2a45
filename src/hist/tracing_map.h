/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hist/tracing_map.h - a preallocated lock-free hash map for histograms,
 * as the kernel's tracing_map: fixed-size keys, per element a few 64-bit
 * sums, variables and a comm; recording never allocates nor locks.
 *
 * Synchronization matrix:
 *
 *   function              | who may call                      | concurrent with
 *   ----------------------+-----------------------------------+-----------------------
 *   tmap_create/destroy   | updater (event_mutex)             | nothing on that map
 *   tmap_insert/lookup    | any writer, signal handlers too   | each other, readers
 *   tmap_add_sum/set_var  | the writer that got the element   | each other, readers
 *   tmap_for_each/read_*  | a reader (the `hist` file)        | writers (values may move)
 *
 * Destroying a map writers may still hold (a `clear`, a trigger removed)
 * waits for an RCU grace period first (the caller's job: event_gc_add()).
 * There is no in-place clear: a cleared histogram is a new map published
 * in place of the old one (the kernel's tracing_map_clear() instead stops
 * every writer first).
 */
#ifndef EVT_HIST_TRACING_MAP_H
#define EVT_HIST_TRACING_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/atomic.h"

#define TMAP_BITS_DEFAULT  11 /* 2048 elements: the kernel's TRACING_MAP_BITS_DEFAULT */
#define TMAP_BITS_MIN	   7
#define TMAP_BITS_MAX	   17
#define TMAP_KEYS_MAX	   3 /* TRACING_MAP_KEYS_MAX */
#define TMAP_VALS_MAX	   3 /* hitcount and two sums (TRACING_MAP_VALS_MAX) */
#define TMAP_VARS_MAX	   16
#define TMAP_SORT_KEYS_MAX 2
#define TMAP_COMM_LEN	   16

struct tmap_elt {
	void *key;		  /* key_size bytes, written once before the element is published */
	uint64_t *sums;		  /* n_sums, relaxed atomic adds */
	uint64_t *vars;		  /* n_vars values, then n_vars "set" flags (atomic) */
	char comm[TMAP_COMM_LEN]; /* the first hit's thread name (execname), before publication */
	char *str;		  /* str_size bytes for the user (hist: saved strings), zeroed */
};

/* One slot of the open-addressing table: the key's hash, then the element. */
struct tmap_slot {
	uint32_t hash; /* 0: free; CAS 0 -> hash claims the slot */
	uint32_t pad;
	struct tmap_elt *elt; /* NULL until the claimer published its element (release) */
};

struct tmap {
	unsigned int bits; /* max_elts = 1 << bits */
	unsigned int max_elts;
	unsigned int nr_slots; /* 2 * max_elts, a power of two */
	unsigned int key_size; /* bytes, a multiple of 8 */
	unsigned int n_sums;
	unsigned int n_vars;
	uint32_t next_elt; /* atomic: elements handed out of the pool */
	uint64_t hits;	   /* atomic: inserts that found or made their element */
	bool count_hits;   /* keep hits (else the user derives them: hist sums hitcounts) */
	uint64_t drops;	   /* atomic: inserts that did not (pool or table full, or below) */
	uint64_t busy_drops; /* atomic: of drops, those that gave up waiting on a claim */
	struct tmap_slot *slots;
	struct tmap_elt *elts;
	unsigned char *mem; /* keys, sums and vars of every element */
};

/*
 * tmap_create - a map of 1 << @bits elements with keys of @key_size bytes
 * (rounded up to 8), @n_sums sums, @n_vars variables and @str_size bytes of
 * other data (elt->str) per element.
 * Return: the map, or NULL (-ENOMEM, or bad sizes).
 * Context: allocates; not from a writer.
 */
struct tmap *tmap_create(unsigned int bits, unsigned int key_size, unsigned int n_sums,
			 unsigned int n_vars, unsigned int str_size);
void tmap_destroy(struct tmap *map);

/* The 32-bit hash of a key of @len bytes (a multiple of 8), never 0. */
uint32_t tmap_hash(const void *key, unsigned int len);

/*
 * tmap_insert - the element of @key (map->key_size bytes), made from the pool
 * if new (then @init, when not NULL, fills its comm before it is published).
 * Counts a hit, or a drop and returns NULL when the pool or the table is full.
 * Context: any thread, signal handlers; no lock, no allocation, no system call
 * (but what @init does).
 */
struct tmap_elt *tmap_insert(struct tmap *map, const void *key, void (*init)(struct tmap_elt *));

/* The element of @key if there is one (counts nothing). Context: as tmap_insert. */
struct tmap_elt *tmap_lookup(struct tmap *map, const void *key);

static inline void tmap_add_sum(struct tmap_elt *elt, unsigned int i, uint64_t v)
{
	/* Relaxed: a sum orders nothing; readers see some recent total. */
	add_relaxed(&elt->sums[i], v);
}

static inline uint64_t tmap_read_sum(const struct tmap_elt *elt, unsigned int i)
{
	/* Relaxed: pairs with nothing; the value may be a few hits old. */
	return ld_relaxed(&elt->sums[i]);
}

static inline void tmap_set_var(struct tmap_elt *elt, unsigned int n_vars, unsigned int i,
				uint64_t v)
{
	/* Relaxed: a variable is one word, last writer wins (as the kernel's). */
	st_relaxed(&elt->vars[i], v);
	/* Release: the value before the flag that says it is there (pairs with the
	 * acquire in tmap_get_var). */
	st_release(&elt->vars[n_vars + i], 1);
}

/*
 * Variable @i of @elt into *@v if it was set; @once: and unset it (the
 * kernel's tracing_map_read_var_once(): a latency start is used once).
 * Return: whether it was set.
 */
static inline bool tmap_get_var(struct tmap_elt *elt, unsigned int n_vars, unsigned int i,
				bool once, uint64_t *v)
{
	/* Acquire: the value stored before the flag (tmap_set_var's release);
	 * once: exchange so that two readers do not both consume it. */
	uint64_t set = once ? __atomic_exchange_n(&elt->vars[n_vars + i], 0, __ATOMIC_ACQ_REL) :
			      ld_acquire(&elt->vars[n_vars + i]);

	if (!set)
		return false;
	*v = ld_relaxed(&elt->vars[i]); /* relaxed: ordered by the flag's acquire */
	return true;
}

/*
 * tmap_for_each - call @fn for each published element (in table order);
 * stops at a non-zero return and gives it back.
 * Context: a reader; writers may be inserting: new elements may or may not be seen.
 */
int tmap_for_each(struct tmap *map, int (*fn)(struct tmap_elt *elt, void *arg), void *arg);

/* Stop counting hits (one atomic add less per insert): the caller knows them. */
static inline void tmap_no_hits(struct tmap *map)
{
	map->count_hits = false;
}

static inline uint64_t tmap_hits(const struct tmap *map)
{
	return ld_relaxed(&map->hits); /* relaxed: a statistic */
}

static inline uint64_t tmap_drops(const struct tmap *map)
{
	return ld_relaxed(&map->drops); /* relaxed: a statistic */
}

/*
 * Of the drops, those of inserts that found their key's slot claimed and gave
 * up waiting for the claimer to publish its element (a preempted or
 * interrupted claimer): they happen even when the keys fit the pool.
 */
static inline uint64_t tmap_busy_drops(const struct tmap *map)
{
	return ld_relaxed(&map->busy_drops); /* relaxed: a statistic */
}

#endif /* EVT_HIST_TRACING_MAP_H */
