/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ringbuf/rb_writer.h - the write path's fast part, inline: the reservation
 * (rb_reserve) and the commit (rb_commit_on), for rb_frontend.c and for the
 * event writer (events/writer.c), which inlines them into a tracepoint's
 * reserve and commit. The algorithm, its actors and its invariants are
 * described at the top of rb_frontend.c; the slow parts (next page, remote
 * commits) stay there.
 *
 * The reservation's CPU: evt_ring_buffer_unlock_commit() only has the event.
 * In rseq mode it must find out whether the page belongs to the CPU the
 * thread is on now (it may have migrated since the reservation): a load of
 * that CPU's layout and a range check per commit. A writer that remembers
 * the CPU it reserved on (rb_reserve()'s @cpu_out) skips them: the
 * restartable add on that CPU commits only if the thread is still there,
 * and then the page is that CPU's (reserved in its buffer, which resize
 * cannot replace while the reservation is uncommitted). If the add aborts
 * (migrated, preempted, signalled), rb_commit_bytes() does the general
 * commit.
 */
#ifndef EVT_RINGBUF_RB_WRITER_H
#define EVT_RINGBUF_RB_WRITER_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <evtrace/ring_buffer.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/cpu.h"
#include "compat/rseq.h"
#include "clock/clock_internal.h"
#include "ringbuf/rb_internal.h"

#define RB_HIDDEN	__attribute__((visibility("hidden")))

/* Not a CPU: the commit takes the general path (a writer that did not keep one). */
#define RB_CPU_NONE	0xffffu

/* Returned by the slow path when the state moved under it: start again. */
#define RB_RETRY ((struct evt_ring_buffer_event *)1)

/* The slow path of rb_reserve(): the current page is full (rb_frontend.c). */
struct evt_ring_buffer_event *rb_reserve_next_page(struct evt_ring_buffer *rb, unsigned int cpu,
						   uint64_t ts, uint64_t pos, uint64_t now,
						   uint32_t size) RB_HIDDEN;

static inline unsigned int rb_this_cpu(const struct evt_ring_buffer *rb)
{
	unsigned int cpu;

#if EVT_HAVE_RSEQ_OPS
	if (rb->rseq)
		return evt_rseq_cpu();	/* < nr_cpus: rb->rseq requires it */
#endif
	cpu = (unsigned int)evt_cpu_current();
	if (unlikely(cpu >= (unsigned int)rb->nr_cpus))
		cpu %= (unsigned int)rb->nr_cpus;
	return cpu;
}

/*
 * Compare-and-swap the write state of CPU buffer @cb (index @cpu).
 * rseq mode: only succeeds if this thread is on @cpu for the whole
 * sequence, so all writers of @cb are serialized by the CPU itself.
 * CAS mode: lock cmpxchg16b, a full barrier.
 */
static inline bool rb_w_cas(const struct evt_ring_buffer *rb, struct rb_cpu_shm *shm,
			    unsigned int cpu, uint64_t ts, uint64_t pos, uint64_t nts,
			    uint64_t npos)
{
#if EVT_HAVE_RSEQ_OPS
	if (rb->rseq)
		return evt_rseq_cmp2_store2(&shm->w.lo, ts, pos, nts, npos, cpu) == 0;
#endif
	(void)rb;
	(void)cpu;
	return pair_cas(&shm->w, ts, pos, nts, npos);
}

/*
 * @why (may be NULL; constant-folded away for lock_reserve) gets the
 * reason of a NULL: -EBUSY disabled, -ENOBUFS dropped. @cpu_out (may be
 * NULL) gets the index of the CPU buffer of a successful reservation.
 */
static inline __attribute__((always_inline)) struct evt_ring_buffer_event *
rb_reserve(struct evt_ring_buffer *rb, uint32_t size, int *why, unsigned int *cpu_out)
{
	struct evt_ring_buffer_event *ev;
	uint64_t ts, pos, now, delta;
	uint32_t off, ext, clock;
	struct rb_cpu_shm *shm;
	struct rb_page *page;
	unsigned int cpu;
	unsigned char *p;

	for (;;) {
		cpu = rb_this_cpu(rb);
		if (unlikely(cpu >= (unsigned int)rb->nr_cpus)) {
			/* rseq reported a CPU beyond the buffer's (hotplug): count it */
			add_relaxed(&rb->cpus[cpu % (unsigned int)rb->nr_cpus].shm->dropped, 1);
			if (why)
				*why = -ENOBUFS;
			return NULL;
		}
		shm = rb->cpus[cpu].shm;
		/* Acquire: pairs with control's CAS that re-enables after a new layout. */
		pair_load(&shm->w, &ts, &pos);
		if (unlikely(ts & RB_TS_DISABLED)) {
			/*
			 * Acquire: pairs with rb_cpu_quiesce()'s store, made before
			 * the CAS that set the bit we saw, and with the release that
			 * clears it after the CAS that clears the bit: 0 here means
			 * either recording is off, or the operation is over and w
			 * shows it when read again.
			 */
			if (ld_acquire(&rb->cpus[cpu].quiescing)) {
				add_relaxed(&shm->dropped, 1);
				if (why)
					*why = -ENOBUFS;
				return NULL;
			}
			{
				uint64_t ts2, pos2;

				pair_load(&shm->w, &ts2, &pos2);
				if (ts2 != ts || pos2 != pos)
					continue;
			}
			if (why)
				*why = -EBUSY;
			return NULL;
		}
		clock = ld_relaxed(&rb->clock);
		now = tclock_read((enum evt_clock_id)clock) & RB_TS_MASK;
		if (unlikely(now < ts))
			now = ts;
		delta = now - ts;
		off = RB_POS_OFF(pos);
		/* A time extend: the delta needs more than 27 bits (rare: an idle CPU). */
		ext = 0;
		if (unlikely(delta > RB_TS_DELTA_MAX) && off)
			ext = 8;

		if (unlikely(off + ext + size > rb->data_size)) {
			ev = rb_reserve_next_page(rb, cpu, ts, pos, now, size);
			if (ev == RB_RETRY)
				continue;
			if (!ev && why)
				*why = -ENOBUFS;
			if (cpu_out)
				*cpu_out = cpu;
			return ev;
		}
		if (!rb_w_cas(rb, shm, cpu, ts, pos, now, pos + ext + size))
			continue;

		/* The CAS read-from control's last CAS: the layout is current. */
		{
			unsigned char *data;
			uint32_t order;

			rb_cpu_layout(&rb->cpus[cpu], &data, &order);
			page = rb_cpu_page(rb, data, order, RB_POS_SEQ(pos));
		}
		p = page->data + off;
		if (!off) {
			/* First entry of the page: it carries the page's time. */
			page->time_stamp = now;
			delta = 0;
		} else if (ext) {
			uint32_t hdr = EVT_RINGBUF_TYPE_TIME_EXTEND |
				       (uint32_t)(delta & RB_TS_DELTA_MAX) << 5;
			uint32_t hi = (uint32_t)(delta >> EVT_RB_TS_DELTA_BITS);

			memcpy(p, &hdr, 4);
			memcpy(p + 4, &hi, 4);
			/* The extend is committed at once; the event on its own commit. */
			rb_commit_bytes(rb, page, 8);
			p += 8;
			delta = 0;
		}
		rb_write_header(p, size, (uint32_t)delta);
		if (cpu_out)
			*cpu_out = cpu;
		return (struct evt_ring_buffer_event *)p;
	}
}

/*
 * rb_lock_reserve_try() - one attempt of rb_lock_reserve_cpu() that makes
 * no function call where the platform allows (x86-64: rseq, or cmpxchg16b
 * inline), for a caller that keeps its fast path free of calls (so the
 * compiler keeps it in the registers a call would clobber anyway).
 * @rb: the buffer.
 * @length: bytes of payload.
 * @cpu_out: the CPU buffer of the reservation (below RB_CPU_NONE).
 * @page_out: the page the event is in.
 * @rseq_out: rb->rseq as read for the reservation (for rb_commit_kept()).
 *
 * Takes the common case only: the CPU number readable from the rseq area,
 * the "local" clock on the cycle counter, no time extend, room in the
 * current page, the compare-and-swap succeeding at the first try. Anything
 * else returns NULL having changed nothing (no reservation, nothing
 * counted): the caller then does the whole reservation the general way,
 * which handles it (and counts what it drops).
 * Context: as lock_reserve.
 */
static inline __attribute__((always_inline)) struct evt_ring_buffer_event *
rb_lock_reserve_try(struct evt_ring_buffer *rb, unsigned long length, unsigned int *cpu_out,
		    struct rb_page **page_out, bool *rseq_out)
{
	uint32_t size = rb_event_size(length);
	uint64_t ts, pos, now, delta;
	struct rb_cpu_shm *shm;
	struct rb_page *page;
	unsigned char *data;
	uint32_t order, off;
	unsigned char *p;
	unsigned int cpu;

	/*
	 * The clock first: its acquire load would make the compiler load again
	 * whatever is read after it; the buffer's fields are read once, below.
	 * Acquire: pairs with the calibrator's st_release of mode (mult/shift/offset).
	 */
	if (unlikely(ld_acquire(&tclock.mode) != TCLOCK_MODE_CYCLES))
		return NULL;
	if (unlikely(rb->mapped || length > rb->max_payload ||
		     ld_relaxed(&rb->clock) != EVT_CLOCK_LOCAL))
		return NULL;
#if EVT_HAVE_RSEQ_OPS
	if (likely(rb->rseq)) {
		cpu = evt_rseq_cpu();
		/* a CPU beyond the buffer's (hotplug) is counted the general way */
		if (unlikely(cpu >= (unsigned int)rb->nr_cpus))
			return NULL;
	} else
#endif
	{
		int c = evt_cpu_current_nocall();

		if (unlikely(c < 0))
			return NULL;
		cpu = (unsigned int)c;
		if (unlikely(cpu >= (unsigned int)rb->nr_cpus))
			cpu %= (unsigned int)rb->nr_cpus;	/* as rb_this_cpu() */
	}
	/* cpu < nr_cpus <= RB_MAX_CPUS (checked at allocation): below RB_CPU_NONE */
	_Static_assert(RB_MAX_CPUS < RB_CPU_NONE, "a CPU index fits the writer's 16 bits");
	shm = rb->cpus[cpu].shm;
	/* Acquire: pairs with control's CAS that re-enables after a new layout. */
	pair_load(&shm->w, &ts, &pos);
	if (unlikely(ts & RB_TS_DISABLED))
		return NULL;
	now = tclock_scale_cycles(tclock_cycles()) & RB_TS_MASK;
	if (unlikely(now < ts))
		now = ts;
	delta = now - ts;
	off = RB_POS_OFF(pos);
	if (unlikely(delta > RB_TS_DELTA_MAX && off))
		return NULL;	/* a time extend */
	if (unlikely(off + size > rb->data_size))
		return NULL;	/* the next page */
	/*
	 * rseq: serialized by the CPU itself; CAS: a full barrier (rb_w_cas()).
	 * rb->rseq read again there rather than kept: a load, where keeping it
	 * across the clock read costs a spill (it changes only while the buffer
	 * is quiesced, and then the reservation fails on RB_TS_DISABLED).
	 */
	if (unlikely(!rb_w_cas(rb, shm, cpu, ts, pos, now, pos + size)))
		return NULL;
	/* The CAS read-from control's last CAS: the layout is current. */
	rb_cpu_layout(&rb->cpus[cpu], &data, &order);
	page = rb_cpu_page(rb, data, order, RB_POS_SEQ(pos));
	p = page->data + off;
	if (unlikely(!off)) {
		/* First entry of the page: it carries the page's time. */
		page->time_stamp = now;
		delta = 0;
	}
	rb_write_header(p, size, (uint32_t)delta);
	*cpu_out = cpu;
	*page_out = page;
	*rseq_out = rb->rseq;
	return (struct evt_ring_buffer_event *)p;
}

/*
 * rb_lock_reserve_cpu() - evt_ring_buffer_lock_reserve() that also gives
 * the index of the CPU buffer the event is in (RB_CPU_NONE if the buffer is
 * a consumer's mapping, or the index is not below RB_CPU_NONE).
 * Context: as lock_reserve. Return: the event or NULL.
 */
static inline __attribute__((always_inline)) struct evt_ring_buffer_event *
rb_lock_reserve_cpu(struct evt_ring_buffer *rb, unsigned long length, unsigned int *cpu)
{
	struct evt_ring_buffer_event *ev;

	*cpu = RB_CPU_NONE;
	if (unlikely(length > rb->max_payload || rb->mapped))
		return NULL;
	ev = rb_reserve(rb, rb_event_size(length), NULL, cpu);
	if (unlikely(*cpu >= RB_CPU_NONE))
		*cpu = RB_CPU_NONE;
	return ev;
}

/* Total bytes of the entry at @ev (its header was written by us: trusted). */
static inline uint32_t rb_own_entry_len(const struct evt_ring_buffer_event *ev)
{
	if (ev->type_len)
		return RB_HDR_SIZE + ev->type_len * 4u;
	return RB_HDR_SIZE + ev->array[0];
}

/*
 * Commit @len bytes of @page, reserved on CPU buffer @cpu by this thread.
 * rseq: if the thread is still on @cpu, the page is @cpu's and the restartable
 * add (no lock prefix; x86 keeps the event's stores before it: a release) is
 * the whole commit; otherwise the general one. CAS mode: a release add.
 */
static inline void rb_commit_on(struct evt_ring_buffer *rb, struct rb_page *page, uint32_t len,
				unsigned int cpu)
{
#if EVT_HAVE_RSEQ_OPS
	if (rb->rseq && likely(cpu < RB_CPU_NONE) &&
	    likely(evt_rseq_addv(&page->commit, len, cpu) == 0))
		return;
#else
	(void)cpu;
#endif
	rb_commit_bytes(rb, page, len);
}

/*
 * rb_commit_on() for a writer that kept what it knew at the reservation:
 * @rseq is rb->rseq as read then (it changes only while the CPU buffers are
 * quiesced, never under an uncommitted reservation), @cpu the reservation's
 * CPU (below RB_CPU_NONE). Release, as rb_commit_on().
 */
static inline void rb_commit_kept(struct evt_ring_buffer *rb, struct rb_page *page, uint32_t len,
				  unsigned int cpu, bool rseq)
{
#if EVT_HAVE_RSEQ_OPS
	if (likely(rseq) && likely(evt_rseq_addv(&page->commit, len, cpu) == 0))
		return;
#else
	(void)cpu;
	(void)rseq;
#endif
	rb_commit_bytes(rb, page, len);
}

/*
 * rb_unlock_commit_cpu() - evt_ring_buffer_unlock_commit() of an event of
 * @size bytes (rb_event_size(); rb_own_entry_len() when not known) reserved
 * by this thread on CPU buffer @cpu (RB_CPU_NONE: not known). Release, as
 * that. A writer that knows the size passes it rather than reading the
 * header back (rb_payload_off()).
 */
static inline void rb_unlock_commit_cpu(struct evt_ring_buffer *rb,
					struct evt_ring_buffer_event *event, uint32_t size,
					unsigned int cpu)
{
	struct rb_page *page = (struct rb_page *)((uintptr_t)event & rb->page_mask);

	/* Release: the event's bytes are visible before the count that covers it. */
	rb_commit_on(rb, page, size, cpu);
}

/*
 * rb_discard_commit_cpu() - evt_ring_buffer_discard_commit() of an event of
 * @size bytes reserved by this thread on CPU buffer @cpu (RB_CPU_NONE: not
 * known): the entry becomes padding that keeps its time delta, then all of
 * it is committed (release, as a commit).
 */
static inline void rb_discard_commit_cpu(struct evt_ring_buffer *rb,
					 struct evt_ring_buffer_event *event, uint32_t size,
					 unsigned int cpu)
{
	uint32_t hdr = EVT_RINGBUF_TYPE_PADDING | (uint32_t)event->time_delta << 5;
	uint32_t a0 = size - RB_HDR_SIZE;
	unsigned char *p = (unsigned char *)event;

	/* Padding keeps the delta: the time chain stays exact for what follows. */
	memcpy(p, &hdr, 4);
	memcpy(p + 4, &a0, 4);
	/* Release: the padding header is visible before the count that covers it. */
	rb_commit_on(rb, (struct rb_page *)((uintptr_t)event & rb->page_mask), size, cpu);
}

/* evt_ring_buffer_event_data() of an event this thread reserved (its header is ours). */
static inline void *rb_own_event_data(struct evt_ring_buffer_event *event)
{
	return event->type_len ? (void *)&event->array[0] : (void *)&event->array[1];
}

#endif /* EVT_RINGBUF_RB_WRITER_H */
