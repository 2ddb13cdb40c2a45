/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output/tracedat_internal.h - what the trace.dat writer and reader share.
 */
#ifndef EVT_OUTPUT_TRACEDAT_INTERNAL_H
#define EVT_OUTPUT_TRACEDAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/tracedat.h>

/* Option ids of a version 6 file (trace-cmd's enum tracecmd_file_options). */
#define TRACEDAT_OPT_DONE		0
#define TRACEDAT_OPT_DATE		1
#define TRACEDAT_OPT_CPUSTAT		2
#define TRACEDAT_OPT_BUFFER		3
#define TRACEDAT_OPT_TRACECLOCK		4
#define TRACEDAT_OPT_UNAME		5
#define TRACEDAT_OPT_OFFSET		7
#define TRACEDAT_OPT_CPUCOUNT		8
#define TRACEDAT_OPT_VERSION		9

/*
 * struct tracedat_desc - what tracedat_header() writes.
 * @formats: `format` texts with their system; one system's adjacent
 * (ftrace's go to the ftrace section). @clock_list: the trace_clock text
 * ("[local] global ..."), or NULL for "[@clock]". @cpu_bytes: bytes of
 * pages each CPU will have after the header (multiples of @page_size).
 * @date: the DATE option's text ("0x" and the hex microseconds from a time
 * stamp to CLOCK_REALTIME, as trace-cmd record --date writes it), or NULL.
 */
struct tracedat_desc {
	unsigned int page_size;
	int nr_cpus;
	const char *clock;
	const char *clock_list;
	const struct evt_tracedat_format *formats;
	size_t nr_formats;
	const char *cmdlines;
	size_t cmdlines_len;
	const uint64_t *cpu_bytes;
	const char *date;
	size_t *meta_len; /* if not NULL: set to the bytes before the CPU count */
};

/**
 * tracedat_header() - the part of a version 6 file before the pages.
 * @out/@lenp: a malloc'd buffer, its length (a multiple of @page_size);
 * the pages of CPU 0, 1, ... must follow it in that order.
 * Context: any; allocates. Used by evt_tracedat_write() and evtrace record.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int tracedat_header(const struct tracedat_desc *d, unsigned char **out, size_t *lenp);

/**
 * tracedat_write_all() - all @len bytes of @data to @fd, retrying on EINTR.
 * Context: any. Return: 0, or -errno (-EIO: the write wrote nothing).
 */
int tracedat_write_all(int fd, const void *data, size_t len);

/* Does trace-cmd print time stamps of clock @name as seconds? */
bool tracedat_clock_is_secs(const char *name);

#endif /* EVT_OUTPUT_TRACEDAT_INTERNAL_H */
