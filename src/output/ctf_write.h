/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output/ctf_write.h - a trace.dat file as a CTF 1.8 trace (the Common Trace
 * Format that LTTng writes; babeltrace2 and Trace Compass read it).
 *
 * The trace is a directory of files: `metadata` (TSDL text: the trace, its
 * clock, one stream class, one event class per event format of the file with
 * its fields and their real types) and one stream file per CPU that has
 * records (`stream_<cpu>`). Each stream is a series of packets, each with a
 * header (magic, trace UUID, stream class, the CPU as stream instance) and a
 * context (timestamp_begin/end, content/packet size, sequence number,
 * events_discarded, cpu_id). Events lost before a record (the page's flag)
 * close the packet: the next one's events_discarded grows by their count,
 * which babeltrace2 reports as a discarded-events notice.
 * docs/fleet.md has the layout and what maps to what.
 *
 * Internal (prefix ctf_, hidden); used by `evtrace export --format=ctf`,
 * `evtrace record --format=ctf` and the ctf-export fuzz target.
 */
#ifndef EVT_OUTPUT_CTF_WRITE_H
#define EVT_OUTPUT_CTF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evt_tracedat;
struct evt_tracedat_record;

/* The file a write goes to: the metadata, or the stream of CPU @file (>= 0). */
#define CTF_FILE_METADATA (-1)

/*
 * Where the trace goes: @write appends @len bytes to @file (CTF_FILE_METADATA
 * or a CPU number) and returns 0 or a negative errno (the export then stops
 * and returns it). The metadata is written whole before any stream byte.
 */
struct ctf_sink {
	int (*write)(void *ctx, int file, const void *buf, size_t len);
	void *ctx;
};

struct ctf_opts {
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

struct ctf_stats {
	unsigned long long records;   /* events written */
	unsigned long long discarded; /* events the pages say were lost (as written) */
	unsigned long long skipped;   /* records not wanted, or of no event format */
	unsigned long long packets;   /* packets written, all streams */
	unsigned long long clamped;   /* time stamps raised to their stream's last one */
};

/**
 * ctf_export() - write every record of @td as a CTF 1.8 trace to @sink.
 * @td:    an open file, read from its current position.
 * @o:     options (NULL: defaults, a zero UUID).
 * @sink:  where the bytes go.
 * @st:    counts (may be NULL).
 *
 * A corrupt page ends the records: the packets already filled are closed and
 * written (the trace is valid, it has fewer events) and -EBADMSG returned.
 *
 * Context: one thread per @td; allocates (a packet buffer per CPU).
 * Return: 0; -EBADMSG (read error, output complete and valid); -ENOMEM or the
 * sink's error (output cut short).
 */
int ctf_export(struct evt_tracedat *td, const struct ctf_opts *o, struct ctf_sink *sink,
	       struct ctf_stats *st);

#endif /* EVT_OUTPUT_CTF_WRITE_H */
