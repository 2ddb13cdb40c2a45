/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ringbuf/rb_internal.h - the ring buffer's private layout.
 *
 * Nothing above src/ringbuf/ includes this file. docs/ring-buffer.md
 * explains the design; the short version:
 *
 *  - A buffer is one memfd. It starts with a control region (a header
 *    and one struct rb_cpu_shm per CPU) followed by each CPU's pages.
 *    Another process can map the memfd and consume from it.
 *
 *  - Each CPU has 2^order pages. A page is the kernel's buffer_data_page:
 *    u64 time_stamp, u64 commit, data. In the ring, the commit word is a
 *    CUMULATIVE count of bytes committed to that page slot over all its
 *    laps; a page's data is complete when the count reaches
 *    (lap + 1) * data_size, because every page is closed by padding it
 *    to its full data size (the trick of LTTng's commit counters: no
 *    counter is ever reset, so there is no reset to race with). Pages
 *    handed to a consumer are copies in which commit = bytes of data.
 *
 *  - The write state of a CPU is a pair {ts, pos} changed by one 16-byte
 *    CAS: ts = time stamp of the last reservation (bit 63: recording
 *    disabled), pos = (page sequence number << RB_OFF_BITS) | offset of
 *    the next free byte in that page's data. The sequence number only
 *    grows (reset and resize jump it forward), so the pair never returns
 *    to an old value and a CAS cannot succeed on stale state (no ABA).
 *    Including ts in the CAS is what makes each event's time delta exact
 *    with respect to the event before it.
 *
 *  - Two ways to update w and the commit counts, chosen per buffer at
 *    allocation and never mixed: a 16-byte CAS and locked adds, or - on
 *    x86-64 with rseq - a per-CPU compare-and-store and a plain add in a
 *    restartable sequence (compat/rseq.h), which costs no locked
 *    instruction. In rseq mode a commit made from another CPU than the
 *    page's (the writer migrated between reserve and commit) goes to a
 *    separate, atomically added "remote" counter per slot, stored after
 *    the pages; a slot's committed bytes are page->commit + remote[slot].
 *
 *  - read_pos = (sequence << RB_OFF_BITS) | offset: how far the consumer
 *    has taken data out of the ring. A writer may reuse a page slot only
 *    when the consumer has gone past its previous occupant; in overwrite
 *    mode the writer pushes read_pos forward instead (CAS) and counts the
 *    events it skipped as overruns.
 */
#ifndef EVT_RINGBUF_RB_INTERNAL_H
#define EVT_RINGBUF_RB_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <evtrace/ring_buffer.h>

#include "compat/atomic.h"
#include "compat/compiler.h"

#define RB_MAGIC		0x52545645u	/* "EVTR" */
#define RB_VERSION		1u

#define RB_OFF_BITS		20
#define RB_OFF_MASK		((UINT64_C(1) << RB_OFF_BITS) - 1)
#define RB_POS(seq, off)	(((uint64_t)(seq) << RB_OFF_BITS) | (uint64_t)(off))
#define RB_POS_SEQ(pos)		((pos) >> RB_OFF_BITS)
#define RB_POS_OFF(pos)		((uint32_t)((pos) & RB_OFF_MASK))
#define RB_SEQ_MAX		(UINT64_MAX >> RB_OFF_BITS)

/* read_pos while a control operation owns it: no writer can expect this value. */
#define RB_READ_POS_LOCKED	UINT64_MAX

#define RB_TS_DISABLED		(UINT64_C(1) << 63)
#define RB_TS_MASK		(RB_TS_DISABLED - 1)

#define RB_MIN_PAGE_SIZE	256u
#define RB_MAX_PAGE_SIZE	(1u << RB_OFF_BITS)
#define RB_MAX_CPUS		4096
#define RB_MIN_PAGES		2u
#define RB_MAX_ORDER		30

#define RB_HDR_SIZE		4u	/* the u32 type_len/time_delta word */

/*
 * A counter of the shared control block (dropped, overrun, read_events)
 * above this has been written by somebody else: 2^52 events take a year
 * and a half at 100 million a second, more than one CPU buffer takes.
 * Statistics read such a counter as 0 and count the CPU buffer as corrupt.
 */
#define RB_COUNTER_MAX		(UINT64_C(1) << 52)

/* Bound on a CAS loop over shared words that only a hostile process changes. */
#define RB_CAS_TRIES		4096
#define RB_FENCE_TRIES		64	/* rounds of rseq_ops_fence(), a system call each */
#define RB_TS_DELTA_MAX		((UINT64_C(1) << EVT_RB_TS_DELTA_BITS) - 1)

/* The buffer_data_page header as it lies in the ring. */
struct rb_page {
	uint64_t time_stamp;	/* time of the page's first entry; written by the
				 * writer whose reservation starts at offset 0,
				 * published by that writer's commit (release) */
	uint64_t commit;	/* cumulative bytes committed to this slot (see top) */
	unsigned char data[];
};

/* The first bytes of the memfd. Written once at allocation. */
struct rb_shm_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t page_size;
	uint32_t nr_cpus;
	uint32_t flags;		/* EVT_RB_FL_* */
	uint32_t clock;		/* enum evt_clock_id; changes only while quiesced */
	uint64_t cpu_off;	/* offset of the rb_cpu_shm array */
	uint32_t cpu_stride;	/* sizeof(struct rb_cpu_shm) */
	uint32_t reserved;
};

/*
 * Per-CPU shared control block. Three cache lines: what writers change
 * on every event, what the consumer changes, and the page layout.
 */
struct rb_cpu_shm {
	/* writers: every reservation CASes w; counters on the slow paths */
	struct evt_pair w;	/* lo: ts | RB_TS_DISABLED, hi: pos */
	uint64_t dropped;	/* reservations refused: full, or next page busy */

	/*
	 * {read_pos, overrun} change together (pair_cas, see rb_rd()): the
	 * consumer's claim keeps overrun, a writer's push moves read_pos and
	 * adds the events it pushed past, so whoever reads the two sees a
	 * position and the overruns counted up to it - what makes iterators'
	 * lost counts exact.
	 */
	uint64_t read_pos __attribute__((aligned(EVT_CACHELINE)));
	uint64_t overrun;	/* events overwritten unread (overwrite mode) */

	/* consumer only (one per CPU buffer): plain load + store; read by stats */
	uint64_t read_events __cacheline_aligned;

	/* layout: changed only by resize, under the control lock, with the CPU quiesced */
	uint32_t layout_seq __cacheline_aligned;	/* odd while the layout changes */
	uint32_t order;				/* log2 of the number of pages */
	uint64_t data_off;			/* file offset of the pages */
};

/*
 * What the writers write on every event (w; the page headers' commit counts
 * are in the pages), what the consumer writes (read_pos, read_events) and
 * the layout never share a cache line: a live consumer then costs a writer
 * only the lines it reads (docs/performance.md, "Third pass").
 */
_Static_assert(offsetof(struct rb_cpu_shm, read_pos) / EVT_CACHELINE !=
		       offsetof(struct rb_cpu_shm, w) / EVT_CACHELINE &&
	       offsetof(struct rb_cpu_shm, read_events) / EVT_CACHELINE !=
		       offsetof(struct rb_cpu_shm, read_pos) / EVT_CACHELINE &&
	       offsetof(struct rb_cpu_shm, read_events) / EVT_CACHELINE !=
		       offsetof(struct rb_cpu_shm, w) / EVT_CACHELINE &&
	       offsetof(struct rb_cpu_shm, layout_seq) / EVT_CACHELINE !=
		       offsetof(struct rb_cpu_shm, read_events) / EVT_CACHELINE &&
	       sizeof(struct rb_cpu_shm) % EVT_CACHELINE == 0,
	       "writer, consumer and layout fields on lines of their own");

/* The {read_pos, overrun} pair of a CPU buffer. */
static inline struct evt_pair *rb_rd(struct rb_cpu_shm *shm)
{
	_Static_assert(offsetof(struct rb_cpu_shm, overrun) ==
			       offsetof(struct rb_cpu_shm, read_pos) + 8 &&
		       offsetof(struct rb_cpu_shm, read_pos) % 16 == 0,
		       "read_pos and overrun form one 16-byte pair");
	return (struct evt_pair *)&shm->read_pos;
}

/*
 * Read {read_pos, overrun} as they were at one moment: every change of
 * read_pos that changes overrun changes it by a push, so an unchanged
 * overrun around the read of read_pos proves the pair consistent.
 */
static inline void rb_rd_load(struct rb_cpu_shm *shm, uint64_t *rp, uint64_t *ov)
{
	for (int i = 0; i < 64; i++) {
		uint64_t ov1 = ld_acquire(&shm->overrun);

		*rp = ld_acquire(&shm->read_pos);
		*ov = ld_acquire(&shm->overrun);
		if (*ov == ov1)
			return;
	}
}

/* Set the pair, from a control operation that owns read_pos (see rb_backend.c). */
static inline void rb_rd_set(struct rb_cpu_shm *shm, uint64_t rp, uint64_t ov)
{
	uint64_t orp, oov;
	int tries = 0;

	/* bounded: once writers are quiesced only another process changes the pair */
	do {
		pair_load(rb_rd(shm), &orp, &oov);
	} while (!pair_cas(rb_rd(shm), orp, oov, rp, ov) && ++tries < RB_CAS_TRIES);
}

struct rb_map {
	void *addr;
	size_t len;
	struct rb_map *next;
};

/*
 * Process-local view of one CPU's buffer. Its size is a power of two,
 * RB_CPU_STRIDE: a writer indexes rb->cpus[] by its CPU number on the way
 * to the write state, and a power-of-two stride is one shift where the 176
 * bytes these fields take cost three instructions on that chain of loads
 * (0.4 ns of a disabled reservation's 2.2: docs/performance.md, "Issue
 * 13's restructuring").
 */
#define RB_CPU_STRIDE		256
struct rb_cpu {
	union {
		struct {
			struct rb_cpu_shm *shm;
			/*
			 * The layout, as one word: address of the first page |
			 * log2(pages). One load gives a consistent pair even while
			 * resize replaces it (the address is page aligned, so the
			 * low bits are free). Writers, iterators and readers use
			 * rb_cpu_layout(); data/order below are the control side's
			 * copy (ctl_lock or a quiesced CPU).
			 */
			uintptr_t map;
			unsigned char *data;
			/* file offset of data (the owner's copy of shm->data_off) */
			uint64_t data_off;
			uint32_t order;
			/* layout the mapping is for (the owner's: what it published) */
			uint32_t layout_seq;
			int disable_cnt;	/* record_disable_cpu nesting (atomic) */
			/* a writer or reader of ours met an impossible value (atomic) */
			int tainted;
			/*
			 * 1 while a control operation (resize, reset, swap,
			 * set_clock) holds the CPU quiesced: a writer refused then
			 * counts a drop, as it does for a full buffer (recording
			 * turned off is not counted, as in the kernel). Written by
			 * control (ctl_lock), read by writers (atomic).
			 */
			int quiescing;
			/* data entries not consumed yet in the reader page (reader_lock) */
			uint32_t rp_left;
			uint64_t rebuilt;	/* times found corrupt and rebuilt (atomic) */
			/* write position of the last quiesce that timed out (ctl_lock) */
			uint64_t busy_pos;
			/* since when it has stayed there, ns; 0: no timeout (ctl_lock) */
			uint64_t busy_since;
			/* address ranges retired by resize (control lock) */
			struct rb_map *old_maps;

			/* the consumer's private copy of a page: the "reader page" */
			pthread_mutex_t reader_lock;
			unsigned char *rpage;	/* page_size bytes */
			uint32_t rp_pos;	/* next entry (offset into data) */
			uint32_t rp_end;	/* end of copied entries */
			uint64_t rp_ts;		/* time base for the entry at rp_pos */
			uint64_t lost_seen;	/* overrun + dropped already reported */
			uint64_t corrupt;	/* pages skipped as malformed */
			/*
			 * Consumed from the reader page and not yet added to
			 * shm->read_events: the consumer publishes its count once
			 * per chunk (rb_read_flush()), a locked add per page rather
			 * than per event. Written by the consumer (reader_lock),
			 * read by the statistics (atomic).
			 */
			uint64_t rp_consumed;
		};
		unsigned char stride[RB_CPU_STRIDE];
	};
};

_Static_assert(sizeof(struct rb_cpu) == RB_CPU_STRIDE,
	       "struct rb_cpu outgrew RB_CPU_STRIDE: double it (a power of two)");

struct evt_ring_buffer {
	int fd;
	bool mapped;		/* a consumer handle from evt_ring_buffer_map() */
	bool overwrite;
	uint32_t page_size;
	uint32_t page_shift;
	uint32_t data_size;	/* page_size - 16 */
	uint32_t max_payload;
	uintptr_t page_mask;	/* ~(page_size - 1) */
	int nr_cpus;
	bool rseq;		/* writers update w and commit through rseq (compat/rseq.h) */
	uint32_t clock;		/* enum evt_clock_id; ld/st_relaxed */
	int disable_cnt;	/* record_disable nesting (atomic) */

	struct rb_shm_hdr *hdr;
	size_t ctl_len;
	uint64_t file_size;	/* control lock */
	pthread_mutex_t ctl_lock;	/* resize, reset, swap, set_clock, lock */
	unsigned long ctl_owner;	/* pthread_self() of ctl_lock's holder, 0 (!NDEBUG) */

	struct rb_cpu cpus[];
};

/**
 * rb_event_size() - bytes an event with @length bytes of payload takes.
 * @length: payload bytes; 0 is treated as 1, as the kernel does.
 *
 * Return: header + payload rounded up to 4; payloads above 112 bytes
 * carry an extra u32 length word (type_len 0).
 */
static inline uint32_t rb_event_size(unsigned long length)
{
	uint32_t len = length ? (uint32_t)length : 1;

	len = ALIGN_UP(len, 4u);
	if (len > EVT_RB_MAX_SMALL_DATA)
		return len + 2 * RB_HDR_SIZE;
	return len + RB_HDR_SIZE;
}

/**
 * rb_write_header() - write the header of a data event of @size bytes.
 * @p: where the entry starts.
 * @size: rb_event_size() of the payload.
 * @delta: time delta from the previous entry, < 2^27.
 *
 * Return: offset of the payload from @p (4 or 8).
 */
static inline uint32_t rb_write_header(unsigned char *p, uint32_t size, uint32_t delta)
{
	uint32_t payload = size - RB_HDR_SIZE;

	if (payload <= EVT_RB_MAX_SMALL_DATA) {
		uint32_t hdr = (delta << 5) | (payload / 4);

		memcpy(p, &hdr, 4);
		return RB_HDR_SIZE;
	}
	{
		uint32_t hdr = delta << 5;

		memcpy(p, &hdr, 4);
		/* array[0] = payload length + 4: the size of what follows the header */
		memcpy(p + 4, &payload, 4);
	}
	return 2 * RB_HDR_SIZE;
}

/**
 * rb_payload_off() - offset of the payload in a data event of @size bytes
 * (rb_event_size()): what rb_write_header() returns, from the size alone.
 *
 * A writer finds its payload (and commits its length) with this rather
 * than by reading the header it just wrote (rb_own_event_data()): the
 * header holds the time delta, so a load of it, or anything computed from
 * it, waits for the clock read (~9 ns of rdtsc under KVM), and then so do
 * the addresses of every store into the record. Measured: 18.4 -> 15 ns
 * per event (docs/performance.md).
 */
static inline uint32_t rb_payload_off(uint32_t size)
{
	return size - RB_HDR_SIZE <= EVT_RB_MAX_SMALL_DATA ? RB_HDR_SIZE : 2 * RB_HDR_SIZE;
}

/* rb_page.c */
int rb_entry_parse(const unsigned char *p, uint32_t avail, uint32_t *len);
int rb_scan(const unsigned char *data, uint32_t from, uint32_t limit, bool closed,
	    uint32_t *end, uint64_t *events);
uint64_t rb_entry_ts(const unsigned char *p, uint64_t ts);
int rb_time_at(const unsigned char *data, uint32_t off, uint64_t page_ts, uint64_t *ts);
void rb_copy_racy(void *dst, const void *src, size_t len);

/* rb_frontend.c */
void rb_commit_bytes(struct evt_ring_buffer *rb, struct rb_page *page, uint32_t len);
/* Does @ev (reserved, not committed yet) lie in one of @rb's CPU buffers? Any context. */
bool rb_owns_event(struct evt_ring_buffer *rb, const void *ev);
bool rb_cpu_set_disabled(struct evt_ring_buffer *rb, struct rb_cpu *cb, uint64_t *pos);

/* rb_backend.c */
static inline struct rb_page *rb_cpu_page(const struct evt_ring_buffer *rb,
					   unsigned char *data, uint32_t order, uint64_t seq)
{
	uint64_t slot = seq & ((UINT64_C(1) << order) - 1);

	return (struct rb_page *)(data + (slot << rb->page_shift));
}

#define RB_MAP_ORDER_MASK	((uintptr_t)63)

static inline void rb_cpu_layout(const struct rb_cpu *cb, unsigned char **data, uint32_t *order)
{
	/* Acquire: pairs with rb_cpu_set_layout(); the new pages are initialized. */
	uintptr_t m = ld_acquire(&cb->map);

	*data = (unsigned char *)(m & ~RB_MAP_ORDER_MASK);
	*order = (uint32_t)(m & RB_MAP_ORDER_MASK);
}

static inline void rb_cpu_set_layout(struct rb_cpu *cb, unsigned char *data, uint32_t order)
{
	cb->data = data;
	cb->order = order;
	/* Release: the pages' initial contents before the layout that points at them. */
	st_release(&cb->map, (uintptr_t)data | order);
}

/* The per-slot counters of commits made from another CPU, after the pages. */
static inline uint64_t *rb_cpu_remote(const struct evt_ring_buffer *rb, unsigned char *data,
				      uint32_t order, uint64_t seq)
{
	uint64_t mask = (UINT64_C(1) << order) - 1;

	return (uint64_t *)(data + ((mask + 1) << rb->page_shift)) + (seq & mask);
}

/*
 * Bytes committed to the slot of page @seq over all its laps. Acquire:
 * pairs with the release of every commit, so the bytes counted are visible.
 */
static inline uint64_t rb_slot_committed(const struct evt_ring_buffer *rb, unsigned char *data,
					 uint32_t order, uint64_t seq)
{
	const struct rb_page *page = rb_cpu_page(rb, data, order, seq);

	return ld_acquire(&page->commit) + ld_acquire(rb_cpu_remote(rb, data, order, seq));
}

static inline uint64_t rb_lap_base(const struct evt_ring_buffer *rb, uint32_t order,
				   uint64_t seq)
{
	return (seq >> order) * rb->data_size;
}

int rb_cpu_quiesce(struct evt_ring_buffer *rb, struct rb_cpu *cb, bool stuck_is_corrupt);
int rb_cpu_quiesce_repair(struct evt_ring_buffer *rb, struct rb_cpu *cb, bool stuck_is_corrupt);
void rb_cpu_unquiesce(struct evt_ring_buffer *rb, struct rb_cpu *cb, uint64_t pos);
void rb_cpu_quiesce_end(struct evt_ring_buffer *rb, struct rb_cpu *cb);
void rb_cpu_sync_disabled(struct evt_ring_buffer *rb, struct rb_cpu *cb);
uint64_t rb_cpu_close_page(struct evt_ring_buffer *rb, struct rb_cpu *cb);
int rb_cpu_refresh_layout(struct evt_ring_buffer *rb, struct rb_cpu *cb);
bool rb_cpu_valid(const struct evt_ring_buffer *rb, int cpu);
bool rb_cpu_suspect(const struct evt_ring_buffer *rb, const struct rb_cpu *cb);

/* rb_mem.c */
int rb_mem_check(uint64_t bytes);

/* rb_reader.c */
void rb_reader_clear(struct rb_cpu *cb);
void rb_read_flush(struct rb_cpu *cb, uint64_t more);
uint64_t rb_cpu_lost(const struct rb_cpu *cb);

/*
 * A counter of the shared block, or 0 when it cannot be right (written by
 * another process: RB_COUNTER_MAX). Relaxed: a statistic.
 */
static inline uint64_t rb_counter(const uint64_t *c)
{
	uint64_t v = ld_relaxed(c);

	return v > RB_COUNTER_MAX ? 0 : v;
}

/*
 * ctl_lock, taken through rb_ctl_lock()/rb_ctl_unlock(): in builds without NDEBUG they
 * note the holder, and rb_assert_ctl_locked() at the top of each rb_*_locked() function
 * is the kernel's lockdep_assert_held() (as events' event_assert_locked()): called
 * without ctl_lock held by this thread, it prints the function and aborts. With NDEBUG
 * (Release, make bench) the owner is neither written nor read. No rb_*_locked() function
 * runs on the write path: writers take no lock (DESIGN.md), they are quiesced instead.
 */
static inline void rb_ctl_lock(struct evt_ring_buffer *rb)
{
	pthread_mutex_lock(&rb->ctl_lock);
#ifndef NDEBUG
	/* Relaxed: read back only by this thread (rb_assert_ctl_locked()), or compared by
	 * another with its own id, which this store can never equal. */
	st_relaxed(&rb->ctl_owner, (unsigned long)pthread_self());
#endif
}

static inline void rb_ctl_unlock(struct evt_ring_buffer *rb)
{
#ifndef NDEBUG
	/* Relaxed: as in rb_ctl_lock(); the unlock orders it before the next holder's store. */
	st_relaxed(&rb->ctl_owner, 0UL);
#endif
	pthread_mutex_unlock(&rb->ctl_lock);
}

#ifndef NDEBUG
void rb_assert_ctl_locked_fn(const struct evt_ring_buffer *rb, const char *func);
#define rb_assert_ctl_locked(rb) rb_assert_ctl_locked_fn((rb), __func__)
#else
#define rb_assert_ctl_locked(rb) do { (void)(rb); } while (0)
#endif

#endif /* EVT_RINGBUF_RB_INTERNAL_H */
