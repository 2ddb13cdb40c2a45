// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: filter_compile() on an untrusted expression, then
 * filter_match() of what it compiled on records of every length.
 *
 * The input is the expression (bytes up to the first NUL; the rest, if
 * any, is used as a record). Nothing may crash, leak or read outside the
 * record; a rejection must come with a caret inside the expression and a
 * message or the kernel's "Error: (0)"; an accepted expression must show
 * as written, trailing white space stripped.
 *
 * Seeds (tests/fuzz/corpus/filter-parse/): expressions of the differential
 * corpus (tests/data/filter-diff/corpus.tsv), valid and invalid.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"

static const struct evt_field fields[] = {
	{ "unsigned short", "common_type", 0, 2, 2, EVT_FIELD_INT, 0 },
	{ "unsigned char", "common_flags", 2, 1, 1, EVT_FIELD_INT, 0 },
	{ "unsigned char", "common_preempt_count", 3, 1, 1, EVT_FIELD_INT, 0 },
	{ "int", "common_pid", 4, 4, 4, EVT_FIELD_INT, 1 },
	{ "u8", "a8", 8, 1, 1, EVT_FIELD_INT, 0 },
	{ "s8", "b8", 9, 1, 1, EVT_FIELD_INT, 1 },
	{ "u16", "a16", 10, 2, 2, EVT_FIELD_INT, 0 },
	{ "s16", "b16", 12, 2, 2, EVT_FIELD_INT, 1 },
	{ "u32", "a32", 16, 4, 4, EVT_FIELD_INT, 0 },
	{ "s32", "b32", 20, 4, 4, EVT_FIELD_INT, 1 },
	{ "u64", "a64", 24, 8, 8, EVT_FIELD_INT, 0 },
	{ "s64", "b64", 32, 8, 8, EVT_FIELD_INT, 1 },
	{ "char[16]", "name", 40, 16, 1, EVT_FIELD_STRING, 1 },
	{ "__data_loc char[]", "str", 56, 4, 4, EVT_FIELD_DYN_STRING, 1 },
	{ "__rel_loc char[]", "rstr", 60, 4, 4, EVT_FIELD_REL_STRING, 1 },
	{ "u8[4]", "arr", 64, 4, 1, EVT_FIELD_ARRAY, 0 },
	{ "unsigned long", "x", 72, 8, 8, EVT_FIELD_INT, 0 },
	{ "__data_loc int[]", "ints", 80, 4, 4, EVT_FIELD_DYN_ARRAY, 1 },
	{ "u64", "ustr", 84, 8, 8, EVT_FIELD_INT, 0 },
};

static void check(int cond)
{
	if (!cond)
		abort();
}

static int is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct filter_ctx ctx = { .cpu = 0, .comm = "fuzz" };
	size_t n = strnlen((const char *)data, size), rlen, tlen;
	struct filter_prog *prog = NULL;
	struct filter_error err = { 0 };
	char *expr, buf[64];
	int ret;

	expr = malloc(n + 1);
	check(expr != NULL);
	memcpy(expr, data, n);
	expr[n] = 0;
	ret = filter_compile(fields, sizeof(fields) / sizeof(fields[0]), expr, &prog, &err);
	tlen = n;
	while (tlen && is_space((unsigned char)expr[tlen - 1]))
		tlen--;
	if (ret) {
		check(ret < 0 && err.errnum == -ret);
		check(err.pos >= 0 && (size_t)err.pos <= tlen);
		check(err.log_msg != NULL && err.log_pos >= 0);
		check(prog == NULL);
		check(filter_error_format(expr, &err, buf, sizeof(buf)) > 0);
	} else if (prog) {
		check(strlen(filter_prog_text(prog)) == tlen);
		check(!memcmp(filter_prog_text(prog), expr, tlen));
		/* the bytes after the NUL as records of every length, each its own heap block */
		rlen = n < size ? size - n - 1 : 0;
		for (size_t len = 0; len <= rlen && len <= 128; len++) {
			char *rec = malloc(len ? len : 1);

			check(rec != NULL);
			memcpy(rec, data + n + 1, len);
			(void)filter_match_ctx(prog, rec, len, &ctx);
			free(rec);
		}
		filter_free(prog);
	}
	free(expr);
	return 0;
}
