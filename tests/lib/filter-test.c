// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/filter-test.c - the filter tests' sample event, record builder and checks
 */
#include "filter-test.h"

const struct evt_field ft_fields[] = {
	FT_FIELD("unsigned short", common_type, EVT_FIELD_INT, 0),
	FT_FIELD("unsigned char", common_flags, EVT_FIELD_INT, 0),
	FT_FIELD("unsigned char", common_preempt_count, EVT_FIELD_INT, 0),
	FT_FIELD("int", common_pid, EVT_FIELD_INT, 1),
	FT_FIELD("u8", a8, EVT_FIELD_INT, 0),
	FT_FIELD("s8", b8, EVT_FIELD_INT, 1),
	FT_FIELD("u16", a16, EVT_FIELD_INT, 0),
	FT_FIELD("s16", b16, EVT_FIELD_INT, 1),
	FT_FIELD("u32", a32, EVT_FIELD_INT, 0),
	FT_FIELD("s32", b32, EVT_FIELD_INT, 1),
	FT_FIELD("u64", a64, EVT_FIELD_INT, 0),
	FT_FIELD("s64", b64, EVT_FIELD_INT, 1),
	{ .type = "char[16]", .name = "name", .offset = offsetof(struct ft_rec, name), .size = 16,
	  .elem_size = 1, .kind = EVT_FIELD_STRING, .is_signed = 1 },
	FT_FIELD("__data_loc char[]", dstr, EVT_FIELD_DYN_STRING, 1),
	FT_FIELD("__rel_loc char[]", rstr, EVT_FIELD_REL_STRING, 1),
	FT_FIELD("const char *", pstr, EVT_FIELD_PTR, 0),
	FT_FIELD("void *", ptr, EVT_FIELD_PTR, 0),
	FT_FIELD("unsigned long", call_site, EVT_FIELD_INT, 0),
};
const size_t ft_nr_fields = sizeof(ft_fields) / sizeof(ft_fields[0]);

int ft_failures;

size_t ft_rec_init(struct ft_rec *r, const char *name, const char *dstr,
				 const char *rstr)
{
	size_t used = 0, n;

	memset(r, 0, sizeof(*r));
	memcpy(r->name, name, strnlen(name, sizeof(r->name)));	/* not NUL-terminated when full */
	n = strlen(dstr) + 1;
	memcpy(r->data, dstr, n);
	r->dstr = (uint32_t)(n << 16 | offsetof(struct ft_rec, data));
	used += n;
	n = strlen(rstr) + 1;
	memcpy(r->data + used, rstr, n);
	r->rstr = (uint32_t)(n << 16 |
			     (offsetof(struct ft_rec, data) + used - offsetof(struct ft_rec, rstr) - 4));
	used += n;
	return offsetof(struct ft_rec, data) + used;
}

void ft_check(const char *expr, const struct ft_rec *r, size_t len, int want)
{
	struct filter_error err = { 0 };
	struct filter_prog *prog = NULL;
	int ret = filter_compile(ft_fields, FT_NR_FIELDS, expr, &prog, &err);
	struct filter_ctx ctx = { .cpu = 1, .comm = "filter-test" };

	if (ret) {
		fprintf(stderr, "FAIL: [%s] does not compile: %d %s at %d\n", expr, ret,
			err.msg ? err.msg : "(null)", err.pos);
		ft_failures++;
		return;
	}
	if (filter_match_ctx(prog, r, len, &ctx) != want) {
		fprintf(stderr, "FAIL: [%s] gives %d, want %d\n", expr, !want, want);
		ft_failures++;
	}
	filter_free(prog);
}

void ft_check_err(const char *expr, const char *msg, int pos, int errnum)
{
	struct filter_error err = { 0 };
	struct filter_prog *prog = NULL;
	int ret = filter_compile(ft_fields, FT_NR_FIELDS, expr, &prog, &err);

	if (!ret) {
		fprintf(stderr, "FAIL: [%s] compiles, want \"%s\"\n", expr, msg ? msg : "(null)");
		filter_free(prog);
		ft_failures++;
		return;
	}
	if (ret != -errnum || err.errnum != errnum || err.pos != pos ||
	    (msg ? !err.msg || strcmp(msg, err.msg) : err.msg != NULL)) {
		fprintf(stderr, "FAIL: [%s]: got %d \"%s\" at %d, want %d \"%s\" at %d\n", expr,
			err.errnum, err.msg ? err.msg : "(null)", err.pos, errnum,
			msg ? msg : "(null)", pos);
		ft_failures++;
	}
}

int ft_done(void)
{
	if (ft_failures) {
		fprintf(stderr, "%d failures\n", ft_failures);
		return T_FAIL;
	}
	return T_PASS;
}
