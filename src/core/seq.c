// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/seq.c - the bounded text builder (evtrace/seq.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <evtrace/seq.h>

void evt_seq_init(struct evt_seq *s, char *buf, size_t size)
{
	s->buf = buf;
	s->size = size;
	evt_seq_reset(s);
}

void evt_seq_reset(struct evt_seq *s)
{
	s->len = 0;
	s->full = false;
	if (s->size)
		s->buf[0] = '\0';
}

static size_t seq_room(const struct evt_seq *s)
{
	return s->size ? s->size - 1 - s->len : 0;
}

int evt_seq_vprintf(struct evt_seq *s, const char *fmt, va_list ap)
{
	size_t room = seq_room(s);
	int n;

	if (s->full || !s->size)
		goto full;
	n = vsnprintf(s->buf + s->len, room + 1, fmt, ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n > room) {
		s->buf[s->len] = '\0';
		goto full;
	}
	s->len += (size_t)n;
	return 0;
full:
	s->full = true;
	return -ENOSPC;
}

int evt_seq_printf(struct evt_seq *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = evt_seq_vprintf(s, fmt, ap);
	va_end(ap);
	return ret;
}

int evt_seq_putmem(struct evt_seq *s, const void *mem, size_t len)
{
	if (s->full || len > seq_room(s)) {
		s->full = true;
		return -ENOSPC;
	}
	memcpy(s->buf + s->len, mem, len);
	s->len += len;
	s->buf[s->len] = '\0';
	return 0;
}

int evt_seq_puts(struct evt_seq *s, const char *str)
{
	return evt_seq_putmem(s, str, strlen(str));
}

int evt_seq_putc(struct evt_seq *s, char c)
{
	return evt_seq_putmem(s, &c, 1);
}

void evt_seq_truncate(struct evt_seq *s, size_t len)
{
	if (len < s->len) {
		s->len = len;
		if (s->size)
			s->buf[len] = '\0';
	}
	s->full = false;
}
