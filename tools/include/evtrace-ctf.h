/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-ctf.h - a CTF trace directory written from a trace.dat (ctf-dir.c), for
 * `evtrace export --format=ctf` and `evtrace record --format=ctf`.
 */
#ifndef EVTRACE_CTF_H
#define EVTRACE_CTF_H

#include <stdbool.h>
#include <stddef.h>

struct evt_tracedat;
struct evt_tracedat_record;

struct cmd_ctf_args {
	const char *dir;    /* made if missing; must be empty otherwise */
	const char *source; /* the trace.dat's name, for the metadata (NULL: none) */
	bool (*want)(void *ctx, const struct evt_tracedat_record *rec);
	void *want_ctx;
	const char *keep;  /* a file the directory may hold already (NULL: none) */
	bool has_epoch;	   /* CLOCK_REALTIME (ns) at the trace clock's 0, when known */
	long long epoch_offset_ns;
	unsigned long long freq; /* a counting clock's counts per second (0: 1 GHz) */
};

/*
 * cmd_ctf_write_dir() - @td's records as a CTF 1.8 trace in @a->dir: `metadata` and
 * one `stream_<cpu>` per CPU with records. The hostname is this machine's unless the
 * file names its own. Prints its own errors; a failed write removes nothing the
 * trace already had (the directory keeps what was written, the message says so).
 * Return: 0, 1 (error, printed).
 */
int cmd_ctf_write_dir(struct evt_tracedat *td, const struct cmd_ctf_args *a);

/*
 * cmd_ctf_prepare_dir() - make @dir, or check that it is an empty directory of this
 * user, before a recording goes there. Prints its own error. Return: 0, or 1.
 */
int cmd_ctf_prepare_dir(const char *dir);

/* the recording's journal, then trace.dat, in the directory of record --format=ctf */
#define RECORD_CTF_JOURNAL ".evtrace-record.dat"

/*
 * cmd_record_ctf_setup() - `record --format=ctf -o DIR`: @dir made or checked (empty,
 * ours), and the path of the recording's file in it (RECORD_CTF_JOURNAL) written to
 * @dat. Prints its own error. Return: 0, or 1.
 */
int cmd_record_ctf_setup(const char *dir, char *dat, size_t len);

/*
 * cmd_record_ctf() - `record --format=ctf`: the recording @dat (a trace.dat in @dir,
 * named @name there) exported into @dir as a CTF trace, then removed (x86-tsc: with this
 * machine's TSC frequency, and with @date its epoch offset). On an error
 * the trace.dat stays (the message names it). Return: 0, or 1 (said).
 */
int cmd_record_ctf(const char *dir, const char *dat, const char *name, bool date);

#endif /* EVTRACE_CTF_H */
