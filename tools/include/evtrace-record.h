/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-record.h - what the files of `evtrace record` and `evtrace extract`
 * share (evtrace-record(1), docs/evtrace-command.md). One job per file:
 *
 *   cmd-record.c    the options, the run from start to exit status (record, extract)
 *   rec-tree.c      -- CMD: the command started, its tree's sockets discovered
 *   rec-source.c    one traced process (a source): attached, held, ended, let go
 *   rec-setup.c     its events, filters and triggers set, and undone at the end
 *   rec-meta.c      what the file needs from it: formats, clock, thread names
 *   rec-drain.c     the loop: every source's pages drained into the journal
 *   rec-output.c    the output opened, the journal made the trace.dat at the end
 *   rec-journal.c   the journal itself (evtrace-journal.h)
 *
 * How: the command is started with EVTRACE_CONTROL=1 (its library serves
 * the control socket, docs/control.md) and EVTRACE_EVENTS set to the -e
 * list (so events are on from their registration) and EVTRACE_CONTROL_HOLD
 * (its first event waits for us), or each process -p is attached to.
 * Through the socket: the events, filters and triggers are set, and the
 * ring buffer's memfd is taken (GETBUF) and mapped; a started command is
 * then released (RELEASE), so that nothing it writes escapes the settings. The pages
 * are drained with evt_ring_buffer_read_page() from the mapping, nothing
 * but control goes through the socket, into the journal. At the end
 * (Ctrl-C, the command's exit, or the process's exit which waits for us)
 * everything left is drained, the event formats, thread names and clock
 * are fetched once more, and the journal becomes the trace.dat.
 *
 * -- CMD records the command's whole tree: it runs with EVTRACE_CONTROL_DIR
 * set to a directory of this record's own, which is watched (inotify, a
 * rescan every second); every process of the tree that serves a socket
 * there becomes a source, held at its first event (EVTRACE_CONTROL_HOLD=all)
 * until it is set up, as the command is. The record ends when the command
 * has exited and every source has ended (or on Ctrl-C).
 *
 * Several -p, or several processes of a tree: each process's CPUs become
 * CPUs of their own in the file (process k's CPU c is CPU base_k + c), so
 * the readers' merge by time stamp merges the processes. Their event ids
 * differ (each process numbers its own events): the file gets one table, an
 * event with the same format text keeps one id, and the records'
 * common_type is rewritten in the pages where a process's id had to change.
 *
 * Everything runs in the one thread of the command: nothing here locks.
 */
#ifndef EVTRACE_RECORD_H
#define EVTRACE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "control/ctl_client.h"
#include "evtrace-journal.h"
#include "session-dir.h"

#define REC_MAX_EVENTS 128
#define REC_MAX_SRC    16   /* -p */
#define REC_MAX_TREE   1024 /* processes of a command's tree */
#define REC_POLL_MS    50
#define REC_MAX_CPUS_LIVE 4096 /* a process's CPUs, for -N's live table */

struct rec_event {
	char *spec;	  /* as given: sys:name, sys:*, sys, name */
	char *filter;	  /* -f after it, or NULL */
	char *trigger[8]; /* -T after it */
	int ntrig;
};

/*
 * A socket file: its pid, inode and modification time (a new endpoint of
 * the same pid, after exec, may get the inode number of the old one back;
 * not the change time: the server's chmod after bind() changes it).
 */
struct rec_sock {
	pid_t pid;
	ino_t ino;
	struct timespec mtim;
};

enum rec_state {
	SRC_WAIT,   /* connected; waiting for it to park at its first event (the hold) */
	SRC_ACTIVE, /* set up, its buffer ours: drained */
	SRC_SHARED, /* ended, but fork() children that did not exec still write into its buffer */
	SRC_DONE,   /* ended (drained to the end), or dropped before it was set up */
};

/* One traced process (one program image: an exec'd one is a new source). */
struct rec_src {
	pid_t pid;
	struct rec_sock id;   /* its socket file (a command's tree) */
	struct ctl_client *c; /* NULL once the process is gone or done */
	struct evt_ring_buffer *rb;
	struct ctl_bufinfo bi;
	int fd; /* the memfd, -1 */
	enum rec_state state;
	unsigned int idx; /* its index in the journal */
	bool attached;	  /* set up: the journal has its metadata */
	bool meta_dirty;  /* its names changed since they were journaled */
	double last_ping;
	uint64_t lost_at_end; /* dropped + overruns when its buffer was let go */
	dev_t mem_dev;	      /* the memfd's identity, as /proc/PID/maps shows it */
	ino_t mem_ino;
	char *names;  /* "tid comm" lines of the fork() children that share the buffer */
	pid_t *shpids; /* the processes found sharing it */
	int nshpids;
	char date[40]; /* --date: the DATE option's text for its clock, or "" */
	pid_t *tids;  /* the threads seen in its pages whose names we looked for */
	int ntids, tidcap;
	/* what the file needs from the process, fetched while it lives */
	struct rj_fmt *fmts;
	size_t nfmts;
	char *cmdlines, *clock_list;
	uint64_t records, missed;
	/* undo, when attached */
	char **undo_path, **undo_data;
	int nundo;
};

/* A socket file of the session directory that is not (yet) a source. */
struct rec_seen {
	struct rec_sock id;
	bool retry;	 /* refused while its pid lives: bound, not listening yet */
	double next_try; /* then: 5 ms, twice as long each time, up to 1 s */
	double delay;
};

struct rec {
	struct rec_event ev[REC_MAX_EVENTS];
	int matched[REC_MAX_EVENTS]; /* a command's tree: processes that had the -e */
	int nev;
	const char *output;
	bool output_created;	 /* by us: removed when nothing is written */
	pid_t pids[REC_MAX_SRC]; /* -p */
	int npids;
	pid_t child; /* started by us, until reaped */
	bool tree;   /* -- CMD: every process of its tree that serves a socket */
	bool stats, quiet;
	bool date; /* --date: the file gets a DATE option (record-time.c) */
	const char *net;  /* -N HOST:PORT: the file is sent to trace-cmd listen (record-net.c) */
	bool net_failed;
	uint64_t net_unsent; /* -N with a command: pages of its tree's other processes */
	struct rec_live *live; /* -N: sent as it is recorded (record-live.c) */
	const char *ctf; /* --format=ctf: the directory (-o); the recording is ctf_dat in it */
	char *ctf_dat;
	struct rec_src **src;
	int nsrc, srccap;
	struct rec_src *first; /* the first source set up: page size, clock */
	/* a command's tree: the session's socket directory (session-dir.c), watched */
	struct session_dir sess;
	int ino_fd; /* inotify on @dir, -1 */
	struct rec_seen *seen;
	int nseen, seencap;
	double last_scan;
	struct rlimit nofile; /* as we were started: the command gets it back */
	unsigned char *page;
	unsigned int page_size;
	/* counters, over every process */
	uint64_t records, bytes;
	double start, last_status;
	uint64_t last_records;
	double rate;
	int status_on; /* 1 terminal, 2 --stats */
	bool extract;  /* evtrace extract: what the buffers hold now; nothing is set */
	/*
	 * The journal (evtrace-journal.h) the pages and metadata go to as they
	 * come: the output file itself (made a trace.dat at the end), or an
	 * unnamed file when the output is not a regular file.
	 */
	struct rj j;
	bool jtemp;
	bool fault;	  /* a process's buffer failed midway: the exit status says so */
	pid_t child_pid;  /* the command (the first of r->child), for its exit status */
	int child_status; /* its wait status once it ended, else -1 */
};

/* --- rec-source.c: one traced process ------------------------------------------------ */

/**
 * rec_src_new() - a new source of @r for process @pid (state SRC_WAIT, no connection yet).
 * Return: the source (owned by @r), or NULL (no memory).
 */
struct rec_src *rec_src_new(struct rec *r, pid_t pid);

/**
 * rec_src_attach() - set @s up: events, filters, triggers, its buffer taken and mapped,
 * its metadata journaled.
 * Return: 0; -1 an error that ends the record (said); -2 (a command's tree) the process
 * went away meanwhile or cannot be recorded with the others: it is left out.
 */
int rec_src_attach(struct rec *r, struct rec_src *s);

/**
 * rec_src_wait() - a source waiting for the hold: set up and released once its program
 * is parked at its first event, or will not park. @stop: Ctrl-C came (it is dropped).
 * Return: 1 still waiting, 0 set up (SRC_ACTIVE) or dropped (SRC_DONE), -1 an error.
 */
int rec_src_wait(struct rec *r, struct rec_src *s, bool stop);

/**
 * rec_src_finish() - the end of one process: the last pages, the names once more, what
 * we set undone, the buffer given back. A buffer its fork() children still write into
 * makes it SRC_SHARED (drained on); else it is unmapped (rec_src_unmap()).
 * Return: 0.
 */
int rec_src_finish(struct rec *r, struct rec_src *s);

/**
 * rec_src_unmap() - the last pages of an ended source's buffer, then the buffer let go
 * (SRC_DONE). Return: 0.
 */
int rec_src_unmap(struct rec *r, struct rec_src *s);

/**
 * rec_src_fault() - @s's buffer failed on CPU @cpu with @err (-EBADMSG: a corrupt
 * page): said, the process let go, what was drained of it before kept; @r->fault set.
 */
void rec_src_fault(struct rec *r, struct rec_src *s, int cpu, int err);

/** rec_src_free() - @s and all it holds (its settings undone if it is still connected). */
void rec_src_free(struct rec_src *s);

/* --- rec-setup.c: the events of one process ------------------------------------------ */

/**
 * rec_setup_events() - events on, filters and triggers set in @s as @r's -e/-f/-T say;
 * when attached to (-p), what changed is noted to undo.
 * Return: 0, or -1 (said).
 */
int rec_setup_events(struct rec *r, struct rec_src *s);

/** rec_undo() - undo what rec_setup_events() changed (if the process is still there). */
void rec_undo(struct rec_src *s);

/* --- rec-meta.c: what the file needs from one process -------------------------------- */

/**
 * rec_fetch_meta() - every event's format, the saved cmdlines and the clock list of @s
 * (kept only when all of it came). Sets @s->meta_dirty.
 * Return: 0 or -errno (-ENOTCONN: no connection).
 */
int rec_fetch_meta(struct rec_src *s);

/** rec_fetch_cmdlines() - only @s's saved_cmdlines (they change while it runs). */
void rec_fetch_cmdlines(struct rec_src *s);

/**
 * rec_put_meta() - journal @s's metadata (at its set-up, and when its names changed).
 * Return: 0 or -errno (the journal's write error).
 */
int rec_put_meta(struct rec *r, struct rec_src *s);

/** rec_name_tid() - the name of thread @tid of @s from /proc, looked for once per thread. */
void rec_name_tid(struct rec_src *s, pid_t tid);

/** rec_add_names() - "tid comm" of every thread of process @pid into @s->names. */
void rec_add_names(struct rec_src *s, pid_t pid);

/**
 * rec_sharers() - the processes other than @s's own that map its buffer: fork()
 * children that did not exec. Their threads' names are added to @s->names.
 * Return: how many.
 */
int rec_sharers(struct rec *r, struct rec_src *s);

/* --- rec-drain.c: the loop ----------------------------------------------------------- */

/**
 * rec_drain() - every page of @s that can be read now, of every CPU, into the journal.
 * A buffer that fails ends @s (rec_src_fault()).
 * Return: pages read, or -errno: the journal could not be written (@r->j.err).
 */
long rec_drain(struct rec *r, struct rec_src *s);

/** rec_losses() - events lost so far, over every process. */
uint64_t rec_losses(const struct rec *r);

/** rec_progress() - the live status line (at most twice a second), or the final one. */
void rec_progress(struct rec *r, bool final);

/**
 * rec_loop() - drain every source until the end: Ctrl-C, every process ended (-p), or
 * the command exited and every process of its tree ended.
 * Return: 0 (a journal that failed included: rec_end() says so), -1 an error (said).
 */
int rec_loop(struct rec *r);

/* --- rec-tree.c: -- CMD -------------------------------------------------------------- */

/**
 * rec_start_tree() - the session directory made and watched, the command @argv started.
 * Return: 0, or -1 (said).
 */
int rec_start_tree(struct rec *r, char **argv);

/** rec_discover() - new sockets of the session directory become sources. @force: scan now. */
void rec_discover(struct rec *r, bool force);

/* --- rec-output.c: the file ---------------------------------------------------------- */

/**
 * rec_open_output() - the output created (or opened) now, so that one we cannot write
 * fails before anything runs; a regular file becomes the journal, anything else gets
 * the trace.dat at the end and the journal is an unnamed file.
 * Return: 0, or -1 (said).
 */
int rec_open_output(struct rec *r);

/**
 * rec_end() - the end: the journal made the trace.dat (and sent, -N), what happened said.
 * @ret: the loop's result. Return: 0, or 1 (an error, said).
 */
int rec_end(struct rec *r, int ret);

/* --- record-live.c: -N while recording ------------------------------------------------ */

/**
 * rec_live_start() - -N: the @nsrc processes @src (set up) make the table, the listener is
 * connected and given the metadata: with -p every process; with a command its own process
 * (or the first of its tree set up if it serves no socket), the others' pages not sent,
 * counted. A failure is said; the recording goes on into the local file and
 * @r->net_failed is set. Return: 0 or -errno.
 */
int rec_live_start(struct rec *r, struct rec_src **src, int nsrc);

/**
 * rec_live_page() - @page (CPU @cpu of @s, just journaled) sent on the file's CPU, its ids
 * made the table's. The first failure is said (the host, what was sent) and ends the stream.
 */
void rec_live_page(struct rec *r, struct rec_src *s, unsigned int cpu, const unsigned char *page);

/**
 * rec_live_tick() - called every round of the loop (and per page): while the thread names
 * are held for the end, the listener's keep-alive (cmd_net_tick()).
 */
void rec_live_tick(struct rec *r);

/**
 * rec_live_names() - the names now final (every process ended): the header made again
 * with them and its rest sent, so that threads named while streaming are named at the
 * listener too. Done by rec_live_end() if not before.
 */
void rec_live_names(struct rec *r);

/** rec_live_end() - every page drained and sent: the end, the listener's file written. */
int rec_live_end(struct rec *r);

/** rec_live_free() - the stream let go (abruptly if rec_live_end() was not done). */
void rec_live_free(struct rec *r);

#endif /* EVTRACE_RECORD_H */
