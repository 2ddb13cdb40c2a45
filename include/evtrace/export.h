/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/export.h - a trace.dat file in the formats other tools read.
 *
 * evt_tracedat_export_json(): Chrome/Perfetto JSON trace events (the "JSON
 * Object Format" that ui.perfetto.dev and chrome://tracing open), in one
 * pass over the records, each written as it is read through a small buffer
 * (memory: the buffer plus one entry per thread seen, for its thread_name).
 *
 * evt_tracedat_export_ctf(): a CTF 1.8 trace (the Common Trace Format that
 * LTTng writes; babeltrace2 and Trace Compass read it): `metadata` (TSDL
 * text: the trace, its clock, one stream class, one event class per event
 * format with its fields and their real types) and one stream per CPU that
 * has records. Events lost before a record close the packet: the next
 * one's events_discarded grows by their count (docs/fleet.md).
 *
 * Both write through a sink the caller gives (a file, a directory of
 * files, a socket) and read the records from an open struct evt_tracedat
 * (evt_tracedat_open()) from its current position. `evtrace export` and
 * `evtrace record --format=ctf` use them.
 *
 * Synchronization: one thread per struct evt_tracedat.
 * Errors: 0 or a negative errno value; errno is never touched.
 */
#ifndef EVTRACE_EXPORT_H
#define EVTRACE_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct evt_tracedat;
struct evt_tracedat_record;

/* --- Chrome/Perfetto JSON ------------------------------------------------------- */

/*
 * Where the JSON goes: @write takes @len bytes and returns 0 or a negative
 * errno (the export then stops and returns it; the output is cut short).
 */
struct evt_json_sink {
	int (*write)(void *ctx, const void *buf, size_t len);
	void *ctx;
};

struct evt_json_opts {
	const char *source; /* the input's name for metadata.source (NULL: none) */
	bool durations;	    /* map X_begin/X_end, X_enter/X_exit, sys_enter_X/sys_exit_X to B/E */
	/* which records to write (NULL: all); the others are counted in metadata.skipped */
	bool (*want)(void *ctx, const struct evt_tracedat_record *rec);
	void *want_ctx;
};

struct evt_json_stats {
	unsigned long long records; /* records written (read and wanted) */
	unsigned long long events;  /* trace events written (metadata events included) */
	unsigned long long dropped; /* events the pages say were lost (known counts) */
};

/**
 * evt_tracedat_export_json() - write every record of @td as JSON trace events to @sink.
 * @td:    an open file, read from its current position (rewind it first).
 * @o:     options (NULL: defaults).
 * @sink:  where the bytes go.
 * @st:    counts (may be NULL).
 *
 * A corrupt page ends the records: the JSON is still closed (metadata.error
 * holds the reader's "offset N: ..." text, also left for evt_error_detail())
 * and -EBADMSG returned.
 *
 * Context: one thread per @td; allocates (the thread table).
 * Return: 0; -EBADMSG (read error, output complete and valid JSON);
 * -ENOMEM or the sink's error (output cut short).
 */
int evt_tracedat_export_json(struct evt_tracedat *td, const struct evt_json_opts *o,
			     struct evt_json_sink *sink, struct evt_json_stats *st);

/* --- CTF 1.8 ---------------------------------------------------------------------- */

/* The file a write goes to: the metadata, or the stream of CPU @file (>= 0). */
#define EVT_CTF_FILE_METADATA (-1)

/*
 * Where the trace goes: @write appends @len bytes to @file (EVT_CTF_FILE_METADATA
 * or a CPU number) and returns 0 or a negative errno (the export then stops
 * and returns it). The metadata is written whole before any stream byte.
 */
struct evt_ctf_sink {
	int (*write)(void *ctx, int file, const void *buf, size_t len);
	void *ctx;
};

struct evt_ctf_opts {
	/* which records to write (NULL: all); the others are counted as skipped */
	bool (*want)(void *ctx, const struct evt_tracedat_record *rec);
	void *want_ctx;
	const char *hostname;	    /* env.hostname (NULL: none) */
	const char *source;	    /* env.input_file (NULL: none) */
	unsigned char uuid[16];	    /* the trace's UUID (packet headers, metadata) */
	bool has_epoch;		    /* the clock's 0 is known on CLOCK_REALTIME: */
	long long epoch_offset_ns;  /* CLOCK_REALTIME (ns) when the trace clock read 0 */
	uint64_t freq;		    /* the clock's counts per second (0: 1 GHz, nanoseconds) */
	unsigned int packet_bytes;  /* close a packet past this much content (0: 64 KiB) */
};

struct evt_ctf_stats {
	unsigned long long records;   /* events written */
	unsigned long long discarded; /* events the pages say were lost (as written) */
	unsigned long long skipped;   /* records not wanted, or of no event format */
	unsigned long long packets;   /* packets written, all streams */
	unsigned long long clamped;   /* time stamps raised to their stream's last one */
};

/**
 * evt_tracedat_export_ctf() - write every record of @td as a CTF 1.8 trace to @sink.
 * @td:    an open file, read from its current position.
 * @o:     options (NULL: defaults, a zero UUID).
 * @sink:  where the bytes go.
 * @st:    counts (may be NULL).
 *
 * A corrupt page ends the records: the packets already filled are closed and
 * written (the trace is valid, it has fewer events) and -EBADMSG returned;
 * evt_error_detail() then says where ("offset N: ...").
 *
 * Context: one thread per @td; allocates (a packet buffer per CPU).
 * Return: 0; -EBADMSG (read error, output complete and valid); -ENOMEM or the
 * sink's error (output cut short).
 */
int evt_tracedat_export_ctf(struct evt_tracedat *td, const struct evt_ctf_opts *o,
			    struct evt_ctf_sink *sink, struct evt_ctf_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_EXPORT_H */
