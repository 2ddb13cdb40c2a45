// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-special: the kernel's special fields and value forms, with their
 * user-space meanings. CPU / cpu / common_cpu: the CPU the matching thread
 * runs on (or the context's); COMM / comm: the thread's name (prctl
 * PR_GET_NAME, as the kernel's current->comm), or the context's; CPUS{list}
 * against CPU fields and numeric fields; field.function == symbol: the field
 * holds an address inside that function of this process (dynamic symbols and
 * the program's own static functions alike).
 */
#include <sys/prctl.h>
#include <sys/sysinfo.h>

#include "filter-test.h"
#include "filter/filter_internal.h"

/* a static function: only the ELF .symtab knows it */
static __attribute__((noinline, used)) int filt_static_fn(int x)
{
	return x * 3 + 1;
}

static bool match_ctx(const char *expr, const struct ft_rec *r, size_t len,
		      const struct filter_ctx *ctx)
{
	struct filter_error err;
	struct filter_prog *prog = NULL;
	bool ok;

	if (filter_compile(ft_fields, FT_NR_FIELDS, expr, &prog, &err)) {
		fprintf(stderr, "FAIL: [%s] does not compile: %s\n", expr,
			err.msg ? err.msg : "(null)");
		exit(T_FAIL);
	}
	ok = filter_match_ctx(prog, r, len, ctx);
	filter_free(prog);
	return ok;
}

int main(void)
{
	struct filter_ctx cpu0 = { .cpu = 0, .comm = "worker-3" };
	struct filter_ctx cpu1 = { .cpu = 1, .comm = "bash" };
	struct filter_ctx self = { .cpu = -1, .comm = NULL };
	struct ft_rec r;
	size_t len = ft_rec_init(&r, "x", "", "");
	char expr[128];

	/* CPU */
	{
		struct filter_prog *prog;
		struct filter_error err;

		T_ASSERT_OK(filter_compile(ft_fields, FT_NR_FIELDS, "a8 == 1 || cpu == 1", &prog,
					   &err));
		T_ASSERT(filter_prog_uses_ctx(prog));
		filter_free(prog);
		T_ASSERT_OK(filter_compile(ft_fields, FT_NR_FIELDS, "a8 == 1 || name ~ \"x*\"",
					   &prog, &err));
		T_ASSERT(!filter_prog_uses_ctx(prog));
		filter_free(prog);
		T_ASSERT(!filter_prog_uses_ctx(NULL));
	}
	T_ASSERT(match_ctx("CPU == 0", &r, len, &cpu0));
	T_ASSERT(!match_ctx("CPU == 0", &r, len, &cpu1));
	T_ASSERT(match_ctx("cpu > 0", &r, len, &cpu1));
	T_ASSERT(match_ctx("common_cpu != 0", &r, len, &cpu1));
	T_ASSERT(match_ctx("cpu <= 1 && CPU >= 1", &r, len, &cpu1));
	if (t_nr_cpus() >= 1 && t_pin_to_cpu(0) == 0) {
		T_ASSERT(match_ctx("CPU == 0", &r, len, &self));
		T_ASSERT(match_ctx("CPU == 0", &r, len, NULL));
		t_unpin();
	}
	/* CPUS{} on CPU: one CPU is == that CPU (& too); several: & tests membership */
	T_ASSERT(match_ctx("CPU == CPUS{1}", &r, len, &cpu1));
	T_ASSERT(match_ctx("CPU & CPUS{1}", &r, len, &cpu1));
	T_ASSERT(!match_ctx("CPU != CPUS{1}", &r, len, &cpu1));
	if (get_nprocs_conf() >= 2) {
		T_ASSERT(match_ctx("CPU & CPUS{0-1}", &r, len, &cpu1));
		T_ASSERT(!match_ctx("CPU == CPUS{0-1}", &r, len, &cpu1));	/* never == */
		T_ASSERT(match_ctx("CPU != CPUS{0,1}", &r, len, &cpu0));	/* always != */
		/* on a numeric field: the field's value is a CPU number */
		r.a8 = 1;
		T_ASSERT(match_ctx("a8 & CPUS{0-1}", &r, len, &cpu0));
		r.a8 = 200;	/* not a CPU: false, whatever the operator */
		T_ASSERT(!match_ctx("a8 != CPUS{0-1}", &r, len, &cpu0));
	}
	r.a32 = 0;
	T_ASSERT(match_ctx("a32 == CPUS{0}", &r, len, &cpu0));
	T_ASSERT(match_ctx("a32 & CPUS{0}", &r, len, &cpu0));
	T_ASSERT(!match_ctx("a32 != CPUS{0}", &r, len, &cpu0));
	ft_check_err("a8 < CPUS{0}", "Illegal operation for field type", 6, EINVAL);
	ft_check_err("name == CPUS{0}", "Illegal operation for field type", 9, EINVAL);
	ft_check_err("a8 == CPUS{}", "Invalid cpulist", 12, EINVAL);
	ft_check_err("a8 == CPUS{x}", "Invalid cpulist", 13, EINVAL);
	ft_check_err("a8 == CPUS{0", "Missing '}'", 12, EINVAL);
	ft_check_err("a8 == CPUS0}", "Missing '{'", 12, EINVAL);
	snprintf(expr, sizeof(expr), "a8 == CPUS{%d}", get_nprocs_conf());
	/* the caret clamped to the end */
	ft_check_err(expr, "Invalid cpulist", (int)strlen(expr), EINVAL);

	/* COMM */
	T_ASSERT(match_ctx("COMM == \"worker-3\"", &r, len, &cpu0));
	T_ASSERT(match_ctx("comm ~ \"worker-*\"", &r, len, &cpu0));
	T_ASSERT(match_ctx("comm ~ \"w*r-?\"", &r, len, &cpu0));
	T_ASSERT(!match_ctx("comm ~ \"worker-*\"", &r, len, &cpu1));
	T_ASSERT(match_ctx("comm != \"worker-3\"", &r, len, &cpu1));
	prctl(PR_SET_NAME, "filt-special", 0, 0, 0);
	T_ASSERT(match_ctx("comm == \"filt-special\"", &r, len, NULL));
	T_ASSERT(match_ctx("COMM ~ \"filt-*\"", &r, len, &self));
	ft_check_err("comm == 1", "Expecting string field", 9, EINVAL);
	ft_check_err("comm.function == getenv", "Illegal operation for field type", 18, EINVAL);

	/* .function: a libc function (dynamic symbol), and a static one of ours */
	r.call_site = (unsigned long)(uintptr_t)getenv + 4;
	ft_check("call_site.function == getenv", &r, len, 1);
	ft_check("call_site.function != getenv", &r, len, 0);
	ft_check("call_site.function == qsort", &r, len, 0);
	r.call_site = (unsigned long)(uintptr_t)filt_static_fn + 1;
	T_ASSERT_EQ(filt_static_fn(1), 4);
	ft_check("call_site.function == filt_static_fn", &r, len, 1);
	snprintf(expr, sizeof(expr), "call_site.function == %#lx",
		 (unsigned long)(uintptr_t)filt_static_fn);
	ft_check(expr, &r, len, 1);
	r.call_site = 0;
	ft_check("call_site.function == filt_static_fn", &r, len, 0);
	ft_check_err("call_site.function == no_such_function_xyz", "Function not found", 42,
		     EINVAL);
	ft_check_err("call_site.function == 0x10", "Function not found", 26, EINVAL);
	ft_check_err("call_site.function < getenv", "Invalid operator", 22, EINVAL);
	ft_check_err("a32.function == getenv", "Illegal operation for field type", 17, EINVAL);
	ft_check_err("call_site.function == 0xfoo", "Invalid value (did you forget quotes)?", 27,
		     EINVAL);
	return ft_done();
}
