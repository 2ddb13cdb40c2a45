// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-vstring: __vstring(item, fmt, va) with __assign_vstr(), and
 * __string_len(item, src, len) with __assign_str_len(). The `format` lines are
 * the kernel's (__data_loc char[]); the message is formatted at record time
 * from a va_copy, so the caller's va_list is still whole afterwards; a
 * message over EVT_STRING_MAX - 1 bytes is cut there; __string_len copies at
 * most len bytes. `trace`, our trace.dat reader and `trace-cmd report` (when
 * installed) print the same lines.
 */
#include "events-gaps-tp.h"

#include "events-gaps-util.h"

static char after[2048];

/* A printf-like logger that traces its message, then formats it again from the same va. */
static void __attribute__((format(printf, 4, 5)))
vlog(int id, const char *name, size_t nlen, const char *fmt, ...)
{
	va_list va;

	va_start(va, fmt);
	trace_gaps_vstr(id, name, nlen, fmt, &va);
	vsnprintf(after, sizeof(after), fmt, va);
	va_end(va);
}

static void rec_fn(const void *rec, unsigned int len, void *arg)
{
	uint32_t loc;

	(void)len;
	memcpy(&loc, (const char *)rec + 20, 4); /* msg's __data_loc */
	*(unsigned int *)arg = loc >> 16;
}

int main(void)
{
	static char buf[4096], big[2001], cut[1100], line[1200];
	struct evt_instance *inst;
	unsigned int msglen = 0;

	T_ASSERT(evt_event_format_text("evgaps", "gaps_vstr", buf, sizeof(buf)) > 0);
	if (!strstr(buf, "\tfield:int id;\toffset:12;\tsize:4;\tsigned:1;\n"
			 "\tfield:__data_loc char[] name;\toffset:16;\tsize:4;\tsigned:0;\n"
			 "\tfield:__data_loc char[] msg;\toffset:20;\tsize:4;\tsigned:0;\n") ||
	    !strstr(buf, "print fmt: \"id=%d name=%s msg=%s\", REC->id, __get_str(name), "
			 "__get_str(msg)\n"))
		t_fail("gaps_vstr format:\n%s", buf);

	memset(big, 'x', sizeof(big) - 1);

	/* the record: the formatted length and its NUL; a va_copy (the va is whole after) */
	inst = t_instance("vstring-len");
	T_ASSERT(evt_instance_event_enable(inst, "evgaps", "gaps_vstr", true) == 1);
	vlog(1, "n", 1, "a=%d b=%s", 12, "xyz");
	T_ASSERT_EQ(strcmp(after, "a=12 b=xyz"), 0);
	T_ASSERT_EQ(t_consume(inst, rec_fn, &msglen), 1);
	T_ASSERT_EQ(msglen, strlen("a=12 b=xyz") + 1);
	vlog(2, "n", 1, "%s", big);
	T_ASSERT_EQ(strlen(after), 2000);
	T_ASSERT_EQ(t_consume(inst, rec_fn, &msglen), 1);
	T_ASSERT_EQ(msglen, EVT_STRING_MAX);
	T_ASSERT_OK(evt_instance_destroy(inst));

	inst = t_instance("vstring");
	T_ASSERT(evt_instance_event_enable(inst, "evgaps", "gaps_vstr", true) == 1);
	vlog(1, "worker", 6, "request %d of %s: %5.2f%% done, %#lx", 7, "/data/x", 42.5, 0xbeefUL);
	vlog(2, "abcdef", 3, "%s", "");
	vlog(3, NULL, 10, "%c%c%c", 'a', 'b', 'c');
	vlog(4, "longer than len", 100, "%s", big);
	memcpy(cut, big, EVT_STRING_MAX - 1);
	cut[EVT_STRING_MAX - 1] = '\0';
	snprintf(line, sizeof(line), "gaps_vstr id=4 name=longer than len msg=%s", cut);
	{
		const char *const expect[] = {
			"gaps_vstr id=1 name=worker msg=request 7 of /data/x: 42.50% done, 0xbeef",
			"gaps_vstr id=2 name=abc msg=",
			"gaps_vstr id=3 name=(null) msg=abc",
			line,
		};

		gaps_check_all(inst, "vstring", expect, (int)(sizeof(expect) / sizeof(expect[0])));
	}
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
