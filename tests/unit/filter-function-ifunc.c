// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-function-ifunc: `field.function == name` where name is an IFUNC
 * (glibc's strcmp, strlen, memcpy, memset: the symbol is a resolver, and
 * calls reach the implementation it chose, such as __strcmp_avx2, which no
 * symbol of the stripped libc.so.6 names). The name resolves to what a call
 * reaches (the dynamic linker's binding: the pointer the program itself
 * holds), and that function's range comes from the object's unwind table.
 * Functions of other loaded objects (libm-free libc functions) too.
 * Under a sanitizer, strcmp & co. are the runtime's interceptors in the
 * program: the same rule gives the same answers.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "compat/elfsym.h"
#include "filter-test.h"

typedef int (*cmp_fn)(const char *, const char *);

/* The pointer a call of @name reaches, as this program binds it. */
static uintptr_t bound(const char *name)
{
	return (uintptr_t)dlsym(RTLD_DEFAULT, name);
}

static void check_fn(const char *name, uintptr_t fn)
{
	uint64_t start, end;
	struct ft_rec r;
	size_t len = ft_rec_init(&r, "x", "", "");
	char expr[128];

	T_ASSERT(fn != 0);
	T_ASSERT(elfsym_lookup_name(name) == fn);
	T_ASSERT(elfsym_func_range(fn, &start, &end));
	T_ASSERT(start <= fn && fn < end);
	T_ASSERT(end - start > 1);
	snprintf(expr, sizeof(expr), "call_site.function == %s", name);
	r.call_site = fn;
	ft_check(expr, &r, len, 1);
	r.call_site = fn + (end - fn) / 2;	/* inside, past the entry */
	ft_check(expr, &r, len, 1);
	r.call_site = end - 1;
	ft_check(expr, &r, len, 1);
	r.call_site = end;			/* the next function */
	ft_check(expr, &r, len, 0);
	snprintf(expr, sizeof(expr), "call_site.function != %s", name);
	r.call_site = fn;
	ft_check(expr, &r, len, 0);
}

int main(void)
{
	volatile cmp_fn cmp = strcmp;	/* what the program's own pointer to strcmp is */

	T_ASSERT_EQ(cmp("a", "a"), 0);
	check_fn("strcmp", (uintptr_t)cmp);
	T_ASSERT((uintptr_t)cmp == bound("strcmp"));
	check_fn("strlen", bound("strlen"));
	check_fn("memcpy", bound("memcpy"));
	check_fn("memset", bound("memset"));
	check_fn("qsort", bound("qsort"));		/* a plain function of libc */
	check_fn("getenv", bound("getenv"));

	/* strcmp's range is not strlen's: one address, one function */
	{
		struct ft_rec r;
		size_t len = ft_rec_init(&r, "x", "", "");

		r.call_site = (unsigned long)bound("strlen");
		ft_check("call_site.function == strcmp", &r, len, 0);
		ft_check("call_site.function == strlen", &r, len, 1);
	}
	ft_check_err("call_site.function == no_such_ifunc_xyz", "Function not found", 39, EINVAL);
	return ft_done();
}
