// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * export-json-escape: tjson_escape() (src/output/trace_json.c), the string
 * escaping of `evtrace export`: quotes, backslashes and control characters
 * escaped, valid UTF-8 kept, each maximal invalid subsequence one U+FFFD
 * (overlongs, surrogates, above U+10FFFF, cut sequences, stray bytes), NUL
 * ends the text only when asked, and a small output is cut like snprintf.
 * Needs no python (cmd-export checks the same through python's decoder).
 */
#include <string.h>

#include "helpers.h"
#include "output/trace_json.h"

#define R "\xef\xbf\xbd" /* U+FFFD */

static void one(const char *in, size_t len, bool nul, const char *want)
{
	char out[256];
	size_t n = tjson_escape(in, len, nul, out, sizeof(out));

	if (n != strlen(want) || strcmp(out, want))
		t_fail("escape of [%.*s]: got [%s] (%zu), want [%s]", (int)len, in, out, n, want);
}

#define ONE(in, want) one(in, sizeof(in) - 1, false, want)

int main(void)
{
	char small[8];
	size_t n;

	ONE("plain text", "plain text");
	ONE("q\"b\\s/", "q\\\"b\\\\s/");
	ONE("\n\t\r\b\f", "\\n\\t\\r\\b\\f");
	ONE("\x01\x1f\x7f", "\\u0001\\u001f\\u007f");
	ONE("a\0b", "a\\u0000b");
	one("a\0b", 3, true, "a");
	ONE("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	ONE("\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\xef\xbf\xbf\xf4\x8f\xbf\xbf"); /* U+FFFF, U+10FFFF */
	ONE("\x80", R);
	ONE("\xbf\x80", R R);
	ONE("\xc0\xaf", R R); /* overlong '/' */
	ONE("\xc1\xbf", R R);
	ONE("\xe0\x80\xaf", R R R);	  /* overlong, 3 bytes */
	ONE("\xed\xa0\x80", R R R);	  /* surrogate U+D800 */
	ONE("\xf4\x90\x80\x80", R R R R); /* above U+10FFFF */
	ONE("\xf5\xf8\xff", R R R);
	ONE("\xe2\x82", R); /* cut: one maximal subpart */
	ONE("\xe2\x82z", R "z");
	ONE("\xf0\x9f\x98 x", R " x");
	ONE("x\xc3", "x" R);
	ONE("\xe2\x82\"", R "\\\"");

	n = tjson_escape("abc\"def\"ghi", 11, false, small, sizeof(small));
	T_ASSERT_EQ(n, 13);
	T_ASSERT(!strcmp(small, "abc\\\"de"));
	n = tjson_escape("x", 1, false, small, 0);
	T_ASSERT_EQ(n, 1);
	return T_PASS;
}
