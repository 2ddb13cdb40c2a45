/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/tracedat.h - trace.dat files (trace-cmd's format, version 6).
 *
 * evt_tracedat_write() writes what an instance recorded as a file that
 * `trace-cmd report` and KernelShark read: the header_page and
 * header_event texts of our pages, the `format` text of every registered
 * event grouped by system, the saved cmdlines, the trace clock and the
 * ring-buffer pages of each CPU, verbatim (docs/tracedat.md).
 *
 * The reader (evt_tracedat_open*) parses such files, ours and the ones
 * trace-cmd makes from the kernel (version 6, uncompressed), trusting
 * nothing: a truncated or corrupt file gives -EBADMSG (or -EPROTO for a
 * version it does not read) and a message naming the file offset.
 * Records come out per CPU merged by time stamp, each with its event.
 *
 * Synchronization: a struct evt_tracedat is used by one thread at a
 * time. evt_tracedat_write() may run concurrently with writers of the
 * instance (it consumes what it writes, as trace_pipe_raw does).
 *
 * Errors: functions returning int give 0 (or a count) or a negative
 * errno value and never touch errno.
 */
#ifndef EVTRACE_TRACEDAT_H
#define EVTRACE_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/error.h>	/* evt_error_detail() */
#include <evtrace/events.h>

#ifdef __cplusplus
extern "C" {
#endif

struct evt_instance;
struct evt_seq;
struct evt_tracedat;

/* --- writing ---------------------------------------------------------------------- */

/**
 * evt_tracedat_write() - write @inst's trace as a version 6 trace.dat to @fd.
 * @inst:  the instance (NULL: the top one).
 * @fd:    where the file goes (a file, pipe or socket; written sequentially).
 * @flags: 0 (none defined yet).
 *
 * Consumes the instance's ring buffer: every page read is written.
 * Return: the number of bytes written, -EINVAL, -ENOMEM, -EFBIG (a text
 * too big) or the errno of a failed write.
 */
long long evt_tracedat_write(struct evt_instance *inst, int fd, unsigned int flags);

/* The same, to a new file @path (created 0644, truncated). */
long long evt_tracedat_write_file(struct evt_instance *inst, const char *path,
				  unsigned int flags);

/* --- merging: one file from the pages of several processes ------------------------ */

/*
 * struct evt_tracedat_format - an event's `format` text, with its system and name.
 * @text holds @len bytes and a NUL, its "ID: N" line included.
 */
struct evt_tracedat_format {
	const char *system;
	const char *name;
	const char *text;
	size_t len;
};

/*
 * struct evt_tracedat_source - one process (or one instance) whose pages go into a
 * merged file: @nr_cpus CPUs, @nr_pages[c] pages of CPU c, its event formats, its saved
 * cmdlines ("pid comm" lines, or NULL) and @names, more such lines for threads its
 * cmdlines do not name (or NULL).
 */
struct evt_tracedat_source {
	unsigned int nr_cpus;
	const uint64_t *nr_pages;
	const struct evt_tracedat_format *formats;
	size_t nr_formats;
	const char *cmdlines;
	const char *names;
};

/*
 * struct evt_tracedat_merge - what evt_tracedat_write_merged() writes: the sources,
 * their pages of @page_size bytes each (read through @read_page, in the order of the
 * file), and the file's trace clock (@clock, NULL: "local"; @clock_list, the
 * trace_clock text, or NULL), DATE option (@date, or NULL).
 */
struct evt_tracedat_merge {
	unsigned int page_size;
	const char *clock;
	const char *clock_list;
	const char *date;
	const struct evt_tracedat_source *sources;
	unsigned int nr_sources;
	/* page @idx of CPU @cpu of source @src into @buf (@page_size bytes): 0 or -errno */
	int (*read_page)(void *ctx, unsigned int src, unsigned int cpu, uint64_t idx,
			 void *buf);
	void *ctx;
};

/* What evt_tracedat_write_merged() wrote. */
struct evt_tracedat_merge_stats {
	uint64_t pages;		/* pages written */
	uint64_t records;	/* their records */
	unsigned int nr_cpus;	/* CPUs of the file: the sum of the sources' */
	size_t meta_len;	/* bytes before the CPU count (trace-cmd's "metadata") */
	uint64_t data_at;	/* file offset of the first page */
	size_t names_at;	/* offset of the saved cmdlines: the bytes before depend on
				 * the formats, page size and clock only, not on the names */
};

/**
 * evt_tracedat_write_merged() - write one trace.dat of the pages of several sources.
 * @m:     the sources and their pages.
 * @fd:    where the file goes (written sequentially: a pipe will do).
 * @stats: what was written, or NULL.
 *
 * Source k's CPU c is CPU base_k + c of the file (the sources' CPUs one after the
 * other), so that readers merge them by time stamp. The event table is one: an event
 * of a later source with the same system, name and format (but the ID line) as one
 * already there takes that id; else its own id if free, else a new one, and the
 * common_type of its records is rewritten in its pages as they are written.
 * With no source, the file has one empty CPU.
 * Return: the bytes written, -EINVAL, -ENOMEM, -ERANGE (more than 65536 event ids),
 * or the error of @read_page or of a failed write.
 */
long long evt_tracedat_write_merged(const struct evt_tracedat_merge *m, int fd,
				    struct evt_tracedat_merge_stats *stats);

/*
 * struct evt_tracedat_live - the event table of a merged file whose pages are sent as they
 * are recorded (`evtrace record -N -p`): fixed when it is made, so that a reader that got
 * the header first decodes every page sent after it.
 */
struct evt_tracedat_live;

/**
 * evt_tracedat_live_begin() - the header of the merged file of @m's sources, with the
 * events they have now (evt_tracedat_write_merged()'s table and CPU layout), and no pages.
 * @m:    the sources; every nr_pages[c] must be 0 (read_page is not called).
 * @lp:   the table, for evt_tracedat_live_page(); evt_tracedat_live_free() it.
 * @hdr:  the header (malloc'd, free() it), @hlen bytes; the pages of each CPU follow it.
 * @st:   its CPU count, meta_len and data_at.
 * Context: any thread; allocates. Return: 0 or a negative errno value.
 */
int evt_tracedat_live_begin(const struct evt_tracedat_merge *m, struct evt_tracedat_live **lp,
			    unsigned char **hdr, size_t *hlen, struct evt_tracedat_merge_stats *st);

/**
 * evt_tracedat_live_page() - a page of source @src made fit for @l's table, in place: each
 * record's common_type rewritten to the file's id; a record of an event not in the table
 * (registered after evt_tracedat_live_begin()) made a discarded entry that keeps its time
 * delta, and counted in *@dropped.
 * Context: any thread. Return: the records left in the page.
 */
uint64_t evt_tracedat_live_page(const struct evt_tracedat_live *l, unsigned int src, void *page,
				unsigned int size, uint64_t *dropped);

/** evt_tracedat_live_cpu() - the file's CPU of CPU @cpu of source @src, or -1. */
int evt_tracedat_live_cpu(const struct evt_tracedat_live *l, unsigned int src, unsigned int cpu);

/** evt_tracedat_live_free() - @l and all it holds (NULL: nothing). */
void evt_tracedat_live_free(struct evt_tracedat_live *l);

/* --- reading ---------------------------------------------------------------------- */

/*
 * struct evt_tracedat_event - an event format found in a file.
 * @fields holds every field, the common ones first (@nr_common of them).
 */
struct evt_tracedat_event {
	const char *system;
	const char *name;
	unsigned int id;
	const struct evt_field *fields;
	unsigned int nr_fields;
	unsigned int nr_common;
	const char *print_fmt;		/* the text after "print fmt: " */
	const char *format;		/* the whole format text */
};

/*
 * struct evt_tracedat_record - one record, as evt_tracedat_next() gives it.
 * @data/@size point into the reader's copy of the page (valid until the
 * next call). @event is NULL when the file has no format for its ID.
 */
struct evt_tracedat_record {
	int cpu;
	uint64_t ts;			/* in the file's trace clock units */
	const void *data;		/* the record: common fields first */
	unsigned int size;		/* bytes at @data (rounded up to 4) */
	const struct evt_tracedat_event *event;
	unsigned long long missed;	/* events lost just before (page flag); ~0ULL unknown */
	long long offset;		/* file offset of the record's entry */
};

/**
 * evt_tracedat_open() / evt_tracedat_open_mem() - parse a trace.dat file.
 *
 * The _mem variant reads @len bytes at @buf, which must stay valid until
 * evt_tracedat_close(). Pages are checked when records are read. On failure
 * evt_error_detail() says what and where ("offset N: ...", "path: ...").
 * Return: 0, -EBADMSG (corrupt or truncated), -EPROTO (not version 6, or
 * compressed), -ENOMEM, or the errno of open/read.
 */
int evt_tracedat_open(const char *path, struct evt_tracedat **tdp);
int evt_tracedat_open_mem(const void *buf, size_t len, struct evt_tracedat **tdp);
void evt_tracedat_close(struct evt_tracedat *td);

/**
 * evt_tracedat_next() - the next record, CPUs merged by time stamp.
 * Return: 1 and *@rec filled, 0 at the end, -EBADMSG on a corrupt page
 * (evt_error_detail() says where; the reader then stops: every later call
 * fails the same way). @rec's data and event are borrowed from @td: valid
 * until evt_tracedat_close().
 */
int evt_tracedat_next(struct evt_tracedat *td, struct evt_tracedat_record *rec);

/* Start again from the first record. */
void evt_tracedat_rewind(struct evt_tracedat *td);

/*
 * What the file says: CPUs, page size, trace clock ("" if none), events. The
 * strings and events returned are borrowed from @td: valid until evt_tracedat_close().
 */
int evt_tracedat_nr_cpus(const struct evt_tracedat *td);
unsigned int evt_tracedat_page_size(const struct evt_tracedat *td);
const char *evt_tracedat_clock(const struct evt_tracedat *td);
int evt_tracedat_nr_events(const struct evt_tracedat *td);
const struct evt_tracedat_event *evt_tracedat_event(const struct evt_tracedat *td, int idx);
const struct evt_tracedat_event *evt_tracedat_event_by_id(const struct evt_tracedat *td,
							  unsigned int id);
/*
 * evt_tracedat_date() - the file's place on the wall clock: CLOCK_REALTIME (ns) =
 * time stamp + *@offset_ns, from its DATE option (`evtrace record --date`,
 * `trace-cmd record --date`). Return: 1 and *@offset_ns set, 0 when the file has
 * none, -EINVAL.
 */
int evt_tracedat_date(const struct evt_tracedat *td, long long *offset_ns);

/* The comm the file saved for @pid, or "<...>"; borrowed, valid until evt_tracedat_close(). */
const char *evt_tracedat_comm(const struct evt_tracedat *td, int pid);

/**
 * evt_tracedat_print() - format a record in the kernel's `trace` layout.
 * Appends "comm-pid [cpu] ts: name: fields\n" (time as sec.usec when the
 * clock counts nanoseconds, else the raw number) to @s.
 * Return: 0, -ENOSPC (@s full).
 */
int evt_tracedat_print(const struct evt_tracedat *td, const struct evt_tracedat_record *rec,
		       struct evt_seq *s);

/* --- a record's fields ------------------------------------------------------------ */

/**
 * evt_tracedat_field_read() - the value of field @f of record @rec.
 * @f: a field of @rec's event of 1, 2, 4 or 8 bytes at a fixed offset (an
 *     integer, a pointer, ...); a signed one is sign-extended to 64 bits
 *     (cast *@val to long long).
 * Return: 0, -EINVAL (NULL, or not such a field), -EBADMSG (the field lies
 * outside the record).
 */
int evt_tracedat_field_read(const struct evt_tracedat_record *rec, const struct evt_field *f,
			    unsigned long long *val);

struct evt_tracedat_filter;

/**
 * evt_tracedat_filter_compile() - compile @expr, the kernel's filter grammar
 * (what an event's `filter` file takes), against the fields of @ev.
 * @fp:  the filter, for evt_tracedat_filter_match() and _free().
 * Return: 0, -EINVAL (the expression does not parse, or names a field @ev
 * lacks: evt_error_detail() says "what (at N)", N the offset in @expr), -ENOMEM.
 */
int evt_tracedat_filter_compile(const struct evt_tracedat_event *ev, const char *expr,
				struct evt_tracedat_filter **fp);

/* Does @rec (a record of the event the filter was compiled for) pass @f? */
bool evt_tracedat_filter_match(const struct evt_tracedat_filter *f,
			       const struct evt_tracedat_record *rec);

void evt_tracedat_filter_free(struct evt_tracedat_filter *f);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_TRACEDAT_H */
