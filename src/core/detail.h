/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/detail.h - the calling thread's error detail, the text behind
 * evt_error_detail(3): the one way a public function says more than its
 * negative errno (CONTRIBUTING.md, "API conventions").
 *
 * A public function that can explain a failure calls detail_clear() on entry
 * and detail_set() where it fails; detail_set() keeps only the first text
 * after a clear, so the innermost (most precise) explanation wins over a
 * caller's summary. Nothing here is for the write path.
 *
 * Context: any thread; detail_set() allocates the thread's buffer once
 * (a pthread key, no TLS: CONTRIBUTING.md, "Thread-local storage").
 */
#ifndef EVT_CORE_DETAIL_H
#define EVT_CORE_DETAIL_H

#include <stdarg.h>

/* Forget the thread's detail (a public function's first step). */
void detail_clear(void);

/* Set the detail, printf-style, unless one was set since the last clear. */
void detail_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The detail, or "" (never NULL). */
const char *detail_get(void);

#endif /* EVT_CORE_DETAIL_H */
