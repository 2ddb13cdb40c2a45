/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * filter/filter.h - event filters (events.rst section 5), compiled.
 *
 * The contract between the filter compiler and its users (the event layer,
 * which runs programs on records; the tracing tree, which writes `filter`
 * files). A filter is compiled once against an event's field descriptors
 * (struct evt_field, public in evtrace/events.h because TRACE_EVENT() builds
 * them) into a predicate program; evaluating it reads only the
 * record it is given. Nothing here knows about instances or RCU: the event
 * layer publishes and retires programs.
 *
 * Grammar, operators, error messages and errno values are the kernel's, as
 * checked against the kernel of the build machine (docs/filters.md).
 */
#ifndef EVT_FILTER_FILTER_H
#define EVT_FILTER_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include <evtrace/events.h>

struct filter_prog;

/*
 * Why a compile failed, as the kernel reports it: @pos is the byte offset of
 * the caret in the expression, @msg one of the kernel's parse_error strings
 * ("Field not found", "Too many '('", ...), @errnum the positive errno
 * the kernel's write(2) to a `filter` file returns for it (EINVAL, ENOENT, ...).
 *
 * @msg is NULL where the kernel has no message (a blank expression, "()", a
 * predicate without a field name): the `filter` file then shows "Error: (0)"
 * and no caret. @log_msg and @log_pos are what the kernel puts in error_log
 * ("event filter parse error"): the same message and unclamped position, or
 * "Error" at 0. filter_error_format() builds the `filter` file's text.
 */
struct filter_error {
	int pos;
	int errnum;
	const char *msg;
	int log_pos;
	const char *log_msg;
};

/*
 * filter_compile - compile @expr against @fields.
 *
 * @expr is what was written to the `filter` file (a trailing newline is fine:
 * trailing white space is stripped as the kernel does). "0", with any white
 * space around it, clears the filter. A blank expression is an error, as in
 * the kernel (EINVAL, "Error: (0)"); a zero-length write should not reach here
 * (the kernel ignores it).
 *
 * Return: 0 and *@progp set (NULL when @expr clears the filter: "0"),
 * or a negative errno with *@err filled in and *@progp untouched.
 */
int filter_compile(const struct evt_field *fields, size_t nr_fields, const char *expr,
		   struct filter_prog **progp, struct filter_error *err);

/*
 * Does the record @rec of @len bytes pass? Reads nothing outside [rec, rec + len)
 * (a record too short for the fields read fails). A NULL @prog passes everything.
 *
 * Context: any thread, any number at once on the same program, signal handlers
 * too (no lock, no allocation; COMM without a context and char * fields make a
 * system call). A program is immutable: filter_free() it only once no thread
 * can still be running it (the event layer's grace period).
 */
bool filter_match(const struct filter_prog *prog, const void *rec, size_t len);

/* The expression as the `filter` file shows it (the text compiled); "none" for NULL. */
const char *filter_prog_text(const struct filter_prog *prog);

/* Context: any thread; @prog may be NULL. */
void filter_free(struct filter_prog *prog);

/*
 * What the special fields read when a record is matched. The kernel reads the
 * current CPU and current->comm; we read the calling thread's CPU (rseq) and
 * its name (prctl PR_GET_NAME), unless a context supplies them.
 */
struct filter_ctx {
	int cpu;		/* CPU, cpu, common_cpu; < 0: the calling thread's */
	const char *comm;	/* COMM, comm: up to 16 bytes; NULL: the thread's name */
};

/* filter_match() with the special fields' values given (@ctx may be NULL). */
bool filter_match_ctx(const struct filter_prog *prog, const void *rec, size_t len,
		      const struct filter_ctx *ctx);

/* Does @prog read CPU/cpu/common_cpu or COMM/comm (is a filter_ctx worth building)? */
bool filter_prog_uses_ctx(const struct filter_prog *prog);

/*
 * filter_error_format - the kernel's filter_string after @expr was rejected with
 * @err: the expression (trailing white space stripped), a caret line and
 * "parse_error: <msg>" (or "Error: (0)"), each line ending in '\n'. Reading the
 * `filter` file shows it followed by one more '\n', as for any filter text.
 * Writes at most @size bytes (NUL-terminated) and returns the length the whole
 * text needs, like snprintf.
 */
int filter_error_format(const char *expr, const struct filter_error *err, char *buf,
			size_t size);

/*
 * filter_error_subsystem - turn @err into the kernel's error for a subsystem
 * filter that did not apply to an event ("Couldn't find or set field in one of
 * a subsystem's events", caret at 0, EINVAL).
 */
void filter_error_subsystem(struct filter_error *err);

#define FILTER_MAX_STR_VAL	256	/* MAX_FILTER_STR_VAL: longest string operand + 1 */
#define FILTER_USTRING_MAX	1024	/* bytes copied from a char * before a compare */

#endif /* EVT_FILTER_FILTER_H */
