/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output/trace_json.h - a trace.dat file as Chrome/Perfetto JSON trace events
 * (the "JSON Object Format" that ui.perfetto.dev and chrome://tracing open).
 *
 * One pass over the records (evt_tracedat_next), each written as it is read
 * through a small buffer: memory is the buffer plus one entry per thread
 * seen (for its thread_name metadata). docs/evtrace-command.md, `export`.
 *
 * The export is public (evtrace/export.h, evt_tracedat_export_json()); this
 * header has what the library's other writers share: the JSON escaping.
 */
#ifndef EVT_OUTPUT_TRACE_JSON_H
#define EVT_OUTPUT_TRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <evtrace/export.h>

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
