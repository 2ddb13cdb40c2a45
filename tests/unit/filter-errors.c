// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-errors: every error of the kernel's filter parser, with its message,
 * caret position and errno (as the kernel on 6.18 gives them: see
 * tests/data/filter-diff), and the `filter` file's text after a rejection as
 * filter_error_format() builds it; the error_log fields.
 */
#include "filter-test.h"

static void check_format(const char *expr, const char *want)
{
	struct filter_error err = { 0 };
	struct filter_prog *prog = NULL;
	char buf[512];
	int n;

	T_ASSERT(filter_compile(ft_fields, FT_NR_FIELDS, expr, &prog, &err) < 0);
	n = filter_error_format(expr, &err, buf, sizeof(buf));
	T_ASSERT_EQ(n, (int)strlen(want));
	if (strcmp(buf, want)) {
		fprintf(stderr, "FAIL: [%s] shows\n%s\nwant\n%s\n", expr, buf, want);
		ft_failures++;
	}
	/* truncated like snprintf */
	T_ASSERT_EQ(filter_error_format(expr, &err, buf, 4), n);
	T_ASSERT_EQ(strlen(buf), 3u);
}

int main(void)
{
	struct filter_error err = { 0 };
	struct filter_prog *prog = NULL;

	/* calc_stack(): unbalanced parentheses and quotes */
	ft_check_err("a8 == 1)", "Too few '('", 7, EPERM);
	ft_check_err(")a8 == 1(", "Too few '('", 0, EPERM);
	ft_check_err("((a8 == 1)", "Too many '('", 0, ENOENT);	/* index 0 is never blamed */
	ft_check_err("a8 == 1 && ((b8 == 1)", "Too many '('", 11, ENOENT);
	ft_check_err("name == \"x", "Missing matching quote", 8, ESRCH);
	ft_check_err("name == 'x\" && a8 == 1", "Missing matching quote", 8, ESRCH);
	/* predicate_parse() */
	ft_check_err("a8 == 1 junk", "Too many terms in predicate expression", 8, EPERM);
	ft_check_err("a8 == 1 & b8 == 1", "Too many terms in predicate expression", 8, EPERM);
	ft_check_err("a8 == 1 | b8 == 1", "Too many terms in predicate expression", 8, EPERM);
	ft_check_err("!", "No filter found", 1, EINVAL);
	ft_check_err("!!", "No filter found", 2, EINVAL);
	/* no message: "Error: (0)" */
	ft_check_err(" ", NULL, 0, EINVAL);
	ft_check_err("\n", NULL, 0, EINVAL);
	ft_check_err("()", NULL, 0, EINVAL);
	ft_check_err("== 1", NULL, 0, EPERM);
	ft_check_err("a8 == 1 && && b8 == 1", NULL, 0, EPERM);
	/* the kernel reads prog[-1] here and its answer varies; we always reject */
	ft_check_err("a8 == 1 || b8 == 2 &&", NULL, 0, EINVAL);
	ft_check_err("a8 == 1 || b8 == 2 && a16 == 3 &&", NULL, 0, EINVAL);
	/* parse_pred() */
	ft_check_err("bogus == 1", "Field not found", 6, EINVAL);
	ft_check_err("common_comm == \"x\"", "Field not found", 12, EINVAL);
	ft_check_err("a8 = 1", "Invalid operator", 4, EINVAL);
	ft_check_err("a8", "Invalid operator", 2, EINVAL);	/* clamped to the length */
	ft_check_err("a8.foo == 1", "Invalid operator", 3, EINVAL);
	ft_check_err("a8 ==", "Invalid value (did you forget quotes)?", 5, EINVAL);
	ft_check_err("a8 == +1", "Invalid value (did you forget quotes)?", 7, EINVAL);
	ft_check_err("a8 == --1", "Illegal integer value", 7, EINVAL);
	ft_check_err("a8 == \"1\"", "Expecting numeric field", 7, EINVAL);
	ft_check_err("dstr == 1", "Expecting string field", 9, EINVAL);
	ft_check_err("dstr < \"a\"", "Illegal operation for field type", 8, EINVAL);
	ft_check_err("a8 ~ 1", "Illegal operation for field type", 6, EINVAL);
	ft_check_err("a8 == 0x0000000000000000000001", "Operand too long", 30, EINVAL);

	/* not errors in the kernel: a trailing && or || is ignored */
	{
		struct ft_rec r;
		size_t len = ft_rec_init(&r, "", "", "");

		r.a8 = 1;
		ft_check("a8 == 1 &&", &r, len, 1);
		ft_check("a8 == 2 ||", &r, len, 0);
	}

	/* the filter file after a rejection */
	check_format("bogus == 1", "bogus == 1\n      ^\nparse_error: Field not found\n");
	check_format("bogus == 1\n", "bogus == 1\n      ^\nparse_error: Field not found\n");
	check_format("((a8 == 1)", "((a8 == 1)\n^\nparse_error: Too many '('\n");
	check_format("!", "!\n ^\nparse_error: No filter found\n");
	check_format("  ", "\nError: (0)\n");
	check_format("== 1", "== 1\nError: (0)\n");

	/* error_log: the raw position, or "Error" at 0 */
	T_ASSERT_EQ(filter_compile(ft_fields, FT_NR_FIELDS, "bogus == 1", &prog, &err), -EINVAL);
	T_ASSERT(!strcmp(err.log_msg, "Field not found"));
	T_ASSERT_EQ(err.log_pos, 6);
	T_ASSERT_EQ(filter_compile(ft_fields, FT_NR_FIELDS, "== 1", &prog, &err), -EPERM);
	T_ASSERT(!strcmp(err.log_msg, "Error"));
	T_ASSERT_EQ(err.log_pos, 0);
	T_ASSERT(prog == NULL);		/* untouched on failure */

	/* a subsystem filter that does not apply to an event */
	filter_error_subsystem(&err);
	T_ASSERT(!strcmp(err.msg, "Couldn't find or set field in one of a subsystem's events"));
	T_ASSERT_EQ(err.pos, 0);
	T_ASSERT_EQ(err.errnum, EINVAL);
	return ft_done();
}
