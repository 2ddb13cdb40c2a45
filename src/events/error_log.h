/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * events/error_log.h - an instance's error_log: the last errors of the commands
 * written to its files (filters now; triggers, hist, synthetic events later).
 *
 * The kernel's tracing_log_err() and its error_log file: each entry keeps the
 * time, where the error happened, the message, the command text and the
 * position of the offending byte in it, and reads back as
 *
 *   [  769.267367] event filter parse error: error: Field not found
 *     Command: nosuch == 1
 *                     ^
 *
 * At most ERROR_LOG_MAX entries are kept (the kernel's 8): a new one pushes
 * the oldest out. Commands longer than ERROR_LOG_CMD_MAX bytes are cut there.
 *
 * Context: every function takes the log's own mutex (no other lock is taken
 * under it), so any thread may call any of them, but not a signal handler.
 */
#ifndef EVT_EVENTS_ERROR_LOG_H
#define EVT_EVENTS_ERROR_LOG_H

#include <stddef.h>
#include <stdint.h>

#define ERROR_LOG_MAX		8
#define ERROR_LOG_CMD_MAX	4096

struct error_log;

/* Return: 0 and *@logp set, or -ENOMEM. */
int error_log_alloc(struct error_log **logp);
void error_log_free(struct error_log *log);

/*
 * error_log_add - record an error.
 * @loc: where, without the colon: "event filter parse error", "hist:sched:sched_switch"
 * @msg: the error's text, without the "error: " the log puts before it
 * @cmd: the command as written (NULL: empty)
 * @pos: byte offset of the caret in @cmd (at most its length + 1)
 *
 * Return: 0, or -ENOMEM (the entry is then lost; nothing else changes).
 */
int error_log_add(struct error_log *log, const char *loc, const char *msg, const char *cmd,
		  unsigned int pos);

/* Forget every entry (a write to error_log that truncates it). */
void error_log_clear(struct error_log *log);

/* How many entries are kept now. */
unsigned int error_log_count(struct error_log *log);

/*
 * error_log_format - the file's text, oldest entry first, into @buf.
 *
 * Return: the length of the whole text (as snprintf: @buf holds the first
 * @len - 1 bytes of it and a NUL when @len > 0).
 */
size_t error_log_format(struct error_log *log, char *buf, size_t len);

#endif /* EVT_EVENTS_ERROR_LOG_H */
