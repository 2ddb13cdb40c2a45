/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * relay/relay_internal.h - a relay buffer's bytes, shared by the writer
 * (relay.c), the consumer (relay_reader.c) and the fuzz target.
 *
 * A buffer is one sealed memfd:
 *
 *   [ struct relay_shm | struct relay_sb[n_subbufs] | ... ]  hdr_size bytes (page multiple)
 *   [ sub-buffer 0 | sub-buffer 1 | ... | sub-buffer n-1 ]   n_subbufs * subbuf_size bytes
 *
 * Actors: writers (threads and signal handlers of the traced process),
 * the switcher (a writer holding the buffer's switch lock, process-
 * local), one consumer (any process), control calls.
 *
 * Positions are absolute sub-buffer numbers: sub-buffer s lives in slot
 * s % n_subbufs. produced counts the sub-buffers the writer finished;
 * the one it writes now is number produced, in slot wstate.slot.
 *
 * wstate, the writer's word (64 bits):
 *
 *   bits 0..31   offset in the current sub-buffer, or RELAY_OFF_FULL
 *                (the last one is finished and subbuf_start() refused the
 *                next: every write goes to the switch path and is dropped
 *                until a sub-buffer is consumed)
 *   bit  32      CLOSED: a switch is in progress; the offset is frozen
 *   bits 33..63  slot of the current sub-buffer
 *
 *   legal states                    who moves it
 *   {slot, off <= size, open}    -> {slot, off + len, open}   a writer's reservation (CAS)
 *   {slot, off, open}            -> {slot, off, CLOSED}       the switcher, under the lock
 *   {slot, off, CLOSED}          -> {slot', reserve, open}    the switcher: next sub-buffer
 *                                -> {slot, FULL, open}        the switcher: refused
 *   {slot, FULL, open}           -> {slot, FULL, CLOSED}      the switcher (tries again)
 *
 * A reservation succeeds only while the word is open and the message
 * fits, so nothing is reserved in a sub-buffer after it was closed: its
 * length (offset at close) is final. Writers then copy their message
 * and add its length to sb[slot].commit (release); a sub-buffer's data
 * is complete when commit + rcommit == len.
 *
 * Two ways to reserve, chosen per channel at open:
 *   CAS   a locked compare-and-swap of wstate, from any CPU (global
 *         channels, no rseq, TSan builds);
 *   rseq  a restartable sequence that compares {wstate, wtag} and stores
 *         the pair only if the thread stayed on the buffer's CPU: the
 *         writers of a per-CPU buffer are serialized by the CPU itself,
 *         with no locked instruction. The switcher, which may run on
 *         another CPU, closes the word by CAS and then restarts every
 *         running sequence (membarrier, rseq_ops_fence()) and looks again:
 *         a sequence that compared before its CAS may have stored after it.
 *         Once CLOSED is seen after the fence it sticks: no sequence
 *         compares equal to a closed word. A FULL word needs no fence: no
 *         sequence stores over it either. The switcher never waits for commits
 * (a signal handler may be switching on top of an unfinished write of
 * its own thread): the consumer waits instead, and the switcher refuses
 * to reopen a slot whose previous round is not complete (drop, counted).
 */
#ifndef EVT_RELAY_INTERNAL_H
#define EVT_RELAY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define RELAY_MAGIC   UINT64_C(0x59414c4552545645) /* "EVTRELAY" */
#define RELAY_VERSION 1u

#define RELAY_OFF_MASK	 UINT64_C(0xffffffff)
#define RELAY_OFF_FULL	 UINT64_C(0xffffffff)
#define RELAY_CLOSED	 (UINT64_C(1) << 32)
#define RELAY_SLOT_SHIFT 33

#define RELAY_WS(slot, off) (((uint64_t)(slot) << RELAY_SLOT_SHIFT) | (uint64_t)(off))
#define RELAY_WS_OFF(ws)    ((ws)&RELAY_OFF_MASK)
#define RELAY_WS_SLOT(ws)   ((ws) >> RELAY_SLOT_SHIFT)

#define RELAY_SHM_GLOBAL 0x1u

/* The low 32 bits of the sub-buffer number an offset in bytes_consumed was stored for. */
#define RELAY_BC_TAG(bc) ((bc) >> 32)

/*
 * Per sub-buffer: bytes committed, and its length once finished (size -
 * padding). commit is added to by writers on the buffer's CPU (in a
 * restartable sequence, or by an atomic add when there is no rseq);
 * rcommit by writers that migrated to another CPU between their
 * reservation and their commit (atomic add). The sum is what counts.
 */
struct relay_sb {
	uint64_t commit;
	uint64_t rcommit;
	uint64_t len;
	uint64_t pad;
};

struct relay_shm {
	/* geometry: written once before the file is sealed and published */
	uint64_t magic;
	uint32_t version;
	uint32_t hdr_size;
	uint64_t subbuf_size;
	uint64_t n_subbufs;
	uint32_t flags;
	uint32_t cpu;
	uint64_t creator_pid;
	uint64_t pad0[2];

	/* the writer's line */
	uint64_t wstate __attribute__((aligned(64)));
	uint64_t wtag;	   /* second word of the 16-byte pair an rseq reservation stores */
	uint64_t produced; /* finished sub-buffers (release, by the switcher) */
	uint64_t opened;   /* number of the sub-buffer opened last: its slot's older data is gone */
	uint64_t dropped;  /* messages refused: buffer full */
	uint64_t toobig;   /* messages larger than a sub-buffer */
	uint32_t wake;	   /* futex: bumped at every sub-buffer boundary and at close */
	uint32_t finalized; /* 1 after evt_relay_close() */

	/* the consumer's line */
	uint64_t consumed __attribute__((aligned(64))); /* CAS by consumer and writer */
	/* consumer's offset in sub-buffer number consumed: (consumed << 32) | offset */
	uint64_t bytes_consumed;
	uint32_t waiters;      /* consumers sleeping on wake */
	uint32_t maps;	       /* consumers holding a mapping */
	uint32_t refs;	       /* holders: the writer and each consumer */
	uint32_t map_events;   /* evt_relay_reader_mmap() calls, ever */
	uint32_t unmap_events; /* unmaps (at the reader's close), ever */
	uint32_t pad1;

	struct relay_sb sb[] __attribute__((aligned(64)));
};

#define RELAY_PAGE 4096u

static inline uint64_t relay_hdr_size(uint64_t n_subbufs)
{
	uint64_t b = sizeof(struct relay_shm) + n_subbufs * sizeof(struct relay_sb);

	return (b + RELAY_PAGE - 1) & ~(uint64_t)(RELAY_PAGE - 1);
}

/*
 * Check a header's geometry against the file it came from (@file_size
 * bytes). Used by the consumer at open and by the fuzz target.
 * Return: 0, or -EBADMSG.
 */
int relay_shm_check(const struct relay_shm *shm, uint64_t file_size);

struct evt_rchan;

/* For GTSC: the sum of every buffer's dropped count, and a rewind of every buffer. */
uint64_t relay_chan_dropped(struct evt_rchan *chan);
void relay_chan_rewind(struct evt_rchan *chan);
/* 1 in a fork() child's copy of @chan (writes fail with -ECHILD), else 0. */
int relay_chan_forked(struct evt_rchan *chan);
/* Rewind one buffer: the next read starts at the oldest sub-buffer still intact. */
void relay_shm_rewind(struct relay_shm *shm, uint64_t n_subbufs);

#endif /* EVT_RELAY_INTERNAL_H */
