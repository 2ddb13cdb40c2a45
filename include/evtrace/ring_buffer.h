/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/ring_buffer.h - the unified trace buffer, for user space.
 *
 * The API of Steven Rostedt's "tracing: unified trace buffer" (see
 * shared/seeds/ring-buffer.txt), each name kept under the evt_ prefix.
 * A buffer is a set of per-CPU rings of pages; each page starts with
 * the kernel's buffer_data_page header and holds events encoded as the
 * kernel encodes them (docs/format.md has every byte).
 *
 * Writers never block, never allocate, never make a system call and
 * never take a lock: a reservation is one compare-and-swap on the
 * per-CPU write state, a commit one atomic add. A writer may be
 * preempted, migrated to another CPU, or interrupted by a signal
 * handler that writes events itself, at any point.
 *
 * Synchronization matrix (who may call what, concurrently with what):
 *
 *   call                         | vs writers | vs readers   | vs itself
 *   -----------------------------+------------+--------------+------------
 *   lock_reserve/unlock_commit,  | any        | any          | any thread,
 *   write, time_stamp            |            |              | signal-safe
 *   peek/consume, read_page      | any        | serialized per CPU by the
 *                                |            | buffer's reader lock
 *   read_start/iter_* /read      | any        | any (an iterator is owned
 *                                |            | by one thread)
 *   entries/overruns/empty/...   | any        | any          | any
 *   record_disable/enable(_cpu)  | any        | any          | any
 *   resize/reset(_cpu)/swap_cpu/ | any; -EBUSY if a writer is half-way
 *   set_clock                    | through an event it has not committed
 *   free                         | none: no other call may be running
 *
 * Signal handlers may write; they may not call the reader, control or
 * allocation functions. Per thread, reservations nest: commit (or
 * discard) in the reverse order of reserve, as a signal handler does.
 *
 * Errors: functions returning int give 0 (or a count) or a negative
 * errno value and never touch errno. Functions returning a pointer
 * give NULL when there is nothing (empty, disabled, full).
 */
#ifndef EVTRACE_RING_BUFFER_H
#define EVTRACE_RING_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/clock.h>

#ifdef __cplusplus
extern "C" {
#endif

struct evt_ring_buffer;
struct evt_ring_buffer_iter;

/*
 * An event as it lies in a page: a 32-bit header, then the payload.
 * type_len 1..28: payload of 4 * type_len bytes follows the header;
 * 0: array[0] holds payload length + 4 and the payload follows it;
 * 29 padding, 30 time extend, 31 absolute time stamp. Use the
 * accessors below rather than the fields.
 */
struct evt_ring_buffer_event {
	uint32_t type_len:5, time_delta:27;
	uint32_t array[];
};

enum evt_ring_buffer_type {
	EVT_RINGBUF_TYPE_DATA_TYPE_LEN_MAX = 28,
	EVT_RINGBUF_TYPE_PADDING = 29,
	EVT_RINGBUF_TYPE_TIME_EXTEND = 30,
	EVT_RINGBUF_TYPE_TIME_STAMP = 31,
};

/* Size of the buffer_data_page header: u64 time_stamp, u64 commit. */
#define EVT_RB_PAGE_HDR_SIZE	16u
/* Payloads above this many bytes use the array[0] length word. */
#define EVT_RB_MAX_SMALL_DATA	112u
/* The 27-bit time delta: larger gaps are written as a time extend. */
#define EVT_RB_TS_DELTA_BITS	27
#define EVT_RB_DEFAULT_PAGE_SIZE 4096u

/* evt_ring_buffer_alloc() flags */
#define EVT_RB_FL_OVERWRITE	(1u << 0)	/* overwrite oldest data when full */

/* "All CPUs", where a function takes a cpu argument. */
#define EVT_RB_ALL_CPUS		(-1)

/**
 * struct evt_ring_buffer_opts - everything evt_ring_buffer_alloc_opts() takes.
 * @size:      bytes of pages per CPU; rounded up to a power-of-two number
 *             of pages, at least 2.
 * @flags:     EVT_RB_FL_*.
 * @page_size: bytes per page, header included: a power of two from 256
 *             to 1 MiB; 0 means 4096. Pages go verbatim into trace.dat
 *             files, where trace-cmd wants a multiple of the host page.
 * @nr_cpus:   number of per-CPU buffers; 0 means every possible CPU.
 * @clock:     the trace clock.
 */
struct evt_ring_buffer_opts {
	size_t size;
	unsigned int flags;
	unsigned int page_size;
	int nr_cpus;
	enum evt_clock_id clock;
};

/* --- allocation and control --------------------------------------- */

int evt_ring_buffer_alloc(unsigned long size, unsigned int flags,
			  struct evt_ring_buffer **rbp);
int evt_ring_buffer_alloc_opts(const struct evt_ring_buffer_opts *opts,
			       struct evt_ring_buffer **rbp);
void evt_ring_buffer_free(struct evt_ring_buffer *rb);
int evt_ring_buffer_resize(struct evt_ring_buffer *rb, unsigned long size, int cpu);
void evt_ring_buffer_lock(struct evt_ring_buffer *rb);
void evt_ring_buffer_unlock(struct evt_ring_buffer *rb);
int evt_ring_buffer_reset_cpu(struct evt_ring_buffer *rb, int cpu);
int evt_ring_buffer_reset(struct evt_ring_buffer *rb);
int evt_ring_buffer_swap_cpu(struct evt_ring_buffer *a, struct evt_ring_buffer *b, int cpu);
int evt_ring_buffer_set_clock(struct evt_ring_buffer *rb, enum evt_clock_id clock);
enum evt_clock_id evt_ring_buffer_clock(const struct evt_ring_buffer *rb);

void evt_ring_buffer_record_disable(struct evt_ring_buffer *rb);
void evt_ring_buffer_record_enable(struct evt_ring_buffer *rb);
void evt_ring_buffer_record_disable_cpu(struct evt_ring_buffer *rb, int cpu);
void evt_ring_buffer_record_enable_cpu(struct evt_ring_buffer *rb, int cpu);
bool evt_ring_buffer_record_is_on(const struct evt_ring_buffer *rb);

/* --- writing --------------------------------------------------------- */

struct evt_ring_buffer_event *evt_ring_buffer_lock_reserve(struct evt_ring_buffer *rb,
							   unsigned long length);
int evt_ring_buffer_unlock_commit(struct evt_ring_buffer *rb,
				  struct evt_ring_buffer_event *event);
int evt_ring_buffer_discard_commit(struct evt_ring_buffer *rb,
				   struct evt_ring_buffer_event *event);
int evt_ring_buffer_write(struct evt_ring_buffer *rb, unsigned long length,
			  const void *data);

/* --- consuming reads --------------------------------------------------- */

struct evt_ring_buffer_event *evt_ring_buffer_peek(struct evt_ring_buffer *rb, int cpu,
						   uint64_t *ts, unsigned long *lost_events);
struct evt_ring_buffer_event *evt_ring_buffer_consume(struct evt_ring_buffer *rb, int cpu,
						      uint64_t *ts,
						      unsigned long *lost_events);
int evt_ring_buffer_peek_oldest(struct evt_ring_buffer *rb, int cpu_lo, int cpu_hi,
				struct evt_ring_buffer_event **event, uint64_t *ts,
				unsigned long *lost_events);
int evt_ring_buffer_read_page(struct evt_ring_buffer *rb, int cpu, void *page, size_t len);

/* --- non-consuming iteration ------------------------------------------- */

int evt_ring_buffer_read_start(struct evt_ring_buffer *rb, int cpu,
			       struct evt_ring_buffer_iter **iterp);
void evt_ring_buffer_read_finish(struct evt_ring_buffer_iter *iter);
struct evt_ring_buffer_event *evt_ring_buffer_iter_peek(struct evt_ring_buffer_iter *iter,
							uint64_t *ts);
struct evt_ring_buffer_event *evt_ring_buffer_read(struct evt_ring_buffer_iter *iter,
						   uint64_t *ts);
void evt_ring_buffer_iter_reset(struct evt_ring_buffer_iter *iter);
bool evt_ring_buffer_iter_empty(struct evt_ring_buffer_iter *iter);
unsigned long evt_ring_buffer_iter_lost(const struct evt_ring_buffer_iter *iter);

/* --- state and statistics ---------------------------------------------- */

unsigned long evt_ring_buffer_size(const struct evt_ring_buffer *rb, int cpu);
unsigned int evt_ring_buffer_page_size(const struct evt_ring_buffer *rb);
int evt_ring_buffer_nr_cpus(const struct evt_ring_buffer *rb);
bool evt_ring_buffer_overwrite(const struct evt_ring_buffer *rb);
bool evt_ring_buffer_empty(struct evt_ring_buffer *rb);
bool evt_ring_buffer_empty_cpu(struct evt_ring_buffer *rb, int cpu);
unsigned long evt_ring_buffer_entries(struct evt_ring_buffer *rb);
unsigned long evt_ring_buffer_entries_cpu(struct evt_ring_buffer *rb, int cpu);
unsigned long evt_ring_buffer_overruns(const struct evt_ring_buffer *rb);
unsigned long evt_ring_buffer_overrun_cpu(const struct evt_ring_buffer *rb, int cpu);
unsigned long evt_ring_buffer_dropped_events(const struct evt_ring_buffer *rb);
unsigned long evt_ring_buffer_dropped_events_cpu(const struct evt_ring_buffer *rb, int cpu);
unsigned long evt_ring_buffer_read_events_cpu(const struct evt_ring_buffer *rb, int cpu);
unsigned long evt_ring_buffer_corrupt_cpu(const struct evt_ring_buffer *rb, int cpu);

/* --- time --------------------------------------------------------------- */

uint64_t evt_ring_buffer_time_stamp(const struct evt_ring_buffer *rb);
void evt_ring_buffer_normalize_time_stamp(const struct evt_ring_buffer *rb, int cpu,
					  uint64_t *ts);

/* --- shared memory: a consumer in another process ---------------------- */

int evt_ring_buffer_fd(const struct evt_ring_buffer *rb);
int evt_ring_buffer_map(int fd, struct evt_ring_buffer **rbp);

/* --- reading a page someone handed you (trace_pipe_raw, trace.dat) ------ */

/**
 * struct evt_rb_page_iter - a cursor over one buffer_data_page.
 *
 * Nothing in the page is trusted: every length is checked against the
 * page before it is used. Fill it with evt_rb_page_iter_init().
 */
struct evt_rb_page_iter {
	const unsigned char *page;	/* the page, header included */
	size_t page_size;		/* bytes at @page */
	size_t end;			/* end of data: 16 + commit bytes */
	size_t pos;			/* offset of the next entry */
	uint64_t ts;			/* time of the last entry read */
	unsigned int commit_flags;	/* EVT_RB_PAGE_MISSED_* of the page */
	int error;			/* -EBADMSG once a bad entry was met */
};

/* Flags in the upper bits of a page's commit word (the kernel's). */
#define EVT_RB_PAGE_MISSED_EVENTS	(1u << 31)
#define EVT_RB_PAGE_MISSED_STORED	(1u << 30)
#define EVT_RB_PAGE_COMMIT_MASK		((1u << 27) - 1)

int evt_rb_page_iter_init(struct evt_rb_page_iter *it, const void *page, size_t page_size);
int evt_rb_page_iter_next(struct evt_rb_page_iter *it,
			  const struct evt_ring_buffer_event **event, uint64_t *ts);

/* --- event accessors ----------------------------------------------------- */

/**
 * evt_ring_buffer_event_length() - length of an event's payload area.
 * @event: a data event.
 *
 * Return: the bytes available at evt_ring_buffer_event_data(), i.e. the
 * reserved length rounded up to 4 (for internal types, the size of the
 * entry).
 */
unsigned int evt_ring_buffer_event_length(const struct evt_ring_buffer_event *event);
void *evt_ring_buffer_event_data(struct evt_ring_buffer_event *event);
unsigned int evt_ring_buffer_time_delta(const struct evt_ring_buffer_event *event);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_RING_BUFFER_H */
