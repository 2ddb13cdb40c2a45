/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output/trace_json.h - a trace.dat file as Chrome/Perfetto JSON trace events
 * (the "JSON Object Format" that ui.perfetto.dev and chrome://tracing open).
 *
 * One pass over the records (evt_tracedat_next), each written as it is read
 * through a small buffer: memory is the buffer plus one entry per thread
 * seen (for its thread_name metadata). docs/evtrace-command.md, `export`.
 *
 * Internal (prefix tjson_, hidden); the `evtrace export` command and the
 * tracedat-export fuzz target use it.
 */
#ifndef EVT_OUTPUT_TRACE_JSON_H
#define EVT_OUTPUT_TRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct evt_tracedat;
struct evt_tracedat_record;

/*
 * Where the JSON goes: @write takes @len bytes and returns 0 or a negative
 * errno (the export then stops and returns it; the output is cut short).
 */
struct tjson_sink {
	int (*write)(void *ctx, const void *buf, size_t len);
	void *ctx;
};

struct tjson_opts {
	const char *source; /* the input's name for metadata.source (NULL: none) */
	bool durations;	    /* map X_begin/X_end, X_enter/X_exit, sys_enter_X/sys_exit_X to B/E */
	/* which records to write (NULL: all); the others are counted in metadata.skipped */
	bool (*want)(void *ctx, const struct evt_tracedat_record *rec);
	void *want_ctx;
};

struct tjson_stats {
	unsigned long long records; /* records written (read and wanted) */
	unsigned long long events;  /* trace events written (metadata events included) */
	unsigned long long dropped; /* events the pages say were lost (known counts) */
};

/**
 * tjson_export() - write every record of @td as JSON trace events to @sink.
 * @td:    an open file, read from its current position (rewind it first).
 * @o:     options (NULL: defaults).
 * @sink:  where the bytes go.
 * @st:    counts (may be NULL).
 *
 * A corrupt page ends the records: the JSON is still closed (metadata.error
 * holds evt_tracedat_error()'s "offset N: ..." text) and -EBADMSG returned.
 *
 * Context: one thread per @td; allocates (the thread table).
 * Return: 0; -EBADMSG (read error, output complete and valid JSON);
 * -ENOMEM or the sink's error (output cut short).
 */
int tjson_export(struct evt_tracedat *td, const struct tjson_opts *o, struct tjson_sink *sink,
		 struct tjson_stats *st);

/**
 * tjson_escape() - @len bytes at @s as the body of a JSON string (no quotes):
 * `"` and `\` escaped, control characters as \n, \t, ... or \u00XX, and each
 * maximal invalid UTF-8 subsequence as U+FFFD. Stops at the first NUL when
 * @stop_at_nul. Writes at most @cap - 1 bytes and a NUL to @out.
 *
 * Context: any. Return: the length of the whole escaped text (as snprintf:
 * larger than @cap - 1 means @out was cut).
 */
size_t tjson_escape(const void *s, size_t len, bool stop_at_nul, char *out, size_t cap);

#endif /* EVT_OUTPUT_TRACE_JSON_H */
