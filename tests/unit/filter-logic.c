// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-logic: &&, ||, parentheses and ! compiled into the predicate program
 * give the same answer as a plain recursive evaluation (&& binds tighter than
 * ||, ! applies to the next predicate or parenthesised group), on random
 * expressions and records. Also the fixed cases of the kernel's comment in
 * trace_events_filter.c ("a && !(!b || (c && g)) || d || e && !f").
 */
#include "filter-test.h"
#include "filter/filter_internal.h"

struct gen {
	struct t_rand rnd;
	char buf[4096];
	size_t len;
};

static void emit(struct gen *g, const char *s)
{
	size_t n = strlen(s);

	if (g->len + n < sizeof(g->buf)) {
		memcpy(g->buf + g->len, s, n + 1);
		g->len += n;
	}
}

/*
 * Emit a random expression over the predicates "a8 & (1<<k)" (bit k of a8 set),
 * and return its value for @bits, computed directly.
 */
static bool gen_or(struct gen *g, unsigned int bits, int depth);

static bool gen_atom(struct gen *g, unsigned int bits, int depth)
{
	bool v, neg = t_rand_range(&g->rnd, 0, 3) == 0;
	char tmp[32];

	if (neg)
		emit(g, "!");
	if (depth < 4 && t_rand_range(&g->rnd, 0, 3) == 0) {
		emit(g, "(");
		v = gen_or(g, bits, depth + 1);
		emit(g, ")");
	} else {
		unsigned int k = (unsigned int)t_rand_range(&g->rnd, 0, 7);

		snprintf(tmp, sizeof(tmp), "a8 & %u", 1u << k);
		emit(g, tmp);
		v = bits >> k & 1;
	}
	return v ^ neg;
}

static bool gen_and(struct gen *g, unsigned int bits, int depth)
{
	bool v = gen_atom(g, bits, depth);

	while (t_rand_range(&g->rnd, 0, 2) == 0) {
		emit(g, t_rand_range(&g->rnd, 0, 1) ? " && " : "&&");
		v = gen_atom(g, bits, depth) && v;	/* evaluate both: same stream */
	}
	return v;
}

static bool gen_or(struct gen *g, unsigned int bits, int depth)
{
	bool v = gen_and(g, bits, depth);

	while (t_rand_range(&g->rnd, 0, 2) == 0) {
		emit(g, " || ");
		v = gen_and(g, bits, depth) || v;
	}
	return v;
}

int main(void)
{
	struct ft_rec r;
	size_t len = ft_rec_init(&r, "x", "", "");
	uint64_t seed = getenv("T_SEED") ? strtoull(getenv("T_SEED"), NULL, 0) : 0x5eed;
	struct gen g;

	/* The kernel's own example, every assignment of a b c d e f g. */
	for (unsigned int bits = 0; bits < 128; bits++) {
		bool a = bits & 1, b = bits & 2, c = bits & 4, d = bits & 8, e = bits & 16,
		     f = bits & 32, gg = bits & 64;
		bool want = (a && !(!b || (c && gg))) || d || (e && !f);

		r.a8 = (uint8_t)bits;
		ft_check("a8 & 1 && !(!(a8 & 2) || (a8 & 4 && a8 & 64)) || a8 & 8 || "
			 "a8 & 16 && !(a8 & 32)", &r, len, want);
	}

	printf("seed %#llx\n", (unsigned long long)seed);
	t_rand_init(&g.rnd, seed);
	for (int n = 0; n < 3000; n++) {
		unsigned int bits = (unsigned int)t_rand_range(&g.rnd, 0, 255);
		struct t_rand save = g.rnd;
		bool want;

		g.len = 0;
		g.buf[0] = 0;
		want = gen_or(&g, bits, 0);
		r.a8 = (uint8_t)bits;
		ft_check(g.buf, &r, len, want);
		/* the same expression for every other value of a8 */
		for (unsigned int other = 0; other < 256; other += 37) {
			g.rnd = save;
			g.len = 0;
			want = gen_or(&g, other, 0);
			r.a8 = (uint8_t)other;
			ft_check(g.buf, &r, len, want);
		}
		if (ft_failures > 10)
			break;
	}
	return ft_done();
}
