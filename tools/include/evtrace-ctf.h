/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-ctf.h - a CTF trace directory written from a trace.dat (ctf-dir.c), for
 * `evtrace export --format=ctf` and `evtrace record --format=ctf`.
 */
#ifndef EVTRACE_CTF_H
#define EVTRACE_CTF_H

#include <stdbool.h>

struct evt_tracedat;
struct evt_tracedat_record;

struct cmd_ctf_args {
	const char *dir;    /* made if missing; must be empty otherwise */
	const char *source; /* the trace.dat's name, for the metadata (NULL: none) */
	bool (*want)(void *ctx, const struct evt_tracedat_record *rec);
	void *want_ctx;
	bool has_epoch;	   /* CLOCK_REALTIME (ns) at the trace clock's 0, when known */
	long long epoch_offset_ns;
};

/*
 * cmd_ctf_write_dir() - @td's records as a CTF 1.8 trace in @a->dir: `metadata` and
 * one `stream_<cpu>` per CPU with records. The hostname is this machine's unless the
 * file names its own. Prints its own errors; a failed write removes nothing the
 * trace already had (the directory keeps what was written, the message says so).
 * Return: 0, 1 (error, printed).
 */
int cmd_ctf_write_dir(struct evt_tracedat *td, const struct cmd_ctf_args *a);

#endif /* EVTRACE_CTF_H */
