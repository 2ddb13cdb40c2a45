/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/error.h - error codes.
 *
 * Every int-returning evtrace function returns 0 (or a count) on success
 * and a negative errno value on failure; errno itself is never touched.
 * Codes that errno has no word for live in their own range, far below
 * -4095, and evt_strerror() gives text for both kinds.
 *
 * Where a failure has more to say than its code (which byte of a trace.dat
 * is bad, where a filter stops parsing, the line an error_log records), the
 * function that failed leaves that text for its thread: evt_error_detail().
 * Each function that does says so in its man page (ERRORS).
 */
#ifndef EVTRACE_ERROR_H
#define EVTRACE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define EVT_ERRNO__START	(-100000)

/**
 * evt_strerror() - text for an evtrace return value.
 * @err: a negative errno value or an EVT_ERRNO code.
 *
 * Return: a static string; never NULL.
 */
const char *evt_strerror(int err);

/**
 * evt_error_detail() - what the calling thread's last failure had to say.
 *
 * A function documented to leave a detail forgets the thread's old one on
 * entry and, when it fails with more to say than its code, leaves the text
 * ("offset 96: truncated header page", a filter's "Field not found (at 4)").
 *
 * Context: any thread but signal handlers; it reads the thread's own text.
 * Return: the text, or "" when the last such call left none; never NULL.
 * Borrowed: valid until the thread's next call of a function that leaves a
 * detail, or the thread's exit.
 */
const char *evt_error_detail(void);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_ERROR_H */
