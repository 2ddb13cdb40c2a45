// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-text: what the `filter` file shows for a compiled filter (the
 * expression as written, trailing white space stripped as the kernel's
 * strstrip() does, leading white space kept), "0" clearing (a NULL program,
 * which every record passes), and a blank expression being an error.
 */
#include "filter-test.h"

static void text_is(const char *expr, const char *want)
{
	struct filter_error err;
	struct filter_prog *prog = NULL;

	T_ASSERT_OK(filter_compile(ft_fields, FT_NR_FIELDS, expr, &prog, &err));
	T_ASSERT(prog != NULL);
	if (strcmp(filter_prog_text(prog), want)) {
		fprintf(stderr, "FAIL: [%s] shows [%s], want [%s]\n", expr, filter_prog_text(prog),
			want);
		ft_failures++;
	}
	filter_free(prog);
}

static void clears(const char *expr)
{
	struct filter_prog *prog = (struct filter_prog *)&prog;
	struct filter_error err;

	T_ASSERT_OK(filter_compile(ft_fields, FT_NR_FIELDS, expr, &prog, &err));
	T_ASSERT(prog == NULL);
}

int main(void)
{
	struct ft_rec r;
	size_t len = ft_rec_init(&r, "", "", "");

	text_is("a8 == 1", "a8 == 1");
	text_is("a8 == 1\n", "a8 == 1");
	text_is("  a8 == 1  \n", "  a8 == 1");
	text_is("a8==1&&b8!=2", "a8==1&&b8!=2");
	text_is("(a8 == 1) \t\n\r\v\f", "(a8 == 1)");
	text_is("a8 == 1\xa0", "a8 == 1");	/* the kernel's isspace() has 0xa0 */
	text_is("name == \"a  \"  ", "name == \"a  \"");
	clears("0");
	clears("0\n");
	clears("  0  ");
	clears("\t0\n\n");
	ft_check_err("00", "Field not found", 2, EINVAL);	/* "00" is a field name */
	ft_check_err("", NULL, 0, EINVAL);
	ft_check_err(" \n", NULL, 0, EINVAL);
	T_ASSERT(!strcmp(filter_prog_text(NULL), "none"));
	T_ASSERT(filter_match(NULL, &r, len));
	T_ASSERT(filter_match(NULL, NULL, 0));
	filter_free(NULL);
	return ft_done();
}
