// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/clock.c - trace clocks: names, and the one-time calibration of
 * the cycle counter behind the "local" clock.
 *
 * "local" is the cycle counter (x86 TSC, aarch64 CNTVCT) scaled to
 * nanoseconds in the writer: one rdtsc, one 64x64 multiply, one shift.
 * It is used only when the counter is invariant (x86: CPUID
 * 0x80000007 EDX bit 8), so it neither stops nor changes rate; else
 * "local" is CLOCK_MONOTONIC. The scale comes, in order of preference,
 * from the kernel's own conversion (the perf mmap page's time_mult and
 * time_shift, the numbers sched_clock uses), from the architecture
 * (aarch64's CNTFRQ), or from a 20 ms measurement against
 * CLOCK_MONOTONIC_RAW. The offset makes "local" read like
 * CLOCK_MONOTONIC at the moment of calibration.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/clock_internal.h"

struct tclock_calib tclock;
uint64_t tclock_counter;

static pthread_once_t tclock_once = PTHREAD_ONCE_INIT;

static const char *const clock_names[EVT_CLOCK__COUNT] = {
	[EVT_CLOCK_LOCAL] = "local",
	[EVT_CLOCK_GLOBAL] = "global",
	[EVT_CLOCK_COUNTER] = "counter",
	[EVT_CLOCK_MONO] = "mono",
	[EVT_CLOCK_MONO_RAW] = "mono_raw",
	[EVT_CLOCK_BOOT] = "boot",
#if defined(__x86_64__) || defined(__i386__)
	[EVT_CLOCK_TSC] = "x86-tsc",
#else
	[EVT_CLOCK_TSC] = "tsc",
#endif
};

static bool tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	__cpuid(0x80000007, a, b, c, d);
	return d & (1u << 8);
#elif defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

/* The kernel's own cycles-to-ns scale, from a perf event's mmap page. */
static bool calib_from_perf(uint64_t *mult, uint32_t *shift)
{
#if defined(__x86_64__)
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	bool ok = false;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	pg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, (int)fd, 0);
	if (pg != MAP_FAILED) {
		uint32_t seq;

		do {
			seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
			ok = pg->cap_user_time && pg->time_mult && pg->time_shift < 64;
			*mult = pg->time_mult;
			*shift = pg->time_shift;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
		} while (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) != seq || (seq & 1));
		munmap(pg, (size_t)sysconf(_SC_PAGESIZE));
	}
	close((int)fd);
	return ok;
#else
	(void)mult;
	(void)shift;
	return false;
#endif
}

/* One (cycles, ns) sample with the tightest bracket of a few tries. */
static void sample(uint64_t *cyc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t a = tclock_posix(CLOCK_MONOTONIC_RAW);
		uint64_t c = tclock_cycles();
		uint64_t b = tclock_posix(CLOCK_MONOTONIC_RAW);

		if (b - a < best) {
			best = b - a;
			*cyc = c;
			*ns = a + (b - a) / 2;
		}
	}
}

static void calib_measure(uint64_t *mult, uint32_t *shift)
{
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 20 * 1000 * 1000 };
	uint64_t c0 = 0, n0 = 0, c1 = 0, n1 = 0;

	sample(&c0, &n0);
	nanosleep(&nap, NULL);
	sample(&c1, &n1);
	*shift = 32;
	*mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (c1 - c0 ? c1 - c0 : 1));
}

static void tclock_calibrate(void)
{
	struct tclock_calib c = { .tsc_ok = tsc_invariant() };

	if (c.tsc_ok) {
#if defined(__aarch64__)
		uint64_t frq;

		__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frq));
		c.shift = 32;
		c.mult = frq ? (uint64_t)(((unsigned __int128)1000000000u << 32) / frq) : 0;
#else
		if (!calib_from_perf(&c.mult, &c.shift))
			calib_measure(&c.mult, &c.shift);
#endif
		c.tsc_ok = c.mult != 0;
	}
	if (c.tsc_ok) {
		c.freq_hz = (uint64_t)(((unsigned __int128)1000000000u << c.shift) / c.mult);
		c.base_ns = tclock_posix(CLOCK_MONOTONIC);
		c.base_cyc = tclock_cycles();
	}
	/* pthread_once orders these stores before every evt_clock_init() return. */
	tclock = c;
}

int evt_clock_init(void)
{
	int ret = pthread_once(&tclock_once, tclock_calibrate);

	return ret ? -ret : 0;
}

uint64_t evt_clock_read(enum evt_clock_id id)
{
	if ((unsigned int)id >= EVT_CLOCK__COUNT)
		return 0;
	evt_clock_init();
	return tclock_read(id);
}

uint64_t evt_clock_to_ns(enum evt_clock_id id, uint64_t ts)
{
	if (id == EVT_CLOCK_TSC) {
		evt_clock_init();
		return tclock.tsc_ok ? tclock_cycles_to_ns(ts) : ts;
	}
	return ts;
}

const char *evt_clock_name(enum evt_clock_id id)
{
	return (unsigned int)id < EVT_CLOCK__COUNT ? clock_names[id] : NULL;
}

int evt_clock_by_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int i = 0; i < EVT_CLOCK__COUNT; i++)
		if (!strcmp(name, clock_names[i]))
			return i;
	if (!strcmp(name, "x86-tsc") || !strcmp(name, "tsc"))
		return EVT_CLOCK_TSC;
	return -EINVAL;
}

int evt_clock_is_ns(enum evt_clock_id id)
{
	return id != EVT_CLOCK_COUNTER && id != EVT_CLOCK_TSC && (unsigned int)id < EVT_CLOCK__COUNT;
}
