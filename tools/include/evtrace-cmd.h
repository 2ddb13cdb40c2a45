/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-cmd.h - what the evtrace command's subcommands share.
 *
 * Each subcommand lives in tools/evtrace/cmd-<verb>.c and is one entry of
 * the table in main.c: int cmd_<verb>(int argc, char **argv), argv[0] being
 * the verb. It returns the process exit status (0 ok, 1 failure, 2 usage).
 */
#ifndef EVTRACE_CMD_H
#define EVTRACE_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct evtrace_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary; /* one line for `evtrace help` */
};

/* Print "evtrace: <msg>" to stderr, printf-style. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_cat(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_extract(int argc, char **argv); /* cmd-record.c: record's machinery, once */
int cmd_hist(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_mount(int argc, char **argv); /* built with libfuse3 only (EVT_HAVE_FUSE) */
int cmd_probe(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_relay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_tracepipe(int argc, char **argv);
int cmd_write(int argc, char **argv);

/*
 * The live line (status.c): "NAME: 12.3 MB/s, 4.5 MB, 1234 records, 0 missed" on stderr,
 * rewritten in place at most twice a second, when stderr is a terminal (or forced).
 * status_done() ends it with a newline (or prints a last summary line when forced).
 */
struct cmd_status {
	const char *name;
	int on; /* stderr is a terminal, or --stats */
	uint64_t bytes, records, missed;
	int records_known; /* 0: "records" is not counted (shown as "-") */
	double start, last;
	uint64_t last_bytes;
	double rate;
};

void status_init(struct cmd_status *st, const char *name, int force);
void status_update(struct cmd_status *st, int final);
double status_now(void);

/* Stop flag set by SIGINT/SIGTERM (cmd_catch_signals). */
extern volatile int cmd_stop;
void cmd_catch_signals(void);

/*
 * Option and output helpers (common.c). Each prints its own error.
 * cmd_verb_or_help: -1 when argv[1] is a verb to run; else the exit status after printing
 * @usage (no verb: to stderr, 2; -h/--help: to stdout, 0).
 * cmd_parse_seconds: -t's value, a positive number; 0 or -1.
 * cmd_deadline: status_now() + @seconds, or 0 (none) for @seconds <= 0.
 * cmd_open_output: open @path to write (created 0644, truncated); the fd or -1.
 * cmd_write_all: all @n bytes, retrying on EINTR; 0 or -1 (errno set by write()).
 */
int cmd_verb_or_help(int argc, char **argv, void (*usage)(FILE *f));
int cmd_parse_seconds(const char *arg, double *seconds);
double cmd_deadline(double seconds);
int cmd_open_output(const char *path);
int cmd_write_all(int fd, const void *buf, size_t n);

/*
 * Talking to traced processes (ctl-util.c; control/ctl_client.h, docs/control.md).
 * cmd_parse_pid: -p's value; 0 or -1 (message printed).
 * cmd_ctl_pids: the pids with a live control socket, sorted (*@pids malloc'd); the count.
 * cmd_ctl_connect: connect to @pid, or with @pid 0 to the only traced process; NULL after a
 * message saying why not.
 * cmd_ctl_error: "evtrace: WHAT PATH: strerror", then the process's error text if any
 * (control characters escaped).
 * cmd_escape: @s with control characters, bytes >= 0x7f and '\\' as \\xNN, into @buf
 * (cut to fit); returns @buf. For every name or text another process chose (comm,
 * error texts) before it reaches a terminal.
 */
struct ctl_client;
int cmd_parse_pid(const char *arg, pid_t *pid);
int cmd_ctl_pids(pid_t **pids);
struct ctl_client *cmd_ctl_connect(pid_t pid);
void cmd_ctl_error(const char *what, const char *path, int err, const char *text);
const char *cmd_escape(const char *s, char *buf, size_t len);

/*
 * A list of names (ctl-util.c): cmd_names_push() appends a copy (0 or -ENOMEM);
 * cmd_names_add_dir() is a ctl_filldir_t keeping the directories of a ctl_readdir();
 * cmd_names_free() empties the list.
 */
struct cmd_names {
	char **v;
	int n;
};
int cmd_names_push(struct cmd_names *l, const char *name);
int cmd_names_add_dir(void *arg, const char *name, unsigned int mode);
void cmd_names_free(struct cmd_names *l);

#endif /* EVTRACE_CMD_H */
