// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-numeric: == != < <= > >= & on integer fields of every size and
 * signedness, the kernel's number syntax (0x, octal, negative) and its lack of
 * range checks (a value is truncated to the field's size).
 */
#include "filter-test.h"

int main(void)
{
	struct ft_rec r;
	size_t len = ft_rec_init(&r, "bash", "dyn", "rel");

	r.a8 = 200;
	r.b8 = -3;
	r.a16 = 60000;
	r.b16 = -300;
	r.a32 = 4000000000u;
	r.b32 = -70000;
	r.a64 = 0xfffffffffffffff0ull;
	r.b64 = -5000000000ll;
	r.common_pid = 1234;

	ft_check("a8 == 200", &r, len, 1);
	ft_check("a8 != 200", &r, len, 0);
	ft_check("a8 > 199", &r, len, 1);
	ft_check("a8 >= 201", &r, len, 0);
	ft_check("a8 < 201", &r, len, 1);
	ft_check("a8 <= 199", &r, len, 0);
	ft_check("a8 & 8", &r, len, 1);		/* 200 = 0xc8 */
	ft_check("a8 & 0x37", &r, len, 0);
	ft_check("a8 == 456", &r, len, 1);	/* 456 & 0xff = 200: no range check */
	ft_check("a8 == 0xc8", &r, len, 1);
	ft_check("a8 == 0310", &r, len, 1);	/* octal */
	ft_check("b8 == -3", &r, len, 1);
	ft_check("b8 < 0", &r, len, 1);
	ft_check("b8 > -4", &r, len, 1);
	ft_check("b8 == 253", &r, len, 1);	/* compared as u8 for == */
	ft_check("a16 > 59999", &r, len, 1);
	ft_check("b16 < -299", &r, len, 1);
	ft_check("b16 >= -300", &r, len, 1);
	ft_check("a32 > 3999999999", &r, len, 1);
	ft_check("b32 == -70000", &r, len, 1);
	ft_check("b32 < -69999", &r, len, 1);
	ft_check("a64 == 0xfffffffffffffff0", &r, len, 1);
	ft_check("a64 > 18446744073709551599", &r, len, 1);
	ft_check("b64 < -4999999999", &r, len, 1);
	ft_check("b64 == -5000000000", &r, len, 1);
	ft_check("common_pid == 1234", &r, len, 1);
	ft_check("common_pid != 1234", &r, len, 0);
	ft_check("a8==200", &r, len, 1);	/* no spaces */
	ft_check("\ta8\t==\t200\n", &r, len, 1);
	ft_check("b8 == -0x3", &r, len, 1);
	/* an unsigned field reads -1 as an error, a signed one as -1 */
	ft_check_err("a8 == -1", "Illegal integer value", 7, EINVAL);
	ft_check_err("a8 == 1x", "Illegal integer value", 7, EINVAL);
	ft_check_err("a8 == 08", "Illegal integer value", 7, EINVAL);
	ft_check_err("b64 == 9223372036854775808", "Illegal integer value", 8, EINVAL);
	ft_check("b64 != -9223372036854775808", &r, len, 1);
	ft_check_err("a64 == 18446744073709551616", "Illegal integer value", 8, EINVAL);
	ft_check_err("a8 == 0x0000000000000000000001", "Operand too long", 30, EINVAL);
	ft_check_err("a8 ~ 1", "Illegal operation for field type", 6, EINVAL);
	ft_check_err("a8 == \"x\"", "Expecting numeric field", 7, EINVAL);
	ft_check_err("a8 == x", "Invalid value (did you forget quotes)?", 7, EINVAL);
	ft_check_err("a8 = 1", "Invalid operator", 4, EINVAL);
	ft_check_err("a8 =< 1", "Invalid operator", 4, EINVAL);
	return ft_done();
}
