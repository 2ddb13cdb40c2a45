// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the owner's side of a ring buffer whose shared memory
 * another process wrote into (issue 11, defect 9).
 *
 * The input is a list of pokes, 11 bytes each: a byte saying where (even:
 * the CPU's control block, odd: its pages and commit counters), a
 * little-endian u16 offset (modulo that area, 8-byte aligned) and a u64
 * written there. Before the pokes the owner writes events; after them it
 * goes on writing (which must neither crash nor loop), reads every
 * statistic (each must be plausible: counters at most 2^52, entries at
 * most what the ring holds), consumes and iterates, then resets. A reset
 * returns 0 - and then events written afterwards are read back exactly,
 * with nothing lost - or -EBUSY, for pokes that make a count look like a
 * writer stopped in the middle of an event (the one state a reset cannot
 * tell from a real one within a quiesce).
 *
 * Seeds (tests/fuzz/corpus/rb-owner-scribble/): no poke, a huge commit
 * count, a write position far ahead, wild counters, an offset no multiple
 * of 4, read_pos ahead of the writer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>

#include "ringbuf/rb_internal.h"

#define PAGE		256u
#define SIZE		(8 * PAGE)
#define POKE_LEN	11
#define MAX_POKES	64

static void check(int cond)
{
	if (!cond)
		abort();
}

static void put(struct evt_ring_buffer *rb, uint32_t tag, uint32_t i, size_t len)
{
	unsigned char rec[64];

	memset(rec, (int)(tag ^ i), sizeof(rec));
	memcpy(rec, &tag, 4);
	memcpy(rec + 4, &i, 4);
	(void)evt_ring_buffer_write(rb, len, rec);
}

static void plausible(struct evt_ring_buffer *rb)
{
	check(evt_ring_buffer_overrun_cpu(rb, 0) <= RB_COUNTER_MAX);
	check(evt_ring_buffer_dropped_events_cpu(rb, 0) <= RB_COUNTER_MAX);
	check(evt_ring_buffer_read_events_cpu(rb, 0) <= RB_COUNTER_MAX);
	check(evt_ring_buffer_entries_cpu(rb, 0) <= SIZE / 8);
}

/* @data_off: where the pages are, read before any poke (a poke may change the shared word). */
static void poke(unsigned char *map, const struct rb_cpu_shm *shm, uint64_t data_off,
		 const uint8_t *p)
{
	size_t area, at;
	uint16_t off;
	uint64_t v;

	memcpy(&off, p + 1, 2);
	memcpy(&v, p + 3, 8);
	if (!(p[0] & 1)) {
		at = (size_t)((const unsigned char *)shm - map);
		area = sizeof(*shm);
	} else {
		at = (size_t)data_off;
		area = SIZE + 8 * (SIZE / PAGE);	/* the pages, then the remote counters */
	}
	memcpy(map + at + ((off % area) & ~(size_t)7), &v, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evt_ring_buffer_opts o = {
		.size = SIZE, .page_size = PAGE, .nr_cpus = 1, .clock = EVT_CLOCK_LOCAL,
	};
	struct evt_ring_buffer_event *ev;
	struct evt_ring_buffer_iter *it;
	const struct rb_cpu_shm *shm;
	const struct rb_shm_hdr *h;
	struct evt_ring_buffer *rb;
	uint64_t data_off;
	unsigned char *map;
	unsigned long lost;
	struct stat st;
	uint32_t got;
	int ret;

	if (size / POKE_LEN > MAX_POKES)
		return 0;
	if (size && data[0] & 0x80)	/* the first byte also picks the mode */
		o.flags = EVT_RB_FL_OVERWRITE;
	if (evt_ring_buffer_alloc_opts(&o, &rb) < 0)
		return 0;
	for (uint32_t i = 0; i < 40; i++)
		put(rb, 1, i, 8 + 4 * (i % 12));
	check(fstat(evt_ring_buffer_fd(rb), &st) == 0);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   evt_ring_buffer_fd(rb), 0);
	check(map != MAP_FAILED);
	h = (const struct rb_shm_hdr *)map;
	shm = (const struct rb_cpu_shm *)(map + h->cpu_off);
	data_off = shm->data_off;
	for (size_t i = 0; i + POKE_LEN <= size; i += POKE_LEN)
		poke(map, shm, data_off, data + i);

	for (uint32_t i = 0; i < 100; i++)
		put(rb, 2, i, 8 + 4 * (i % 12));
	plausible(rb);
	for (int i = 0; i < 300 && evt_ring_buffer_consume(rb, 0, NULL, &lost); i++)
		;
	if (evt_ring_buffer_read_start(rb, 0, &it) == 0) {
		for (int i = 0; i < 300 && evt_ring_buffer_read(it, NULL); i++)
			;
		evt_ring_buffer_read_finish(it);
	}
	plausible(rb);

	ret = evt_ring_buffer_reset(rb);
	check(ret == 0 || ret == -EBUSY);
	if (ret == 0) {
		for (uint32_t i = 0; i < 20; i++)
			put(rb, 3, i, 16);
		for (got = 0; (ev = evt_ring_buffer_consume(rb, 0, NULL, &lost)); got++) {
			uint32_t tag, seq;

			check(got < 20 && lost == 0 && evt_ring_buffer_event_length(ev) == 16);
			memcpy(&tag, evt_ring_buffer_event_data(ev), 4);
			memcpy(&seq, (unsigned char *)evt_ring_buffer_event_data(ev) + 4, 4);
			check(tag == 3 && seq == got);
		}
		check(got == 20);
		check(evt_ring_buffer_dropped_events_cpu(rb, 0) == 0);
	}
	munmap(map, (size_t)st.st_size);
	evt_ring_buffer_free(rb);
	return 0;
}
