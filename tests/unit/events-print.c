// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-print: the print-format interpreter, one conversion and one
 * helper at a time, against what printf(3) (or the kernel's helper)
 * gives; a record too short for its fields prints without reading past
 * its end; a text that does not parse gives NULL.
 */
#include <stdlib.h>

#include "events/event_internal.h"

#include "events-util.h"

/* A record: common fields, then these. */
static const struct evt_field fields[] = {
	{ "unsigned short", "common_type", 0, 2, 2, EVT_FIELD_INT, 0 },
	{ "int", "i", 12, 4, 4, EVT_FIELD_INT, 1 },
	{ "unsigned int", "u", 16, 4, 4, EVT_FIELD_INT, 0 },
	{ "long long", "ll", 20, 8, 8, EVT_FIELD_INT, 1 },
	{ "unsigned long long", "ull", 28, 8, 8, EVT_FIELD_INT, 0 },
	{ "char", "c", 36, 1, 1, EVT_FIELD_INT, 1 },
	{ "short", "sh", 37, 2, 2, EVT_FIELD_INT, 1 },
	{ "char[8]", "name", 40, 8, 1, EVT_FIELD_STRING, 1 },
	{ "__data_loc char[]", "str", 48, 4, 1, EVT_FIELD_DYN_STRING, 0 },
	{ "__data_loc unsigned char[]", "buf", 52, 4, 1, EVT_FIELD_DYN_ARRAY, 0 },
	{ "void *", "ptr", 56, 8, 8, EVT_FIELD_PTR, 0 },
	{ "int[3]", "arr", 64, 12, 4, EVT_FIELD_ARRAY, 1 },
};

static unsigned char rec[128];

static void build_record(void)
{
	int32_t i = -42, arr[3] = { 5, -6, 7 };
	uint32_t u = 3000000000u, loc;
	int64_t ll = -1234567890123ll;
	uint64_t ull = 0xdeadbeefcafef00dull, ptr = 0x7f00aa00;
	int16_t sh = -7;

	memset(rec, 0, sizeof(rec));
	memcpy(rec + 12, &i, 4);
	memcpy(rec + 16, &u, 4);
	memcpy(rec + 20, &ll, 8);
	memcpy(rec + 28, &ull, 8);
	rec[36] = 'Z';
	memcpy(rec + 37, &sh, 2);
	memcpy(rec + 40, "abcdefgh", 8);	/* no NUL: bounded by the field */
	loc = evt_data_loc_make(80, 6);
	memcpy(rec + 48, &loc, 4);
	memcpy(rec + 80, "hello", 6);
	loc = evt_data_loc_make(86, 4);
	memcpy(rec + 52, &loc, 4);
	memcpy(rec + 86, "\x01\xab\x00\xff", 4);
	memcpy(rec + 56, &ptr, 8);
	memcpy(rec + 64, arr, 12);
}

static void check_len(const char *fmt, const char *want, size_t len)
{
	struct print_fmt *pf = print_fmt_parse(fmt, fields, sizeof(fields) / sizeof(fields[0]));
	char out[512];
	struct evt_seq s;

	if (!pf)
		t_fail("did not parse: %s", fmt);
	evt_seq_init(&s, out, sizeof(out));
	print_fmt_print(pf, rec, len, &s);
	print_fmt_free(pf);
	if (strcmp(out, want))
		t_fail("%s\n  want [%s]\n  got  [%s]", fmt, want, out);
}

static void check(const char *fmt, const char *want)
{
	check_len(fmt, want, sizeof(rec));
}

static void check_bad(const char *fmt)
{
	struct print_fmt *pf = print_fmt_parse(fmt, fields, sizeof(fields) / sizeof(fields[0]));

	if (pf)
		t_fail("parsed, should not: %s", fmt);
}

int main(void)
{
	char want[256];

	build_record();
	/* integers, widths, flags */
	check("\"%d %i %u\", REC->i, REC->i, REC->u", "-42 -42 3000000000");
	check("\"[%5d] [%-5d] [%05d] [%+d] [% d]\", REC->i, REC->i, REC->i, REC->u, REC->c",
	      "[  -42] [-42  ] [-0042] [-1294967296] [ 90]");
	check("\"%x %X %#x %08x %o\", REC->u, REC->u, REC->u, REC->u, REC->u",
	      "b2d05e00 B2D05E00 0xb2d05e00 b2d05e00 26264057000");
	snprintf(want, sizeof(want), "%lld %llu %llx %lx %ld", -1234567890123ll,
		 0xdeadbeefcafef00dull, 0xdeadbeefcafef00dull, 0xdeadbeefcafef00dul,
		 -1234567890123l);
	check("\"%lld %llu %llx %lx %ld\", REC->ll, REC->ull, REC->ull, REC->ull, REC->ll", want);
	check("\"%hd %hhd %hu %hhx\", REC->i, REC->i, REC->i, REC->i", "-42 -42 65494 d6");
	check("\"%c%c|%3c\", REC->c, 'x', REC->c", "Zx|  Z");
	check("\"%*d|%-*d|%.*d\", 6, REC->i, 6, REC->i, 4, REC->i", "   -42|-42   |-0042");
	check("\"100%% %d%%\", REC->i", "100% -42%");
	check("\"%d\", REC->sh", "-7");
	/* strings */
	check("\"%s|%.3s|%10s|%-10s|\", REC->name, REC->name, REC->name, REC->name",
	      "abcdefgh|abc|  abcdefgh|abcdefgh  |");
	check("\"%s %s\", __get_str(str), \"lit\" \"eral\"", "hello literal");
	check("\"%s\", REC->i > 0 ? \"pos\" : \"neg\"", "neg");
	/* pointers */
	check("\"%p\", REC->ptr", "0x7f00aa00");
	check("\"%px\", REC->ptr", "000000007f00aa00");
	check("\"%ps\", (void *)REC->ptr", "0x7f00aa00");
	/* expressions and casts */
	check("\"%d %d %d %u\", REC->i + 2, REC->i * -1, (REC->u >> 28) & 0xf, "
	      "(unsigned char)REC->i",
	      "-40 42 11 214");
	check("\"%d %d %d\", REC->arr[0], REC->arr[1], REC->arr[2]", "5 -6 7");
	check("\"%d\", REC->arr[3]", "0");
	check("\"%d %d\", !REC->i, REC->i == -42 && REC->u != 0", "0 1");
	/* helpers */
	check("\"%s\", __print_flags(0x15, \"|\", { 1, \"A\" }, { 4, \"C\" }, { 2, \"B\" })",
	      "A|C|0x10");
	check("\"%s\", __print_flags(0, \"|\", { 1, \"A\" })", "");
	check("\"%s\", __print_flags(3, \",\", { 3, \"AB\" }, { 1, \"A\" })", "AB");
	check("\"%s %s\", __print_symbolic(REC->c, { 'Z', \"zed\" }), "
	      "__print_symbolic(9, { 1, \"one\" })", "zed 0x9");
	check("\"[%s]\", __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf))",
	      "[01 ab 00 ff]");
	check("\"[%s]\", __print_hex_str(__get_dynamic_array(buf), 2)", "[01ab]");
	check("\"%s\", __print_array(REC->arr, 3, 4)", "{0x5,0xfffffffa,0x7}");
	check("\"%u\", __get_dynamic_array_len(buf)", "4");
	/* the kernel's trace_print_bitmask_seq(): 32-bit chunks from the top, zero-padded,
	 * a short first chunk of what is left (6 bytes: 48 bits, 16 + 32) */
	check("\"%s|%-10s|\", __get_bitmask(buf), __get_cpumask(buf)", "ff00ab01|ff00ab01  |");
	check("\"%s\", __get_bitmask(str)", "006f,6c6c6568");
	check_len("\"[%s]\", __get_bitmask(str)", "[]", 84);	/* data past the end */
	/* a record cut short: fields past the end read as 0 / "" */
	check_len("\"%d [%s] [%s] %llu\", REC->i, REC->name, __get_str(str), REC->ull",
		  "-42 [] [] 0", 20);
	check_len("\"%d [%s]\", REC->i, REC->name", "-42 [abc]", 43);
	/* what does not parse */
	check_bad("\"%d\"");			/* too few arguments */
	check_bad("\"%d\", REC->i, REC->i");	/* too many */
	check_bad("\"%d\", REC->nosuch");
	check_bad("\"%s\", __get_str(nosuch)");
	check_bad("\"%d\", nofunc(1)");
	check_bad("\"%q\", 1");
	check_bad("\"unterminated");
	check_bad("\"%d\", (((((((((((((((((((((((((((((((((((((((((((((((((((((1)))))))))))))"
		  ")))))))))))))))))))))))))))))))))))))))))");
	check_bad("no quotes");
	return T_PASS;
}
