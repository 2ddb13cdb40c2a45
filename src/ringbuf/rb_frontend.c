// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf/rb_frontend.c - the write path: reserve, commit, discard, and
 * turning recording on and off.
 *
 * Algorithm: per-CPU write state {ts, pos} advanced by a 16-byte CAS
 * (see rb_internal.h), with cumulative per-page commit counters in the
 * style of LTTng-UST's frontend (Desnoyers, "Low-Impact Operating System
 * Tracing", 2009) and the kernel's event encoding (ring_buffer.c).
 *
 * Actors:
 *   writers     any thread, any number per CPU, preempted or migrated at
 *               any instruction; a writer's CPU is only a hint for which
 *               per-CPU buffer to use.
 *   nested      a signal handler that writes while the thread it
 *               interrupted is anywhere in here. It is just one more
 *               writer: nothing below waits for anybody, so it cannot
 *               deadlock on the code it interrupted.
 *   consumer    one per CPU buffer (rb_reader.c), in this process or in
 *               another one mapping the memfd.
 *   control     resize/reset/swap/set_clock (rb_backend.c): quiesce a
 *               CPU by setting RB_TS_DISABLED, then wait for commits.
 *
 * A reservation (rb_reserve):
 *   1. read w = {ts, pos}; give up if RB_TS_DISABLED.
 *   2. read the clock; clamp it to ts, so times on a CPU never go back
 *      (another writer may have read a later clock and won the CAS first,
 *      or the thread just migrated from a CPU whose TSC is ahead).
 *   3. if the event (plus a time extend when now - ts needs more than
 *      27 bits) fits in the page, CAS w to {now, pos + size}. The CAS
 *      covers ts too: the delta written is exactly now - (time of the
 *      entry before), whatever raced with us.
 *   4. otherwise move to the next page (rb_reserve_next_page): check
 *      the page slot is free, then CAS w to {now, next page + size};
 *      the winner pads and commits the rest of the old page.
 *   Any failed CAS means somebody else reserved: start again at 1.
 *   There is no other loop, and no wait: a writer that cannot get space
 *   returns NULL and counts a drop.
 *
 * A commit adds the entry's length to the commit counter of its page
 * (found from the event address: pages are page_size aligned) with
 * release order, publishing the event's bytes to the consumer, who
 * reads the counter with acquire order and copies only data whose every
 * byte has been committed.
 */
#include <errno.h>
#include <string.h>

#include "clock/clock_internal.h"
#include "compat/cpu.h"
#include "compat/rseq.h"
#include "ringbuf/rb_internal.h"
#include "ringbuf/rb_writer.h"

#if EVT_HAVE_RSEQ_OPS
/* Which CPU buffer's pages hold @page? Slow: only for commits after a migration. */
static struct rb_cpu *rb_page_owner(struct evt_ring_buffer *rb, const struct rb_page *page)
{
	for (int i = 0; i < rb->nr_cpus; i++) {
		struct rb_cpu *cb = &rb->cpus[i];
		unsigned char *data;
		uint32_t order;
		size_t len;

		rb_cpu_layout(cb, &data, &order);
		len = (size_t)rb->page_size << order;

		if ((const unsigned char *)page >= data && (const unsigned char *)page < data + len)
			return cb;
	}
	return NULL;
}
#endif

static bool rb_cpu_owns(struct evt_ring_buffer *rb, int cpu, const void *ev)
{
	unsigned char *data;
	uint32_t order;

	rb_cpu_layout(&rb->cpus[cpu], &data, &order);
	return (const unsigned char *)ev >= data &&
	       (const unsigned char *)ev < data + ((size_t)rb->page_size << order);
}

bool rb_owns_event(struct evt_ring_buffer *rb, const void *ev)
{
	int cpu = evt_cpu_current();

	/* A CPU buffer's region cannot move under an uncommitted event (resize
	 * quiesces writers first), so its layout is stable for this test. The
	 * writer's CPU first: it reserved there unless it migrated since. */
	if (cpu >= 0 && cpu < rb->nr_cpus && rb_cpu_owns(rb, cpu, ev))
		return true;
	for (int i = 0; i < rb->nr_cpus; i++)
		if (i != cpu && rb_cpu_owns(rb, i, ev))
			return true;
	return false;
}

/**
 * rb_commit_bytes() - count @len bytes of @page as committed.
 * @rb: the buffer.
 * @page: a page of one of its CPU buffers.
 * @len: bytes of entries whose writing is finished.
 *
 * Release semantics: the entries' bytes are visible before the count
 * that covers them (x86 keeps stores in order, so the plain add of the
 * rseq path is a release too; the CAS path uses a release add).
 *
 * Context: any thread or signal handler.
 */
void rb_commit_bytes(struct evt_ring_buffer *rb, struct rb_page *page, uint32_t len)
{
#if EVT_HAVE_RSEQ_OPS
	if (rb->rseq) {
		struct rb_cpu *cb;

		for (;;) {
			unsigned int cpu = evt_rseq_cpu();
			unsigned char *data;
			uint32_t order;

			if (unlikely(cpu >= (unsigned int)rb->nr_cpus))
				break;
			cb = &rb->cpus[cpu];
			rb_cpu_layout(cb, &data, &order);
			if ((unsigned char *)page < data ||
			    (unsigned char *)page >= data + ((size_t)rb->page_size << order))
				break;	/* migrated since the reservation: remote */
			if (evt_rseq_addv(&page->commit, len, cpu) == 0)
				return;
		}
		cb = rb_page_owner(rb, page);
		if (likely(cb)) {
			unsigned char *data;
			uint32_t order;
			uint64_t slot;

			rb_cpu_layout(cb, &data, &order);
			slot = (uint64_t)((unsigned char *)page - data) >> rb->page_shift;
			add_release(rb_cpu_remote(rb, data, order, slot), len);
		}
		return;
	}
#endif
	(void)rb;
	add_release(&page->commit, len);
}

/* Has w changed since we read {ts, pos}? Decides between retry and drop. */
static bool rb_state_moved(struct rb_cpu_shm *shm, uint64_t ts, uint64_t pos)
{
	uint64_t ts2, pos2;

	pair_load(&shm->w, &ts2, &pos2);
	return ts2 != ts || pos2 != pos;
}

/*
 * Count the unread events of the page a writer is about to push the
 * consumer off, from offset @off. The page is complete, but once read_pos
 * has moved past it another writer may already be rewriting it: the count
 * is only used if the push CAS that follows succeeds, which proves nobody
 * had moved past it, so nobody was writing (the validate-after pattern of
 * rb_copy_racy(), and named in tests/tsan.supp for the same reason).
 * A malformed page counts what it can.
 */
static __attribute__((noinline)) uint64_t rb_count_racy(const struct evt_ring_buffer *rb,
							 const struct rb_page *page, uint32_t off)
{
	uint64_t events = 0;
	uint32_t end;

	if (off > rb->data_size || (off & 3))
		return 0;
	rb_scan(page->data, off, rb->data_size, true, &end, &events);
	return events;
}

/*
 * Is page @occ (complete in its lap) done with, all its bytes committed?
 * Acquire loads: a complete count means the page's bytes are visible.
 * @data may be a layout resize has just retired (we read w before the
 * quiesce): the range is then a read-only zero mapping, the answer is
 * garbage, and the CAS of w that follows fails. That read of a replaced
 * mapping is the one race here; tests/tsan.supp names this function for
 * it (TSan sees the mmap that replaced the range as a write).
 */
static __attribute__((noinline)) bool rb_occupant_complete(const struct evt_ring_buffer *rb,
							    unsigned char *data, uint32_t order,
							    uint64_t occ)
{
	return rb_slot_committed(rb, data, order, occ) ==
	       rb_lap_base(rb, order, occ) + rb->data_size;
}

/*
 * The current page is full: move the write state to the next page.
 * Context: a writer, or a signal handler nested in one. Lock-free.
 */
struct evt_ring_buffer_event *rb_reserve_next_page(struct evt_ring_buffer *rb, unsigned int cpu,
						   uint64_t ts, uint64_t pos, uint64_t now,
						   uint32_t size)
{
	struct rb_cpu *cb = &rb->cpus[cpu];
	struct rb_cpu_shm *shm = cb->shm;
	uint64_t seq = RB_POS_SEQ(pos), nseq = seq + 1;
	uint32_t off = RB_POS_OFF(pos);
	/*
	 * data/order may belong to a layout that resize has since replaced;
	 * then w has moved too (resize jumps pos) and the CAS below fails.
	 * Retired mappings stay readable (rb_backend.c), so the reads before
	 * the CAS are harmless.
	 */
	unsigned char *data;
	uint32_t order;
	uint64_t n;
	struct rb_page *page, *npage;
	unsigned char *ev;

	if (unlikely(off > rb->data_size || (off & 3))) {
		/*
		 * No writer of ours leaves such an offset: another process wrote
		 * w. Go on (the padding below stays in the page); the next control
		 * operation rebuilds the CPU buffer (rb_backend.c, "A corrupt CPU
		 * buffer"). Relaxed: a flag it reads under its quiesce.
		 */
		st_relaxed(&cb->tainted, 1);
	}
	rb_cpu_layout(cb, &data, &order);
	n = UINT64_C(1) << order;
	if (nseq >= n) {
		uint64_t occ = nseq - n;	/* the slot's previous occupant */
		struct rb_page *opage = rb_cpu_page(rb, data, order, occ);
		uint64_t rp;

		if (!rb_occupant_complete(rb, data, order, occ)) {
			/* A writer of that page has not committed (it may be preempted,
			 * or be the code this signal handler interrupted). Never wait. */
			if (rb_state_moved(shm, ts, pos))
				return RB_RETRY;
			add_relaxed(&shm->dropped, 1);
			return NULL;
		}
		/* Pairs with the consumer's CAS of read_pos (release) after it copied. */
		uint64_t ov;

		pair_load(rb_rd(shm), &rp, &ov);
		if (RB_POS_SEQ(rp) <= occ) {
			uint64_t lost;

			if (!rb->overwrite) {
				if (rb_state_moved(shm, ts, pos))
					return RB_RETRY;
				add_relaxed(&shm->dropped, 1);
				return NULL;
			}
			/*
			 * Overwrite: push the consumer off the oldest page. Count
			 * before the CAS; if the consumer took more of the page
			 * meanwhile, the CAS fails and we count again.
			 */
			lost = RB_POS_SEQ(rp) == occ ? rb_count_racy(rb, opage, RB_POS_OFF(rp)) : 0;
			/*
			 * The CAS orders the push before our page switch below, so a
			 * consumer that took this page before us sees its own CAS fail
			 * afterwards, never a page rewritten under its copy.
			 */
			if (!pair_cas(rb_rd(shm), rp, ov, RB_POS(occ + 1, 0), ov + lost))
				return RB_RETRY;
		}
	}

	/* Take the first bytes of the next page; our event starts it, delta 0. */
	if (!rb_w_cas(rb, shm, cpu, ts, pos, now, RB_POS(nseq, size)))
		return RB_RETRY;

	/* We won: close the old page. Nobody else writes past @off in it. */
	page = rb_cpu_page(rb, data, order, seq);
	if (off < rb->data_size) {
		uint32_t rest = rb->data_size - off;
		uint32_t pad = EVT_RINGBUF_TYPE_PADDING;

		/* (an offset that is no multiple of 4 was written by another process:
		 * the padding stays inside the page all the same) */
		if (rest >= 4)
			memcpy(page->data + off, &pad, 4);
		if (rest >= 8) {
			uint32_t a0 = rest - RB_HDR_SIZE;

			memcpy(page->data + off + 4, &a0, 4);
		}
		/* Release: the padding is visible before the page reads complete. */
		rb_commit_bytes(rb, page, rest);
	}

	npage = rb_cpu_page(rb, data, order, nseq);
	/* Published by our commit (release) of the event below. */
	npage->time_stamp = now;
	ev = npage->data;
	rb_write_header(ev, size, 0);
	/*
	 * Order the write state (and the push above) before the event's
	 * bytes for readers that validate a copy after the fact (iterators).
	 */
	fence_release();
	return (struct evt_ring_buffer_event *)ev;
}

struct evt_ring_buffer_event *evt_ring_buffer_lock_reserve(struct evt_ring_buffer *rb,
							   unsigned long length)
{
	if (unlikely(length > rb->max_payload || rb->mapped))
		return NULL;
	return rb_reserve(rb, rb_event_size(length), NULL, NULL);
}

int evt_ring_buffer_unlock_commit(struct evt_ring_buffer *rb,
				  struct evt_ring_buffer_event *event)
{
	struct rb_page *page = (struct rb_page *)((uintptr_t)event & rb->page_mask);

	/* Release: the event's bytes are visible before the count that covers them. */
	rb_commit_bytes(rb, page, rb_own_entry_len(event));
	return 0;
}

int evt_ring_buffer_discard_commit(struct evt_ring_buffer *rb,
				   struct evt_ring_buffer_event *event)
{
	/* The length is taken before the header becomes padding: all of it is committed. */
	rb_discard_commit_cpu(rb, event, rb_own_entry_len(event), RB_CPU_NONE);
	return 0;
}

int evt_ring_buffer_write(struct evt_ring_buffer *rb, unsigned long length, const void *data)
{
	struct evt_ring_buffer_event *ev;
	unsigned int cpu = RB_CPU_NONE;
	int why = -ENOBUFS;
	uint32_t size;

	if (unlikely(rb->mapped))
		return -EPERM;
	if (unlikely(length > rb->max_payload))
		return -E2BIG;
	size = rb_event_size(length);
	ev = rb_reserve(rb, size, &why, &cpu);
	if (unlikely(!ev))
		return why;
	/* From the size, not from the header: see rb_payload_off(). */
	memcpy((unsigned char *)ev + rb_payload_off(size), data, length);
	/* Release: the payload is visible before the count that covers it. */
	rb_commit_on(rb, (struct rb_page *)((uintptr_t)ev & rb->page_mask), size, cpu);
	return 0;
}

/* ---- recording on/off ----------------------------------------------------- */

/**
 * rb_cpu_set_disabled() - set RB_TS_DISABLED in @cb's write state, for good.
 * @rb: the buffer.
 * @cb: the CPU buffer.
 * @pos: the write position at the moment the bit was known to stick.
 *
 * CAS mode: one locked CAS. rseq mode: a writer's sequence that compared
 * w before our CAS may still store after it, wiping the bit; so after the
 * CAS, restart every running sequence (rseq_ops_fence) and look again.
 * Once the bit is seen after a fence, no sequence can clear it: each
 * compares against a value without the bit.
 *
 * Our writers let the bit stick within a few rounds (each CAS that fails
 * is a reservation made, each round of fences restarts the sequences that
 * raced); only another process writing over w keeps clearing it, so the
 * rounds are bounded.
 *
 * Context: any thread; a system call per round in rseq mode.
 * Return: true once the bit sticks, false if somebody kept clearing it.
 */
bool rb_cpu_set_disabled(struct evt_ring_buffer *rb, struct rb_cpu *cb, uint64_t *pos)
{
	struct rb_cpu_shm *shm = cb->shm;
	int fences = 0, tries = 0;
	bool stuck = false;
	uint64_t ts, p;

	while (tries++ < RB_CAS_TRIES) {
		pair_load(&shm->w, &ts, &p);
		if (!(ts & RB_TS_DISABLED) && !pair_cas(&shm->w, ts, p, ts | RB_TS_DISABLED, p))
			continue;
		if (!rb->rseq) {
			stuck = true;
			break;
		}
		rseq_ops_fence();
		pair_load(&shm->w, &ts, &p);
		stuck = ts & RB_TS_DISABLED;
		if (stuck || ++fences >= RB_FENCE_TRIES)
			break;
	}
	if (pos)
		*pos = p;
	return stuck;
}

/**
 * rb_cpu_sync_disabled() - make RB_TS_DISABLED in w agree with the counters.
 * @rb: the buffer.
 * @cb: the CPU buffer.
 *
 * Lock-free, so traceoff can be called from where events fire. Racing
 * callers converge: each re-reads the counters after its update and goes
 * round again if they changed under it. Clearing the bit needs no fence:
 * while it is set, no writer's sequence can succeed.
 *
 * Context: any thread or signal handler.
 */
void rb_cpu_sync_disabled(struct evt_ring_buffer *rb, struct rb_cpu *cb)
{
	struct rb_cpu_shm *shm = cb->shm;
	uint64_t ts, pos;
	int tries = 0;
	bool off;

	/* bounded: only another process writing over w keeps it going round */
	while (tries++ < RB_CAS_TRIES) {
		off = ld_acquire(&rb->disable_cnt) > 0 || ld_acquire(&cb->disable_cnt) > 0;
		if (off) {
			rb_cpu_set_disabled(rb, cb, NULL);
		} else {
			pair_load(&shm->w, &ts, &pos);
			if ((ts & RB_TS_DISABLED) &&
			    !pair_cas(&shm->w, ts, pos, ts & ~RB_TS_DISABLED, pos))
				continue;
		}
		if (off == (ld_acquire(&rb->disable_cnt) > 0 || ld_acquire(&cb->disable_cnt) > 0))
			return;
	}
}

void evt_ring_buffer_record_disable(struct evt_ring_buffer *rb)
{
	if (rb->mapped)
		return;	/* a consumer's handle does not steer the owner's writers */
	add_relaxed(&rb->disable_cnt, 1);
	for (int cpu = 0; cpu < rb->nr_cpus; cpu++)
		rb_cpu_sync_disabled(rb, &rb->cpus[cpu]);
}

void evt_ring_buffer_record_enable(struct evt_ring_buffer *rb)
{
	if (rb->mapped)
		return;	/* a consumer's handle does not steer the owner's writers */
	sub_relaxed(&rb->disable_cnt, 1);
	for (int cpu = 0; cpu < rb->nr_cpus; cpu++)
		rb_cpu_sync_disabled(rb, &rb->cpus[cpu]);
}

void evt_ring_buffer_record_disable_cpu(struct evt_ring_buffer *rb, int cpu)
{
	if (!rb_cpu_valid(rb, cpu) || rb->mapped)
		return;
	add_relaxed(&rb->cpus[cpu].disable_cnt, 1);
	rb_cpu_sync_disabled(rb, &rb->cpus[cpu]);
}

void evt_ring_buffer_record_enable_cpu(struct evt_ring_buffer *rb, int cpu)
{
	if (!rb_cpu_valid(rb, cpu) || rb->mapped)
		return;
	sub_relaxed(&rb->cpus[cpu].disable_cnt, 1);
	rb_cpu_sync_disabled(rb, &rb->cpus[cpu]);
}

bool evt_ring_buffer_record_is_on(const struct evt_ring_buffer *rb)
{
	return ld_acquire(&rb->disable_cnt) <= 0;
}

uint64_t evt_ring_buffer_time_stamp(const struct evt_ring_buffer *rb)
{
	return tclock_read((enum evt_clock_id)ld_relaxed(&rb->clock));
}

void evt_ring_buffer_normalize_time_stamp(const struct evt_ring_buffer *rb, int cpu,
					  uint64_t *ts)
{
	(void)cpu;	/* one clock for all CPUs */
	if (ts)
		*ts = evt_clock_to_ns((enum evt_clock_id)ld_relaxed(&rb->clock), *ts);
}
