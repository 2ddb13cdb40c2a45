// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf/rb_reader.c - the read side: consuming reads (peek, consume,
 * read_page), iterators, and the statistics built on them.
 *
 * A consumer never reads an event in place. It copies committed data
 * out of the ring into its own "reader page" (the kernel swaps a page
 * out of the ring instead; a copy gives the same guarantee - writers can
 * never change what the consumer is looking at - without letting the
 * consumer touch the writers' structures), then claims what it copied
 * by advancing read_pos with a CAS:
 *
 *   1. read read_pos (r, roff), the write state (wseq, woff) and the
 *      commit count c of page r (acquire: pairs with the commits' release
 *      adds, so every byte c covers is visible).
 *   2. r < wseq: page r is closed; it is complete when c reaches the end
 *      of its lap, and then everything from roff to its end is readable.
 *      r == wseq: the page is current; the prefix up to woff is readable
 *      only if c - lap base == woff: committed bytes are a subset of the
 *      reserved ones, so equal counts mean equal sets. (Loading c before
 *      w makes this sound: both only grow.)
 *   3. copy (from the page's start: see 4), then CAS read_pos from
 *      (r, roff) to the end of what was copied. In overwrite mode a writer that wants page r's slot first
 *      CASes read_pos past r (rb_frontend.c): if that happened, our CAS
 *      fails and the copy is dropped - the writer counted those events
 *      as overruns. If our CAS succeeds, the writer's later push reads
 *      our value, so our copy happened-before its rewrite of the page.
 *   4. validate the copy (rb_scan): lengths and types are checked against
 *      the bytes copied, whether the ring is ours or another process's.
 *      The time base at roff is the page's time stamp plus the deltas of
 *      the entries before roff (rb_time_at), never a value remembered
 *      from our last take: read_pos may have been left inside the page by
 *      another consumer (a killed recorder, an earlier extract, a swap).
 *
 * Iterators do not claim: they copy, then check after an acquire fence
 * that read_pos has not passed the page (a writer moves read_pos past a
 * page before it reuses its slot), like a seqlock reader.
 *
 * Per CPU, one consumer at a time in this process (reader_lock). Another
 * process may consume from the same CPU buffer meanwhile (`evtrace record`
 * beside the traced program's own trace_pipe): each chunk still goes to
 * exactly one of them (the claim's CAS), read_events takes locked adds,
 * and the time base comes from the page (step 4); each one's count of
 * lost events (lost_seen) is its own, so both report a loss.
 *
 * read_events: a consumer counts what it consumes from its reader page in
 * rp_consumed and adds it to the shared count once the chunk's data
 * entries are all consumed (rb_read_flush()): one locked add per chunk,
 * where one per event cost ~5 ns, a fifth of a consume. This process's
 * statistics add rp_consumed, so they are exact per event; another
 * process sees a consumer's count a chunk at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringbuf/rb_internal.h"

#define RB_TAKE_TRIES	64	/* bound on retries against a hostile or racing ring */

uint64_t rb_cpu_lost(const struct rb_cpu *cb)
{
	/* (counters another process wrote wild read as 0: rb_counter()) */
	return rb_counter(&cb->shm->overrun) + rb_counter(&cb->shm->dropped) + cb->corrupt;
}

/* Context: reader_lock held (or the CPU quiesced with it held). */
void rb_reader_clear(struct rb_cpu *cb)
{
	cb->rp_pos = 0;
	cb->rp_end = 0;
	cb->rp_ts = 0;
	cb->corrupt = 0;
	cb->lost_seen = 0;
	cb->rp_left = 0;
	/* Relaxed: the caller zeroed read_events too; a statistic. */
	st_relaxed(&cb->rp_consumed, 0);
}

/**
 * rb_read_flush() - add what this consumer consumed to the shared read_events.
 * @cb: the CPU buffer.
 * @more: events consumed now, besides those counted in rp_consumed.
 *
 * Context: reader_lock held.
 */
void rb_read_flush(struct rb_cpu *cb, uint64_t more)
{
	/* Relaxed: only this thread writes it (reader_lock). */
	uint64_t n = ld_relaxed(&cb->rp_consumed) + more;

	if (!n)
		return;
	/*
	 * Zeroed before the add, and the add is a release: a statistic that
	 * reads read_events with acquire and then rp_consumed sees the zero
	 * whenever it sees the sum, so it may count the chunk short while
	 * this runs, never twice (evt_ring_buffer_read_events_cpu()).
	 */
	st_relaxed(&cb->rp_consumed, 0);
	/*
	 * A locked add: another process's consumer may take from this CPU
	 * buffer too and count into the same word.
	 */
	add_release(&cb->shm->read_events, n);
}

/*
 * What of page r can be read now? Sets *limit (end of readable bytes) and
 * *closed. Return: 1 readable, 0 nothing yet, -ESTALE the page's slot was
 * reused (read_pos has moved on), -EBADMSG impossible positions.
 */
static int rb_readable(const struct evt_ring_buffer *rb, const struct rb_cpu *cb,
		       const unsigned char *data, uint32_t order, uint64_t r, uint32_t roff,
		       uint32_t *limit, bool *closed)
{
	uint64_t base = rb_lap_base(rb, order, r), c, ts, wpos, wseq;
	uint32_t woff;

	c = rb_slot_committed(rb, (unsigned char *)data, order, r);
	pair_load(&cb->shm->w, &ts, &wpos);
	wseq = RB_POS_SEQ(wpos);
	woff = RB_POS_OFF(wpos);
	if (woff > rb->data_size || (woff & 3) || roff > rb->data_size || (roff & 3))
		return -EBADMSG;
	if (r > wseq)
		return 0;
	if (r < wseq) {
		/*
		 * A ring holds 2^order pages: a writer never gets further ahead
		 * of read_pos. Further ahead of r, r's slot was reused (read
		 * read_pos again), or the positions were written by somebody
		 * else: then the caller's bounded retries end the walk, rather
		 * than following a sequence that runs on for 2^44 pages.
		 */
		if (c > base + rb->data_size || wseq - r >= (UINT64_C(1) << order))
			return -ESTALE;
		if (c != base + rb->data_size)
			return 0;	/* a writer of page r has not committed yet */
		*limit = rb->data_size;
		*closed = true;
		return 1;
	}
	if (c < base || c - base != woff || roff >= woff)
		return 0;
	*limit = woff;
	*closed = false;
	return 1;
}

/*
 * Take the next committed chunk of the ring into the reader page.
 * Context: reader_lock held.
 * Return: 1 if the reader page has new entries, 0 if nothing, < 0 error.
 */
static int rb_take(struct evt_ring_buffer *rb, struct rb_cpu *cb)
{
	struct rb_cpu_shm *shm = cb->shm;
	unsigned char *rdata = cb->rpage + EVT_RB_PAGE_HDR_SIZE;

	for (int tries = 0; tries < RB_TAKE_TRIES; tries++) {
		uint64_t rp, ov, nrp, r, events, pts;
		uint32_t roff, limit, end, order;
		const struct rb_page *page;
		unsigned char *data;
		bool closed;
		int ret;

		ret = rb_cpu_refresh_layout(rb, cb);
		if (ret < 0)
			return ret == -EAGAIN ? 0 : ret;
		/* the chunk we leave is counted (no-op once its last entry was) */
		rb_read_flush(cb, 0);
		cb->rp_left = 0;
		rb_cpu_layout(cb, &data, &order);
		pair_load(rb_rd(shm), &rp, &ov);
		/*
		 * A control operation of the process that owns the buffer (resize,
		 * reset, swap) holds read_pos at the sentinel while it moves things:
		 * nothing to read now. Only a consumer in another process sees it
		 * (in-process ones hold the reader lock the operation takes); it
		 * was taken for a corrupt position, and ended `evtrace record`.
		 */
		if (rp == RB_READ_POS_LOCKED)
			return 0;
		/*
		 * Acquire (the load of read_pos is one too): the operation
		 * published its new layout before its final read_pos, so a
		 * read_pos of the new layout shows with its layout_seq. Reading
		 * it with the mapping of the old one would compute the wrong
		 * slots: take the new layout first.
		 */
		if (rb->mapped && ld_acquire(&shm->layout_seq) != cb->layout_seq)
			continue;
		r = RB_POS_SEQ(rp);
		roff = RB_POS_OFF(rp);
		ret = rb_readable(rb, cb, data, order, r, roff, &limit, &closed);
		if (ret == -ESTALE)
			continue;	/* pushed by a writer: read read_pos again */
		if (ret <= 0)
			return ret;
		page = rb_cpu_page(rb, data, order, r);
		/*
		 * The page from its start, header time stamp included, even when
		 * read_pos is inside it: the entries before roff give the time
		 * base at roff (rb_time_at), which is not ours to remember -
		 * another consumer (a killed recorder, an earlier extract, the
		 * other side of a swap) may have taken them.
		 * Producer/consumer: no writer touches page r before we claim it,
		 * and the acquire on its commit count ordered its bytes (those
		 * before roff were committed before someone claimed them): a
		 * plain copy. Overwrite: a writer may be rewriting it (then our
		 * claim fails and the copy is dropped).
		 */
		if (rb->overwrite) {
			rb_copy_racy(rdata, page->data, limit);
			rb_copy_racy(cb->rpage, &page->time_stamp, sizeof(uint64_t));
		} else {
			memcpy(rdata, page->data, limit);
			memcpy(cb->rpage, &page->time_stamp, sizeof(uint64_t));
		}
		nrp = closed ? RB_POS(r + 1, 0) : RB_POS(r, limit);
		/* Release: our copy is ordered before the claim (see step 3 above). */
		if (!pair_cas(rb_rd(shm), rp, ov, nrp, ov))
			continue;
		if (rb_scan(rdata, roff, limit, closed, &end, &events) < 0) {
			cb->corrupt++;	/* the valid prefix is still delivered */
			/* Relaxed: a flag for the next quiesce (rb_cpu_check()). */
			st_relaxed(&cb->tainted, 1);
		}
		memcpy(&pts, cb->rpage, sizeof(uint64_t));
		if (rb_time_at(rdata, roff, pts, &cb->rp_ts) < 0)
			cb->corrupt++;	/* read_pos is not on an entry: times from where it broke */
		cb->rp_pos = roff;
		cb->rp_end = end;
		cb->rp_left = (uint32_t)events;
		if (end > roff)
			return 1;
	}
	return 0;
}

/*
 * Next data entry of a validated copy, between *@pos and @end; padding
 * and time entries on the way are stepped over, their deltas applied to
 * *@base (the time of the entry before *@pos). With @advance, step past
 * the returned entry too. Return: the entry, or NULL at @end.
 */
static struct evt_ring_buffer_event *rb_chunk_next(unsigned char *data, uint32_t *pos,
						   uint32_t end, uint64_t *base, uint64_t *ts,
						   bool advance)
{
	while (*pos < end) {
		unsigned char *p = data + *pos;
		uint64_t t;
		uint32_t len;
		int type = rb_entry_parse(p, end - *pos, &len);

		if (type < 0) {		/* cannot happen after rb_scan; be safe */
			*pos = end;
			break;
		}
		t = rb_entry_ts(p, *base);
		if (type <= EVT_RINGBUF_TYPE_DATA_TYPE_LEN_MAX) {
			if (ts)
				*ts = t;
			if (advance) {
				*pos += len;
				*base = t;
			}
			return (struct evt_ring_buffer_event *)p;
		}
		*pos += len;
		*base = t;
	}
	return NULL;
}

/*
 * One more event consumed from the reader page: counted in rp_consumed,
 * and with the chunk's last one, in the shared read_events (a locked add
 * once per chunk: two consumers may take from one CPU buffer at once,
 * trace_pipe in the traced process beside `evtrace record`, and a load +
 * store of the shared word lost the other's counts).
 * Context: reader_lock held.
 */
static inline void rb_read_count(struct rb_cpu *cb)
{
	if (cb->rp_left > 1) {
		cb->rp_left--;
		/*
		 * Relaxed load + store, no locked add: only this thread writes
		 * it (reader_lock); the statistics read it (atomic).
		 */
		st_relaxed(&cb->rp_consumed, ld_relaxed(&cb->rp_consumed) + 1);
		return;
	}
	cb->rp_left = 0;
	rb_read_flush(cb, 1);
}

/*
 * Next data event in the reader page, taking more from the ring when it
 * runs dry. Context: reader_lock held.
 */
static struct evt_ring_buffer_event *rb_reader_next(struct evt_ring_buffer *rb, struct rb_cpu *cb,
						    uint64_t *ts, bool consume)
{
	unsigned char *rdata = cb->rpage + EVT_RB_PAGE_HDR_SIZE;
	struct evt_ring_buffer_event *ev;

	do {
		ev = rb_chunk_next(rdata, &cb->rp_pos, cb->rp_end, &cb->rp_ts, ts, consume);
		if (ev) {
			if (consume)
				rb_read_count(cb);
			return ev;
		}
	} while (rb_take(rb, cb) > 0);
	return NULL;
}

static struct evt_ring_buffer_event *rb_read(struct evt_ring_buffer *rb, int cpu, uint64_t *ts,
					     unsigned long *lost_events, bool consume)
{
	struct evt_ring_buffer_event *ev;
	struct rb_cpu *cb;

	if (!rb_cpu_valid(rb, cpu))
		return NULL;
	cb = &rb->cpus[cpu];
	pthread_mutex_lock(&cb->reader_lock);
	ev = rb_reader_next(rb, cb, ts, consume);
	if (ev && lost_events) {
		uint64_t lost = rb_cpu_lost(cb);

		*lost_events = (unsigned long)(lost - cb->lost_seen);
		if (consume)
			cb->lost_seen = lost;
	}
	pthread_mutex_unlock(&cb->reader_lock);
	return ev;
}

struct evt_ring_buffer_event *evt_ring_buffer_peek(struct evt_ring_buffer *rb, int cpu,
						   uint64_t *ts, unsigned long *lost_events)
{
	return rb_read(rb, cpu, ts, lost_events, false);
}

struct evt_ring_buffer_event *evt_ring_buffer_consume(struct evt_ring_buffer *rb, int cpu,
						      uint64_t *ts, unsigned long *lost_events)
{
	return rb_read(rb, cpu, ts, lost_events, true);
}

/*
 * The merge of the CPU buffers, for a reader that shows one stream in time order (trace_pipe).
 * One thread's records are in time order even when it migrates between CPUs, and the merge
 * must keep them so. A scan that looks at the CPUs one after another does not: CPU 0 looked
 * at while empty, then its writer commits seq N there, moves to CPU 1 and commits N + 1,
 * which the scan then finds and returns before N. So a scan's candidate is confirmed by a
 * whole second scan begun after it was seen: every record its writer made before it was
 * committed before the candidate was seen, so that scan sees it (unless another consumer
 * took it) and it is older. Scans go on until two in a row agree, PEEK_OLDEST_SCANS at most
 * (writers that keep committing older records on other CPUs under the reader's feet: the
 * last scan's answer is returned, in time order as far as it could see).
 */
#define PEEK_OLDEST_SCANS 8

static int peek_scan(struct evt_ring_buffer *rb, int lo, int hi,
		     struct evt_ring_buffer_event **evp, uint64_t *tsp, unsigned long *lostp)
{
	int best = -1;

	for (int c = lo; c < hi; c++) {
		struct evt_ring_buffer_event *ev;
		unsigned long lost = 0;
		uint64_t ts;

		ev = rb_read(rb, c, &ts, &lost, false);
		if (ev && (best < 0 || ts < *tsp)) {
			best = c;
			*evp = ev;
			*tsp = ts;
			*lostp = lost;
		}
	}
	return best;
}

int evt_ring_buffer_peek_oldest(struct evt_ring_buffer *rb, int cpu_lo, int cpu_hi,
				struct evt_ring_buffer_event **event, uint64_t *ts,
				unsigned long *lost_events)
{
	struct evt_ring_buffer_event *ev = NULL, *ev2 = NULL;
	unsigned long lost = 0, lost2 = 0;
	uint64_t t = 0, t2 = 0;
	int best, again;

	if (!rb || cpu_lo < 0 || cpu_hi > rb->nr_cpus || cpu_lo >= cpu_hi)
		return -EINVAL;
	best = peek_scan(rb, cpu_lo, cpu_hi, &ev, &t, &lost);
	for (int i = 1; best >= 0 && cpu_hi - cpu_lo > 1 && i < PEEK_OLDEST_SCANS; i++) {
		again = peek_scan(rb, cpu_lo, cpu_hi, &ev2, &t2, &lost2);
		if (again == best && t2 == t)
			break;
		best = again;
		ev = ev2;
		t = t2;
		lost = lost2;
	}
	if (best < 0)
		return -ENODATA;
	if (event)
		*event = ev;
	if (ts)
		*ts = t;
	if (lost_events)
		*lost_events = lost;
	return best;
}

int evt_ring_buffer_read_page(struct evt_ring_buffer *rb, int cpu, void *page, size_t len)
{
	unsigned char *out = page, *rdata;
	uint32_t commit, flags = 0;
	struct rb_cpu *cb;
	uint64_t lost, events = 0;
	int ret = 0;

	if (!rb_cpu_valid(rb, cpu) || !page || len < rb->page_size)
		return -EINVAL;
	cb = &rb->cpus[cpu];
	pthread_mutex_lock(&cb->reader_lock);
	if (cb->rp_pos >= cb->rp_end) {
		ret = rb_take(rb, cb);
		if (ret <= 0) {
			ret = ret ? ret : -EAGAIN;
			goto out_unlock;
		}
	}
	rdata = cb->rpage + EVT_RB_PAGE_HDR_SIZE;
	commit = cb->rp_end - cb->rp_pos;
	memcpy(out + EVT_RB_PAGE_HDR_SIZE, rdata + cb->rp_pos, commit);
	memset(out + EVT_RB_PAGE_HDR_SIZE + commit, 0, rb->data_size - commit);
	/* The page's time base is the time of the entry before its first one. */
	memcpy(out, &cb->rp_ts, sizeof(uint64_t));

	while (rb_chunk_next(rdata, &cb->rp_pos, cb->rp_end, &cb->rp_ts, NULL, true))
		events++;
	/* the rest of the chunk, with what consume() took of it: one locked add */
	cb->rp_left = 0;
	rb_read_flush(cb, events);

	lost = rb_cpu_lost(cb);
	if (lost != cb->lost_seen) {
		flags = EVT_RB_PAGE_MISSED_EVENTS;
		if (commit + sizeof(uint64_t) <= rb->data_size) {
			uint64_t n = lost - cb->lost_seen;

			memcpy(out + EVT_RB_PAGE_HDR_SIZE + commit, &n, sizeof(n));
			flags |= EVT_RB_PAGE_MISSED_STORED;
		}
		cb->lost_seen = lost;
	}
	{
		uint64_t cw = commit | flags;

		memcpy(out + 8, &cw, sizeof(cw));
	}
	ret = (int)commit;
out_unlock:
	pthread_mutex_unlock(&cb->reader_lock);
	return ret;
}

/* ---- iterators --------------------------------------------------------------- */

struct evt_ring_buffer_iter {
	struct evt_ring_buffer *rb;
	struct rb_cpu *cb;
	unsigned char *buf;	/* page_size bytes: header, then data */
	uint32_t pos, end;	/* entries in buf */
	uint64_t ts;		/* time base for the entry at pos */
	uint64_t r;		/* ring position of the next chunk */
	uint32_t roff;
	uint64_t overrun_mark;	/* overrun count when the iterator was last at read_pos */
	uint64_t ring_read;	/* events returned from ring chunks since then */
	bool in_ring;		/* buf holds a ring chunk (not the reader page's rest) */
	unsigned long lost;
};

/* Start from the consumer's position: its unread reader page, then the ring. */
static void rb_iter_start(struct evt_ring_buffer_iter *it)
{
	struct rb_cpu *cb = it->cb;
	uint64_t rp;

	pthread_mutex_lock(&cb->reader_lock);
	rb_cpu_refresh_layout(it->rb, cb);
	it->pos = cb->rp_pos;
	it->end = cb->rp_end;
	it->ts = cb->rp_ts;
	if (it->end > it->pos)
		memcpy(it->buf + EVT_RB_PAGE_HDR_SIZE + it->pos,
		       cb->rpage + EVT_RB_PAGE_HDR_SIZE + it->pos, it->end - it->pos);
	rb_rd_load(cb->shm, &rp, &it->overrun_mark);
	pthread_mutex_unlock(&cb->reader_lock);
	it->r = RB_POS_SEQ(rp);
	it->roff = RB_POS_OFF(rp);
	it->ring_read = 0;
	it->in_ring = false;
}

/* Copy the next committed chunk at (r, roff) into the iterator. Return 1/0. */
static int rb_iter_fill(struct evt_ring_buffer_iter *it)
{
	struct evt_ring_buffer *rb = it->rb;
	struct rb_cpu *cb = it->cb;
	unsigned char *bdata = it->buf + EVT_RB_PAGE_HDR_SIZE;

	for (int tries = 0; tries < RB_TAKE_TRIES; tries++) {
		uint32_t limit, end, order;
		unsigned char *data;
		const struct rb_page *page;
		uint64_t rp, ov, events, pts;
		bool closed;
		int ret;

		rb_cpu_layout(cb, &data, &order);
		if (!data)
			return 0;
		ret = rb_readable(rb, cb, data, order, it->r, it->roff, &limit, &closed);
		if (ret == 0 || ret == -EBADMSG)
			return 0;
		if (ret > 0) {
			page = rb_cpu_page(rb, data, order, it->r);
			/*
			 * From the page's start, as rb_take(): the time base at roff
			 * comes from the entries before it (the iterator may have
			 * jumped to a read_pos a consumer left inside the page).
			 */
			rb_copy_racy(bdata, page->data, limit);
			rb_copy_racy(it->buf, &page->time_stamp, sizeof(uint64_t));
			/*
			 * Seqlock-style check: the copies above are ordered before
			 * the load of read_pos below, which proves no writer reused
			 * the slot while we copied (a writer moves read_pos past a
			 * page before it rewrites it).
			 */
			fence_acquire();
		}
		rb_rd_load(cb->shm, &rp, &ov);
		if (rp == RB_READ_POS_LOCKED)
			return 0;	/* a resize or swap is moving things: nothing now */
		if (ret < 0 || RB_POS_SEQ(rp) > it->r) {
			/*
			 * The page was consumed or overwritten under us: jump to
			 * read_pos. Writers push read_pos in page order and count what
			 * they push past, so the overruns since our mark are the events
			 * from the mark to read_pos: those we returned, and those we
			 * skip; the pair is read as one (rb_rd_load). Exact when no
			 * consumer moves read_pos meanwhile; what a consumer takes is not
			 * counted as lost: it was read.
			 */
			if (RB_POS_SEQ(rp) <= it->r) {
				/*
				 * The slot was reused, yet read_pos is not past it: the
				 * ring contradicts itself (another process wrote garbage).
				 * Step over the page rather than go back.
				 */
				it->r++;
				it->roff = 0;
				it->lost++;
				continue;
			}
			if (ov - it->overrun_mark > it->ring_read)
				it->lost += (unsigned long)(ov - it->overrun_mark - it->ring_read);
			it->overrun_mark = ov;
			it->ring_read = 0;
			it->r = RB_POS_SEQ(rp);
			it->roff = RB_POS_OFF(rp);
			continue;
		}
		rb_scan(bdata, it->roff, limit, closed, &end, &events);
		memcpy(&pts, it->buf, sizeof(uint64_t));
		rb_time_at(bdata, it->roff, pts, &it->ts);
		it->pos = it->roff;
		it->end = end;
		it->in_ring = true;
		if (closed) {
			it->r++;
			it->roff = 0;
		} else {
			it->roff = limit;
		}
		if (end > it->pos)
			return 1;
	}
	return 0;
}

static struct evt_ring_buffer_event *rb_iter_next(struct evt_ring_buffer_iter *it, uint64_t *ts,
						  bool advance)
{
	struct evt_ring_buffer_event *ev;

	if (!it)
		return NULL;
	do {
		ev = rb_chunk_next(it->buf + EVT_RB_PAGE_HDR_SIZE, &it->pos, it->end, &it->ts, ts,
				   advance);
		if (ev) {
			if (advance)
				it->ring_read += it->in_ring;
			return ev;
		}
	} while (rb_iter_fill(it));
	return NULL;
}

int evt_ring_buffer_read_start(struct evt_ring_buffer *rb, int cpu,
			       struct evt_ring_buffer_iter **iterp)
{
	struct evt_ring_buffer_iter *it;

	if (!iterp)
		return -EINVAL;
	*iterp = NULL;
	if (!rb_cpu_valid(rb, cpu))
		return -EINVAL;
	it = calloc(1, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->buf = calloc(1, rb->page_size);
	if (!it->buf) {
		free(it);
		return -ENOMEM;
	}
	it->rb = rb;
	it->cb = &rb->cpus[cpu];
	rb_iter_start(it);
	*iterp = it;
	return 0;
}

void evt_ring_buffer_read_finish(struct evt_ring_buffer_iter *iter)
{
	if (!iter)
		return;
	free(iter->buf);
	free(iter);
}

struct evt_ring_buffer_event *evt_ring_buffer_iter_peek(struct evt_ring_buffer_iter *iter,
							uint64_t *ts)
{
	return rb_iter_next(iter, ts, false);
}

struct evt_ring_buffer_event *evt_ring_buffer_read(struct evt_ring_buffer_iter *iter,
						   uint64_t *ts)
{
	return rb_iter_next(iter, ts, true);
}

void evt_ring_buffer_iter_reset(struct evt_ring_buffer_iter *iter)
{
	if (!iter)
		return;
	iter->lost = 0;
	rb_iter_start(iter);
}

bool evt_ring_buffer_iter_empty(struct evt_ring_buffer_iter *iter)
{
	return rb_iter_next(iter, NULL, false) == NULL;
}

unsigned long evt_ring_buffer_iter_lost(const struct evt_ring_buffer_iter *iter)
{
	return iter ? iter->lost : 0;
}

/* ---- statistics ----------------------------------------------------------------- */

unsigned long evt_ring_buffer_entries_cpu(struct evt_ring_buffer *rb, int cpu)
{
	struct evt_ring_buffer_iter *it;
	unsigned long n = 0;

	if (evt_ring_buffer_read_start(rb, cpu, &it) < 0)
		return 0;
	while (evt_ring_buffer_read(it, NULL))
		n++;
	evt_ring_buffer_read_finish(it);
	return n;
}

unsigned long evt_ring_buffer_entries(struct evt_ring_buffer *rb)
{
	unsigned long n = 0;

	for (int cpu = 0; rb && cpu < rb->nr_cpus; cpu++)
		n += evt_ring_buffer_entries_cpu(rb, cpu);
	return n;
}

bool evt_ring_buffer_empty_cpu(struct evt_ring_buffer *rb, int cpu)
{
	struct evt_ring_buffer_iter *it;
	bool empty;

	if (evt_ring_buffer_read_start(rb, cpu, &it) < 0)
		return true;
	empty = evt_ring_buffer_iter_empty(it);
	evt_ring_buffer_read_finish(it);
	return empty;
}

bool evt_ring_buffer_empty(struct evt_ring_buffer *rb)
{
	for (int cpu = 0; rb && cpu < rb->nr_cpus; cpu++)
		if (!evt_ring_buffer_empty_cpu(rb, cpu))
			return false;
	return true;
}

/*
 * The counters live in shared memory: one another process wrote wild reads
 * as 0 (rb_counter()) and the CPU buffer counts as corrupt.
 */
unsigned long evt_ring_buffer_overrun_cpu(const struct evt_ring_buffer *rb, int cpu)
{
	return rb_cpu_valid(rb, cpu) ? rb_counter(&rb->cpus[cpu].shm->overrun) : 0;
}

unsigned long evt_ring_buffer_dropped_events_cpu(const struct evt_ring_buffer *rb, int cpu)
{
	return rb_cpu_valid(rb, cpu) ? rb_counter(&rb->cpus[cpu].shm->dropped) : 0;
}

unsigned long evt_ring_buffer_read_events_cpu(const struct evt_ring_buffer *rb, int cpu)
{
	const struct rb_cpu *cb;
	uint64_t n;

	if (!rb_cpu_valid(rb, cpu))
		return 0;
	cb = &rb->cpus[cpu];
	/*
	 * Acquire: pairs with rb_read_flush()'s release add, made after it
	 * zeroed rp_consumed: a sum that includes the chunk comes with the
	 * zero (the chunk never counts twice).
	 */
	n = ld_acquire(&cb->shm->read_events);
	if (n > RB_COUNTER_MAX)
		n = 0;	/* written wild by another process, as rb_counter() */
	/* Relaxed: this process's consumer's count not yet in the shared word. */
	return (unsigned long)(n + ld_relaxed(&cb->rp_consumed));
}

unsigned long evt_ring_buffer_corrupt_cpu(const struct evt_ring_buffer *rb, int cpu)
{
	const struct rb_cpu *cb;

	if (!rb_cpu_valid(rb, cpu))
		return 0;
	cb = &rb->cpus[cpu];
	/* Relaxed: a statistic; rb_cpu_rebuild() adds to it under the control lock. */
	return (unsigned long)ld_relaxed(&cb->rebuilt) +
	       (rb_cpu_suspect(rb, cb) || ld_relaxed(&cb->tainted));
}

unsigned long evt_ring_buffer_overruns(const struct evt_ring_buffer *rb)
{
	unsigned long n = 0;

	for (int cpu = 0; rb && cpu < rb->nr_cpus; cpu++)
		n += evt_ring_buffer_overrun_cpu(rb, cpu);
	return n;
}

unsigned long evt_ring_buffer_dropped_events(const struct evt_ring_buffer *rb)
{
	unsigned long n = 0;

	for (int cpu = 0; rb && cpu < rb->nr_cpus; cpu++)
		n += evt_ring_buffer_dropped_events_cpu(rb, cpu);
	return n;
}
