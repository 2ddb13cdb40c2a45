// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-bounds: a filter reads nothing outside the record it is given. A
 * record too short for the fields the program reads fails it; a __data_loc or
 * __rel_loc pointing outside the record makes its predicate false (whatever
 * the operator). Each record is a heap block of exactly its length, so that
 * ASan sees any read past it.
 */
#include "filter-test.h"

static int match(const char *expr, const void *src, size_t len)
{
	struct filter_error err;
	struct filter_prog *prog = NULL;
	void *rec = malloc(len ? len : 1);
	int ok;

	memcpy(rec, src, len);
	T_ASSERT_OK(filter_compile(ft_fields, FT_NR_FIELDS, expr, &prog, &err));
	ok = filter_match(prog, rec, len);
	filter_free(prog);
	free(rec);
	return ok;
}

int main(void)
{
	struct ft_rec r;
	size_t len = ft_rec_init(&r, "bash", "dyn", "rel");

	r.a8 = 5;
	r.a64 = 7;
	T_ASSERT(match("a8 == 5", &r, len));
	/* a8 at 8: 9 bytes are enough, 8 are not */
	T_ASSERT(match("a8 == 5", &r, 9));
	T_ASSERT(!match("a8 == 5", &r, 8));
	T_ASSERT(!match("a8 != 6", &r, 8));
	T_ASSERT(!match("a8 == 5", &r, 0));
	/* the widest field read decides */
	T_ASSERT(!match("a8 == 5 || a64 == 7", &r, offsetof(struct ft_rec, a64) + 7));
	T_ASSERT(match("a8 == 5 || a64 == 7", &r, offsetof(struct ft_rec, a64) + 8));
	/* the special fields read no record at all */
	T_ASSERT(match("CPU >= 0 || COMM ~ \"*\"", &r, 0));
	/* char[16]: the whole array must be there */
	T_ASSERT(!match("name == \"bash\"", &r, offsetof(struct ft_rec, name) + 15));
	T_ASSERT(match("name == \"bash\"", &r, offsetof(struct ft_rec, name) + 16));
	T_ASSERT(match("name ~ \"b*\"", &r, offsetof(struct ft_rec, name) + 16));
	T_ASSERT(match("name ~ \"*a*\"", &r, offsetof(struct ft_rec, name) + 16));

	/* __data_loc: the data must lie inside */
	T_ASSERT(match("dstr == \"dyn\"", &r, len));
	T_ASSERT(!match("dstr == \"dyn\"", &r, len - 5));	/* "dyn\0" + "rel\0" cut */
	r.dstr = (uint32_t)(4u << 16 | 0xfff0u);		/* offset past the end */
	T_ASSERT(!match("dstr == \"dyn\"", &r, len));
	T_ASSERT(!match("dstr != \"dyn\"", &r, len));
	T_ASSERT(!match("dstr ~ \"*\"", &r, len));
	r.dstr = (uint32_t)(0xffffu << 16 | offsetof(struct ft_rec, data));	/* too long */
	T_ASSERT(!match("dstr ~ \"*y*\"", &r, len));
	/* a string without its NUL, up to the record's end: never read past it */
	len = ft_rec_init(&r, "bash", "dyn", "rel");
	r.dstr = (uint32_t)(3u << 16 | offsetof(struct ft_rec, data));
	T_ASSERT(match("dstr == \"dyn\"", &r, offsetof(struct ft_rec, data) + 3));
	T_ASSERT(match("dstr ~ \"d?n\"", &r, offsetof(struct ft_rec, data) + 3));
	/* a suffix glob takes len - 1 as the string's length, as the kernel does */
	T_ASSERT(!match("dstr ~ \"*yn\"", &r, offsetof(struct ft_rec, data) + 4));
	T_ASSERT(match("dstr ~ \"*y\"", &r, offsetof(struct ft_rec, data) + 4));
	r.dstr = (uint32_t)(0u << 16 | offsetof(struct ft_rec, data));	/* len 0: to a NUL */
	T_ASSERT(match("dstr == \"dyn\"", &r, offsetof(struct ft_rec, data) + 4));
	/* no NUL before the record's end: the end ends the string (the kernel reads on) */
	T_ASSERT(match("dstr == \"dyn\"", &r, offsetof(struct ft_rec, data) + 3));
	T_ASSERT(!match("dstr == \"dy\"", &r, offsetof(struct ft_rec, data) + 3));
	T_ASSERT(match("dstr ~ \"*yn*\"", &r, offsetof(struct ft_rec, data) + 3));

	/* __rel_loc: relative to the end of its own word */
	len = ft_rec_init(&r, "bash", "dyn", "rel");
	T_ASSERT(match("rstr == \"rel\"", &r, len));
	r.rstr = (uint32_t)(4u << 16 | 0xff00u);
	T_ASSERT(!match("rstr == \"rel\"", &r, len));
	T_ASSERT(!match("rstr != \"rel\"", &r, len));
	return ft_done();
}
