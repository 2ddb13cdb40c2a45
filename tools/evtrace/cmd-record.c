// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record.c - `evtrace record [-e EVENT]... [-f FILTER] [-T TRIGGER]
 * [-o FILE] [-p PID]... | -- CMD ARGS`: record traced processes into a
 * trace.dat file (version 6, the one trace-cmd and `evtrace report` read),
 * evtrace-record(1); and `evtrace extract -p PID`, record's machinery once.
 * This file: the options, and the run from start to exit status. How it
 * works and which file does what: evtrace-record.h.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evtrace-cmd.h"
#include "evtrace-ctf.h"
#include "evtrace-record.h"

static void rec_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace record [-e EVENT [-f FILTER] [-T TRIGGER]...]... [-o FILE]\n"
		"                      [-p PID]... | -- CMD ARGS...\n"
		"Record traced processes' events into a trace.dat file (trace-cmd's version 6).\n"
		"  -e, --event EVENT     sys:name, sys:*, sys or name (repeatable; default: all)\n"
		"  -f, --filter EXPR     filter for the -e before it (the kernel's grammar)\n"
		"  -T, --trigger CMD     trigger for the -e before it (repeatable)\n"
		"  -o, --output FILE     the file (default trace.dat)\n"
		"  --format=ctf          a CTF trace in the directory -o names (record-ctf.c)\n"
		"  -p, --pid PID         attach to a running process (repeatable: one file, the\n"
		"                        processes merged by time stamp)\n"
		"  -N HOST:PORT          stream the trace to trace-cmd listen -p PORT there as it\n"
		"                        is recorded: every -p process, or a command's first\n"
		"                        process (its tree's later ones stay local); -o names\n"
		"                        the local copy, which keeps everything whatever happens\n"
		"  --date                put the CLOCK_REALTIME offset in the file (DATE option,\n"
		"                        as trace-cmd record --date): files of several hosts merge\n"
		"  --stats               the final status line also when stderr is no terminal\n"
		"  -q, --quiet           no status line\n"
		"Ctrl-C stops; with CMD, its exit stops too. The buffers are drained to the\n"
		"end.\n");
}

/* @r and what it holds; the command waited for; the session directory removed. */
static void rec_free(struct rec *r, bool keep_output)
{
	/* an error before anything was recorded: the empty file we made goes */
	if (!keep_output && r->output_created)
		unlink(r->output);
	rec_live_free(r);
	for (int k = 0; k < r->nsrc; k++)
		rec_src_free(r->src[k]);
	free(r->src);
	free(r->seen);
	/*
	 * The session directory goes before the command is waited for: a
	 * record that ended early (a full disk) leaves it running untraced, and
	 * what it starts from now on must not wait for a recorder.
	 */
	session_dir_remove(&r->sess);
	if (r->child > 0) {
		/* Ctrl-C reached the command too (same terminal); else tell it */
		if (cmd_stop)
			kill(r->child, SIGINT);
		if (waitpid(r->child, &r->child_status, 0) != r->child)
			r->child_status = -1;
	}
	if (r->ino_fd >= 0)
		close(r->ino_fd);
	if (r->j.fd >= 0)
		close(r->j.fd);
	free(r->page);
}

/*
 * The exit status: the command's, as strace and time give it (its own, or
 * 128 + N when signal N killed it); a failed record gives 1 where the
 * command gave 0. Without a command: the record's.
 */
static int rec_status(const struct rec *r, int ret)
{
	int cs = r->child_status, code;

	if (!r->child_pid || cs < 0)
		return ret;
	code = WIFEXITED(cs) ? WEXITSTATUS(cs) : WIFSIGNALED(cs) ? 128 + WTERMSIG(cs) : 1;
	return code ? code : ret;
}

static int rec_parse(struct rec *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "date", no_argument, NULL, 'D' },
		{ "net", required_argument, NULL, 'N' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+e:f:T:o:p:qhN:", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (r->nev == REC_MAX_EVENTS) {
				cmd_error("record: at most %d -e", REC_MAX_EVENTS);
				return 2;
			}
			r->ev[r->nev++].spec = optarg;
			break;
		case 'f':
		case 'T':
			if (!r->nev) {
				cmd_error("record: -%c applies to the -e before it: give -e first",
					  opt);
				return 2;
			}
			if (opt == 'f') {
				r->ev[r->nev - 1].filter = optarg;
			} else {
				if (r->ev[r->nev - 1].ntrig == 8) {
					cmd_error("record: at most 8 -T per -e");
					return 2;
				}
				r->ev[r->nev - 1].trigger[r->ev[r->nev - 1].ntrig++] = optarg;
			}
			break;
		case 'o':
			r->output = optarg;
			break;
		case 'p':
			if (r->npids == REC_MAX_SRC) {
				cmd_error("record: at most %d -p", REC_MAX_SRC);
				return 2;
			}
			if (cmd_parse_pid(optarg, &r->pids[r->npids]))
				return 2;
			for (int i = 0; i < r->npids; i++)
				if (r->pids[i] == r->pids[r->npids]) {
					cmd_error("record: -p %d twice", (int)r->pids[i]);
					return 2;
				}
			r->npids++;
			break;
		case 's':
			r->stats = true;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'D':
			r->date = true;
			break;
		case 'N':
			r->net = optarg;
			break;
		case 'F':
			if (strcmp(optarg, "ctf") && strcmp(optarg, "tracedat")) {
				cmd_error("record: unknown format '%s' (tracedat or ctf)", optarg);
				return 2;
			}
			r->ctf = optarg[0] == 'c' ? "" : NULL;
			break;
		case 'h':
			rec_usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if ((r->npids != 0) == (optind < argc)) {
		cmd_error("record: give either -p PID or -- CMD ARGS");
		return 2;
	}
	for (int i = 0; i < r->nev; i++)
		if (strchr(r->ev[i].spec, ',') || strchr(r->ev[i].spec, ' ')) {
			cmd_error("record: one event per -e, not '%s'", r->ev[i].spec);
			return 2;
		}
	if (r->ctf && !strcmp(r->output, "trace.dat")) {
		cmd_error("record: --format=ctf writes a directory: name it with -o DIR");
		return 2;
	}
	if (r->ctf) { /* the recording goes into the directory, exported at the end */
		size_t len = strlen(r->output) + sizeof(RECORD_CTF_JOURNAL) + 1;

		r->ctf = r->output;
		r->ctf_dat = malloc(len);
		if (!r->ctf_dat || cmd_record_ctf_setup(r->ctf, r->ctf_dat, len))
			return 1;
		r->output = r->ctf_dat;
	}
	return -1;
}

/* -p PID...: each process connected and set up. Return: 0, or -1 (said). */
static int rec_attach_pids(struct rec *r)
{
	for (int i = 0; i < r->npids; i++) {
		struct rec_src *s = rec_src_new(r, r->pids[i]);

		if (!s)
			return -1;
		s->c = cmd_ctl_connect(s->pid);
		if (!s->c)
			return -1;
	}
	for (int k = 0; k < r->nsrc; k++) {
		if (rec_src_attach(r, r->src[k]))
			return -1;
		r->src[k]->state = SRC_ACTIVE;
	}
	return 0;
}

/* record and extract, once their options are parsed. */
static int rec_run(struct rec *r, char **cmd)
{
	int ret = 1;

	if (rec_open_output(r))
		return 1;
	r->status_on = r->quiet || r->extract ? 0 : isatty(STDERR_FILENO) ? 1 : r->stats ? 2 : 0;
	cmd_catch_signals();
	if (r->npids ? rec_attach_pids(r) : rec_start_tree(r, cmd))
		goto out;
	/* a failure is said: recorded locally, exit status 1. A command: rec_loop() starts it */
	if (r->net && r->npids && !r->extract)
		rec_live_start(r, r->src, r->nsrc);
	r->start = r->last_status = status_now();
	ret = rec_end(r, rec_loop(r) ? 1 : 0);
out:
	rec_free(r, r->first != NULL);
	return rec_status(r, ret);
}

static struct rec *rec_new(void)
{
	struct rec *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->output = "trace.dat";
	r->ino_fd = -1;
	r->sess.fd = r->sess.parent_fd = -1;
	r->j.fd = -1;
	r->child_status = -1;
	return r;
}

int cmd_record(int argc, char **argv)
{
	struct rec *r = rec_new();
	int ret;

	if (!r)
		return 1;
	ret = rec_parse(r, argc, argv);
	if (ret >= 0) {
		if (ret == 2)
			rec_usage(stderr);
		free(r->ctf_dat);
		free(r);
		return ret;
	}
	ret = rec_run(r, argv + optind);
	free(r->ctf_dat);
	free(r);
	return ret;
}

static void ext_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace extract -p PID [-o FILE] [-q]\n"
		"Write what a traced process's ring buffer holds now (in overwrite mode: its last\n"
		"events) into a trace.dat file, without stopping it or changing its settings.\n"
		"  -p, --pid PID         the process\n"
		"  -o, --output FILE     the file (default trace.dat)\n"
		"  -q, --quiet           no summary line\n");
}

int cmd_extract(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec *r = rec_new();
	int opt, ret;

	if (!r)
		return 1;
	r->extract = true;
	r->quiet = false;
	while ((opt = getopt_long(argc, argv, "o:p:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			r->output = optarg;
			break;
		case 'p':
			if (r->npids == 1) {
				cmd_error("extract: one -p");
				goto usage;
			}
			if (cmd_parse_pid(optarg, &r->pids[0]))
				goto usage;
			r->npids = 1;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'h':
			ext_usage(stdout);
			free(r);
			return 0;
		default:
			goto usage;
		}
	}
	if (!r->npids || optind < argc) {
		cmd_error("extract: give -p PID (and nothing else)");
		goto usage;
	}
	ret = rec_run(r, NULL);
	free(r);
	return ret;
usage:
	ext_usage(stderr);
	free(r);
	return 2;
}
