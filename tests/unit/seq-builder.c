// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * seq-builder: the bounded text builder (evtrace/seq.h). Every writer appends
 * whole pieces or nothing: a piece that does not fit sets `full`, leaves the
 * text as it was (NUL-terminated) and makes later writes fail too until a
 * reset or a truncate; putmem copies bytes with NULs in them; truncate cuts
 * back and clears full; a one-byte buffer holds only the NUL.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <evtrace/seq.h>

#include "helpers.h"

static int vp(struct evt_seq *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = evt_seq_vprintf(s, fmt, ap);
	va_end(ap);
	return ret;
}

int main(void)
{
	struct evt_seq s;
	char buf[16], one[1];

	memset(buf, 'X', sizeof(buf));
	evt_seq_init(&s, buf, sizeof(buf));
	T_ASSERT_EQ(s.len, 0);
	T_ASSERT_EQ(buf[0], '\0');
	T_ASSERT(!s.full);

	/* 15 bytes of text fit a 16-byte buffer */
	T_ASSERT_OK(evt_seq_puts(&s, "abc"));
	T_ASSERT_OK(evt_seq_putc(&s, '-'));
	T_ASSERT_OK(evt_seq_printf(&s, "%d:%s", 42, "xy"));
	T_ASSERT_OK(vp(&s, "%c", '!'));
	T_ASSERT(strcmp(buf, "abc-42:xy!") == 0);
	T_ASSERT_EQ(s.len, 10);
	T_ASSERT_OK(evt_seq_puts(&s, "12345"));
	T_ASSERT_EQ(s.len, 15);
	T_ASSERT(!s.full);

	/* nothing more fits: not even one byte, and the text stays whole */
	T_ASSERT_EQ(evt_seq_putc(&s, 'z'), -ENOSPC);
	T_ASSERT(s.full);
	T_ASSERT(strcmp(buf, "abc-42:xy!12345") == 0);

	/* once full, every writer refuses, even one that would fit after truncate */
	evt_seq_truncate(&s, 3);
	T_ASSERT(!s.full);
	T_ASSERT(strcmp(buf, "abc") == 0);
	T_ASSERT_EQ(evt_seq_printf(&s, "%s", "this is far too long"), -ENOSPC);
	T_ASSERT(s.full);
	T_ASSERT(strcmp(buf, "abc") == 0);
	T_ASSERT_EQ(evt_seq_puts(&s, "d"), -ENOSPC);
	T_ASSERT_EQ(vp(&s, "e"), -ENOSPC);
	T_ASSERT(strcmp(buf, "abc") == 0);

	/* truncate beyond the length changes nothing but the flag */
	evt_seq_truncate(&s, 100);
	T_ASSERT_EQ(s.len, 3);
	T_ASSERT_OK(evt_seq_putc(&s, 'd'));

	/* putmem: bytes with a NUL, length counted, text terminated after them */
	T_ASSERT_OK(evt_seq_putmem(&s, "e\0f", 3));
	T_ASSERT_EQ(s.len, 7);
	T_ASSERT(memcmp(buf, "abcde\0f", 8) == 0);
	T_ASSERT_EQ(evt_seq_putmem(&s, "0123456789", 10), -ENOSPC);
	T_ASSERT_EQ(s.len, 7);

	/* reset forgets text and flag */
	evt_seq_reset(&s);
	T_ASSERT_EQ(s.len, 0);
	T_ASSERT(!s.full);
	T_ASSERT_EQ(buf[0], '\0');
	T_ASSERT_OK(evt_seq_printf(&s, "%s", ""));
	T_ASSERT_EQ(s.len, 0);

	/* a one-byte buffer: only the empty text */
	evt_seq_init(&s, one, sizeof(one));
	T_ASSERT_OK(evt_seq_puts(&s, ""));
	T_ASSERT_EQ(evt_seq_putc(&s, 'a'), -ENOSPC);
	T_ASSERT_EQ(one[0], '\0');
	return 0;
}
