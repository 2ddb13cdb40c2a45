// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-recover.c - `evtrace recover FILE...`: the recording journal that an
 * `evtrace record` or `extract` killed before its end (SIGKILL, the OOM
 * killer, a full disk) left in FILE becomes the trace.dat it holds, in
 * place: everything the recorder had drained, its last torn record cut
 * off. evtrace-recover(1); the journal: docs/tracedat.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evtrace-cmd.h"
#include "evtrace-journal.h"

static void rc_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace recover [-q] FILE...\n"
		"Make the journal a killed `evtrace record` left in FILE the trace.dat it holds\n"
		"(in place). A FILE that is a trace.dat already is left as it is.\n"
		"  -q, --quiet   no summary line\n");
}

/* One file. Return: 0, or 1 (said). */
static int recover_one(const char *path, bool quiet)
{
	struct rj_summary sum = { 0 };
	char err[300];
	int fd, j;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cmd_error("recover: %s: %s", path, strerror(errno));
		return 1;
	}
	j = rj_is_journal(fd);
	if (j <= 0) {
		char magic[10] = "";
		bool dat = pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
			   !memcmp(magic, "\x17\x08\x44tracing", 10);

		close(fd);
		if (dat) {
			if (!quiet)
				fprintf(stderr, "evtrace: recover: %s: a trace.dat already, left as "
					"it is\n", path);
			return 0;
		}
		cmd_error("recover: %s: %s", path,
			  j < 0 ? strerror(-j) : "neither a recording journal nor a trace.dat");
		return 1;
	}
	close(fd);
	if (rj_convert_in_place(path, &sum, err, sizeof(err))) {
		rj_summary_free(&sum);
		cmd_error("recover: %s: %s", path, err);
		return 1;
	}
	rj_summary_free(&sum);
	if (!quiet)
		fprintf(stderr,
			"evtrace: recover: %s: %llu events in %llu pages of %d process%s on %u "
			"CPUs (%llu bytes of journal, %llu bytes of a torn last record dropped)\n",
			path, (unsigned long long)sum.records, (unsigned long long)sum.pages,
			sum.in_file, sum.in_file == 1 ? "" : "es", sum.cpus,
			(unsigned long long)sum.journal_bytes, (unsigned long long)sum.torn_bytes);
	return 0;
}

int cmd_recover(int argc, char **argv)
{
	bool quiet = false;
	int i = 1, status = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			rc_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			cmd_error("recover: unknown option %s", argv[i]);
			rc_usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		rc_usage(stderr);
		return 2;
	}
	for (; i < argc; i++)
		status |= recover_one(argv[i], quiet);
	return status;
}
