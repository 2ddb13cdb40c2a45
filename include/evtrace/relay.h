/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/relay.h - relay channels, after the kernel's relay interface
 * (shared/seeds/relay.txt, shared/reference/relay.rst), for user space.
 *
 * A channel is one buffer per CPU (or one global buffer), each cut into
 * n_subbufs sub-buffers of subbuf_size bytes. Messages are written into
 * the current sub-buffer of the calling CPU's buffer and never split:
 * one that does not fit closes the sub-buffer (the rest is its padding)
 * and the subbuf_start() callback decides whether to move on to the next
 * one. The default callback moves on only while a sub-buffer is free
 * (no-overwrite); one that always returns 1 gives the overwrite ("flight
 * recorder") mode, as in the seed's two examples.
 *
 * Each buffer lives in a sealed memfd. Its "relay file" is a name in a
 * host directory (parent; $XDG_RUNTIME_DIR/evtrace/ by default) that the
 * create_buf_file() callback makes, base0 ... baseN-1; the default
 * callback, evt_relay_file_create(), makes a symbolic link to the memfd
 * (/proc/PID/fd/N), so that another process opens the very buffer.
 * The consumer side (evt_relay_reader_*, below) opens such a file and
 * does what the kernel's relay file operations do: mmap of the whole
 * buffer, read that consumes and strips padding, splice (the seed's sendfile) to a
 * descriptor, poll woken at every sub-buffer boundary (a futex in the
 * buffer's header), close with reference counting.
 *
 * Synchronization matrix:
 *
 *   call                          | vs writers | vs readers | vs itself
 *   ------------------------------+------------+------------+-------------
 *   evt_relay_write, _reserve     | any        | any        | any thread,
 *                                 |            |            | signal-safe
 *   evt_relay_write_serialized    | caller serializes every writer of the
 *                                 | buffer (no locked instruction used)
 *   evt_relay_flush,              | any        | any        | any
 *   evt_relay_subbufs_consumed    |            |            |
 *   evt_relay_reset,              | none: call only when nothing writes
 *   evt_relay_late_setup_files    | any (late setup stops writers a moment)
 *   evt_relay_close               | none
 *   evt_relay_reader_*            | any        | one reader per buffer
 *
 * A child made by fork() must not write to its parent's channels: there
 * writes return -ECHILD (evt_relay_reserve() NULL) and evt_relay_close()
 * frees the child's copy only (docs/relay.md, "fork()").
 *
 * Errors: int functions return 0 (or a count) or a negative errno value
 * and never touch errno.
 */
#ifndef EVTRACE_RELAY_H
#define EVTRACE_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct evt_rchan;

/*
 * struct evt_rchan_buf - one channel buffer, as callbacks see it.
 * @chan:  the channel; chan->private_data is the client's pointer.
 * @start: the first sub-buffer (n_subbufs * subbuf_size bytes follow).
 * @cpu:   the CPU it serves (0 for a global buffer).
 * @fd:    the memfd the buffer lives in (the library owns it).
 */
struct evt_rchan_buf {
	struct evt_rchan *chan;
	void *start;
	unsigned int cpu;
	int fd;
};

/*
 * struct evt_rchan - a channel. Read-only for clients.
 * @subbuf_size:  bytes per sub-buffer.
 * @n_subbufs:    sub-buffers per buffer.
 * @alloc_size:   n_subbufs * subbuf_size.
 * @private_data: what evt_relay_open() was given.
 * @is_global:    1 when create_buf_file() asked for one global buffer.
 * @nr_bufs:      number of buffers (possible CPUs, or 1 when global).
 */
struct evt_rchan {
	size_t subbuf_size;
	size_t n_subbufs;
	size_t alloc_size;
	void *private_data;
	int is_global;
	unsigned int nr_bufs;
};

/*
 * struct evt_rchan_callbacks - what a client may define (NULL: default).
 *
 * subbuf_start():    called in the writer when a sub-buffer switch is about
 *                    to happen (and once per buffer at open and reset, with
 *                    prev_subbuf NULL); return 1 to switch, 0 to refuse (the
 *                    message is dropped and counted). Runs under the buffer's
 *                    switch lock: it may call evt_relay_buf_full() and
 *                    evt_subbuf_start_reserve(), not the write functions.
 *                    Default: return !evt_relay_buf_full(buf).
 * buf_mapped(),      a consumer mapped (unmapped) the buffer with
 * buf_unmapped():    evt_relay_reader_mmap(); delivered in the writer process
 *                    at the next sub-buffer switch or evt_relay_flush(), with
 *                    the number of mappings now held. Default: nothing.
 * create_buf_file(): make the file @filename in directory @parent that
 *                    represents @buf; set *is_global to ask for one global
 *                    buffer. Return 0 or a negative errno. Required for a
 *                    channel with files; evt_relay_file_create() is the
 *                    usual implementation.
 * remove_buf_file(): remove the file made for a buffer (its full @path);
 *                    called by evt_relay_close(). Required with files;
 *                    evt_relay_file_remove() is the usual implementation.
 */
struct evt_rchan_callbacks {
	int (*subbuf_start)(struct evt_rchan_buf *buf, void *subbuf, void *prev_subbuf,
			    size_t prev_padding);
	void (*buf_mapped)(struct evt_rchan_buf *buf, unsigned int nr_maps);
	void (*buf_unmapped)(struct evt_rchan_buf *buf, unsigned int nr_maps);
	int (*create_buf_file)(const char *filename, const char *parent, int mode,
			       struct evt_rchan_buf *buf, int *is_global);
	int (*remove_buf_file)(const char *path);
};

/* Largest sub-buffer and count, and largest buffer (n_subbufs * subbuf_size). */
#define EVT_RELAY_MAX_SUBBUF_SIZE (1u << 30)
#define EVT_RELAY_MAX_SUBBUFS	  (1u << 20)
#define EVT_RELAY_MAX_BUF_SIZE	  (UINT64_C(1) << 36)

/* --- channel management ----------------------------------------------------------------- */

int evt_relay_open(const char *base_filename, const char *parent, size_t subbuf_size,
		   size_t n_subbufs, const struct evt_rchan_callbacks *cb, void *private_data,
		   struct evt_rchan **chanp);
void evt_relay_close(struct evt_rchan *chan);
void evt_relay_flush(struct evt_rchan *chan);
void evt_relay_reset(struct evt_rchan *chan);
int evt_relay_late_setup_files(struct evt_rchan *chan, const char *base_filename,
			       const char *parent);
int evt_relay_subbufs_consumed(struct evt_rchan *chan, unsigned int cpu, size_t consumed);

/* --- writing ---------------------------------------------------------------------------- */

int evt_relay_write(struct evt_rchan *chan, const void *data, size_t length);
int evt_relay_write_serialized(struct evt_rchan *chan, const void *data, size_t length);
void *evt_relay_reserve(struct evt_rchan *chan, size_t length);

/* --- helpers for subbuf_start() ----------------------------------------------------------- */

bool evt_relay_buf_full(struct evt_rchan_buf *buf);
void evt_subbuf_start_reserve(struct evt_rchan_buf *buf, size_t length);

/* --- the host directory ------------------------------------------------------------------- */

int evt_relay_default_dir(char *dst, size_t len);
int evt_relay_file_create(const char *filename, const char *parent, int mode,
			  struct evt_rchan_buf *buf, int *is_global);
int evt_relay_file_remove(const char *path);

/* --- the consumer side: another process reading a relay file ------------------------------ */

struct evt_relay_reader;

/*
 * struct evt_relay_info - a buffer's geometry and counters, as read from
 * its (untrusted) header by evt_relay_reader_info().
 * @subbuf_size, @n_subbufs: geometry (checked at open, fixed after).
 * @produced:  sub-buffers the writer has finished.
 * @consumed:  sub-buffers the reader has consumed.
 * @dropped:   messages refused because the buffer was full (subbuf_start()
 *             returned 0), exact.
 * @toobig:    messages larger than a sub-buffer, refused.
 * @lost:      sub-buffers this reader skipped because the writer had
 *             overwritten them (overwrite mode).
 * @finalized: 1 once the writer closed the channel.
 * @refs:      processes holding the buffer (writer and readers).
 * @maps:      readers holding a mapping.
 */
struct evt_relay_info {
	uint64_t subbuf_size;
	uint64_t n_subbufs;
	uint64_t produced;
	uint64_t consumed;
	uint64_t dropped;
	uint64_t toobig;
	uint64_t lost;
	unsigned int finalized;
	unsigned int refs;
	unsigned int maps;
	unsigned int is_global;
};

/*
 * open:     map an existing relay file's buffer (checks magic, geometry, seals); take a
 *           reference. -ENOENT, -EBADMSG (not a relay buffer or corrupt), -ENOMEM.
 * close:    drop the reference and the mappings; returns 1 when it was the last reference
 *           (the buffer is freed), else 0.
 * read:     copy up to @len bytes of unread data, padding stripped, and consume them.
 *           Returns the count; -EAGAIN when nothing is ready but the writer is alive;
 *           0 at end of file (the channel was closed and everything was read);
 *           -EBADMSG when the shared header is corrupt. Overwrite mode: sub-buffers the
 *           writer reused are skipped and counted (info.lost) only at the start of a call,
 *           so the bytes one call returns have no gap in them.
 * splice:   the same, but the bytes go to @out_fd (a file, pipe or socket), written from the
 *           mapping with no staging copy; -EAGAIN from a full non-blocking @out_fd.
 * poll:     wait up to @timeout_ms (-1: forever) until a finished sub-buffer is unread:
 *           POLLIN | POLLRDNORM, plus POLLHUP once the channel is closed; 0 on timeout.
 * poll_set: the same for @n (at most 128) readers at once (the files of a per-CPU
 *           channel): each one's mask in @revents[i]; returns how many are ready.
 * mmap:     the whole buffer (n_subbufs * subbuf_size bytes, read-only); the mapping lives
 *           until close. next_subbuf gives the next finished unread sub-buffer (offset
 *           in the mapping, length without padding): 1, or 0 when none; subbufs_consumed
 *           consumes sub-buffers so the writer may reuse them.
 * rewind:   the next read starts again at the oldest data still in the buffer.
 */
int evt_relay_reader_open(const char *path, struct evt_relay_reader **rp);
int evt_relay_reader_close(struct evt_relay_reader *r);
int evt_relay_reader_info(struct evt_relay_reader *r, struct evt_relay_info *info);
ssize_t evt_relay_reader_read(struct evt_relay_reader *r, void *dst, size_t len);
ssize_t evt_relay_reader_splice(struct evt_relay_reader *r, int out_fd, size_t len);
int evt_relay_reader_poll(struct evt_relay_reader *r, int timeout_ms);
int evt_relay_reader_poll_set(struct evt_relay_reader *const *rs, unsigned int n, int timeout_ms,
			      short *revents);
int evt_relay_reader_mmap(struct evt_relay_reader *r, const void **addr, size_t *len);
int evt_relay_reader_next_subbuf(struct evt_relay_reader *r, size_t *offset, size_t *len);
int evt_relay_reader_subbufs_consumed(struct evt_relay_reader *r, size_t consumed);
int evt_relay_reader_rewind(struct evt_relay_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_RELAY_H */
