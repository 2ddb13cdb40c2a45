// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth-format: a synthetic event's `format` is the kernel's (tests/data/synth/
 * format-fmttest.txt: every field kind, the 256-byte slot of a char[N], "char d[]" for it,
 * __data_loc for char[], the print fmt) but for our common_tgid, and its records print as the
 * kernel's print_synth_event(): values of 1, 2 and 4 bytes zero-extended into their
 * conversion, gfp_t with its flags in parentheses, u64[] as a list. Filters and the id file
 * work on it as on any event.
 */
#include "synth-util.h"

/* Our format text as the kernel's: no common_tgid, offsets past it 4 less, ID 0. */
static char *as_kernel(const char *ours)
{
	char *out = malloc(strlen(ours) + 1), *o = out;
	const char *p = ours;

	T_ASSERT(out);
	while (*p) {
		const char *nl = strchr(p, '\n'), *off;
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
		char line[1024];

		T_ASSERT(len < sizeof(line));
		memcpy(line, p, len);
		line[len] = '\0';
		p += len;
		if (strstr(line, "common_tgid"))
			continue;
		if (!strncmp(line, "ID: ", 4)) {
			o += sprintf(o, "ID: 0\n");
			continue;
		}
		off = strstr(line, "offset:");
		if (off) {
			int v = atoi(off + 7);
			const char *rest = strchr(off, ';');

			o += sprintf(o, "%.*soffset:%d%s", (int)(off - line), line,
				     v >= 12 ? v - 4 : v, rest);
			continue;
		}
		o += sprintf(o, "%s", line);
	}
	*o = '\0';
	return out;
}

int main(void)
{
	struct evt_event_file *file;
	uint64_t arr[3] = { 1, 0x20, 0xffffffffffffffffull };
	struct evt_synth_u64_array a = { arr, 3 };
	char id[32];
	const char *t;

	T_ECHO("fmttest u8 a; s16 b; unsigned int c; char d[16]; char e[]; u64 f; bool g; "
	       "pid_t h; gfp_t i; long j",
	       "synthetic_events");
	{
		char *k = as_kernel(cat("events/synthetic/fmttest/format"));

		T_ASSERT_STR(k, slurp("format-fmttest.txt"));
		free(k);
	}
	snprintf(id, sizeof(id), "%s", cat("events/synthetic/fmttest/id"));
	T_ASSERT(atoi(id) >= 32);
	T_ASSERT(strstr(cat("events/synthetic/fmttest/format"), "ID: "));

	/* every kind printed */
	T_ASSERT_OK(evt_trace_get_event_file(NULL, "synthetic", "fmttest", &file));
	T_ECHO("1", "events/synthetic/fmttest/enable");
	T_ASSERT_OK(evt_synth_event_trace(file, 10, (uint64_t)-1, (uint64_t)-2, (uint64_t)-3,
					  U("a string longer than sixteen bytes"), U("dyn"),
					  (uint64_t)-4, (uint64_t)1, (uint64_t)-5, (uint64_t)0x10,
					  (uint64_t)-6));
	T_ASSERT_OK(evt_synth_event_trace(file, 10, (uint64_t)7, (uint64_t)8, (uint64_t)9,
					  (uint64_t)0, (uint64_t)0, (uint64_t)10, (uint64_t)0,
					  (uint64_t)11, (uint64_t)0, (uint64_t)12));
	t = cat("trace");
	printf("%s", t);
	/* the kernel's print: u8 -1 -> 255, s16 -2 -> 65534 (zero-extended into %d), a char[16]
	 * holds 255 bytes (its slot), s32/pid_t -5 -> -5, long -6 -> -6 */
	T_ASSERT(strstr(t,
			": fmttest: a=255 b=65534 c=4294967293 d=a string longer than "
			"sixteen bytes e=dyn f=18446744073709551612 g=1 h=-5 i=10  (0x10)j=-6\n"));
	T_ASSERT(strstr(t,
			": fmttest: a=7 b=8 c=9 d=(fault) e=(fault) f=10 g=0 h=11 i=0  ()j=12\n"));

	/* a filter on a synthetic event's fields, strings included */
	T_ECHO("h == 11 && e == \"(fault)\"", "events/synthetic/fmttest/filter");
	T_ASSERT_EQ(echo("nosuch == 1", "events/synthetic/fmttest/filter"), -EINVAL);
	T_ASSERT_OK(evt_tracefs_write(NULL, "trace", "", 0, EVT_TRACEFS_TRUNC));
	T_ASSERT_OK(evt_synth_event_trace(file, 10, (uint64_t)1, (uint64_t)1, (uint64_t)1, U("x"),
					  U("dyn"), (uint64_t)1, (uint64_t)1, (uint64_t)11,
					  (uint64_t)0, (uint64_t)1));
	T_ASSERT_OK(evt_synth_event_trace(file, 10, (uint64_t)2, (uint64_t)1, (uint64_t)1, U("x"),
					  (uint64_t)0, (uint64_t)1, (uint64_t)1, (uint64_t)11,
					  (uint64_t)0, (uint64_t)1));
	t = cat("trace");
	T_ASSERT(!strstr(t, "a=1 "));
	T_ASSERT(strstr(t, ": fmttest: a=2 "));
	T_ECHO("0", "events/synthetic/fmttest/filter");
	T_ECHO("0", "events/synthetic/fmttest/enable");
	evt_trace_put_event_file(file);
	T_ECHO("!fmttest", "synthetic_events");

	/* u64[], an evtrace addition: format, print fmt, print */
	T_ECHO("arr u64[] v; char s[]", "synthetic_events");
	t = cat("events/synthetic/arr/format");
	T_ASSERT(strstr(t, "\tfield:__data_loc u64[] v;\toffset:12;\tsize:8;\tsigned:0;\n"));
	T_ASSERT(strstr(t, "\tfield:__data_loc char[] s;\toffset:20;\tsize:8;\tsigned:1;\n"));
	T_ASSERT(strstr(t, "print fmt: \"v=%s, s=%.*s\", __print_array(__get_dynamic_array(v), "
			   "__get_dynamic_array_len(v) / 8, 8), __get_str(s)\n"));
	T_ASSERT_STR(cat("synthetic_events"), "arr\tu64[] v; char[] s\n");
	T_ASSERT_OK(evt_trace_get_event_file(NULL, "synthetic", "arr", &file));
	T_ECHO("1", "events/synthetic/arr/enable");
	T_ASSERT_OK(evt_synth_event_trace(file, 2, U(&a), U("after")));
	a.nr = 0;
	T_ASSERT_OK(evt_synth_event_trace(file, 2, U(&a), U("")));
	T_ASSERT_OK(evt_synth_event_trace(file, 2, (uint64_t)0, U("null array")));
	t = cat("trace");
	T_ASSERT(strstr(t, ": arr: v={0x1,0x20,0xffffffffffffffff} s=after\n"));
	T_ASSERT(strstr(t, ": arr: v={} s=\n"));
	T_ASSERT(strstr(t, ": arr: v={} s=null array\n"));
	T_ECHO("0", "events/synthetic/arr/enable");
	evt_trace_put_event_file(file);
	T_ECHO("!arr", "synthetic_events");

	/* long[]: a stacktrace, as the kernel's (up to a 0, at most 16 entries) */
	T_ECHO("stk long[] st; u32 n", "synthetic_events");
	t = cat("events/synthetic/stk/format");
	T_ASSERT(strstr(t, "\tfield:__data_loc long[] st;\toffset:12;\tsize:8;\tsigned:1;\n"));
	T_ASSERT(strstr(t, "print fmt: \"st=%s, n=%u\", __get_stacktrace(st), REC->n\n"));
	T_ASSERT_OK(evt_trace_get_event_file(NULL, "synthetic", "stk", &file));
	T_ECHO("1", "events/synthetic/stk/enable");
	{
		unsigned long st[20] = { 0x1234, 0x5678, 0 };

		T_ASSERT_OK(evt_synth_event_trace(file, 2, U(st), (uint64_t)3));
		for (int i = 0; i < 20; i++)
			st[i] = 0x1000 + (unsigned long)i;
		T_ASSERT_OK(evt_synth_event_trace(file, 2, U(st), (uint64_t)4));
		T_ASSERT_OK(evt_synth_event_trace(file, 2, (uint64_t)0, (uint64_t)5));
	}
	t = cat("trace");
	T_ASSERT(strstr(t, ": stk: st=STACK:\n=> 0x1234\n=> 0x5678\nn=3\n"));
	T_ASSERT(strstr(t, ": stk: st=STACK:\n=> 0x1000\n"));
	T_ASSERT(strstr(t, "=> 0x100f\nn=4\n")); /* 16 entries, the 17th not kept */
	T_ASSERT(!strstr(t, "=> 0x1010\n"));
	T_ASSERT(strstr(t, ": stk: st=STACK:\nn=5\n"));
	T_ECHO("0", "events/synthetic/stk/enable");
	evt_trace_put_event_file(file);
	T_ECHO("!stk", "synthetic_events");
	return T_PASS;
}
