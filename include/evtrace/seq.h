/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/seq.h - a bounded text builder (the kernel's trace_seq).
 *
 * Text goes into a caller-provided buffer. A write that does not fit
 * entirely is not made at all and marks the builder full: output is never
 * cut in the middle of a piece. The buffer is always NUL-terminated.
 * Not thread-safe: one builder, one thread.
 */
#ifndef EVTRACE_SEQ_H
#define EVTRACE_SEQ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct evt_seq {
	char *buf;		/* the text, NUL-terminated */
	size_t len;		/* bytes of text */
	size_t size;		/* bytes at buf (text + NUL) */
	bool full;		/* a write did not fit */
};

/* @size >= 1. */
void evt_seq_init(struct evt_seq *s, char *buf, size_t size);
/* Forget the text (and the full flag). */
void evt_seq_reset(struct evt_seq *s);

/* Each returns 0, or -ENOSPC (nothing written, s->full set). */
int evt_seq_printf(struct evt_seq *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int evt_seq_vprintf(struct evt_seq *s, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
int evt_seq_puts(struct evt_seq *s, const char *str);
int evt_seq_putc(struct evt_seq *s, char c);
int evt_seq_putmem(struct evt_seq *s, const void *mem, size_t len);
/* Cut the text back to @len bytes (<= s->len); clears full. */
void evt_seq_truncate(struct evt_seq *s, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_SEQ_H */
