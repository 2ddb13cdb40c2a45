// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe/tracepipe.c - event streams through a FIFO (the tracepipe
 * seed, in user space). docs/tracepipe.md has the design; in short:
 *
 * Writers (evt_tracepipe_event(), any thread or signal handler) append
 * records to the current page of the CPU they run on. Each CPU has a
 * ring of pages_per_cpu pages and one write position w.lo, a byte
 * position in that CPU's stream: page seq = pos >> 12, offset = pos &
 * 4095. An offset of 0 means "page seq is not open yet". A writer
 * reserves with one compare-and-store of w.lo (an rseq sequence on the
 * writer's own CPU: no locked instruction; elsewhere a CAS), writes,
 * then commits its bytes to the page's counter. A page is complete when
 * its counters add up to 4096 (records + header + the unused tail,
 * which the writer or flusher that closes the page commits).
 *
 * The flusher (one thread per channel) waits in open(O_WRONLY) for a
 * reader, enables recording, hands complete pages to the pipe in CPU
 * order (write() or vmsplice()), recycles them - at once after write(),
 * once the reader has consumed them after vmsplice() (FIONREAD) - and
 * publishes each recycled page through the CPU's "avail" word. When the
 * reader goes away (POLLERR on the write end, or EPIPE) it disables
 * recording, closes the pipe and recycles everything.
 *
 * Actors and what they write:
 *   writers: w.lo (reserve), slot commit counters (commit), page bytes
 *            they reserved, cpu->missed;
 *   flusher: cpu->avail, slot counters back to 0 (recycle), w.lo on a
 *            seal (flush, attach), the channel's queue and FIFO state;
 *   API threads: flush requests and remove, under chan->lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/tracepipe.h>

#include "clock/clock_internal.h"
#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/cpu.h"
#include "compat/rseq.h"
#include "compat/secdir.h"

#define TP_PSZ	    EVT_TRACEPIPE_PAGE_SIZE
#define TP_PSHIFT   12
#define TP_OFF(pos) ((uint32_t)((pos) & (TP_PSZ - 1)))
#define TP_SEQ(pos) ((pos) >> TP_PSHIFT)
#define TP_MAX_CPUS 4096
#define TP_IOV	    64

_Static_assert(TP_PSZ == 1 << TP_PSHIFT, "page shift");

/* The commit counters of one page of a CPU's ring. */
struct tp_slot {
	uint64_t commit;  /* rseq mode: plain adds on the owner CPU only */
	uint64_t rcommit; /* locked adds from any CPU (CAS mode, migrated writers, seals) */
};

struct tp_cpu {
	/* written by this CPU's writers at event rate */
	struct evt_pair w; /* lo: stream position; hi: seal generation (rseq mode) */
	uint64_t avail;	   /* pages with seq < avail may be opened (flusher, release) */
	uint64_t missed;   /* events without a free page */
	unsigned char *pages;
	struct tp_slot *slots;
	/* flusher only */
	uint64_t collect;	/* next page to look at */
	uint64_t discard_below; /* complete pages below are recycled unsent */
	uint64_t flush_upto;	/* a flush waits until collect reaches this */
} __cacheline_aligned;

/* A complete page on its way to the pipe (flusher only). */
struct tp_qent {
	uint32_t cpu;
	uint32_t size;	  /* bytes to send */
	uint32_t sent;	  /* bytes sent so far */
	uint32_t dropped; /* wrap: thrown away unsent, already recycled (size 0) */
	uint64_t seq;
	uint64_t end; /* pipe position after its last byte (vmsplice recycling) */
};

struct evt_tracepipe_channel {
	/* read by every event */
	uint32_t enabled; /* a reader is attached (flusher, release; writers relaxed) */
	int rseq;
	unsigned int nr_cpus;
	unsigned int npages; /* per CPU, power of two */
	struct tp_cpu *cpus;
	uint32_t sleeping __cacheline_aligned; /* the flusher is about to sleep: wake it */
	int efd;

	unsigned int flags;
	unsigned int pipe_size;
	unsigned char *mem;
	size_t mem_len;
	char *path;
	char *missed_path;

	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* under lock */
	int stop;
	int wfd; /* the FIFO's write end while attached, else -1 */
	uint64_t flush_req, flush_done;
	int flush_err;
	/* flusher only */
	uint64_t flush_target; /* a flush being served (0: none) */
	struct tp_qent *q;
	uint64_t qcap, qhead, qsend, qtail; /* recycled < qhead <= qsend <= qtail */
	uint64_t pipe_pos;
	uint64_t missed_shown;
	uint64_t missed_time;
	struct evt_tracepipe_stream_info info; /* the clock's scale (at creation) */
	/* fork(): every channel is on tp_reg; in the child each is marked forked */
	struct evt_tracepipe_channel *reg_next;
	int forked; /* this is a fork() child's copy: no flusher, -ECHILD */
};

/* ---- the fast path ------------------------------------------------------------------------- */

static inline unsigned int tp_this_cpu(const struct evt_tracepipe_channel *chan)
{
	unsigned int cpu;

#if EVT_HAVE_RSEQ_OPS
	if (chan->rseq)
		return evt_rseq_cpu(); /* may be >= nr_cpus (hotplug): the caller checks */
#endif
	cpu = (unsigned int)evt_cpu_current();
	if (unlikely(cpu >= chan->nr_cpus))
		cpu %= chan->nr_cpus;
	return cpu;
}

/*
 * Move w of CPU @cpu from {@pos, @gen} to {@npos, @gen}. rseq mode:
 * succeeds only if this thread is on @cpu for the whole sequence, so the
 * CPU serializes its writers (no locked instruction); gen is the seal
 * generation (tp_seal). CAS mode: an 8-byte CAS of w.lo, a full barrier;
 * gen stays 0.
 */
static inline bool tp_w_cas(const struct evt_tracepipe_channel *chan, struct tp_cpu *c,
			    unsigned int cpu, uint64_t pos, uint64_t gen, uint64_t npos)
{
#if EVT_HAVE_RSEQ_OPS
	if (chan->rseq)
		return evt_rseq_cmp2_store2(&c->w.lo, pos, gen, npos, gen, cpu) == 0;
#endif
	(void)chan;
	(void)cpu;
	(void)gen;
	return cas_acq_rel(&c->w.lo, &pos, npos);
}

/*
 * Count @bytes of page @slot of CPU @owner as committed. Release: the
 * bytes written before are visible to a flusher that reads the counters
 * with acquire (x86 keeps stores in order, so the rseq plain add is a
 * release too). rseq mode uses the plain counter while the thread is on
 * @owner, the locked one after a migration.
 */
static inline void tp_commit_bytes(const struct evt_tracepipe_channel *chan, struct tp_slot *slot,
				   unsigned int owner, uint32_t bytes)
{
#if EVT_HAVE_RSEQ_OPS
	if (chan->rseq) {
		while (evt_rseq_cpu() == owner)
			if (evt_rseq_addv(&slot->commit, bytes, owner) == 0)
				return;
	}
#endif
	(void)chan;
	(void)owner;
	add_release(&slot->rcommit, bytes);
}

/* Page @seq of CPU @c (any page of its ring). */
static inline unsigned char *tp_page(const struct evt_tracepipe_channel *chan,
				     const struct tp_cpu *c, uint64_t seq)
{
	return c->pages + ((seq & (chan->npages - 1)) << TP_PSHIFT);
}

static void tp_wake_flusher(struct evt_tracepipe_channel *chan)
{
	int saved = errno; /* we are maybe in a signal handler: leave errno alone */
	uint64_t one = 1;

	if (write(chan->efd, &one, sizeof(one)) < 0) {
		/* the counter is full: the flusher has plenty of wake-ups pending */
	}
	errno = saved;
}

/*
 * Open page @seq of CPU @c (slow path): when the current page is full
 * (@off > 0: close it) or none is open (@off == 0). Returns the record
 * address, NULL with *@err set (-ENOBUFS: counted as missed), or
 * (void *)1 to retry.
 */
static __attribute__((noinline)) unsigned char *tp_reserve_slow(struct evt_tracepipe_channel *chan,
								struct tp_cpu *c, unsigned int cpu,
								uint64_t pos, uint64_t gen,
								uint32_t need, int *err)
{
	uint32_t off = TP_OFF(pos);
	uint64_t seq = TP_SEQ(pos) + (off ? 1 : 0);
	/* Acquire: pairs with the flusher's release after it reset the slot's counters. */
	uint64_t avail = ld_acquire(&c->avail);
	struct evt_tracepipe_page_header *ph;
	unsigned char *page;

	if (seq >= avail) {
		/* Not our page to take if w moved meanwhile: let the caller look again. */
		if (ld_relaxed(&c->w.lo) != pos)
			return (unsigned char *)1;
		add_relaxed(&c->missed, 1); /* the flusher sums it; no order needed */
		/* Wrap: the flusher frees pages by dropping old ones; make sure it is awake. */
		if (unlikely(chan->flags & EVT_TRACEPIPE_WRAP) && ld_relaxed(&chan->sleeping) &&
		    xchg_acq_rel(&chan->sleeping, 0))
			tp_wake_flusher(chan);
		*err = -ENOBUFS;
		return NULL;
	}
	if (!tp_w_cas(chan, c, cpu, pos, gen, (seq << TP_PSHIFT) + EVT_TRACEPIPE_PAGE_HDR + need))
		return (unsigned char *)1;

	if (off) {
		/* We own [off, 4096) of the old page: its size, then commit the tail. */
		uint64_t old = TP_SEQ(pos);
		unsigned char *op = c->pages + ((old & (chan->npages - 1)) << TP_PSHIFT);
		uint32_t size = off;

		memcpy(op + offsetof(struct evt_tracepipe_page_header, size), &size, 4);
		tp_commit_bytes(chan, &c->slots[old & (chan->npages - 1)], cpu, TP_PSZ - off);
		/*
		 * Wake the flusher only once half the CPU's pages are used: it then
		 * takes them in a batch, and the writers make one system call per
		 * npages / 2 pages at most (without a wake it looks every 50 ms).
		 */
		if (avail - seq <= chan->npages / 2) {
			/*
			 * Full barrier: our commit before the load of sleeping, against
			 * the flusher's store of sleeping before its load of the
			 * counters (store-load on both sides: one of us sees the other).
			 */
			fence_seq_cst();
			if (ld_relaxed(&chan->sleeping) && xchg_acq_rel(&chan->sleeping, 0))
				tp_wake_flusher(chan);
		}
	}
	page = c->pages + ((seq & (chan->npages - 1)) << TP_PSHIFT);
	ph = (struct evt_tracepipe_page_header *)page;
	/* Every field but size (the closer writes it; we may still be writing when it does). */
	ph->magic = EVT_TRACEPIPE_MAGIC;
	ph->version = EVT_TRACEPIPE_VERSION;
	ph->hdr_size = EVT_TRACEPIPE_PAGE_HDR;
	ph->cpu = cpu;
	ph->seq = seq;
	ph->missed = ld_relaxed(&c->missed);
	return page + EVT_TRACEPIPE_PAGE_HDR;
}

static inline __attribute__((always_inline)) void *tp_reserve(struct evt_tracepipe_channel *chan,
							      unsigned int len,
							      struct evt_tracepipe_reservation *res,
							      int *err)
{
	uint32_t need = (EVT_TRACEPIPE_REC_HDR + len + EVT_TRACEPIPE_REC_ALIGN - 1) &
			~(uint32_t)(EVT_TRACEPIPE_REC_ALIGN - 1);
	struct evt_tracepipe_record_header rh;
	struct tp_cpu *c;
	unsigned char *p;
	unsigned int cpu;
	uint64_t pos, gen = 0;
	uint32_t off;

	/*
	 * Relaxed: only a hint; what the pages need is ordered by avail and w.
	 * In a fork() child enabled is 0 (tp_atfork_child()): the check costs
	 * nothing more than the reader check already made.
	 */
	if (unlikely(!ld_relaxed(&chan->enabled))) {
		*err = unlikely(chan->forked) ? -ECHILD : -EPIPE;
		return NULL;
	}
	if (unlikely(len > EVT_TRACEPIPE_MAX_EVENT)) {
		*err = -EINVAL;
		return NULL;
	}
	for (;;) {
		cpu = tp_this_cpu(chan);
		if (unlikely(cpu >= chan->nr_cpus)) {
			add_relaxed(&chan->cpus[cpu % chan->nr_cpus].missed, 1);
			*err = -ENOBUFS;
			return NULL;
		}
		c = &chan->cpus[cpu];
		/* Both validated by the compare-and-store that follows. */
		pos = ld_relaxed(&c->w.lo);
		if (chan->rseq)
			gen = ld_relaxed(&c->w.hi);
		off = TP_OFF(pos);
		/*
		 * Strictly inside the page: the fast path never leaves w at a page
		 * boundary, which only a seal does (the flusher relies on it).
		 */
		if (unlikely(!off || off + need >= TP_PSZ)) {
			p = tp_reserve_slow(chan, c, cpu, pos, gen, need, err);
			if (p == (unsigned char *)1)
				continue;
			if (!p)
				return NULL;
			res->bytes = need + EVT_TRACEPIPE_PAGE_HDR;
			break;
		}
		if (!tp_w_cas(chan, c, cpu, pos, gen, pos + need))
			continue;
		p = c->pages + ((TP_SEQ(pos) & (chan->npages - 1)) << TP_PSHIFT) + off;
		res->bytes = need;
		break;
	}
	res->slot = p;
	res->cpu = cpu;
	rh.cycles = tclock_cycles();
	rh.cpu = (uint16_t)cpu;
	rh.len = (uint16_t)len;
	memcpy(p, &rh, sizeof(rh));
	return p + EVT_TRACEPIPE_REC_HDR;
}

static inline __attribute__((always_inline)) void
tp_commit(struct evt_tracepipe_channel *chan, const struct evt_tracepipe_reservation *res)
{
	struct tp_cpu *c = &chan->cpus[res->cpu];
	uint64_t idx = (uint64_t)((unsigned char *)res->slot - c->pages) >> TP_PSHIFT;

	tp_commit_bytes(chan, &c->slots[idx], res->cpu, res->bytes);
}

/* Out of line: inlined, a copy of unknown size becomes "rep movsq", slow to start. */
static __attribute__((noinline)) void tp_copy_big(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}

/*
 * The payload copy. Small sizes with two overlapping fixed-size copies
 * (each one or two moves), as libc's memcpy does, without the call.
 */
static inline __attribute__((always_inline)) void tp_copy(unsigned char *d, const unsigned char *s,
							  unsigned int len)
{
	if (len >= 16 && len <= 32) {
		memcpy(d, s, 16);
		memcpy(d + len - 16, s + len - 16, 16);
	} else if (len >= 8 && len < 16) {
		memcpy(d, s, 8);
		memcpy(d + len - 8, s + len - 8, 8);
	} else if (len >= 4 && len < 8) {
		memcpy(d, s, 4);
		memcpy(d + len - 4, s + len - 4, 4);
	} else if (len < 4) {
		for (unsigned int i = 0; i < len; i++)
			d[i] = s[i];
	} else {
		tp_copy_big(d, s, len);
	}
}

/**
 * evt_tracepipe_event() - record @len bytes of @data on @chan.
 *
 * Context: any thread or signal handler; no lock, no system call.
 * Return: 0 recorded; -EPIPE no reader (not recorded, not counted);
 * -ENOBUFS no free page (counted in missed); -EINVAL @len too big.
 */
int evt_tracepipe_event(struct evt_tracepipe_channel *chan, const void *data, unsigned int len)
{
	struct evt_tracepipe_reservation res;
	void *p;
	int err = 0;

	p = tp_reserve(chan, len, &res, &err);
	if (unlikely(!p))
		return err;
	tp_copy(p, data, len);
	tp_commit(chan, &res);
	return 0;
}

/**
 * evt_tracepipe_reserve() - reserve a record of @len bytes, to be
 * written in place and committed with evt_tracepipe_commit().
 *
 * Return: where to write the payload, or NULL (as evt_tracepipe_event()
 * would have failed; drops are counted).
 */
void *evt_tracepipe_reserve(struct evt_tracepipe_channel *chan, unsigned int len,
			    struct evt_tracepipe_reservation *res)
{
	int err = 0;

	return tp_reserve(chan, len, res, &err);
}

/** evt_tracepipe_commit() - publish a record of evt_tracepipe_reserve(). */
void evt_tracepipe_commit(struct evt_tracepipe_channel *chan, struct evt_tracepipe_reservation *res)
{
	tp_commit(chan, res);
}

/* ---- the flusher --------------------------------------------------------------------------- */

static uint64_t tp_now_ms(void)
{
	return tclock_posix(CLOCK_MONOTONIC) / 1000000u;
}

/*
 * Close the open page of @c from outside (flush, attach): take
 * [off, 4096) by moving w to the next page boundary. CAS mode: one CAS.
 * rseq mode: a writer's sequence that compared before our locked CAS
 * may still store over it, so the CAS also bumps the generation w.hi
 * (writers store back the generation they compared); after restarting
 * every running sequence (rseq_ops_fence) no such store is pending, and
 * finding our generation means none happened. Returns the next page to
 * be opened on @c.
 */
static uint64_t tp_seal(struct evt_tracepipe_channel *chan, struct tp_cpu *c)
{
	for (;;) {
		uint64_t pos, gen, exp, npos, seq;
		unsigned char *page;
		uint32_t off;

		pair_load(&c->w, &pos, &gen); /* acquire: pairs with writers' CAS */
		off = TP_OFF(pos);
		npos = pos - off + TP_PSZ;
		seq = TP_SEQ(pos);
		if (!off)
			return seq;
		if (chan->rseq) {
			if (!pair_cas(&c->w, pos, gen, npos, gen + 1))
				continue;
			rseq_ops_fence();
			if (ld_acquire(&c->w.hi) != gen + 1)
				continue; /* a writer's store went over ours: not sealed */
		} else {
			exp = pos;
			if (!cas_acq_rel(&c->w.lo, &exp, npos))
				continue;
		}
		page = c->pages + ((seq & (chan->npages - 1)) << TP_PSHIFT);
		memcpy(page + offsetof(struct evt_tracepipe_page_header, size), &off, 4);
		add_release(&c->slots[seq & (chan->npages - 1)].rcommit, TP_PSZ - off);
		return seq + 1;
	}
}

/* Page @seq of @c is free again: zero its counters, then let writers open seq + npages. */
static void tp_recycle(struct evt_tracepipe_channel *chan, struct tp_cpu *c, uint64_t seq)
{
	struct tp_slot *s = &c->slots[seq & (chan->npages - 1)];

	st_relaxed(&s->commit, 0);
	st_relaxed(&s->rcommit, 0);
	/* Release: the zeroed counters before the page is seen available (writers acquire). */
	st_release(&c->avail, seq + chan->npages + 1);
}

/* Move complete pages of every CPU to the queue (or recycle them if discarded). */
static int tp_collect(struct evt_tracepipe_channel *chan)
{
	int found = 0;

	for (unsigned int i = 0; i < chan->nr_cpus; i++) {
		struct tp_cpu *c = &chan->cpus[i];

		for (;;) {
			uint64_t seq = c->collect;
			struct tp_slot *s = &c->slots[seq & (chan->npages - 1)];
			unsigned char *page;
			uint32_t size;

			/*
			 * Not yet available: the slot still holds page seq - npages, in the
			 * pipe (vmsplice) - its counters say complete, but it is not this page.
			 */
			if (seq >= ld_relaxed(&c->avail))
				break;
			/* Wrap: thrown-away entries stay queued until sent (0 bytes): room? */
			if (chan->qtail - chan->qhead >= chan->qcap)
				break;
			/* Acquire: pairs with each commit's release; the page's bytes are in. */
			if (ld_acquire(&s->commit) + ld_acquire(&s->rcommit) != TP_PSZ)
				break;
			c->collect++;
			found = 1;
			if (seq < c->discard_below) {
				tp_recycle(chan, c, seq);
				continue;
			}
			page = c->pages + ((seq & (chan->npages - 1)) << TP_PSHIFT);
			memcpy(&size, page + offsetof(struct evt_tracepipe_page_header, size), 4);
			if (size < EVT_TRACEPIPE_PAGE_HDR || size > TP_PSZ)
				size = EVT_TRACEPIPE_PAGE_HDR; /* cannot happen: stay sane */
			chan->q[chan->qtail % chan->qcap] =
				(struct tp_qent){ .cpu = i, .size = size, .seq = seq };
			chan->qtail++;
		}
	}
	return found;
}

/* Give queued pages to the pipe. 0 all sent, -EAGAIN pipe full, -EPIPE no reader. */
static int tp_send(struct evt_tracepipe_channel *chan, int wfd)
{
	struct iovec iov[TP_IOV];

	while (chan->qsend < chan->qtail) {
		uint64_t i = chan->qsend;
		ssize_t n;
		int cnt = 0;

		/*
		 * Wrap mode: one page per write(), at most PIPE_BUF bytes, so each is
		 * all or nothing (O_NONBLOCK) and no page is ever half in the pipe: a
		 * page not yet sent can always be thrown away.
		 */
		int max = chan->flags & EVT_TRACEPIPE_WRAP ? 1 : TP_IOV;

		for (; i < chan->qtail && cnt < max; i++, cnt++) {
			struct tp_qent *e = &chan->q[i % chan->qcap];
			struct tp_cpu *c = &chan->cpus[e->cpu];
			unsigned char *page = tp_page(chan, c, e->seq);

			iov[cnt].iov_base = page + e->sent;
			iov[cnt].iov_len = e->size - e->sent;
		}
		if (chan->flags & EVT_TRACEPIPE_VMSPLICE)
			n = vmsplice(wfd, iov, (unsigned long)cnt, SPLICE_F_NONBLOCK);
		else
			n = writev(wfd, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return -EAGAIN;
			return -EPIPE; /* EPIPE, or anything else: treat the reader as gone */
		}
		chan->pipe_pos += (uint64_t)n;
		/* Entries done (dropped ones have size 0: done at once), then the bytes sent. */
		while (chan->qsend < chan->qtail) {
			struct tp_qent *e = &chan->q[chan->qsend % chan->qcap];
			uint32_t left = e->size - e->sent;
			uint32_t take = (uint64_t)n < left ? (uint32_t)n : left;

			if (!left) {
				e->end = chan->pipe_pos - (uint64_t)n;
				chan->qsend++;
				continue;
			}
			if (!n)
				break;
			e->sent += take;
			n -= take;
		}
	}
	return 0;
}

/* Recycle pages the pipe no longer needs: all sent ones (write), consumed ones (vmsplice). */
static void tp_reclaim(struct evt_tracepipe_channel *chan, int wfd)
{
	uint64_t consumed = chan->pipe_pos;

	if (chan->flags & EVT_TRACEPIPE_VMSPLICE) {
		int inpipe = 0;

		if (ioctl(wfd, FIONREAD, &inpipe) < 0 || inpipe < 0)
			return;
		consumed -= (uint64_t)inpipe;
	}
	while (chan->qhead < chan->qsend) {
		struct tp_qent *e = &chan->q[chan->qhead % chan->qcap];

		if (e->end > consumed)
			break;
		if (!e->dropped)
			tp_recycle(chan, &chan->cpus[e->cpu], e->seq);
		chan->qhead++;
	}
}

/*
 * Wrap mode: a CPU with at most one free page left gets its oldest page
 * thrown away, if nothing of it is in the pipe yet, and the page's
 * records are counted as missed. It must be the oldest page of the CPU
 * not yet recycled (a partly sent one stops us): recycling publishes
 * avail = seq + npages + 1, which frees every older slot too.
 */
static void tp_wrap(struct evt_tracepipe_channel *chan)
{
	for (unsigned int i = 0; i < chan->nr_cpus; i++) {
		struct tp_cpu *c = &chan->cpus[i];
		uint64_t pos = ld_relaxed(&c->w.lo);
		uint64_t next = TP_SEQ(pos) + (TP_OFF(pos) ? 1 : 0);
		struct evt_tracepipe_page pg;
		struct evt_tracepipe_record rec;
		struct tp_qent *e = NULL;
		uint64_t records = 0;

		if (ld_relaxed(&c->avail) > next + 1)
			continue;
		/* The CPU's oldest page not recycled yet, if nothing of it is in the pipe. */
		for (uint64_t k = chan->qhead; k < chan->qtail; k++) {
			struct tp_qent *x = &chan->q[k % chan->qcap];

			if (x->cpu == i && !x->dropped) {
				e = x;
				break;
			}
		}
		if (!e || e->sent)
			continue;
		if (evt_tracepipe_page_parse(tp_page(chan, c, e->seq), e->size, &pg) > 0)
			while (evt_tracepipe_record_next(&pg, &rec) == 1)
				records++;
		add_relaxed(&c->missed, records);
		e->dropped = 1;
		e->size = 0;
		tp_recycle(chan, c, e->seq);
	}
}

static uint64_t tp_missed_sum(const struct evt_tracepipe_channel *chan)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < chan->nr_cpus; i++)
		sum += ld_relaxed(&chan->cpus[i].missed);
	return sum;
}

/* <name>.missed: the count in decimal, replaced whole (rename) so a reader never sees half. */
static void tp_show_missed(struct evt_tracepipe_channel *chan, int force)
{
	uint64_t missed = tp_missed_sum(chan);
	uint64_t now = tp_now_ms();
	char tmp[PATH_MAX + 8], buf[32];
	int fd, n;

	if (missed == chan->missed_shown || (!force && now - chan->missed_time < 50))
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", chan->missed_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%" PRIu64 "\n", missed);
	if (write(fd, buf, (size_t)n) == n && rename(tmp, chan->missed_path) == 0) {
		chan->missed_shown = missed;
		chan->missed_time = now;
	}
	close(fd);
	unlink(tmp);
}

/* The clock's scale for the stream page: the calibration of "local" (clock/clock.c). */
static void tp_stream_info_init(struct evt_tracepipe_channel *chan)
{
	struct evt_tracepipe_stream_info *info = &chan->info;

	evt_clock_init();
	memset(info, 0, sizeof(*info));
#if defined(__x86_64__) || defined(__aarch64__)
	info->clock = EVT_CLOCK_TSC;
	/* Acquire: pairs with the calibrator's st_release of mode (mult, shift, offset). */
	if (ld_acquire(&tclock.mode) != TCLOCK_MODE_UNINIT && tclock.mult && tclock.shift < 64) {
		info->mult = tclock.mult;
		info->shift = tclock.shift;
		info->offset = tclock.offset;
		info->freq_hz = tclock.freq_hz;
	}
#else
	/* tclock_cycles() reads CLOCK_MONOTONIC_RAW in ns here. */
	info->clock = EVT_CLOCK_MONO_RAW;
	info->mult = 1;
	info->freq_hz = 1000000000u;
#endif
}

/*
 * The stream page, first in the pipe of every reader: the pipe is new
 * (the last attachment's was freed when both ends closed) and the page is
 * far below PIPE_BUF, so one write() puts it in whole. A failure is the
 * reader leaving: the next send sees it.
 */
static void tp_send_stream_page(struct evt_tracepipe_channel *chan, int fd)
{
	unsigned char buf[EVT_TRACEPIPE_PAGE_HDR + EVT_TRACEPIPE_STREAM_INFO];
	struct evt_tracepipe_page_header h = {
		.magic = EVT_TRACEPIPE_MAGIC,
		.version = EVT_TRACEPIPE_VERSION,
		.hdr_size = EVT_TRACEPIPE_PAGE_HDR,
		.size = sizeof(buf),
		.cpu = EVT_TRACEPIPE_STREAM_CPU,
	};
	struct evt_tracepipe_stream_info info = chan->info;
	ssize_t n;

	info.base_cycles = tclock_cycles();
	info.base_ns = tclock_posix(CLOCK_MONOTONIC);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &info, sizeof(info));
	do
		n = write(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n > 0)
		chan->pipe_pos += (uint64_t)n; /* vmsplice recycling counts every byte sent */
}

static void tp_attach(struct evt_tracepipe_channel *chan, int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	if (chan->pipe_size)
		fcntl(fd, F_SETPIPE_SZ, (int)chan->pipe_size); /* best effort */
	/*
	 * Recording is off; what an earlier session left is discarded: close
	 * every open page (until none is open: a straggling writer that read
	 * enabled before the detach may open one) and skip all below.
	 */
	for (unsigned int i = 0; i < chan->nr_cpus; i++) {
		struct tp_cpu *c = &chan->cpus[i];

		c->discard_below = tp_seal(chan, c);
		c->flush_upto = 0;
	}
	chan->pipe_pos = 0;
	tp_send_stream_page(chan, fd);
	chan->wfd = fd;
	/* Release: nothing needed by writers; pairs with nobody but makes the order plain. */
	st_release(&chan->enabled, 1);
}

static void tp_detach(struct evt_tracepipe_channel *chan)
{
	st_release(&chan->enabled, 0);
	pthread_mutex_lock(&chan->lock);
	close(chan->wfd); /* the last writer: the pipe and its page references go */
	chan->wfd = -1;
	if (chan->flush_done < chan->flush_req) {
		chan->flush_done = chan->flush_req;
		chan->flush_err = -EPIPE;
		pthread_cond_broadcast(&chan->cond);
	}
	pthread_mutex_unlock(&chan->lock);
	chan->flush_target = 0;
	/* Unsent and in-flight pages: lost with the reader. */
	while (chan->qhead < chan->qtail) {
		struct tp_qent *e = &chan->q[chan->qhead % chan->qcap];

		if (!e->dropped)
			tp_recycle(chan, &chan->cpus[e->cpu], e->seq);
		chan->qhead++;
	}
	chan->qsend = chan->qhead;
	tp_show_missed(chan, 1);
}

/* A flush asked for: seal every CPU; done when all pages below the seals are in the pipe. */
static void tp_flush_step(struct evt_tracepipe_channel *chan)
{
	uint64_t req;

	if (!chan->flush_target) {
		pthread_mutex_lock(&chan->lock);
		req = chan->flush_req > chan->flush_done ? chan->flush_req : 0;
		pthread_mutex_unlock(&chan->lock);
		if (!req)
			return;
		for (unsigned int i = 0; i < chan->nr_cpus; i++)
			chan->cpus[i].flush_upto = tp_seal(chan, &chan->cpus[i]);
		chan->flush_target = req;
		return;
	}
	for (unsigned int i = 0; i < chan->nr_cpus; i++)
		if (chan->cpus[i].collect < chan->cpus[i].flush_upto)
			return;
	if (chan->qsend != chan->qtail)
		return;
	pthread_mutex_lock(&chan->lock);
	if (chan->flush_done < chan->flush_target)
		chan->flush_done = chan->flush_target;
	chan->flush_err = 0;
	pthread_cond_broadcast(&chan->cond);
	pthread_mutex_unlock(&chan->lock);
	chan->flush_target = 0;
}

static void tp_drain_efd(struct evt_tracepipe_channel *chan)
{
	uint64_t v;

	if (read(chan->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing pending */
	}
}

static void *tp_flusher(void *arg)
{
	struct evt_tracepipe_channel *chan = arg;
	sigset_t pipe_set;
	int attached = 0;

	/* EPIPE from write()/vmsplice(), not SIGPIPE, when the reader leaves. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);

	for (;;) {
		struct pollfd pfd[2];
		int ret, timeout;

		if (!attached) {
			/* Blocks until a reader opens the FIFO (remove opens it to wake us). */
			int fd = open(chan->path, O_WRONLY | O_CLOEXEC);

			pthread_mutex_lock(&chan->lock);
			if (chan->stop) {
				pthread_mutex_unlock(&chan->lock);
				if (fd >= 0)
					close(fd);
				break;
			}
			pthread_mutex_unlock(&chan->lock);
			if (fd < 0) {
				struct timespec ts = { 0, 10 * 1000 * 1000 };

				nanosleep(&ts, NULL); /* EINTR, or the FIFO is gone: look again */
				continue;
			}
			pthread_mutex_lock(&chan->lock);
			tp_attach(chan, fd);
			pthread_mutex_unlock(&chan->lock);
			attached = 1;
			continue;
		}

		tp_collect(chan);
		ret = tp_send(chan, chan->wfd);
		if (ret == -EPIPE) {
			struct timespec zero = { 0, 0 };

			sigtimedwait(&pipe_set, NULL, &zero); /* the SIGPIPE we blocked */
			tp_detach(chan);
			attached = 0;
			continue;
		}
		tp_reclaim(chan, chan->wfd);
		if (chan->flags & EVT_TRACEPIPE_WRAP)
			tp_wrap(chan);
		tp_flush_step(chan);
		tp_show_missed(chan, 0);

		pthread_mutex_lock(&chan->lock);
		if (chan->stop) {
			pthread_mutex_unlock(&chan->lock);
			tp_detach(chan);
			break;
		}
		pthread_mutex_unlock(&chan->lock);

		pfd[0].fd = chan->wfd;
		pfd[0].events = ret == -EAGAIN ? POLLOUT : 0; /* POLLERR: the reader left */
		pfd[1].fd = chan->efd;
		pfd[1].events = POLLIN;
		if (ret == -EAGAIN) {
			timeout = 50;
			/* Wrap: writers out of pages wake us to drop old ones. */
			if (chan->flags & EVT_TRACEPIPE_WRAP)
				st_relaxed(&chan->sleeping, 1);
		} else {
			st_relaxed(&chan->sleeping, 1);
			/* Full barrier: sleeping before the counters (see tp_reserve_slow). */
			fence_seq_cst();
			if (tp_collect(chan)) {
				st_relaxed(&chan->sleeping, 0);
				continue;
			}
			/*
			 * vmsplice: pages in the pipe come back when read; a flush waits
			 * for the last commits of its pages: look again soon.
			 */
			timeout = chan->qhead < chan->qsend || chan->flush_target ? 1 : 50;
		}
		poll(pfd, 2, timeout);
		st_relaxed(&chan->sleeping, 0);
		if (pfd[1].revents & POLLIN)
			tp_drain_efd(chan);
		if (pfd[0].revents & POLLERR) { /* no reader left (POLLOUT may be set too) */
			tp_detach(chan);
			attached = 0;
		}
	}
	return NULL;
}

/* ---- create, remove, the rest of the API --------------------------------------------------- */

static int tp_default_dir(char *buf, size_t len)
{
	const char *xdg = secure_getenv("XDG_RUNTIME_DIR");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/evtrace", xdg);
	else
		n = snprintf(buf, len, "/tmp/evtrace-%u", (unsigned int)getuid());
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int tp_possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n < 1)
		n = 1;
	return n > TP_MAX_CPUS ? TP_MAX_CPUS : (int)n;
}

/*
 * fork(): the child gets a copy of every channel (private memory) but no
 * flusher thread, so nothing it records would ever reach the pipe. The
 * atfork child handler turns each copy off for good (enabled 0, forked
 * 1: events return -ECHILD at no cost to the fast path) and closes the
 * child's copy of the FIFO's write end, so the reader still sees end of
 * stream when the parent's flusher closes its own. The registry lock is
 * taken across fork() so the child finds the list whole.
 */
static pthread_mutex_t tp_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct evt_tracepipe_channel *tp_reg;
static pthread_once_t tp_atfork_once = PTHREAD_ONCE_INIT;

static void tp_atfork_prepare(void)
{
	pthread_mutex_lock(&tp_reg_lock);
}

static void tp_atfork_parent(void)
{
	pthread_mutex_unlock(&tp_reg_lock);
}

static void tp_atfork_child(void)
{
	/* Only this thread exists now: plain stores are seen by whatever it does next. */
	for (struct evt_tracepipe_channel *c = tp_reg; c; c = c->reg_next) {
		st_relaxed(&c->enabled, 0);
		c->forked = 1;
		if (c->wfd >= 0)
			close(c->wfd);
		c->wfd = -1;
	}
	pthread_mutex_unlock(&tp_reg_lock);
}

static void tp_atfork_init(void)
{
	pthread_atfork(tp_atfork_prepare, tp_atfork_parent, tp_atfork_child);
}

static void tp_register(struct evt_tracepipe_channel *chan)
{
	pthread_once(&tp_atfork_once, tp_atfork_init);
	pthread_mutex_lock(&tp_reg_lock);
	chan->reg_next = tp_reg;
	tp_reg = chan;
	pthread_mutex_unlock(&tp_reg_lock);
}

static void tp_unregister(struct evt_tracepipe_channel *chan)
{
	pthread_mutex_lock(&tp_reg_lock);
	for (struct evt_tracepipe_channel **pp = &tp_reg; *pp; pp = &(*pp)->reg_next) {
		if (*pp == chan) {
			*pp = chan->reg_next;
			break;
		}
	}
	pthread_mutex_unlock(&tp_reg_lock);
}

static void tp_free(struct evt_tracepipe_channel *chan)
{
	if (chan->mem)
		munmap(chan->mem, chan->mem_len);
	if (chan->efd >= 0)
		close(chan->efd);
	free(chan->q);
	free(chan->cpus);
	free(chan->path);
	free(chan->missed_path);
	pthread_mutex_destroy(&chan->lock);
	pthread_cond_destroy(&chan->cond);
	free(chan);
}

/**
 * evt_tracepipe_create_channel_opts() - create channel @name with options.
 *
 * Return: 0 and *@chanp, or -EINVAL (bad name or options), -EEXIST
 * (something that is not a FIFO has the name), -ENOMEM, or the errno of
 * creating the directory or FIFO.
 */
int evt_tracepipe_create_channel_opts(const char *name, const struct evt_tracepipe_opts *opts,
				      struct evt_tracepipe_channel **chanp)
{
	struct evt_tracepipe_opts o = { 0 };
	struct evt_tracepipe_channel *chan;
	char dir[PATH_MAX], path[PATH_MAX + 8];
	size_t per_cpu_pages, slots_len;
	struct stat st;
	int ret, n;

	if (!chanp || !name || !name[0] || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || strlen(name) > 200)
		return -EINVAL;
	if (opts)
		o = *opts;
	if (!o.pages_per_cpu)
		o.pages_per_cpu = 16;
	if (o.pages_per_cpu < 2 || o.pages_per_cpu > 65536 ||
	    (o.pages_per_cpu & (o.pages_per_cpu - 1)) ||
	    (o.flags & ~(EVT_TRACEPIPE_VMSPLICE | EVT_TRACEPIPE_WRAP)) ||
	    ((o.flags & EVT_TRACEPIPE_VMSPLICE) && (o.flags & EVT_TRACEPIPE_WRAP)))
		return -EINVAL;
	if (!o.pipe_size)
		o.pipe_size = 1 << 20;
	if (o.dir) {
		if (strlen(o.dir) >= sizeof(dir))
			return -ENAMETOOLONG;
		strcpy(dir, o.dir);
	} else {
		ret = tp_default_dir(dir, sizeof(dir));
		if (ret)
			return ret;
		/* shared with the control sockets: ours, nobody else can write to it */
		ret = secdir_make(dir, NULL, NULL, 0);
		if (ret < 0)
			return ret;
		close(ret);
	}
	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path) - 8)
		return -ENAMETOOLONG;
	if (lstat(path, &st) == 0) {
		/* A FIFO left by an earlier run: take it over. Anything else is not ours. */
		if (!S_ISFIFO(st.st_mode))
			return -EEXIST;
		unlink(path);
	}
	if (mkfifo(path, 0600) < 0)
		return -errno;

	ret = -ENOMEM;
	chan = calloc(1, sizeof(*chan));
	if (!chan)
		goto err_unlink;
	chan->efd = -1;
	chan->wfd = -1;
	pthread_mutex_init(&chan->lock, NULL);
	pthread_cond_init(&chan->cond, NULL);
	chan->flags = o.flags;
	chan->pipe_size = o.pipe_size;
	chan->npages = o.pages_per_cpu;
	chan->nr_cpus = (unsigned int)tp_possible_cpus();
	chan->path = strdup(path);
	chan->missed_path = malloc(strlen(path) + 8);
	chan->cpus = aligned_alloc(EVT_CACHELINE, sizeof(*chan->cpus) * chan->nr_cpus);
	/* every page once, plus as many pages thrown away (wrap) that wait for their turn */
	chan->qcap = 2 * (uint64_t)chan->nr_cpus * chan->npages;
	chan->q = calloc(chan->qcap, sizeof(*chan->q));
	if (!chan->path || !chan->missed_path || !chan->cpus || !chan->q)
		goto err_free;
	strcpy(chan->missed_path, path);
	strcat(chan->missed_path, ".missed");
	memset(chan->cpus, 0, sizeof(*chan->cpus) * chan->nr_cpus);

	/* Pages first (page aligned: vmsplice gives whole pages), then the counters. */
	per_cpu_pages = (size_t)chan->npages * TP_PSZ;
	slots_len = ALIGN_UP((size_t)chan->npages * sizeof(struct tp_slot), (size_t)EVT_CACHELINE);
	chan->mem_len =
		ALIGN_UP(((size_t)chan->nr_cpus) * (per_cpu_pages + slots_len), (size_t)TP_PSZ);
	chan->mem = mmap(NULL, chan->mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (chan->mem == MAP_FAILED) {
		chan->mem = NULL;
		goto err_free;
	}
	for (unsigned int i = 0; i < chan->nr_cpus; i++) {
		struct tp_cpu *c = &chan->cpus[i];

		c->pages = chan->mem + (size_t)i * per_cpu_pages;
		c->slots = (struct tp_slot *)(chan->mem + (size_t)chan->nr_cpus * per_cpu_pages +
					      (size_t)i * slots_len);
		c->avail = chan->npages;
	}
	chan->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (chan->efd < 0) {
		ret = -errno;
		goto err_free;
	}
	tp_stream_info_init(chan);
	chan->rseq = rseq_ops_init();
	/* rseq writers index CPUs by the CPU they run on: need one per possible CPU. */
	if (chan->rseq && chan->nr_cpus < (unsigned int)tp_possible_cpus())
		chan->rseq = 0;
	chan->missed_shown = UINT64_MAX;
	tp_show_missed(chan, 1);
	ret = -pthread_create(&chan->thread, NULL, tp_flusher, chan);
	if (ret)
		goto err_free;
	tp_register(chan);
	*chanp = chan;
	return 0;

err_free:
	if (chan && chan->missed_path)
		unlink(chan->missed_path);
	if (chan)
		tp_free(chan);
err_unlink:
	unlink(path);
	return ret;
}

/**
 * evt_tracepipe_create_channel() - create channel @name: the FIFO
 * $XDG_RUNTIME_DIR/evtrace/@name (or /tmp/evtrace-<uid>/@name), 16 pages
 * per CPU, pages handed with write().
 */
int evt_tracepipe_create_channel(const char *name, struct evt_tracepipe_channel **chanp)
{
	return evt_tracepipe_create_channel_opts(name, NULL, chanp);
}

/* Under chan->lock: does a reader hold the FIFO open? */
static int tp_reader_alive(struct evt_tracepipe_channel *chan)
{
	struct pollfd pfd = { .fd = chan->wfd, .events = 0 };

	if (chan->wfd < 0)
		return 0;
	if (poll(&pfd, 1, 0) < 0)
		return 1;
	return !(pfd.revents & (POLLERR | POLLHUP));
}

/**
 * evt_tracepipe_readers() - 1 if a reader holds the channel's FIFO open
 * (events are being recorded), else 0.
 */
int evt_tracepipe_readers(struct evt_tracepipe_channel *chan)
{
	int alive;

	if (!chan)
		return -EINVAL;
	if (chan->forked)
		return 0; /* nothing is recorded in a fork() child */
	pthread_mutex_lock(&chan->lock);
	alive = tp_reader_alive(chan);
	pthread_mutex_unlock(&chan->lock);
	return alive;
}

/**
 * evt_tracepipe_remove_channel() - remove the FIFO and free @chan.
 *
 * In a fork() child, only the child's copy is freed: the FIFO, its files
 * and the flusher are the parent's.
 *
 * Return: 0, or -EBUSY while a reader holds the FIFO open (nothing is
 * changed then), -EINVAL for NULL.
 */
int evt_tracepipe_remove_channel(struct evt_tracepipe_channel *chan)
{
	int rfd;

	if (!chan)
		return -EINVAL;
	if (chan->forked) {
		tp_unregister(chan);
		/* The locks may have been held by a thread of the parent at fork(): fresh ones. */
		pthread_mutex_init(&chan->lock, NULL);
		pthread_cond_init(&chan->cond, NULL);
		tp_free(chan);
		return 0;
	}
	pthread_mutex_lock(&chan->lock);
	if (tp_reader_alive(chan)) {
		pthread_mutex_unlock(&chan->lock);
		return -EBUSY;
	}
	chan->stop = 1;
	pthread_mutex_unlock(&chan->lock);
	tp_wake_flusher(chan);
	/* The flusher may be waiting for a reader in open(): be one until it has left. */
	rfd = open(chan->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	pthread_join(chan->thread, NULL);
	if (rfd >= 0)
		close(rfd);
	unlink(chan->path);
	unlink(chan->missed_path);
	tp_unregister(chan);
	tp_free(chan);
	return 0;
}

/**
 * evt_tracepipe_flush() - hand every recorded event to the pipe now:
 * close the CPUs' open pages and wait until all complete pages are in
 * the pipe (not necessarily read).
 *
 * Return: 0; -EPIPE if no reader is attached (or it left meanwhile);
 * -ECHILD in a fork() child (no flusher there).
 */
int evt_tracepipe_flush(struct evt_tracepipe_channel *chan)
{
	uint64_t req;
	int err;

	if (!chan)
		return -EINVAL;
	if (chan->forked)
		return -ECHILD;
	pthread_mutex_lock(&chan->lock);
	if (chan->wfd < 0) {
		pthread_mutex_unlock(&chan->lock);
		return -EPIPE;
	}
	req = ++chan->flush_req;
	pthread_mutex_unlock(&chan->lock);
	tp_wake_flusher(chan);
	pthread_mutex_lock(&chan->lock);
	while (chan->flush_done < req)
		pthread_cond_wait(&chan->cond, &chan->lock);
	err = chan->flush_err;
	pthread_mutex_unlock(&chan->lock);
	return err;
}

/** evt_tracepipe_missed() - events dropped for lack of a free page, all CPUs. */
uint64_t evt_tracepipe_missed(const struct evt_tracepipe_channel *chan)
{
	return chan ? tp_missed_sum(chan) : 0;
}

/** evt_tracepipe_path() - the FIFO's path. */
const char *evt_tracepipe_path(const struct evt_tracepipe_channel *chan)
{
	return chan ? chan->path : NULL;
}
