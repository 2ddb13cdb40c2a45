// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rec-output.c - the output of `evtrace record` (evtrace-record.h): opened
 * before anything runs (a regular file is the journal itself, anything
 * else gets an unnamed journal in /tmp), and at the end the journal made
 * the trace.dat (rec-journal.c), sent with -N, and the summary said.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evtrace-cmd.h"
#include "evtrace-ctf.h"
#include "evtrace-net.h"
#include "evtrace-record.h"

/* The journal when the output is not a regular file: an unnamed file of /tmp. */
static int journal_temp(void)
{
	char tmpl[] = "/tmp/evtrace-record-XXXXXX";
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

/* A -f/-T whose event no process of the tree had: said, not an error (it may not have run). */
static void rec_unmatched(const struct rec *r)
{
	for (int i = 0; r->tree && i < r->nev; i++)
		if (!r->matched[i] && (r->ev[i].filter || r->ev[i].ntrig))
			fprintf(stderr,
				"evtrace: record: warning: no process had an event matching '%s': "
				"its filter and triggers were never set\n",
				r->ev[i].spec);
}

/*
 * The output: created (or, if it exists, opened) now, so that an output we
 * cannot write fails before anything runs; a regular file becomes the
 * journal, anything else (a pipe, /dev/stdout) gets the trace.dat at the
 * end and the journal is an unnamed file.
 */
int rec_open_output(struct rec *r)
{
	struct stat st;
	int fd, ret;

	fd = open(r->output, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0)
		r->output_created = true;
	else if (errno == EEXIST)
		fd = open(r->output, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == EEXIST) /* removed meanwhile: once more */
		fd = open(r->output, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 && (errno == EACCES || errno == ENXIO || errno == EISDIR))
		fd = open(r->output, O_WRONLY | O_CLOEXEC); /* a FIFO or a write-only file */
	if (fd < 0) {
		cmd_error("record: %s: %s", r->output, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR) {
		/* a file that was there is left as it was until something is recorded */
		r->j.fd = fd;
		ret = r->output_created ? rj_start(&r->j, fd) : 0;
	} else {
		close(fd);
		r->jtemp = true;
		fd = journal_temp();
		ret = fd < 0 ? -errno : rj_start(&r->j, fd);
	}
	if (ret) {
		cmd_error("record: %s: %s", r->jtemp ? "a temporary file in /tmp" : r->output,
			  strerror(-ret));
		if (fd >= 0)
			close(fd);
		r->j.fd = -1;
		return -1;
	}
	return 0;
}

/* The journal made the trace.dat. Return: 0, or -1 (said). */
static int rec_convert(struct rec *r, struct rj_summary *sum)
{
	char err[300];
	int ret, ofd;

	/* the names taken since the last second */
	for (int k = 0; k < r->nsrc && !r->j.err; k++)
		if (r->src[k]->attached && r->src[k]->meta_dirty)
			rec_put_meta(r, r->src[k]);
	if (!r->jtemp) {
		ret = rj_convert_in_place(r->output, sum, err, sizeof(err));
	} else {
		ofd = open(r->output, O_WRONLY | O_TRUNC | O_CLOEXEC);
		ret = ofd < 0 ? -errno : rj_convert(r->j.fd, ofd, sum, err, sizeof(err));
		if (ofd < 0)
			snprintf(err, sizeof(err), "%s", strerror(-ret));
		if (ofd >= 0 && close(ofd) < 0 && !ret) {
			ret = -errno;
			snprintf(err, sizeof(err), "%s", strerror(-ret));
		}
	}
	if (!ret)
		return 0;
	if (r->jtemp)
		cmd_error("record: writing %s: %s", r->output, err);
	else
		cmd_error("record: %s: making the trace.dat: %s%s; the recording is kept there as "
			  "a journal: `evtrace report %s` reads it, `evtrace recover %s` makes it "
			  "a trace.dat%s",
			  r->output, err, ret == -ENOSPC ? " (its file system is full)" : "",
			  r->output, r->output, ret == -ENOSPC ? " once there is room" : "");
	return -1;
}

/*
 * The end: the journal made the trace.dat, what happened said.
 * Return: 0, or 1 (an error, said).
 */
int rec_end(struct rec *r, int ret)
{
	struct rj_summary sum = { 0 };
	const char *verb = r->extract ? "extract" : "record";

	if (!ret && !r->first) {
		/* nothing of the tree served a socket: no file, rather than one that is wrong */
		if (r->nsrc)
			cmd_error("record: %d process%s of the command served a control socket "
				  "but ended before it could be set up: nothing recorded, %s %s",
				  r->nsrc, r->nsrc > 1 ? "es" : "", r->output,
				  r->output_created ? "not written" : "left as it was");
		else
			cmd_error("record: no process of the command served a control socket (is "
				  "it linked with libevtrace?): nothing recorded, %s %s",
				  r->output, r->output_created ? "not written" : "left as it was");
		return 1;
	}
	if (!r->first)
		return 1;
	/* -N: the final names, before the conversion, which may outlast the keep-alive */
	rec_live_names(r);
	rec_progress(r, true);
	if (r->j.err)
		cmd_error("%s: writing %s: %s%s: recording stopped there; the %llu events drained "
			  "before are kept", verb, r->jtemp ? "a temporary file in /tmp" : r->output,
			  strerror(-r->j.err),
			  r->j.err == -ENOSPC ? " (its file system is full)" : "",
			  (unsigned long long)r->records);
	if (rec_convert(r, &sum)) {
		rj_summary_free(&sum);
		return 1;
	}
	if (r->live) {
		rec_live_end(r); /* says what failed; r->net_failed */
	} else if (r->net && !r->net_failed) {
		struct cmd_net_file nf = { r->output, sum.meta_len, sum.data_at, sum.cpu_bytes,
					   (int)sum.cpus, sum.page_size, 0 };

		/* a command that served a socket but was never set up (it wrote no event) */
		if (!r->quiet)
			fprintf(stderr, "evtrace: record: -N %s: the command's process never "
				"wrote an event: the trace of its tree is sent now, at the end\n",
				r->net);

		r->net_failed = cmd_net_send(r->net, &nf) != 0; /* the local file stays */
	}
	if (r->ctf && cmd_record_ctf(r->ctf, r->output, RECORD_CTF_JOURNAL, r->date))
		r->net_failed = true; /* the trace.dat stays, said */
	rj_summary_free(&sum);
	rec_unmatched(r);
	if (!r->quiet)
		fprintf(stderr,
			"evtrace: %s: %s: %llu events of %d process%s on %u CPUs, %llu lost\n",
			verb, r->ctf ? r->ctf : r->output, (unsigned long long)sum.records, sum.in_file,
			sum.in_file > 1 ? "es" : "", sum.cpus, (unsigned long long)rec_losses(r));
	return ret || r->j.err || r->fault || r->net_failed ? 1 : 0;
}
