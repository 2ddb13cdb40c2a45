// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-ctf.c - `evtrace record --format=ctf -o DIR`: the recording as a CTF
 * trace (evtrace-ctf.h).
 *
 * The recording goes where every recording goes, a journal made a trace.dat at
 * the end (rec-journal.c), here a hidden file of DIR (RECORD_CTF_JOURNAL: CTF
 * readers skip hidden files). Once it is a trace.dat it is exported into DIR as
 * `evtrace export --format=ctf` would (with its DATE option, from --date, as the
 * clock's offset), then removed. So a recorder that is killed leaves the journal
 * in DIR, which `evtrace recover` makes a trace.dat and `evtrace report` reads as
 * it is; a failed export leaves the trace.dat there and says so.
 *
 * The x86-tsc clock counts cycles, and the file says not how fast: the recorder,
 * on the same machine, gives the CTF clock the TSC's frequency (and with --date
 * its offset from the epoch), so babeltrace2 shows real times.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "evtrace-ctf.h"
#include "evtrace-journal.h"
#include "evtrace-rectime.h"

int cmd_record_ctf(const char *dir, const char *dat, const char *name, bool date)
{
	long long epoch;
	struct cmd_ctf_args a = { .dir = dir, .source = NULL, .keep = name };
	struct evt_tracedat *td = NULL;
	char err[256];
	int ret;

	ret = rj_tracedat_open(dat, &td, err, sizeof(err));
	if (ret) {
		cmd_error("record: %s: %s (the recording is kept there)", dat, err);
		return 1;
	}
	a.has_epoch = evt_tracedat_date(td, &a.epoch_offset_ns) == 1;
	/* a counting clock of this machine: its frequency, and with --date its epoch */
	if (!cmd_clock_freq(evt_tracedat_clock(td), &a.freq, &epoch) && date) {
		a.has_epoch = true;
		a.epoch_offset_ns = epoch;
	}
	ret = cmd_ctf_write_dir(td, &a);
	evt_tracedat_close(td);
	if (ret) {
		cmd_error("record: --format=ctf: the recording is kept in %s (a trace.dat: "
			  "`evtrace export --format=ctf -o NEWDIR %s` once the cause is gone)",
			  dat, dat);
		return 1;
	}
	if (unlink(dat))
		cmd_error("record: %s: cannot remove it: %s (the CTF trace is whole)", dat,
			  strerror(errno));
	return 0;
}

int cmd_record_ctf_setup(const char *dir, char *dat, size_t len)
{
	if (cmd_ctf_prepare_dir(dir))
		return 1;
	if ((size_t)snprintf(dat, len, "%s/%s", dir, RECORD_CTF_JOURNAL) >= len) {
		cmd_error("record: %s: the name is too long", dir);
		return 1;
	}
	return 0;
}
