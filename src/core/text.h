/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/text.h - a growing text buffer, for the files whose text has no bound
 * (a `trigger` file's list, a `hist` file): printf-style appends, the first
 * error kept. The fixed-size builder of bounded text is evt_seq (seq.h).
 *
 *   struct text t = { 0 };
 *
 *   text_add(&t, "%s:count=%ld\n", name, count);
 *   if (t.err) ...;	(-ENOMEM or -EINVAL; the text is then incomplete)
 *   ... t.buf (NUL-terminated once anything was added, NULL before), t.len ...
 *   free(t.buf);
 *
 * Context: any thread; allocates (not for writers).
 */
#ifndef EVT_CORE_TEXT_H
#define EVT_CORE_TEXT_H

#include <stddef.h>

struct text {
	char *buf;
	size_t len, cap;
	int err;
};

/* Append; after an error, nothing more is added. */
void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* EVT_CORE_TEXT_H */
