/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/tracepipe.h - event streams through a named pipe (tracepipe).
 *
 * A program creates a channel; the channel is a FIFO in a directory
 * ($XDG_RUNTIME_DIR/evtrace/<name> by default). While a reader holds the
 * FIFO open (`cat`, `evtrace tracepipe record`, a splice() loop), every
 * evt_tracepipe_event() copies its blob, behind a 12-byte record header
 * (cycle count, CPU, length), into a per-CPU page; full pages go down the
 * pipe whole, in the page format below. Without a reader nothing is
 * recorded. Events that find no free page are counted in "missed": per
 * page in the stream, in <name>.missed next to the FIFO, and by
 * evt_tracepipe_missed(). docs/tracepipe.md has the design.
 *
 * Synchronization: evt_tracepipe_event(), _reserve() and _commit() are
 * lockless and async-signal-safe: any thread, any signal handler, no
 * system call on the fast path. create, flush and remove are for normal
 * thread context, and remove must not race with events on the channel.
 * In a fork() child the channel is off: events return -ECHILD, remove
 * frees the child's copy only.
 *
 * On-pipe format (all fields little-endian on the usual hosts: host byte
 * order, the stream does not leave the machine it was made on):
 *
 *   stream := stream page, then pages (one stream per reader attachment)
 *   stream page := evt_tracepipe_page_header with cpu EVT_TRACEPIPE_STREAM_CPU,
 *             then evt_tracepipe_stream_info (the clock's scale); no records
 *   page   := evt_tracepipe_page_header, then records, page.size bytes in all
 *   record := evt_tracepipe_record_header, then len payload bytes, then
 *             0..3 bytes of padding to a multiple of 4
 */
#ifndef EVTRACE_TRACEPIPE_H
#define EVTRACE_TRACEPIPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EVT_TRACEPIPE_MAGIC	0x50545645u /* "EVTP" in a little-endian dump */
#define EVT_TRACEPIPE_VERSION	2 /* 2: the stream page (version 1 had none) */
#define EVT_TRACEPIPE_PAGE_SIZE 4096 /* largest page in the stream */
#define EVT_TRACEPIPE_PAGE_HDR	32   /* sizeof(struct evt_tracepipe_page_header) */
#define EVT_TRACEPIPE_REC_HDR	12   /* sizeof(struct evt_tracepipe_record_header) */
#define EVT_TRACEPIPE_REC_ALIGN 4
/* The largest blob: one record alone in a page, 4 bytes short of its end (4048). */
#define EVT_TRACEPIPE_MAX_EVENT \
	(EVT_TRACEPIPE_PAGE_SIZE - EVT_TRACEPIPE_PAGE_HDR - EVT_TRACEPIPE_REC_HDR - 4)

/* The first 32 bytes of every page in the stream. */
struct evt_tracepipe_page_header {
	uint32_t magic;	   /* EVT_TRACEPIPE_MAGIC */
	uint16_t version;  /* EVT_TRACEPIPE_VERSION */
	uint16_t hdr_size; /* EVT_TRACEPIPE_PAGE_HDR: where the first record starts */
	uint32_t size;	   /* bytes of this page in the stream, header included */
	uint32_t cpu;	   /* the CPU whose buffer the page is from */
	uint64_t seq;	   /* page number on this CPU: 0, 1, 2...; a gap = pages lost */
	uint64_t missed;   /* events this CPU missed (no free page) before the page opened */
};

/* The cpu of the stream page, the first page a reader gets: it carries the clock's scale. */
#define EVT_TRACEPIPE_STREAM_CPU  0xffffffffu
#define EVT_TRACEPIPE_STREAM_INFO 48 /* sizeof(struct evt_tracepipe_stream_info) */

/*
 * After the stream page's header: how to turn a record's cycles into
 * nanoseconds, in any process:
 *
 *	ns = offset + ((cycles * mult) >> shift)	(128-bit product, mod 2^64)
 *
 * (EVT_TRACEPIPE_CYCLES_TO_NS). The result is the writer's "local" clock:
 * CLOCK_MONOTONIC at the writer's calibration, running at the counter's
 * rate. mult 0: the cycles cannot be converted (no calibrated counter).
 */
struct evt_tracepipe_stream_info {
	uint32_t clock;	      /* enum evt_clock_id of the cycles: EVT_CLOCK_TSC, or MONO_RAW */
	uint32_t shift;	      /* < 64 */
	uint64_t mult;
	uint64_t offset;
	uint64_t base_cycles; /* the counter when the stream began ... */
	uint64_t base_ns;     /* ... and CLOCK_MONOTONIC then (ns) */
	uint64_t freq_hz;     /* counter cycles per second (0: unknown) */
};

#define EVT_TRACEPIPE_CYCLES_TO_NS(info, cycles)                                          \
	((info)->offset +                                                                 \
	 (uint64_t)(((unsigned __int128)(cycles) * (info)->mult) >> ((info)->shift & 63)))

/* Before every record (packed: 12 bytes; records are 4-byte aligned). */
struct evt_tracepipe_record_header {
	uint64_t cycles; /* the cycle counter (x86-64 TSC) when the event was written */
	uint16_t cpu;	 /* the CPU it was written on (the page's) */
	uint16_t len;	 /* payload bytes that follow */
} __attribute__((packed));

/* Channel options (evt_tracepipe_create_channel_opts); zero means the default. */
struct evt_tracepipe_opts {
	const char *dir;	    /* the FIFO's directory; default $XDG_RUNTIME_DIR/evtrace */
	unsigned int pages_per_cpu; /* power of two, 2..65536; default 16 (64 KiB) */
	unsigned int flags;	    /* EVT_TRACEPIPE_* below */
	unsigned int pipe_size;	    /* F_SETPIPE_SZ of the FIFO; default 1 MiB (best effort) */
};

/* Hand full pages to the pipe with vmsplice() instead of write() (see docs/tracepipe.md). */
#define EVT_TRACEPIPE_VMSPLICE 0x1u
/*
 * Wrap: when a CPU runs out of pages because the reader is slow, throw away its oldest pages
 * waiting for the pipe (their events count as missed) instead of the new events. Not with
 * EVT_TRACEPIPE_VMSPLICE.
 */
#define EVT_TRACEPIPE_WRAP     0x2u

struct evt_tracepipe_channel;

/* A reserved record (evt_tracepipe_reserve); the fields are the library's. */
struct evt_tracepipe_reservation {
	void *slot;
	uint32_t bytes;
	uint32_t cpu;
};

int evt_tracepipe_create_channel(const char *name, struct evt_tracepipe_channel **chanp);
int evt_tracepipe_create_channel_opts(const char *name, const struct evt_tracepipe_opts *opts,
				      struct evt_tracepipe_channel **chanp);
int evt_tracepipe_remove_channel(struct evt_tracepipe_channel *chan);
int evt_tracepipe_event(struct evt_tracepipe_channel *chan, const void *data, unsigned int len);
void *evt_tracepipe_reserve(struct evt_tracepipe_channel *chan, unsigned int len,
			    struct evt_tracepipe_reservation *res);
void evt_tracepipe_commit(struct evt_tracepipe_channel *chan,
			  struct evt_tracepipe_reservation *res);
int evt_tracepipe_flush(struct evt_tracepipe_channel *chan);
uint64_t evt_tracepipe_missed(const struct evt_tracepipe_channel *chan);
int evt_tracepipe_readers(struct evt_tracepipe_channel *chan);
const char *evt_tracepipe_path(const struct evt_tracepipe_channel *chan);

/* The parser: a page read from the stream, and its records. Trusts nothing. */
struct evt_tracepipe_page {
	struct evt_tracepipe_page_header hdr;
	const unsigned char *data; /* the page as given to evt_tracepipe_page_parse() */
	uint32_t next;		   /* offset of the next record */
	int stream;		   /* 1: the stream page (no records; info is filled in) */
	struct evt_tracepipe_stream_info info;
};

struct evt_tracepipe_record {
	uint64_t cycles;
	uint32_t cpu;
	uint32_t len;
	const void *payload;
};

int evt_tracepipe_page_parse(const void *buf, size_t len, struct evt_tracepipe_page *page);
int evt_tracepipe_record_next(struct evt_tracepipe_page *page, struct evt_tracepipe_record *rec);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_TRACEPIPE_H */
