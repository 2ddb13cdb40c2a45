// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf/rb_mem.c - how much memory a ring buffer may take: the cap on
 * sizes that come from outside (buffer_size_kb, evt_ring_buffer_alloc(),
 * evt_ring_buffer_resize(), instances, snapshot buffers).
 *
 * The kernel's ring_buffer_resize() refuses a size beyond the memory
 * available (si_mem_available()). A traced program has more to lose than
 * the kernel's tracer: its own allocations come from the same memory. So a
 * request that would take more than a quarter of what is available now is
 * refused with -ENOMEM:
 *
 *   - MemAvailable of /proc/meminfo (sysinfo()'s free + buffer RAM when
 *     /proc is not readable): the bytes the request adds (the new pages,
 *     which exist next to the old ones while a resize copies) must be at
 *     most a quarter of it (writing 4194304 to buffer_size_kb of a 2-CPU
 *     program once took 8 GB: on a 24 GB machine it is now refused);
 *   - RLIMIT_AS when it is set: the bytes added must be at most half of what
 *     the limit leaves above the process's address space now (/proc/self/
 *     statm). RLIMIT_DATA does not count shared mappings, which the buffer's
 *     pages are.
 *
 * The pages are then allocated for real (fallocate() of the memfd) before
 * the new layout is published, so a failure is an error of the control
 * operation, never a SIGBUS of a writer on a page the system could not give.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "ringbuf/rb_internal.h"

/* MemAvailable in bytes, or 0 when unknown. */
static uint64_t rb_mem_available(void)
{
	unsigned long long kb = 0;
	struct sysinfo si;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
				break;
		fclose(f);
		if (kb)
			return kb > UINT64_MAX / 1024 ? UINT64_MAX : (uint64_t)kb * 1024;
	}
	if (sysinfo(&si) == 0)
		return ((uint64_t)si.freeram + si.bufferram) * (si.mem_unit ? si.mem_unit : 1);
	return 0;
}

/* What RLIMIT_AS leaves above the address space now; UINT64_MAX without a limit. */
static uint64_t rb_as_room(void)
{
	unsigned long long pages = 0;
	long psz = sysconf(_SC_PAGESIZE);
	struct rlimit rl;
	uint64_t vm;
	FILE *f;

	if (getrlimit(RLIMIT_AS, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	f = fopen("/proc/self/statm", "re");
	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	vm = (uint64_t)pages * (uint64_t)(psz > 0 ? psz : 4096);
	return (uint64_t)rl.rlim_cur > vm ? (uint64_t)rl.rlim_cur - vm : 0;
}

/**
 * rb_mem_check() - may a buffer take @bytes more memory now?
 * @bytes: what the operation adds (new regions, before the old ones go).
 *
 * Context: control side (reads /proc). Return: 0, or -ENOMEM when @bytes is
 * more than a quarter of the memory available or half of the address space
 * RLIMIT_AS leaves.
 */
int rb_mem_check(uint64_t bytes)
{
	uint64_t avail = rb_mem_available(), room = rb_as_room();

	if (avail && bytes > avail / 4)
		return -ENOMEM;
	if (room != UINT64_MAX && bytes > room / 2)
		return -ENOMEM;
	return 0;
}
