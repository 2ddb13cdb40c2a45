// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-strings: == != ~ on char[N], __data_loc, __rel_loc and char * fields,
 * with the kernel's glob classes: "abc" full, "abc*" prefix, "*abc" suffix,
 * "*abc*" middle, anything else with * ? [ \ a full glob, a leading '!'
 * inverting ~, a leading digit making ~ a plain compare. Also the kernel's
 * quirks, kept: a suffix glob on a char[N] looks at the end of the whole
 * array (checked on 6.18: sched_switch's prev_comm ~ "*sh" never matches),
 * and a middle glob on a char[N] looks past the first NUL.
 */
#include "filter-test.h"

int main(void)
{
	static const char hello[] = "hello world";
	struct ft_rec r;
	size_t len = ft_rec_init(&r, "bash", "foobar", "zsh");

	r.pstr = hello;
	/* char[16] */
	ft_check("name == \"bash\"", &r, len, 1);
	ft_check("name != \"bash\"", &r, len, 0);
	ft_check("name == 'bash'", &r, len, 1);
	ft_check("name == \"bas\"", &r, len, 0);
	ft_check("name == \"bashx\"", &r, len, 0);
	ft_check("name ~ \"ba*\"", &r, len, 1);
	ft_check("name ~ \"*as*\"", &r, len, 1);
	ft_check("name ~ \"b?sh\"", &r, len, 1);
	ft_check("name ~ \"[ab]ash\"", &r, len, 1);
	ft_check("name ~ \"[!b]ash\"", &r, len, 0);
	ft_check("name ~ \"[a-c]a*\"", &r, len, 1);
	ft_check("name ~ \"!ba*\"", &r, len, 0);
	ft_check("name ~ \"!zsh\"", &r, len, 1);
	ft_check("name ~ \"*sh\"", &r, len, 0);		/* the kernel's suffix quirk */
	ft_check("name ~ \"*\"", &r, len, 1);
	ft_check("name ~ \"b*h\"", &r, len, 1);
	/* a middle glob reads the whole array: text after the NUL is found */
	memcpy(r.name, "ab\0cd\0\0\0\0\0\0\0\0\0\0", 16);
	ft_check("name ~ \"*cd*\"", &r, len, 1);
	ft_check("name == \"ab\"", &r, len, 1);
	/* full 16 bytes, no NUL: compares stop at the array's end */
	memcpy(r.name, "0123456789abcdef", 16);
	ft_check("name == \"0123456789abcdef\"", &r, len, 1);
	ft_check("name == \"0123456789abcdefX\"", &r, len, 1);	/* strncmp(16) */
	ft_check("name ~ \"*ef\"", &r, len, 0);			/* looks at bytes 13, 14 */
	ft_check("name ~ \"*de\"", &r, len, 1);
	ft_check("name ~ \"0123*\"", &r, len, 0);	/* a digit first: "0123*" literally */
	ft_check("name ~ \"?123*\"", &r, len, 1);
	ft_check("name ~ \"[0]*f\"", &r, len, 0);	/* a glob reads on to a NUL */

	/* __data_loc char[] */
	ft_check("dstr == \"foobar\"", &r, len, 1);
	ft_check("dstr ~ \"*bar\"", &r, len, 1);
	ft_check("dstr ~ \"foo*\"", &r, len, 1);
	ft_check("dstr ~ \"*oba*\"", &r, len, 1);
	ft_check("dstr ~ \"f??b*r\"", &r, len, 1);
	ft_check("dstr ~ \"1*\"", &r, len, 0);		/* a digit first: plain compare */
	ft_check("dstr != \"foobar\"", &r, len, 0);
	ft_check("dstr != \"*\"", &r, len, 1);		/* != is never a glob */
	ft_check("dstr.ustring == \"foobar\"", &r, len, 1);
	/* __rel_loc char[] */
	ft_check("rstr == \"zsh\"", &r, len, 1);
	ft_check("rstr ~ \"*sh\"", &r, len, 1);
	ft_check("rstr ~ \"z*\"", &r, len, 1);
	/* char *: copied from this process's memory */
	ft_check("pstr == \"hello world\"", &r, len, 1);
	ft_check("pstr ~ \"*world\"", &r, len, 1);
	ft_check("pstr.ustring ~ \"hello*\"", &r, len, 1);
	ft_check("pstr != \"hello\"", &r, len, 1);
	r.pstr = NULL;		/* unreadable: no match, whatever the operator */
	ft_check("pstr == \"x\"", &r, len, 0);
	ft_check("pstr != \"x\"", &r, len, 0);
	r.pstr = (const char *)(uintptr_t)8;
	ft_check("pstr != \"x\"", &r, len, 0);

	/* errors */
	ft_check_err("name < \"a\"", "Illegal operation for field type", 8, EINVAL);
	ft_check_err("name == 1", "Expecting string field", 9, EINVAL);
	ft_check_err("name == bash", "Invalid value (did you forget quotes)?", 9, EINVAL);
	ft_check_err("name == \"bash", "Missing matching quote", 8, ESRCH);
	ft_check_err("name == 'bash\"", "Missing matching quote", 8, ESRCH);
	return ft_done();
}
