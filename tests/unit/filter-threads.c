// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-threads: a compiled program is immutable, so any number of threads
 * may match with it at once while others compile and free programs. Readers
 * match records with a long-lived program (no lock at all: it is never
 * freed while they run) and with the current one of a series the main
 * thread keeps replacing; each reader checks every answer against the
 * program's generation. The replacement is published under a rwlock (the
 * event layer uses RCU for this; the filter only promises that matching
 * never writes), compiled outside it, freed after it.
 */
#include <pthread.h>

#include "filter-test.h"

#define READERS 3
#define SWAPS 2000

struct gen_prog {
	struct filter_prog *prog;
	int gen;
};

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static struct gen_prog *current;
static struct filter_prog *fixed;
static int done;
static int errors;

static struct gen_prog *make(int gen)
{
	struct gen_prog *g = malloc(sizeof(*g));
	struct filter_error err;
	char expr[256];

	/* numeric, string, glob, CPU and COMM predicates: every kind of path */
	snprintf(expr, sizeof(expr),
		 "(a32 == %d || b16 == %d) && dstr ~ \"*%d*\" && CPU >= 0 && COMM ~ \"*\" || "
		 "name == \"gen%d\"", gen % 7, -(gen % 5), gen % 10, gen);
	T_ASSERT(g != NULL);
	T_ASSERT_OK(filter_compile(ft_fields, FT_NR_FIELDS, expr, &g->prog, &err));
	g->gen = gen;
	return g;
}

static bool expected(const struct ft_rec *r, int gen)
{
	char digit[2] = { (char)('0' + gen % 10), 0 };
	char name[20];

	snprintf(name, sizeof(name), "gen%d", gen);
	return ((r->a32 == (uint32_t)(gen % 7) || r->b16 == -(gen % 5)) &&
		strstr(r->data, digit)) ||
	       !strncmp(r->name, name, 16);
}

static void *reader(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg;
	struct t_rand rnd;
	struct ft_rec r;
	char dyn[8];

	t_rand_init(&rnd, seed);
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		size_t len;
		bool got;
		int gen;

		snprintf(dyn, sizeof(dyn), "x%dy", (int)t_rand_range(&rnd, 0, 99));
		len = ft_rec_init(&r, t_rand_range(&rnd, 0, 50) ? "other" : "gen3", dyn, "");
		r.a32 = (uint32_t)t_rand_range(&rnd, 0, 7);
		r.b16 = (int16_t)-t_rand_range(&rnd, 0, 5);

		/* the long-lived program: generation 3, no lock */
		if (filter_match(fixed, &r, len) != expected(&r, 3))
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);

		pthread_rwlock_rdlock(&lock);
		got = filter_match(current->prog, &r, len);
		gen = current->gen;
		pthread_rwlock_unlock(&lock);
		if (got != expected(&r, gen))
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[READERS];
	struct gen_prog *g3 = make(3);

	fixed = g3->prog;
	current = make(0);
	for (int i = 0; i < READERS; i++)
		T_ASSERT_OK(pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)(i + 1)));
	for (int gen = 1; gen <= SWAPS; gen++) {
		struct gen_prog *next = make(gen), *old;

		pthread_rwlock_wrlock(&lock);
		old = current;
		current = next;
		pthread_rwlock_unlock(&lock);
		filter_free(old->prog);
		free(old);
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < READERS; i++)
		pthread_join(th[i], NULL);
	filter_free(current->prog);
	free(current);
	filter_free(g3->prog);
	free(g3);
	T_ASSERT_EQ(errors, 0);
	return T_PASS;
}
