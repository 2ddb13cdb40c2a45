/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * filter/filter.h - event filters (events.rst section 5), compiled.
 *
 * The contract between the filter compiler and its users (the event layer,
 * which runs programs on records; the tracing tree, which writes `filter`
 * files). A filter is compiled once against an event's field descriptors
 * (events/field.h) into a predicate program; evaluating it reads only the
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

#include "events/field.h"

struct filter_prog;

/*
 * Why a compile failed, as the kernel reports it: @pos is the byte offset of
 * the caret in the expression, @msg one of the kernel's parse_error strings
 * ("Field not found", "Missing closing paren", ...), @errnum the positive errno
 * the kernel's write(2) to a `filter` file returns for it (EINVAL, ENOENT, ...).
 */
struct filter_error {
	int pos;
	int errnum;
	const char *msg;
};

/*
 * filter_compile - compile @expr against @fields.
 *
 * Return: 0 and *@progp set (NULL when @expr clears the filter: "0" or blank),
 * or a negative errno with *@err filled in and *@progp untouched.
 */
int filter_compile(const struct evt_field *fields, size_t nr_fields, const char *expr,
		   struct filter_prog **progp, struct filter_error *err);

/* Does the record @rec of @len bytes pass? Reads nothing outside [rec, rec + len). */
bool filter_match(const struct filter_prog *prog, const void *rec, size_t len);

/* The expression as the `filter` file shows it (the text compiled). */
const char *filter_prog_text(const struct filter_prog *prog);

void filter_free(struct filter_prog *prog);

#endif /* EVT_FILTER_FILTER_H */
