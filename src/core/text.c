// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/text.c - the growing text buffer of core/text.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/text.h"

void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->err)
		return;
	for (;;) {
		size_t room = t->cap - t->len, cap;
		char *nb;

		va_start(ap, fmt);
		n = vsnprintf(t->buf ? t->buf + t->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->err = -EINVAL;
			return;
		}
		if ((size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		cap = (t->cap + (size_t)n + 1) * 2;
		nb = realloc(t->buf, cap);
		if (!nb) {
			t->err = -ENOMEM;
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
}
