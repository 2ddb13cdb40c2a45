// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf/rb_backend.c - memory: allocating a buffer in a memfd, mapping
 * one from another process, and the control operations that change
 * what writers write into (resize, reset, swap, clock).
 *
 * Control operations run under rb->ctl_lock and first quiesce the CPU
 * buffer they change (rb_cpu_quiesce): set RB_TS_DISABLED in its write
 * state, so that no reservation can succeed any more, then wait a little
 * for reservations already made to be committed. If one is not (its
 * writer is preempted for long, or is the code a signal handler
 * interrupted), the operation gives up with -EBUSY and changes nothing.
 * Once quiesced, the CPU buffer is ours alone: writers fail at the
 * disabled bit, and a writer that read the state before we set the bit
 * fails its CAS, because we leave the state with a new position (the
 * sequence number only grows), never the one it read.
 *
 * A resize maps a new region of the memfd for the new pages. The old
 * region is not unmapped: a writer that read the old layout before the
 * quiesce may still read it before its CAS fails, so the address range
 * is replaced by a private zero mapping (no memory behind it until
 * touched) and released with the buffer; the memfd's pages behind it are
 * punched out at once. It is writable: a CPU buffer rebuilt because it
 * was corrupt (below) may have had a writer in the middle of an event,
 * whose commit then lands there, harmlessly.
 *
 * A corrupt CPU buffer. Any process holding the memfd can write into the
 * shared state: positions, commit counts, counters. The quiesce checks
 * that state against what our writers, consumers and control operations
 * can produce (rb_cpu_check()); a state none of them can produce is
 * corrupt, and rather than wait for commits that will never add up
 * (-EBUSY for ever), the control operation rebuilds the CPU buffer empty
 * in a fresh region (rb_cpu_rebuild()), counts it (rebuilt, shown as
 * "corrupt" in the statistics) and goes on. The other CPU buffers keep
 * their events. A state that is possible - a count short of what was
 * reserved, as a writer stopped in the middle of an event leaves it -
 * still gives -EBUSY: nothing tells a stopped writer from a counter set
 * to look like one.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock/clock_internal.h"
#include "compat/rseq.h"
#include "ringbuf/rb_internal.h"

#define RB_QUIESCE_NS	(20 * 1000 * 1000)	/* how long to wait for commits */
#define RB_STUCK_NS	(500 * 1000 * 1000)	/* a reset's patience with one stopped state */

static size_t host_page(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (size_t)ps : 4096;
}

bool rb_cpu_valid(const struct evt_ring_buffer *rb, int cpu)
{
	return rb && cpu >= 0 && cpu < rb->nr_cpus;
}

static int ilog2_u64(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

/* Number of pages (a power of two, >= 2) for @size bytes per CPU. */
static int rb_size_order(const struct evt_ring_buffer *rb, unsigned long size)
{
	uint64_t pages = ((uint64_t)size >> rb->page_shift) + !!(size & (rb->page_size - 1));
	int order;

	if (pages < RB_MIN_PAGES)
		pages = RB_MIN_PAGES;
	order = ilog2_u64(pages);
	if ((UINT64_C(1) << order) < pages)
		order++;
	return order > RB_MAX_ORDER ? -EINVAL : order;
}

static size_t rb_region_align(const struct evt_ring_buffer *rb)
{
	return max_t(size_t, host_page(), rb->page_size);
}

/*
 * Map @len bytes of the memfd at @off, at an address aligned to the
 * buffer's page size (commit finds a page from an event's address).
 */
static void *rb_map_region(const struct evt_ring_buffer *rb, uint64_t off, size_t len, int prot)
{
	size_t align = rb_region_align(rb);
	unsigned char *va, *aligned;
	void *p;

	if (align <= host_page()) {
		p = mmap(NULL, len, prot, MAP_SHARED, rb->fd, (off_t)off);
		return p == MAP_FAILED ? NULL : p;
	}
	va = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (va == MAP_FAILED)
		return NULL;
	aligned = (unsigned char *)ALIGN_UP((uintptr_t)va, align);
	if (aligned > va)
		munmap(va, (size_t)(aligned - va));
	munmap(aligned + len, (size_t)(va + len + align - (aligned + len)));
	p = mmap(aligned, len, prot, MAP_SHARED | MAP_FIXED, rb->fd, (off_t)off);
	if (p == MAP_FAILED) {
		munmap(aligned, len);
		return NULL;
	}
	return p;
}

/* A CPU's region: its pages, then one u64 "remote commit" counter per page. */
static size_t rb_region_len(const struct evt_ring_buffer *rb, uint32_t order)
{
	return ALIGN_UP(((size_t)rb->page_size << order) + (sizeof(uint64_t) << order),
			host_page());
}

/*
 * Grow the memfd by a region for 2^@order pages and allocate its memory now
 * (rb_mem.c): a failure here is -ENOMEM of the operation, not a SIGBUS of a
 * writer later. Return: 0 with the region's offset in *@off, or -ENOMEM.
 */
static int rb_new_region(struct evt_ring_buffer *rb, uint32_t order, uint64_t *off)
{
	size_t align = rb_region_align(rb), len = rb_region_len(rb, order);
	uint64_t at = ALIGN_UP(rb->file_size, (uint64_t)align);
	uint64_t end = at + len;

	if (ftruncate(rb->fd, (off_t)end) < 0)
		return errno == EFBIG || errno == ENOSPC ? -ENOMEM : -errno;
	rb->file_size = end;
	if (fallocate(rb->fd, 0, (off_t)at, (off_t)len) < 0 && errno != EOPNOTSUPP) {
		/* what was allocated goes again; the file cannot shrink (sealed) */
		fallocate(rb->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)at, (off_t)len);
		return -ENOMEM;
	}
	*off = at;
	return 0;
}

static int rb_cpu_map(struct evt_ring_buffer *rb, struct rb_cpu *cb, uint32_t order,
		      uint64_t off)
{
	int prot = rb->mapped ? PROT_READ : PROT_READ | PROT_WRITE;
	void *p = rb_map_region(rb, off, rb_region_len(rb, order), prot);

	if (!p)
		return -ENOMEM;
	cb->data_off = off;
	rb_cpu_set_layout(cb, p, order);
	return 0;
}

/* Keep a replaced mapping's address range usable until the buffer is freed. */
static void rb_cpu_retire(struct evt_ring_buffer *rb, struct rb_cpu *cb, unsigned char *data,
			  uint32_t order, uint64_t file_off)
{
	size_t len = rb_region_len(rb, order);
	struct rb_map *m = malloc(sizeof(*m));

	if (!rb->mapped)
		fallocate(rb->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)file_off,
			  (off_t)len);
	if (!m || mmap(data, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		       -1, 0) == MAP_FAILED) {
		/* Nowhere to keep it: leave the old mapping in place (memory, not safety). */
		free(m);
		return;
	}
	m->addr = data;
	m->len = len;
	m->next = cb->old_maps;
	cb->old_maps = m;
}

/*
 * The buffer's file: a memfd that may be sealed against shrinking, so that
 * a consumer mapping it can never have pages cut from under it (which
 * would be a SIGBUS, not an error). Growing (resize) stays allowed.
 */
static int rb_memfd(void)
{
	int fd = memfd_create("evtrace-ring-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 && errno == ENOSYS) {
		fd = open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fd < 0)
			fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	}
	return fd < 0 ? -errno : fd;
}

static struct evt_ring_buffer *rb_struct_alloc(int nr_cpus)
{
	struct evt_ring_buffer *rb;

	rb = calloc(1, sizeof(*rb) + (size_t)nr_cpus * sizeof(struct rb_cpu));
	if (!rb)
		return NULL;
	rb->fd = -1;
	rb->nr_cpus = nr_cpus;
	pthread_mutex_init(&rb->ctl_lock, NULL);
	for (int i = 0; i < nr_cpus; i++)
		pthread_mutex_init(&rb->cpus[i].reader_lock, NULL);
	return rb;
}

static int rb_set_geometry(struct evt_ring_buffer *rb, uint32_t page_size)
{
	if (page_size < RB_MIN_PAGE_SIZE || page_size > RB_MAX_PAGE_SIZE ||
	    (page_size & (page_size - 1)))
		return -EINVAL;
	rb->page_size = page_size;
	rb->page_shift = (uint32_t)ilog2_u64(page_size);
	rb->data_size = page_size - EVT_RB_PAGE_HDR_SIZE;
	/* The largest event: type_len 0 header + length word + payload = data_size. */
	rb->max_payload = rb->data_size - 2 * RB_HDR_SIZE;
	rb->page_mask = ~(uintptr_t)(page_size - 1);
	return 0;
}

static int rb_possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n < 1)
		n = 1;
	return n > RB_MAX_CPUS ? RB_MAX_CPUS : (int)n;
}

/*
 * Map the control region (header and per-CPU blocks) of rb->fd, point
 * each CPU at its block and give it a reader page. Shared by the owner
 * (allocation) and a consumer (evt_ring_buffer_map()).
 */
static int rb_map_ctl(struct evt_ring_buffer *rb, uint64_t cpu_off, size_t ctl_len)
{
	rb->hdr = mmap(NULL, ctl_len, PROT_READ | PROT_WRITE, MAP_SHARED, rb->fd, 0);
	if (rb->hdr == MAP_FAILED) {
		rb->hdr = NULL;
		return -ENOMEM;
	}
	rb->ctl_len = ctl_len;
	for (int i = 0; i < rb->nr_cpus; i++) {
		struct rb_cpu *cb = &rb->cpus[i];

		cb->shm = (struct rb_cpu_shm *)((unsigned char *)rb->hdr + cpu_off +
						(size_t)i * sizeof(struct rb_cpu_shm));
		cb->rpage = calloc(1, rb->page_size);
		if (!cb->rpage)
			return -ENOMEM;
	}
	return 0;
}

/* The buffer's header, as the owner writes it (allocation, and again after a corruption). */
static void rb_hdr_write(struct evt_ring_buffer *rb)
{
	struct rb_shm_hdr *h = rb->hdr;

	st_relaxed(&h->magic, RB_MAGIC);
	st_relaxed(&h->version, (uint16_t)RB_VERSION);
	st_relaxed(&h->hdr_size, (uint16_t)sizeof(struct rb_shm_hdr));
	st_relaxed(&h->page_size, rb->page_size);
	st_relaxed(&h->nr_cpus, (uint32_t)rb->nr_cpus);
	st_relaxed(&h->flags, rb->overwrite ? (uint32_t)EVT_RB_FL_OVERWRITE : 0u);
	st_relaxed(&h->clock, ld_relaxed(&rb->clock));
	st_relaxed(&h->cpu_off,
		   (uint64_t)ALIGN_UP(sizeof(struct rb_shm_hdr), (size_t)EVT_CACHELINE));
	st_relaxed(&h->cpu_stride, (uint32_t)sizeof(struct rb_cpu_shm));
}

int evt_ring_buffer_alloc_opts(const struct evt_ring_buffer_opts *opts,
			       struct evt_ring_buffer **rbp)
{
	struct evt_ring_buffer_opts o = { .size = 0 };
	struct evt_ring_buffer *rb;
	size_t cpu_off, ctl_len;
	int ret, order, nr_cpus;

	if (!rbp)
		return -EINVAL;
	*rbp = NULL;
	if (opts)
		o = *opts;
	if (o.flags & ~EVT_RB_FL_OVERWRITE || o.nr_cpus < 0 || o.nr_cpus > RB_MAX_CPUS ||
	    (unsigned int)o.clock >= EVT_CLOCK__COUNT)
		return -EINVAL;
	ret = evt_clock_init();
	if (ret < 0)
		return ret;
	nr_cpus = o.nr_cpus ? o.nr_cpus : rb_possible_cpus();
	rb = rb_struct_alloc(nr_cpus);
	if (!rb)
		return -ENOMEM;
	ret = rb_set_geometry(rb, o.page_size ? o.page_size : EVT_RB_DEFAULT_PAGE_SIZE);
	if (ret < 0)
		goto err_free;
	order = rb_size_order(rb, o.size);
	if (order < 0) {
		ret = order;
		goto err_free;
	}
	rb->overwrite = o.flags & EVT_RB_FL_OVERWRITE;
	rb->clock = (uint32_t)o.clock;
	/* rseq writers index CPU buffers by the CPU they run on: need one per CPU. */
	rb->rseq = rseq_ops_init() && nr_cpus >= rb_possible_cpus();

	ret = rb_memfd();
	if (ret < 0)
		goto err_free;
	rb->fd = ret;

	cpu_off = ALIGN_UP(sizeof(struct rb_shm_hdr), (size_t)EVT_CACHELINE);
	ctl_len = ALIGN_UP(cpu_off + (size_t)nr_cpus * sizeof(struct rb_cpu_shm), host_page());
	/* The cap (rb_mem.c), before anything is allocated. */
	ret = rb_mem_check(ctl_len + (uint64_t)nr_cpus * rb_region_len(rb, (uint32_t)order));
	if (ret < 0)
		goto err_free;
	if (ftruncate(rb->fd, (off_t)ctl_len) < 0) {
		ret = -errno;
		goto err_free;
	}
	rb->file_size = ctl_len;
	ret = rb_map_ctl(rb, cpu_off, ctl_len);
	if (ret < 0)
		goto err_free;

	for (int i = 0; i < nr_cpus; i++) {
		struct rb_cpu *cb = &rb->cpus[i];
		uint64_t off = 0;

		ret = rb_new_region(rb, (uint32_t)order, &off);
		if (ret < 0)
			goto err_free;
		ret = rb_cpu_map(rb, cb, (uint32_t)order, off);
		if (ret < 0)
			goto err_free;
		/* Fresh memfd pages are zero: every commit count is 0, which is
		 * "complete" for lap -1, and w = read_pos = page 0, offset 0. */
		cb->shm->order = (uint32_t)order;
		cb->shm->data_off = off;
		cb->shm->w.lo = tclock_read(o.clock) & RB_TS_MASK;
	}

	rb_hdr_write(rb);
	/* Best effort: without the seal (no memfd) consumers refuse to map it. */
	fcntl(rb->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL);
	*rbp = rb;
	return 0;

err_free:
	evt_ring_buffer_free(rb);
	return ret;
}

int evt_ring_buffer_alloc(unsigned long size, unsigned int flags, struct evt_ring_buffer **rbp)
{
	struct evt_ring_buffer_opts o = {
		.size = size,
		.flags = flags,
		.clock = EVT_CLOCK_LOCAL,
	};

	return evt_ring_buffer_alloc_opts(&o, rbp);
}

void evt_ring_buffer_free(struct evt_ring_buffer *rb)
{
	if (!rb)
		return;
	for (int i = 0; i < rb->nr_cpus; i++) {
		struct rb_cpu *cb = &rb->cpus[i];
		struct rb_map *m, *next;

		/*
		 * What this consumer consumed of a page it had begun: into the
		 * shared count, which the owner and other consumers keep reading.
		 */
		if (cb->shm)
			rb_read_flush(cb, 0);
		if (cb->data)
			munmap(cb->data, rb_region_len(rb, cb->order));
		for (m = cb->old_maps; m; m = next) {
			next = m->next;
			munmap(m->addr, m->len);
			free(m);
		}
		free(cb->rpage);
		pthread_mutex_destroy(&cb->reader_lock);
	}
	if (rb->hdr)
		munmap(rb->hdr, rb->ctl_len);
	if (rb->fd >= 0)
		close(rb->fd);
	pthread_mutex_destroy(&rb->ctl_lock);
	free(rb);
}

/* ---- quiescing ---------------------------------------------------------- */

/* How far a write state's time stamp may be ahead of the clock: none of ours is. */
#define RB_TS_SLACK	(UINT64_C(1) << 40)

/* The buffer's clock now, without taking a value of "counter" (which a read does). */
static uint64_t rb_clock_peek(const struct evt_ring_buffer *rb)
{
	enum evt_clock_id id = (enum evt_clock_id)ld_relaxed(&rb->clock);

	/* Relaxed: any value the counter has had is a lower bound of what follows. */
	return id == EVT_CLOCK_COUNTER ? ld_relaxed(&tclock_counter.v) : tclock_read(id);
}

/**
 * rb_cpu_suspect() - does @cb's shared state hold a value no interleaving
 * of ours can produce, whatever writers and consumers are doing?
 * @rb: the buffer.
 * @cb: one of its CPU buffers, live or quiesced.
 *
 * Only the checks that cannot race: a write or read offset beyond a page's
 * data or not a multiple of 4, a write time stamp ahead of the clock, a
 * counter above RB_COUNTER_MAX. rb_cpu_check() adds those that need the
 * CPU buffer quiesced.
 *
 * Context: any thread; reads only.
 * Return: true if @cb was written by somebody else.
 */
bool rb_cpu_suspect(const struct evt_ring_buffer *rb, const struct rb_cpu *cb)
{
	struct rb_cpu_shm *shm = cb->shm;
	uint64_t ts, pos, rp, ov;

	pair_load(&shm->w, &ts, &pos);
	rb_rd_load(shm, &rp, &ov);
	if (RB_POS_OFF(pos) > rb->data_size || (RB_POS_OFF(pos) & 3))
		return true;
	/* the sentinel: a control operation of ours holds read_pos */
	if (rp != RB_READ_POS_LOCKED && (RB_POS_OFF(rp) > rb->data_size || (RB_POS_OFF(rp) & 3)))
		return true;
	if ((ts & RB_TS_MASK) > rb_clock_peek(rb) + RB_TS_SLACK)
		return true;
	return ov > RB_COUNTER_MAX || ld_relaxed(&shm->dropped) > RB_COUNTER_MAX ||
	       ld_relaxed(&shm->read_events) > RB_COUNTER_MAX;
}

/*
 * Where does a quiesced CPU stand, its write state being @pos? Besides
 * rb_cpu_suspect(), every state our code can leave obeys (docs/ring-buffer.md,
 * "A corrupt CPU buffer"):
 *  - read_pos is at most one page past the current one (after a reset: the
 *    page after a closed one, offset 0), and not further behind than the
 *    ring is long: a writer enters a slot only when the consumer has left
 *    its previous occupant;
 *  - each slot's count, in the lap of the page it holds last, lies between
 *    the start of that lap (its previous occupant was complete when a
 *    writer entered it) and the bytes reserved in it;
 *  - a slot of the first lap not reached yet has no count at all.
 * Return: 1 every reservation is committed, 0 not yet, -EBADMSG corrupt.
 */
static int rb_cpu_check(const struct evt_ring_buffer *rb, const struct rb_cpu *cb, uint64_t pos)
{
	uint64_t seq = RB_POS_SEQ(pos), n = UINT64_C(1) << cb->order, rp, ov, rseq;
	uint32_t off = RB_POS_OFF(pos);
	int done = 1;

	/* Relaxed: set by our writers and readers on a value none of ours leaves. */
	if (rb_cpu_suspect(rb, cb) || ld_relaxed(&cb->tainted))
		return -EBADMSG;
	rb_rd_load(cb->shm, &rp, &ov);
	rseq = RB_POS_SEQ(rp);
	if (rseq > seq + 1 || (rseq == seq + 1 && RB_POS_OFF(rp)) ||
	    (rseq == seq && RB_POS_OFF(rp) > off) || (rseq <= seq && seq - rseq >= n))
		return -EBADMSG;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t q, base, want, c;

		if (i > seq) {
			if (rb_slot_committed(rb, cb->data, cb->order, seq + n - i))
				return -EBADMSG;
			continue;
		}
		q = seq - i;
		base = rb_lap_base(rb, cb->order, q);
		want = base + (i ? rb->data_size : off);
		c = rb_slot_committed(rb, cb->data, cb->order, q);
		if (c < base || c > want)
			return -EBADMSG;
		if (c != want)
			done = 0;
	}
	return done;
}

static uint64_t rb_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * A quiesce of @cb timed out at write position @pos at @now: is it the same
 * stopped state, for RB_STUCK_NS already? Context: ctl_lock held.
 */
static bool rb_cpu_stuck(struct rb_cpu *cb, uint64_t pos, uint64_t now)
{
	if (!cb->busy_since || cb->busy_pos != pos) {
		cb->busy_pos = pos;
		cb->busy_since = now;
		return false;
	}
	return now - cb->busy_since >= RB_STUCK_NS;
}

/**
 * rb_cpu_quiesce() - stop writers on @cb and wait for their commits.
 * @rb: the buffer (ctl_lock held).
 * @cb: the CPU buffer.
 * @stuck_is_corrupt: a count that stays short at the same write position
 *	over attempts for RB_STUCK_NS is taken for corrupt (a reset's choice:
 *	it empties the CPU buffer anyway, so rebuilding it loses nothing; a
 *	writer stopped in the middle of an event for that long then commits
 *	into the retired region).
 *
 * Context: ctl_lock held; sleeps up to RB_QUIESCE_NS.
 * Return: 0 with the CPU disabled; -EBADMSG with the CPU disabled too, its
 * shared state being corrupt (rb_cpu_check(): the caller rebuilds it or
 * lets it go with rb_cpu_quiesce_end()); -EBUSY with nothing changed: a
 * reservation stays uncommitted, or somebody keeps changing the state.
 */
int rb_cpu_quiesce(struct evt_ring_buffer *rb, struct rb_cpu *cb, bool stuck_is_corrupt)
{
	uint64_t pos, deadline = rb_now_ns() + RB_QUIESCE_NS;
	int ret;

	/*
	 * Writers refused from now on count a drop (rb_reserve()). The CAS in
	 * rb_cpu_set_disabled() (a full barrier) orders this store before the
	 * bit that refuses them.
	 */
	st_relaxed(&cb->quiescing, 1);
	/* After it, no reservation on the old state can succeed. */
	if (!rb_cpu_set_disabled(rb, cb, &pos)) {
		rb_cpu_quiesce_end(rb, cb);
		return -EBUSY;
	}
	for (;;) {
		uint64_t ts, now_pos;

		ret = rb_cpu_check(rb, cb, pos);
		if (ret < 0)
			return ret;
		if (ret) {
			cb->busy_since = 0;
			return 0;
		}
		/*
		 * No writer of ours moves a disabled state: somebody cleared the bit
		 * (record_enable() racing with us) or wrote over it. Let go; a state
		 * left corrupt is found by the next attempt.
		 */
		pair_load(&cb->shm->w, &ts, &now_pos);
		if (now_pos == pos && rb_now_ns() > deadline && stuck_is_corrupt &&
		    rb_cpu_stuck(cb, pos, rb_now_ns()))
			return -EBADMSG;
		if (now_pos != pos || rb_now_ns() > deadline) {
			rb_cpu_quiesce_end(rb, cb);
			return -EBUSY;
		}
		sched_yield();
	}
}

/**
 * rb_cpu_unquiesce() - let writers in again, at position @pos.
 * @rb: the buffer.
 * @cb: a CPU buffer quiesced by rb_cpu_quiesce().
 * @pos: the new write position (must differ from every earlier one).
 */
void rb_cpu_unquiesce(struct evt_ring_buffer *rb, struct rb_cpu *cb, uint64_t pos)
{
	struct rb_cpu_shm *shm = cb->shm;
	uint64_t ts, opos;
	int tries = 0;

	/* bounded: while quiesced only another process changes w */
	do {
		pair_load(&shm->w, &ts, &opos);
		/* Full barrier: the new layout and read_pos are visible before it. */
	} while (!pair_cas(&shm->w, ts, opos, ts, pos) && ++tries < RB_CAS_TRIES);
	rb_cpu_quiesce_end(rb, cb);
}

/**
 * rb_cpu_quiesce_end() - let writers in again where they were.
 * @rb: the buffer.
 * @cb: a CPU buffer quiesced by rb_cpu_quiesce() (or being given up).
 *
 * Context: ctl_lock held.
 */
void rb_cpu_quiesce_end(struct evt_ring_buffer *rb, struct rb_cpu *cb)
{
	rb_cpu_sync_disabled(rb, cb);
	/*
	 * Release: the CAS that cleared the bit comes first, so a writer that
	 * still saw the bit and reads 0 here finds w changed when it looks
	 * again, and retries instead of being refused uncounted.
	 */
	st_release(&cb->quiescing, 0);
}

/**
 * rb_cpu_close_page() - pad out the current page of a quiesced CPU.
 * @rb: the buffer.
 * @cb: a quiesced CPU buffer.
 *
 * Makes every page slot complete. The caller then sets the write state
 * to (returned sequence, data_size): "this page is full", so the next
 * writer goes through the page switch and its checks.
 *
 * Return: the sequence number of the (now closed) current page.
 */
uint64_t rb_cpu_close_page(struct evt_ring_buffer *rb, struct rb_cpu *cb)
{
	uint64_t ts, pos, seq;
	struct rb_page *page;
	uint32_t off;

	pair_load(&cb->shm->w, &ts, &pos);
	seq = RB_POS_SEQ(pos);
	off = RB_POS_OFF(pos);
	page = rb_cpu_page(rb, cb->data, cb->order, seq);
	if (off < rb->data_size) {
		uint32_t pad = EVT_RINGBUF_TYPE_PADDING, a0 = rb->data_size - off - RB_HDR_SIZE;

		if (rb->data_size - off >= 4)	/* (no multiple of 4: corrupt, see top) */
			memcpy(page->data + off, &pad, 4);
		if (rb->data_size - off >= 8)
			memcpy(page->data + off + 4, &a0, 4);
		add_release(&page->commit, rb->data_size - off);
	}
	return seq;
}

/*
 * Take read_pos away from pushing writers for the time of a control
 * operation: a writer that read the state before the quiesce may still be
 * about to push the consumer off a page (its CAS of read_pos comes before
 * its CAS of w, which will fail). Replacing read_pos by a value no writer
 * can expect makes that push fail too, so it neither moves read_pos under
 * us nor counts overruns we count again. The caller stores the final value.
 * A writer that reads the sentinel sees a consumer far ahead and goes on
 * to its CAS of w, which fails on the quiesced state.
 *
 * Context: CPU quiesced, reader lock held.
 */
static uint64_t rb_cpu_take_read_pos(struct rb_cpu *cb)
{
	uint64_t rp, ov;
	int tries = 0;

	/* bounded: writers push at most once each; only another process goes on */
	do {
		pair_load(rb_rd(cb->shm), &rp, &ov);
	} while (!pair_cas(rb_rd(cb->shm), rp, ov, RB_READ_POS_LOCKED, ov) &&
		 ++tries < RB_CAS_TRIES);
	return rp;
}

/* Set the write state of a quiesced CPU, keeping whatever disabled bit it has now. */
static void rb_cpu_set_state(struct rb_cpu_shm *shm, uint64_t nts, uint64_t npos)
{
	uint64_t ts, pos;
	int tries = 0;

	/* bounded: while quiesced only another process changes w */
	do {
		pair_load(&shm->w, &ts, &pos);
	} while (!pair_cas(&shm->w, ts, pos, (nts & RB_TS_MASK) | (ts & RB_TS_DISABLED), npos) &&
		 ++tries < RB_CAS_TRIES);
}

/* ---- reset ------------------------------------------------------------- */

/* Empty a quiesced CPU buffer and clear its counters; writers stay out until unquiesced. */
static uint64_t rb_cpu_clear(struct evt_ring_buffer *rb, struct rb_cpu *cb)
{
	uint64_t seq;

	pthread_mutex_lock(&cb->reader_lock);
	rb_cpu_take_read_pos(cb);
	seq = rb_cpu_close_page(rb, cb);
	rb_rd_set(cb->shm, RB_POS(seq + 1, 0), 0);
	st_relaxed(&cb->shm->dropped, 0);
	st_relaxed(&cb->shm->read_events, 0);
	rb_reader_clear(cb);
	pthread_mutex_unlock(&cb->reader_lock);
	return RB_POS(seq, rb->data_size);
}

#ifndef NDEBUG
void rb_assert_ctl_locked_fn(const struct evt_ring_buffer *rb, const char *func)
{
	/* Relaxed: see rb_ctl_lock(); only this thread can have stored its own id. */
	if (ld_relaxed(&rb->ctl_owner) == (unsigned long)pthread_self())
		return;
	fprintf(stderr, "evtrace: %s() called without the ring buffer's ctl_lock\n", func);
	abort();
}
#endif

static int rb_reset_cpu_locked(struct evt_ring_buffer *rb, struct rb_cpu *cb)
{
	int ret;

	rb_assert_ctl_locked(rb);
	ret = rb_cpu_quiesce_repair(rb, cb, true);
	if (ret < 0)
		return ret;
	rb_cpu_unquiesce(rb, cb, rb_cpu_clear(rb, cb));
	return 0;
}

int evt_ring_buffer_reset_cpu(struct evt_ring_buffer *rb, int cpu)
{
	int ret;

	if (!rb_cpu_valid(rb, cpu))
		return -EINVAL;
	if (rb->mapped)
		return -EPERM;
	rb_ctl_lock(rb);
	ret = rb_reset_cpu_locked(rb, &rb->cpus[cpu]);
	rb_ctl_unlock(rb);
	return ret;
}

static int rb_reset_locked(struct evt_ring_buffer *rb)
{
	int ret = 0;

	rb_assert_ctl_locked(rb);
	for (int cpu = 0; cpu < rb->nr_cpus; cpu++) {
		int r = rb_reset_cpu_locked(rb, &rb->cpus[cpu]);

		if (r < 0)
			ret = r;
	}
	return ret;
}

int evt_ring_buffer_reset(struct evt_ring_buffer *rb)
{
	int ret;

	if (!rb)
		return -EINVAL;
	if (rb->mapped)
		return -EPERM;
	rb_ctl_lock(rb);
	ret = rb_reset_locked(rb);
	rb_ctl_unlock(rb);
	return ret;
}

int evt_ring_buffer_set_clock(struct evt_ring_buffer *rb, enum evt_clock_id clock)
{
	int cpu, ret = 0;

	if (!rb || (unsigned int)clock >= EVT_CLOCK__COUNT)
		return -EINVAL;
	if (rb->mapped)
		return -EPERM;
	rb_ctl_lock(rb);
	/* All or nothing: every CPU quiesced before anything changes. */
	for (cpu = 0; cpu < rb->nr_cpus; cpu++) {
		ret = rb_cpu_quiesce_repair(rb, &rb->cpus[cpu], false);
		if (ret < 0)
			break;
	}
	if (ret < 0) {
		while (cpu-- > 0)
			rb_cpu_quiesce_end(rb, &rb->cpus[cpu]);
		goto out_unlock;
	}
	st_relaxed(&rb->clock, (uint32_t)clock);
	st_relaxed(&rb->hdr->clock, (uint32_t)clock);
	/* Time stamps of the old clock mean nothing in the new one: start afresh. */
	for (cpu = 0; cpu < rb->nr_cpus; cpu++) {
		struct rb_cpu *cb = &rb->cpus[cpu];
		uint64_t pos = rb_cpu_clear(rb, cb), ts, opos;

		pair_load(&cb->shm->w, &ts, &opos);
		rb_cpu_set_state(cb->shm, tclock_read(clock), opos);
		rb_cpu_unquiesce(rb, cb, pos);
	}
out_unlock:
	rb_ctl_unlock(rb);
	return ret;
}

enum evt_clock_id evt_ring_buffer_clock(const struct evt_ring_buffer *rb)
{
	return (enum evt_clock_id)ld_relaxed(&rb->clock);
}

void evt_ring_buffer_lock(struct evt_ring_buffer *rb)
{
	rb_ctl_lock(rb);
	evt_ring_buffer_record_disable(rb);
}

void evt_ring_buffer_unlock(struct evt_ring_buffer *rb)
{
	evt_ring_buffer_record_enable(rb);
	rb_ctl_unlock(rb);
}

/* ---- swap ---------------------------------------------------------------- */

static void swap_u64(uint64_t *a, uint64_t *b)
{
	uint64_t t = ld_relaxed(a);

	st_relaxed(a, ld_relaxed(b));
	st_relaxed(b, t);
}

/*
 * Exchange the contents of two quiesced CPU buffers of the same
 * geometry, page by page. O(size), but it keeps every buffer inside its
 * own memfd, so a consumer in another process keeps reading the right
 * pages. Commit counters travel with their pages and positions with
 * their rings, so each ring stays self-consistent. A writer that read a
 * state before the swap and finds the same value after it (its CAS then
 * succeeds) writes what a fresh writer would: the layout (data, order)
 * is the same on both sides.
 */
static void rb_cpu_swap_contents(struct evt_ring_buffer *rb, struct rb_cpu *ca,
				 struct rb_cpu *cbb, unsigned char *tmp)
{
	size_t ps = rb->page_size, len = rb_region_len(rb, ca->order);
	struct rb_cpu_shm *sa = ca->shm, *sb = cbb->shm;
	uint64_t ta, pa, tb, pb, u64;
	unsigned char *rp;
	uint32_t u32;

	/* pages and remote counters alike */
	for (size_t i = 0; i < len; i += ps) {
		unsigned char *x = ca->data + i, *y = cbb->data + i;
		size_t l = min_t(size_t, ps, len - i);

		memcpy(tmp, x, l);
		memcpy(x, y, l);
		memcpy(y, tmp, l);
	}
	{
		uint64_t ra = rb_cpu_take_read_pos(ca), rbb = rb_cpu_take_read_pos(cbb);
		uint64_t oa = ld_relaxed(&sa->overrun), ob = ld_relaxed(&sb->overrun);

		rb_rd_set(sa, rbb, ob);
		rb_rd_set(sb, ra, oa);
	}
	/* each side's consumed count into its shared word first, which travels */
	rb_read_flush(ca, 0);
	rb_read_flush(cbb, 0);
	swap_u64(&sa->read_events, &sb->read_events);
	swap_u64(&sa->dropped, &sb->dropped);
	pair_load(&sa->w, &ta, &pa);
	pair_load(&sb->w, &tb, &pb);
	rb_cpu_set_state(sa, tb, pb);
	rb_cpu_set_state(sb, ta, pa);

	rp = ca->rpage, ca->rpage = cbb->rpage, cbb->rpage = rp;
	u32 = ca->rp_pos, ca->rp_pos = cbb->rp_pos, cbb->rp_pos = u32;
	u32 = ca->rp_end, ca->rp_end = cbb->rp_end, cbb->rp_end = u32;
	u32 = ca->rp_left, ca->rp_left = cbb->rp_left, cbb->rp_left = u32;
	u64 = ca->rp_ts, ca->rp_ts = cbb->rp_ts, cbb->rp_ts = u64;
	u64 = ca->lost_seen, ca->lost_seen = cbb->lost_seen, cbb->lost_seen = u64;
}

int evt_ring_buffer_swap_cpu(struct evt_ring_buffer *a, struct evt_ring_buffer *b, int cpu)
{
	struct evt_ring_buffer *first, *second;
	struct rb_cpu *ca, *cbb;
	unsigned char *tmp;
	int ret;

	if (!rb_cpu_valid(a, cpu) || !rb_cpu_valid(b, cpu) || a == b)
		return -EINVAL;
	if (a->mapped || b->mapped)
		return -EPERM;
	if (a->page_size != b->page_size || a->nr_cpus != b->nr_cpus ||
	    ld_relaxed(&a->clock) != ld_relaxed(&b->clock))
		return -EINVAL;
	tmp = malloc(a->page_size);
	if (!tmp)
		return -ENOMEM;
	/* Lock order: by address, so two swaps of the same pair cannot deadlock. */
	first = a < b ? a : b;
	second = a < b ? b : a;
	rb_ctl_lock(first);
	rb_ctl_lock(second);
	ca = &a->cpus[cpu];
	cbb = &b->cpus[cpu];
	if (ca->order != cbb->order) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = rb_cpu_quiesce_repair(a, ca, false);
	if (ret < 0)
		goto out_unlock;
	ret = rb_cpu_quiesce_repair(b, cbb, false);
	if (ret < 0) {
		rb_cpu_quiesce_end(a, ca);
		goto out_unlock;
	}
	pthread_mutex_lock(&first->cpus[cpu].reader_lock);
	pthread_mutex_lock(&second->cpus[cpu].reader_lock);
	rb_cpu_swap_contents(a, ca, cbb, tmp);
	pthread_mutex_unlock(&second->cpus[cpu].reader_lock);
	pthread_mutex_unlock(&first->cpus[cpu].reader_lock);
	rb_cpu_quiesce_end(a, ca);
	rb_cpu_quiesce_end(b, cbb);
out_unlock:
	rb_ctl_unlock(second);
	rb_ctl_unlock(first);
	free(tmp);
	return ret;
}

/* ---- resize ---------------------------------------------------------------- */

/* A CPU's new pages, allocated and mapped before anything is quiesced. */
struct rb_region {
	unsigned char *data;	/* NULL: this CPU keeps its pages */
	uint64_t off;
};

static int rb_region_make(struct evt_ring_buffer *rb, uint32_t order, struct rb_region *r)
{
	size_t len = rb_region_len(rb, order);
	int ret = rb_new_region(rb, order, &r->off);

	if (ret < 0)
		return ret;
	r->data = rb_map_region(rb, r->off, len, PROT_READ | PROT_WRITE);
	if (!r->data) {
		fallocate(rb->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)r->off,
			  (off_t)len);
		return -ENOMEM;
	}
	return 0;
}

/* Give back a region rb_region_make() made and nobody used. */
static void rb_region_drop(struct evt_ring_buffer *rb, struct rb_region *r, uint32_t order)
{
	size_t len = rb_region_len(rb, order);

	if (!r->data)
		return;
	munmap(r->data, len);
	fallocate(rb->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)r->off, (off_t)len);
	r->data = NULL;
}

/*
 * Publish @cb's layout (@data, its pages' file offset @off, 2^@order pages)
 * to mapped consumers: they map again when layout_seq moves. The owner
 * counts from its own copy, never from the shared word another process
 * may have written.
 */
static void rb_cpu_publish_layout(struct rb_cpu *cb, unsigned char *data, uint64_t off,
				  uint32_t order)
{
	struct rb_cpu_shm *shm = cb->shm;
	uint32_t seq = (cb->layout_seq | 1) + 1;

	st_relaxed(&shm->layout_seq, seq - 1);
	/* Release: the odd count is visible before the words it guards change. */
	fence_release();
	st_relaxed(&shm->order, order);
	st_relaxed(&shm->data_off, off);
	/* Release: the words before the even count that says they are whole. */
	st_release(&shm->layout_seq, seq);
	rb_cpu_set_layout(cb, data, order);
	cb->data_off = off;
	cb->layout_seq = seq;
}

/*
 * Rebuild a quiesced CPU buffer whose shared state is corrupt (rb_cpu_check()):
 * empty, with its counters cleared, in a fresh region of the memfd when the
 * cap (rb_mem.c) and the memory allow one, else in place. A writer that
 * reserved before the quiesce and commits after it then writes into the
 * retired region (writable, rb_cpu_retire()), not into the new ring. The new
 * ring is what a resize leaves with nothing kept: pages numbered from B, a
 * multiple of the page count beyond the old (possibly wild) sequence, every
 * slot complete in the lap before, the current page closed. Stays quiesced.
 *
 * Context: ctl_lock held, @cb quiesced (rb_cpu_quiesce() said -EBADMSG).
 */
static void rb_cpu_rebuild(struct evt_ring_buffer *rb, struct rb_cpu *cb)
{
	uint64_t n = UINT64_C(1) << cb->order, ts, pos, B, L;
	unsigned char *odata = cb->data, *ndata;
	uint64_t ooff = cb->data_off, noff;
	struct rb_cpu_shm *shm = cb->shm;
	struct rb_region r = { NULL, 0 };
	uint32_t order = cb->order;

	if (rb_mem_check(rb_region_len(rb, order)) < 0 || rb_region_make(rb, order, &r) < 0)
		r.data = NULL;
	ndata = r.data ? r.data : odata;
	noff = r.data ? r.off : ooff;

	pthread_mutex_lock(&cb->reader_lock);
	pair_load(&shm->w, &ts, &pos);
	B = RB_POS_SEQ(pos) < RB_SEQ_MAX / 2 ? ALIGN_UP(RB_POS_SEQ(pos) + 2, n) : n;
	L = B >> order;
	for (uint64_t j = 0; j < n; j++) {
		struct rb_page *p = (struct rb_page *)(ndata + (j << rb->page_shift));

		/* relaxed: an iterator of this process may copy the old ring meanwhile */
		st_relaxed(&p->time_stamp, 0);
		st_relaxed(&p->commit, L * rb->data_size);
		st_relaxed(rb_cpu_remote(rb, ndata, order, j), 0);
	}
	rb_cpu_publish_layout(cb, ndata, noff, order);
	rb_hdr_write(rb);
	rb_rd_set(shm, RB_POS(B, 0), 0);
	st_relaxed(&shm->dropped, 0);
	st_relaxed(&shm->read_events, 0);
	rb_reader_clear(cb);
	/* Relaxed: our writers are quiesced; one stopped before may set it again. */
	st_relaxed(&cb->tainted, 0);
	cb->busy_since = 0;
	rb_cpu_set_state(shm, tclock_read((enum evt_clock_id)ld_relaxed(&rb->clock)),
			 RB_POS(B - 1, rb->data_size));
	pthread_mutex_unlock(&cb->reader_lock);
	/* Relaxed: a statistic (evt_ring_buffer_corrupt_cpu()). */
	add_relaxed(&cb->rebuilt, 1);
	if (r.data)
		rb_cpu_retire(rb, cb, odata, order, ooff);
}

/**
 * rb_cpu_quiesce_repair() - rb_cpu_quiesce(), rebuilding a corrupt CPU buffer.
 * @rb: the buffer (ctl_lock held).
 * @cb: the CPU buffer.
 *
 * What every control operation of the owner quiesces with: a CPU buffer that
 * another process wrote over is rebuilt empty and counted (rb_cpu_rebuild()),
 * so reset, resize, set_clock and swap go on instead of failing for ever.
 *
 * @stuck_is_corrupt: as rb_cpu_quiesce().
 *
 * Context: ctl_lock held; sleeps up to RB_QUIESCE_NS.
 * Return: 0 with the CPU quiesced, or -EBUSY with nothing changed.
 */
int rb_cpu_quiesce_repair(struct evt_ring_buffer *rb, struct rb_cpu *cb, bool stuck_is_corrupt)
{
	int ret = rb_cpu_quiesce(rb, cb, stuck_is_corrupt);

	if (ret != -EBADMSG)
		return ret;
	rb_cpu_rebuild(rb, cb);
	return 0;
}

/*
 * Move the unread pages of a quiesced CPU into the new region @r of
 * 2^@order pages, publish it and let writers in again. The pages are
 * renumbered from B, a multiple of the new page count beyond every old
 * sequence number, so slot j holds page B + j and no old position ever
 * comes back. When the new ring is smaller than the unread data, the
 * oldest pages go and count as overruns. Cannot fail.
 */
static void rb_resize_move(struct evt_ring_buffer *rb, struct rb_cpu *cb, uint32_t order,
			   const struct rb_region *r)
{
	uint64_t nn = UINT64_C(1) << order, seq, rp, rseq, count, keep, drop, B, L, ts, pos;
	unsigned char *odata = cb->data, *ndata = r->data;
	uint32_t oorder = cb->order, roff;
	struct rb_cpu_shm *shm = cb->shm;
	uint64_t ooff = cb->data_off, overrun;

	pthread_mutex_lock(&cb->reader_lock);
	rp = rb_cpu_take_read_pos(cb);
	rb_cpu_close_page(rb, cb);
	pair_load(&shm->w, &ts, &pos);
	seq = RB_POS_SEQ(pos);
	rseq = RB_POS_SEQ(rp);
	roff = RB_POS_OFF(rp);
	count = rseq <= seq ? seq - rseq + 1 : 0;
	keep = count < nn ? count : nn;
	drop = count - keep;
	overrun = ld_relaxed(&shm->overrun);
	for (uint64_t i = 0; i < drop; i++) {
		const struct rb_page *op = rb_cpu_page(rb, odata, oorder, rseq + i);
		uint64_t events = 0;
		uint32_t end;

		rb_scan(op->data, i ? 0 : roff, rb->data_size, true, &end, &events);
		overrun += events;
	}
	B = ALIGN_UP(seq + 2, nn);
	L = B >> order;
	for (uint64_t j = 0; j < nn; j++) {
		struct rb_page *np = (struct rb_page *)(ndata + (j << rb->page_shift));

		if (j < keep)
			memcpy(np, rb_cpu_page(rb, odata, oorder, rseq + drop + j), rb->page_size);
		/* Kept pages are complete in lap L; empty slots complete in lap L - 1. */
		np->commit = (L + (j < keep)) * rb->data_size;
	}

	rb_cpu_publish_layout(cb, ndata, r->off, order);
	rb_rd_set(shm, RB_POS(B, drop ? 0 : (keep ? roff : 0)), overrun);
	pthread_mutex_unlock(&cb->reader_lock);
	/* Full barrier: the layout and read_pos above are visible first. */
	rb_cpu_unquiesce(rb, cb, RB_POS(B + keep - 1, rb->data_size));
	rb_cpu_retire(rb, cb, odata, oorder, ooff);
}

/*
 * All or nothing: the new pages of every CPU that changes are allocated
 * (within the cap, rb_mem.c) and mapped first, then every such CPU is
 * quiesced, and only then is anything moved. A refused size, a failed
 * allocation or a CPU that stays busy leave every CPU as it was, with its
 * events.
 */
static int rb_resize_locked(struct evt_ring_buffer *rb, uint32_t order, int cpu,
			    struct rb_region *regs)
{
	uint64_t add = 0;
	int i, ret;

	rb_assert_ctl_locked(rb);
	for (i = 0; i < rb->nr_cpus; i++)
		if ((cpu == EVT_RB_ALL_CPUS || i == cpu) && rb->cpus[i].order != order)
			add += rb_region_len(rb, order);
	ret = rb_mem_check(add);
	if (ret < 0)
		return ret;
	for (i = 0; i < rb->nr_cpus && !ret; i++)
		if ((cpu == EVT_RB_ALL_CPUS || i == cpu) && rb->cpus[i].order != order)
			ret = rb_region_make(rb, order, &regs[i]);
	for (i = 0; i < rb->nr_cpus && !ret; i++)
		if (regs[i].data)
			ret = rb_cpu_quiesce_repair(rb, &rb->cpus[i], false);
	if (ret < 0) {
		/* the CPUs quiesced before the one that failed, then every region */
		for (int j = 0; j < i - 1; j++)
			if (regs[j].data)
				rb_cpu_quiesce_end(rb, &rb->cpus[j]);
		for (int j = 0; j < rb->nr_cpus; j++)
			rb_region_drop(rb, &regs[j], order);
		return ret;
	}
	for (i = 0; i < rb->nr_cpus; i++)
		if (regs[i].data)
			rb_resize_move(rb, &rb->cpus[i], order, &regs[i]);
	return 0;
}

int evt_ring_buffer_resize(struct evt_ring_buffer *rb, unsigned long size, int cpu)
{
	struct rb_region *regs;
	int order, ret;

	if (!rb || (cpu != EVT_RB_ALL_CPUS && !rb_cpu_valid(rb, cpu)))
		return -EINVAL;
	if (rb->mapped)
		return -EPERM;
	order = rb_size_order(rb, size);
	if (order < 0)
		return order;
	regs = calloc((size_t)rb->nr_cpus, sizeof(*regs));
	if (!regs)
		return -ENOMEM;
	rb_ctl_lock(rb);
	ret = rb_resize_locked(rb, (uint32_t)order, cpu, regs);
	rb_ctl_unlock(rb);
	free(regs);
	return ret;
}

unsigned long evt_ring_buffer_size(const struct evt_ring_buffer *rb, int cpu)
{
	unsigned long max = 0;

	if (!rb)
		return 0;
	for (int i = 0; i < rb->nr_cpus; i++) {
		unsigned char *data;
		uint32_t order;
		unsigned long sz;

		rb_cpu_layout(&rb->cpus[i], &data, &order);
		sz = (unsigned long)rb->page_size << order;

		if (i == cpu)
			return sz;
		if (sz > max)
			max = sz;
	}
	return cpu == EVT_RB_ALL_CPUS ? max : 0;
}

unsigned int evt_ring_buffer_page_size(const struct evt_ring_buffer *rb)
{
	return rb->page_size;
}

int evt_ring_buffer_nr_cpus(const struct evt_ring_buffer *rb)
{
	return rb->nr_cpus;
}

bool evt_ring_buffer_overwrite(const struct evt_ring_buffer *rb)
{
	return rb->overwrite;
}

/* ---- sharing with another process ----------------------------------------- */

int evt_ring_buffer_fd(const struct evt_ring_buffer *rb)
{
	if (!rb)
		return -EINVAL;
	return rb->fd >= 0 ? rb->fd : -ENOSYS;
}

/**
 * rb_cpu_refresh_layout() - (mapped consumers) follow a resize of @cb.
 * @rb: a mapped buffer.
 * @cb: one of its CPUs.
 *
 * Reads the layout words the owner publishes under layout_seq, checks
 * them against the file, and maps the CPU's pages anew if they moved.
 *
 * Context: the CPU's reader lock held.
 * Return: 0, -EAGAIN while a resize is under way, -EBADMSG on a layout
 * that cannot be right, -ENOMEM.
 */
int rb_cpu_refresh_layout(struct evt_ring_buffer *rb, struct rb_cpu *cb)
{
	struct rb_cpu_shm *shm = cb->shm;
	uint32_t seq1, seq2, order, old_order;
	uint64_t off, len;
	struct stat st;
	void *old;
	int ret;

	if (!rb->mapped)
		return 0;
	seq1 = ld_acquire(&shm->layout_seq);
	if (cb->data && seq1 == cb->layout_seq)
		return 0;
	if (seq1 & 1)
		return -EAGAIN;
	order = ld_relaxed(&shm->order);
	off = ld_relaxed(&shm->data_off);
	fence_acquire();
	seq2 = ld_relaxed(&shm->layout_seq);
	if (seq1 != seq2)
		return -EAGAIN;
	if (order < 1 || order > RB_MAX_ORDER)
		return -EBADMSG;
	len = rb_region_len(rb, order);
	if (fstat(rb->fd, &st) < 0)
		return -errno;
	if (off % rb_region_align(rb) || off < rb->ctl_len || off > (uint64_t)st.st_size ||
	    len > (uint64_t)st.st_size - off)
		return -EBADMSG;
	old = cb->data;
	old_order = cb->order;
	ret = rb_cpu_map(rb, cb, order, off);
	if (ret < 0)
		return ret;
	if (old)
		munmap(old, rb_region_len(rb, old_order));
	cb->layout_seq = seq1;
	return 0;
}

int evt_ring_buffer_map(int fd, struct evt_ring_buffer **rbp)
{
	struct rb_shm_hdr hdr, *h;
	struct evt_ring_buffer *rb;
	int ret, dfd, seals;
	size_t ctl_len;
	struct stat st;

	if (!rbp || fd < 0)
		return -EINVAL;
	*rbp = NULL;
	ret = evt_clock_init();
	if (ret < 0)
		return ret;
	/* A file that can shrink could take pages away under our mapping: SIGBUS. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return -EPERM;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size < sizeof(hdr))
		return -EBADMSG;
	h = mmap(NULL, sizeof(hdr), PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	memcpy(&hdr, h, sizeof(hdr));	/* one copy: validated, then used */
	munmap(h, sizeof(hdr));
	if (hdr.magic != RB_MAGIC)
		return -EBADMSG;
	if (hdr.version != RB_VERSION || hdr.hdr_size != sizeof(hdr) ||
	    hdr.cpu_stride != sizeof(struct rb_cpu_shm))
		return -EPROTO;
	if (hdr.nr_cpus < 1 || hdr.nr_cpus > RB_MAX_CPUS || hdr.clock >= EVT_CLOCK__COUNT ||
	    hdr.flags & ~EVT_RB_FL_OVERWRITE || hdr.cpu_off < sizeof(hdr) ||
	    hdr.cpu_off % EVT_CACHELINE || hdr.cpu_off > (uint64_t)st.st_size)
		return -EBADMSG;	/* (cpu_off bounded first: the sum below cannot wrap) */
	ctl_len = ALIGN_UP(hdr.cpu_off + (size_t)hdr.nr_cpus * sizeof(struct rb_cpu_shm),
			   host_page());
	if (ctl_len > (uint64_t)st.st_size)
		return -EBADMSG;

	rb = rb_struct_alloc((int)hdr.nr_cpus);
	if (!rb)
		return -ENOMEM;
	ret = rb_set_geometry(rb, hdr.page_size);
	if (ret < 0) {
		ret = -EBADMSG;
		goto err_free;
	}
	rb->mapped = true;
	rb->overwrite = hdr.flags & EVT_RB_FL_OVERWRITE;
	rb->clock = hdr.clock;
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0) {
		ret = -errno;
		goto err_free;
	}
	rb->fd = dfd;
	ret = rb_map_ctl(rb, hdr.cpu_off, ctl_len);
	if (ret < 0)
		goto err_free;
	for (int i = 0; i < rb->nr_cpus; i++) {
		ret = rb_cpu_refresh_layout(rb, &rb->cpus[i]);
		if (ret == -EAGAIN)
			ret = 0;	/* a resize is under way: the first read maps it */
		if (ret < 0)
			goto err_free;
	}
	*rbp = rb;
	return 0;

err_free:
	evt_ring_buffer_free(rb);
	return ret;
}
