/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-journal.h - the recording journal (tools/evtrace/rec-journal.c):
 * what `evtrace record` and `extract` write while they drain, so that a
 * recorder killed at any moment leaves what it drained on disk; and its
 * conversion into a trace.dat (version 6), which `record` does at its end
 * and `evtrace recover FILE` does after a kill. Layout: docs/tracedat.md,
 * "The recording journal".
 */
#ifndef EVTRACE_JOURNAL_H
#define EVTRACE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RJ_MAGIC     "evtrace-journal\n" /* the file's first 16 bytes */
#define RJ_MAGIC_LEN 16

/* One event format of a traced process, as its control socket gave it. */
struct rj_fmt {
	char *system, *name, *text;
	size_t len;
};

/* rj_fmts_free(): @n formats and the array. */
void rj_fmts_free(struct rj_fmt *f, size_t n);

/*
 * What the file needs from one traced process (a "source"): journaled when
 * it is set up and again whenever its names change (at most once a second).
 */
struct rj_meta {
	pid_t pid;
	unsigned int nr_cpus, page_size;
	const char *clock;	/* the trace clock's name */
	const char *clock_list; /* the trace_clock text, or NULL */
	const char *cmdlines;	/* saved_cmdlines: "tid comm" lines, or NULL */
	const char *names;	/* more "tid comm" lines (taken from /proc), or NULL */
	const char *date;	/* record --date: the DATE option's text, or NULL */
	const struct rj_fmt *fmts;
	size_t nfmts;
};

/* The writer: records appended at @size, the end of the last complete one. */
struct rj {
	int fd;
	uint64_t size;
	int err; /* the first write error (-errno), sticky */
};

/**
 * rj_start() - make @fd (empty, or truncated to empty) a journal.
 * Return: 0 or -errno.
 */
int rj_start(struct rj *j, int fd);

/**
 * rj_put_page() - append one ring buffer page of CPU @cpu of source @src.
 * A failed write is cut off again (the journal stays whole up to the last
 * complete record) and kept in @j->err.
 * Return: 0 or -errno (ENOSPC: the file system is full).
 */
int rj_put_page(struct rj *j, unsigned int src, unsigned int cpu, const void *page,
		unsigned int size);

/** rj_put_meta() - append source @src's metadata (the last one of a source counts). */
int rj_put_meta(struct rj *j, unsigned int src, const struct rj_meta *m);

/* What a conversion found and wrote. */
struct rj_summary {
	uint64_t journal_bytes; /* the whole records */
	uint64_t torn_bytes;	/* cut off after them (a write the kill interrupted) */
	uint64_t pages;		/* pages written to the trace.dat */
	uint64_t records;	/* their records */
	int sources;		/* processes in the journal */
	int in_file;		/* processes with pages */
	unsigned int cpus;	/* CPUs of the trace.dat */
	/* where the trace.dat's parts lie, for `record -N` (struct cmd_net_file) */
	size_t meta_len;	/* bytes of metadata before the CPU count */
	uint64_t data_at;	/* the first CPU's pages */
	uint64_t *cpu_bytes;	/* per CPU (@cpus of them): owned, rj_summary_free() */
	unsigned int page_size;
};

/** rj_summary_free() - what rj_convert() allocated in @sum (cpu_bytes). */
void rj_summary_free(struct rj_summary *sum);

/** rj_is_journal() - does the file open at @fd start with RJ_MAGIC? 1, 0, or -errno. */
int rj_is_journal(int fd);

/**
 * rj_convert() - read the journal at @jfd and write the trace.dat it holds
 * to @outfd (sequentially: it may be a pipe). Pages of a process that wrote
 * none are left out; event ids of processes that differ are made one table.
 * A journal with no process set up gives a valid empty file.
 * @err: a message on failure (never empty).
 * Return: 0 or -errno (-EBADMSG: not a journal).
 */
int rj_convert(int jfd, int outfd, struct rj_summary *sum, char *err, size_t errlen);

/**
 * rj_convert_in_place() - replace the journal @path with its trace.dat
 * (written to a new file of the same directory, then renamed over @path:
 * a kill meanwhile leaves the journal as it was).
 * Return: 0 or -errno, @err says what.
 */
int rj_convert_in_place(const char *path, struct rj_summary *sum, char *err, size_t errlen);

/**
 * rj_open_tracedat() - an fd (a memfd) holding the trace.dat of the journal
 * @path, for `report` and `export` to read an unfinished recording as it is.
 * Return: the fd, or -errno with @err set.
 */
int rj_open_tracedat(const char *path, char *err, size_t errlen);

/**
 * rj_tracedat_open() - evt_tracedat_open(), but a journal (a regular file
 * that starts with RJ_MAGIC) is read as its trace.dat (rj_open_tracedat()),
 * with a note on stderr. `report` and `export` open their files with it.
 */
struct evt_tracedat;
int rj_tracedat_open(const char *path, struct evt_tracedat **tdp, char *err, size_t errlen);

#endif /* EVTRACE_JOURNAL_H */
