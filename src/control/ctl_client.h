/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * control/ctl_client.h - the client side of the control socket, for the
 * evtrace command (and its FUSE mount). Not installed, not exported.
 *
 * A struct ctl_client is one connection to one traced process
 * (docs/control.md). Requests on a connection are answered in order, one
 * at a time: a connection is used by one thread at a time, and while a
 * stream is open (ctl_stream_open()) only ctl_stream_read() and
 * ctl_stream_stop() may be called on it. Open several connections for
 * concurrent work (the server serves each on its own thread).
 *
 * Errors: negative errno values; errno is never relied on. -ECONNRESET or
 * -EPIPE: the process went away (or closed the connection), the client
 * is unusable and only ctl_close() remains.
 */
#ifndef EVT_CONTROL_CTL_CLIENT_H
#define EVT_CONTROL_CTL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "control/ctl_proto.h"

struct ctl_client;

/* What the server said when we connected. */
struct ctl_info {
	pid_t pid;
	uid_t uid;
	unsigned int nr_cpus;
	char comm[CTL_COMM_MAX];
};

/* The directory sockets live in ($XDG_RUNTIME_DIR/evtrace, /run/evtrace for root, ...). */
int ctl_socket_dir(char *buf, size_t len);
/* The socket of process @pid in that directory. */
int ctl_socket_path(pid_t pid, char *buf, size_t len);
/*
 * The socket of process @pid in a record-* subdirectory of that directory
 * (the session of an `evtrace record -- CMD`, docs/control.md). -ENOENT: none.
 */
int ctl_session_path(pid_t pid, char *buf, size_t len);

/*
 * Connect to process @pid's endpoint (or the socket at @path) and read its
 * hello. By pid: in the socket directory, else in a record's session
 * directory (ctl_session_path()). -ENOENT: no endpoint; -ECONNREFUSED: stale socket; -EACCES: the
 * server refused us (not the owner, not root) or the file system did; -EPERM: we refused
 * the server (below).
 */
int ctl_connect_pid(pid_t pid, struct ctl_client **cp);
int ctl_connect_path(const char *path, struct ctl_client **cp);
/*
 * Before the hello, the client checks the server: the socket's directory
 * (compat/secdir.h: ours, a directory, nobody else can write to it; -EPERM,
 * -ELOOP) and the peer's uid (SO_PEERCRED: our effective uid; -EPERM).
 * Connect and every wait for an answer (but a stream's for its next chunk)
 * time out after EVTRACE_CONTROL_TIMEOUT seconds (default 30, 0: never):
 * -ETIMEDOUT, the connection is then broken.
 * ctl_last_why(): the reason of the calling thread's last refusal or
 * timeout, naming the socket or pid ("" if none; valid until its next call).
 */
const char *ctl_last_why(void);
void ctl_close(struct ctl_client *c);
const struct ctl_info *ctl_client_info(const struct ctl_client *c);
/* The socket, for poll(2) (readable: a stream chunk waits). */
int ctl_client_fd(const struct ctl_client *c);

/*
 * ctl_read() - a whole file (a snapshot, as one open + read to EOF).
 * *@bufp: malloc'd, NUL-terminated (not counted), freed by the caller.
 * Non-blocking: trace_pipe gives what is there now.
 * Return: bytes read or -errno (the file's read error: -ENOENT, -EACCES...).
 */
ssize_t ctl_read(struct ctl_client *c, const char *path, char **bufp);
/* At most @max bytes from @offset (pread semantics); @max 0 means "all". */
ssize_t ctl_pread(struct ctl_client *c, const char *path, uint64_t offset, uint64_t max,
		  char **bufp);

/*
 * ctl_write() - one write of @len bytes to @path (@flags: CTL_WF_TRUNC is
 * the shell's '>', CTL_WF_APPEND '>>', 0 a plain write).
 * @err/@errlen: on failure, the error text the process has for it (the
 * new error_log entry, or the file's own error display); "" if none.
 * Return: bytes written or -errno (the write's errno, as write(2) on the
 * kernel's file gives it).
 */
ssize_t ctl_write(struct ctl_client *c, const char *path, const void *data, size_t len,
		  unsigned int flags, char *err, size_t errlen);

typedef int (*ctl_filldir_t)(void *arg, const char *name, unsigned int mode);
/* Each entry of directory @path; @fill returning non-zero stops (and is returned). */
int ctl_readdir(struct ctl_client *c, const char *path, ctl_filldir_t fill, void *arg);
/* Mode of @path (S_IFDIR/S_IFREG and permissions) or -ENOENT. */
int ctl_stat(struct ctl_client *c, const char *path, unsigned int *mode);
int ctl_mkdir(struct ctl_client *c, const char *path);
int ctl_rmdir(struct ctl_client *c, const char *path);

/*
 * Streaming reads (trace_pipe, trace_pipe_raw, per_cpu/cpuN/trace_pipe):
 * ctl_stream_open() starts; ctl_stream_read() blocks for the next bytes
 * (up to @len; the rest of a chunk is kept for the next call) and returns
 * 0 when the stream ended (the file's end of file, or after
 * ctl_stream_stop()), -EAGAIN when @timeout_ms (>= 0) passed without
 * data. ctl_stream_stop() ends it and drains what was in flight; the
 * connection is then usable for other requests.
 */
int ctl_stream_open(struct ctl_client *c, const char *path);
ssize_t ctl_stream_read(struct ctl_client *c, void *buf, size_t len, int timeout_ms);
int ctl_stream_stop(struct ctl_client *c);

/*
 * ctl_stream_pending() - true when ctl_stream_read() has something without
 * reading the connection: bytes kept from a chunk, or the stream's end. (With
 * false, it waits for the connection: poll ctl_client_fd() for POLLIN.)
 */
bool ctl_stream_pending(const struct ctl_client *c);

/*
 * ctl_get_buffer() - the ring buffer of instance @instance ("" or NULL:
 * the top one, else its name) as a memfd for evt_ring_buffer_map().
 * The connection holds the instance's consumer role until ctl_put_buffer()
 * or close: a second consumer gets -EBUSY. While a consumer holds a buffer,
 * the process waits at exit (up to EVTRACE_CONTROL_EXIT_WAIT seconds, see
 * docs/control.md) until it lets go, so that it can drain what is left.
 * *@fd: the memfd, the caller's to close. @info may be NULL.
 */
int ctl_get_buffer(struct ctl_client *c, const char *instance, int *fd,
		   struct ctl_bufinfo *info);
int ctl_put_buffer(struct ctl_client *c);

/*
 * The start-up hold (docs/control.md): a program started with
 * EVTRACE_CONTROL_HOLD=<its pid> (or "all": every program of a tree) parks
 * its first event until released.
 * ctl_hold_state(): 0 no hold pending (released, timed out, exiting or never
 * armed), 1 armed but no thread parked yet, 2 a thread is parked.
 * ctl_release(): end the hold; returns how many threads were parked.
 */
int ctl_hold_state(struct ctl_client *c);
int ctl_release(struct ctl_client *c);

/* Liveness and state: is the process exiting (waiting for us)? */
int ctl_ping(struct ctl_client *c, struct ctl_ping *ping);

/*
 * The directories of sockets, as the protocol wants them (docs/control.md,
 * "Directories"): the same rules the server and ctl_connect_*() apply, for a
 * client that lists the socket directory or makes a session directory of its
 * own (`evtrace list`, `evtrace record -- CMD`). Each is compat/secdir.h's
 * function of the same name (secdir_*), which the tools do not include:
 *
 * ctl_dir_check_fd() - 0 if the directory open at @fd is ours and nobody else
 *   can write to it; -ENOTDIR, -EPERM (the reason in @why, @whylen bytes,
 *   CTL_DIR_WHY_MAX is enough; @why may be NULL).
 * ctl_dir_open() - open @path (its last component no symbolic link) and check
 *   it: a descriptor or -ENOENT, -ELOOP, -EPERM.
 * ctl_dir_make() - as ctl_dir_open(), creating it (0700) when missing.
 * ctl_dir_open_parent() - open a directory to make a private one in (ours or
 *   root's, others cannot write to it unless it is sticky: /tmp).
 * ctl_dir_remove_tree() - unlink the entries of the directory open at @dfd,
 *   then @name of @parent_fd if it still is that directory; 0 or -errno.
 * Context: any thread.
 */
#define CTL_DIR_WHY_MAX 192
int ctl_dir_check_fd(int fd, char *why, size_t whylen);
int ctl_dir_open(const char *path, char *why, size_t whylen);
int ctl_dir_make(const char *path, char *why, size_t whylen);
int ctl_dir_open_parent(const char *path, char *why, size_t whylen);
int ctl_dir_remove_tree(int dfd, int parent_fd, const char *name);

#endif /* EVT_CONTROL_CTL_CLIENT_H */
