// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock/clock.c - the trace clocks: names, and the one-time calibration
 * of the cycle counter behind "local" and "x86-tsc".
 *
 * The hot path is inline in clock/clock_internal.h, whose comment has the
 * design: the formula, the actors, the state of tclock.mode and the
 * ordering. This file does the calibration once per process:
 *
 *   1. Is the counter invariant (constant rate, never stops)? x86-64:
 *      CPUID 0x80000007 EDX bit 8, or "constant_tsc" and "nonstop_tsc"
 *      in /proc/cpuinfo; aarch64: always (the generic timer).
 *   2. mult/shift, from the most exact source there is: the kernel's own
 *      TSC-to-ns scale on the perf mmap page of a software dummy event
 *      (cap_user_time: time_mult/time_shift, the numbers sched_clock
 *      uses; perf_event_paranoid or a seccomp filter may refuse it), the
 *      architected frequency on aarch64 (CNTFRQ_EL0: exact), else a
 *      measurement against CLOCK_MONOTONIC_RAW over 18 ms, using the
 *      tightest of 16 brackets (raw, counter, raw) at each end, repeated
 *      (at most 5 times) until the brackets bound the error to 10 ppm.
 *      "local" uses a measured scale only if that bound is 100 ppm or
 *      better (on the development VM: 4 ppm bound, < 1 ppm actual).
 *   3. offset: one more tight bracket against CLOCK_MONOTONIC, so that
 *      "local" reads like CLOCK_MONOTONIC at that moment.
 *
 * Environment (read once, by the calibration): EVTRACE_TSC=0 makes
 * "local" CLOCK_MONOTONIC even on an invariant counter (the counter
 * clock and its conversion stay); EVTRACE_TSC_CALIB=measure skips the
 * perf page.
 *
 * When to calibrate: lazily, not in a library constructor. A constructor
 * runs in every program that links the library, traced or not, and the
 * perf system call may be logged or, under a strict seccomp filter,
 * fatal; the measurement costs 18 ms. So the ring buffer calls
 * evt_clock_init() when a buffer is allocated, and a "local" reading
 * taken before that (evt_clock_read(), tclock_read()) runs the
 * calibration on the spot if nobody has started it, else reads
 * CLOCK_MONOTONIC without waiting: a reader never blocks, so a signal
 * handler that interrupts the calibration cannot deadlock.
 *
 * Who calibrates is decided by calib_state:
 *
 *   0 (UNINIT) --CAS--> tid << 1 (BUSY, owned by thread tid) --store--> 1 (READY)
 *
 * evt_clock_init() waits while another thread is BUSY; it takes over if
 * the owner no longer exists in this process (a fork() child of a
 * process that was calibrating), and returns -EDEADLK if the owner is
 * the calling thread (a signal handler that interrupted its own
 * thread's calibration).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#endif

#include "clock/clock_internal.h"

struct tclock_calib tclock;
struct tclock_counter tclock_counter;

#define CALIB_UNINIT	0u
#define CALIB_READY	1u
/* otherwise BUSY: the owner's tid << 1 (even, >= 2) */

/* Who calibrates: written by CAS (claim) and st_release (done); see above. */
static uint64_t calib_state;

/* The measurement: nap between the two brackets, brackets per end, tries. */
#define CALIB_MEASURE_MS	18u
#define CALIB_TRIES		16
#define CALIB_ATTEMPTS		5

static const char *const clock_names[EVT_CLOCK__COUNT] = {
	[EVT_CLOCK_LOCAL] = "local",
	[EVT_CLOCK_GLOBAL] = "global",
	[EVT_CLOCK_COUNTER] = "counter",
	[EVT_CLOCK_MONO] = "mono",
	[EVT_CLOCK_MONO_RAW] = "mono_raw",
	[EVT_CLOCK_BOOT] = "boot",
#if defined(__x86_64__)
	[EVT_CLOCK_TSC] = "x86-tsc",
#else
	[EVT_CLOCK_TSC] = "tsc",
#endif
};

static const char *const source_names[] = {
	[TCLOCK_SRC_NONE] = "none",
	[TCLOCK_SRC_PERF] = "perf",
	[TCLOCK_SRC_CNTFRQ] = "cntfrq",
	[TCLOCK_SRC_MEASURED] = "measured",
};

static bool env_is(const char *name, const char *value)
{
	const char *v = secure_getenv(name);

	return v && !strcmp(v, value);
}

/* Sleep @ns on CLOCK_MONOTONIC, through signals (clock_nanosleep() leaves errno alone). */
static void nap_ns(uint64_t ns)
{
	uint64_t end = tclock_posix(CLOCK_MONOTONIC) + ns;
	struct timespec t;

	t.tv_sec = (time_t)(end / 1000000000u);
	t.tv_nsec = (long)(end % 1000000000u);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

#if defined(__x86_64__)
/* Whether whitespace-separated @word is on the first line of @buf starting with @key. */
static bool cpuinfo_has(const char *buf, const char *key, const char *word)
{
	size_t klen = strlen(key), wlen = strlen(word);
	const char *line = buf, *end, *p;

	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			return false;
		if (strncmp(line, key, klen) || (line[klen] != '\t' && line[klen] != ' '))
			continue;
		for (p = line + klen; p + wlen <= end; p++)
			if (p[-1] == ' ' && !memcmp(p, word, wlen) && (p + wlen == end || p[wlen] == ' '))
				return true;
		return false;
	}
	return false;
}

/* The kernel's view: constant_tsc and nonstop_tsc. Only the calibrator runs this. */
static bool cpuinfo_invariant_tsc(void)
{
	static char buf[16384];	/* static: the calibration may run on a small signal stack */
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return cpuinfo_has(buf, "flags", "constant_tsc") &&
	       cpuinfo_has(buf, "flags", "nonstop_tsc");
}
#endif

/* Whether the cycle counter runs at a constant rate and does not stop in idle states. */
static bool counter_invariant(void)
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
		return true;
	return cpuinfo_invariant_tsc();
#elif defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

/* The counter, ordered against the clock_gettime() calls around it (calibration only). */
static inline uint64_t cycles_fenced(void)
{
#if defined(__x86_64__)
	uint64_t v;

	/* lfence: rdtsc neither starts before the previous call is done nor after the next starts. */
	__builtin_ia32_lfence();
	v = __builtin_ia32_rdtsc();
	__builtin_ia32_lfence();
	return v;
#else
	return tclock_cycles();	/* aarch64: isb in front */
#endif
}

struct bracket {
	uint64_t cyc;	/* the counter ... */
	uint64_t lo;	/* ... read between these two clock readings */
	uint64_t hi;
};

/* The tightest (clock, counter, clock) bracket of CALIB_TRIES. */
static void bracket(clockid_t id, struct bracket *best)
{
	struct bracket b;

	best->lo = 0;
	best->hi = UINT64_MAX;
	best->cyc = 0;
	for (int i = 0; i < CALIB_TRIES; i++) {
		b.lo = tclock_posix(id);
		b.cyc = cycles_fenced();
		b.hi = tclock_posix(id);
		if (b.hi - b.lo < best->hi - best->lo)
			*best = b;
	}
}

int tclock_scale(uint64_t ns, uint64_t cycles, uint64_t *mult, uint32_t *shift)
{
	unsigned __int128 m;

	if (!ns || !cycles)
		return -EINVAL;
	/*
	 * The largest shift whose mult fits in 63 bits (a 64x63-bit product fits
	 * 128 bits). mult rounds up, by less than 2^-62 of itself: the scaled
	 * value is then the exact quotient rounded down (whole seconds of a
	 * 24 MHz counter give whole seconds), short of 2^62 ns.
	 */
	for (int s = 63; s >= 0; s--) {
		m = (((unsigned __int128)ns << s) + cycles - 1) / cycles;
		if (m < ((unsigned __int128)1 << 63)) {
			if (!m)
				return -EINVAL;
			*mult = (uint64_t)m;
			*shift = (uint32_t)s;
			return 0;
		}
	}
	return -ERANGE;	/* more than 2^63 ns per cycle */
}

int tclock_measure(unsigned int ms, uint64_t *mult, uint32_t *shift, uint64_t *bracket_ns)
{
	uint64_t dn, dc, width, best_dn = 0, best_dc = 0, best_width = UINT64_MAX;
	struct bracket b0, b1;

	for (int i = 0; i < CALIB_ATTEMPTS; i++) {
		bracket(CLOCK_MONOTONIC_RAW, &b0);
		nap_ns((uint64_t)ms * 1000000u);
		bracket(CLOCK_MONOTONIC_RAW, &b1);
		/*
		 * Midpoints: where in its bracket the counter was read is about the
		 * same at both ends, so that bias cancels out of the difference.
		 */
		dn = (b1.lo / 2 + b1.hi / 2) - (b0.lo / 2 + b0.hi / 2);
		dc = b1.cyc - b0.cyc;
		width = (b0.hi - b0.lo) + (b1.hi - b1.lo);
		if (b1.cyc > b0.cyc && dn > width && width < best_width) {
			best_dn = dn;
			best_dc = dc;
			best_width = width;
		}
		/*
		 * Good enough: the brackets bound the rate error to 10 ppm (the
		 * error is far smaller: the bias cancels, only jitter is left).
		 */
		if (best_dc && best_width <= best_dn / 100000)
			break;
	}
	if (!best_dc)
		return -EAGAIN;
	if (bracket_ns)
		*bracket_ns = best_width;
	return tclock_scale(best_dn, best_dc, mult, shift);
}

int tclock_perf_scale(uint64_t *mult, uint32_t *shift)
{
#if defined(__x86_64__)
	struct perf_event_mmap_page *pg;
	struct perf_event_attr attr;
	uint64_t caps = 0, m = 0;
	uint32_t seq, s = 0;
	long page, fd;
	int ret;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;	/* what perf_event_paranoid 2 allows */
	attr.exclude_hv = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	page = sysconf(_SC_PAGESIZE);
	pg = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, (int)fd, 0);
	if (pg == MAP_FAILED) {
		ret = -errno;
		close((int)fd);
		return ret;
	}
	ret = -EAGAIN;
	/*
	 * The kernel updates the page under a sequence count (odd while it
	 * writes). Bounded: the page is another's memory.
	 */
	for (int i = 0; i < 1000; i++) {
		/* Acquire: the field loads below come after this read of lock. */
		seq = ld_acquire(&pg->lock);
		caps = ld_relaxed(&pg->capabilities);
		m = ld_relaxed(&pg->time_mult);
		s = ld_relaxed(&pg->time_shift);
		/* Acquire fence: the field loads above come before the re-read of lock. */
		fence_acquire();
		if (!(seq & 1) && ld_relaxed(&pg->lock) == seq) {
			ret = 0;
			break;
		}
	}
	munmap(pg, (size_t)page);
	close((int)fd);
	if (ret)
		return ret;
	/* cap_user_time is bit 3 of capabilities (linux/perf_event.h): time_* are valid. */
	if (!((caps >> 3) & 1) || !m || s >= 64)
		return -ENOTSUP;
	*mult = m;
	*shift = s;
	return 0;
#else
	(void)mult;
	(void)shift;
	return -ENOTSUP;
#endif
}

/* Fill @c: everything but the state machine. Only the calibrator runs this. */
static void calibrate(struct tclock_calib *c)
{
	uint64_t t0 = tclock_posix(CLOCK_MONOTONIC_RAW);
	struct timespec ts;
	struct bracket b;

	memset(c, 0, sizeof(*c));
	c->invariant = counter_invariant();
#if defined(__aarch64__)
	{
		uint64_t frq;

		__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frq));
		if (frq && !tclock_scale(1000000000u, frq, &c->mult, &c->shift))
			c->source = TCLOCK_SRC_CNTFRQ;
	}
#elif defined(__x86_64__)
	if (!env_is("EVTRACE_TSC_CALIB", "measure") && !tclock_perf_scale(&c->mult, &c->shift))
		c->source = TCLOCK_SRC_PERF;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
	if (c->source == TCLOCK_SRC_NONE &&
	    !tclock_measure(CALIB_MEASURE_MS, &c->mult, &c->shift, &c->bracket_ns))
		c->source = TCLOCK_SRC_MEASURED;
#endif
	if (c->source == TCLOCK_SRC_NONE) {
		/*
		 * No counter ("cycles" are CLOCK_MONOTONIC_RAW ns), or one that
		 * did not advance through 5 measurements: take cycles for ns.
		 */
		c->mult = 1;
		c->shift = 0;
	}
	c->freq_hz = (uint64_t)((((unsigned __int128)1000000000u << c->shift) + c->mult / 2) /
				c->mult);
	/* The counter value is not below any CLOCK_MONOTONIC reading before b.hi. */
	bracket(CLOCK_MONOTONIC, &b);
	c->base_cyc = b.cyc;
	c->base_ns = b.hi;
	c->offset = b.hi - (uint64_t)(((unsigned __int128)b.cyc * c->mult) >> c->shift);
	/*
	 * "local" runs on the counter if it is invariant, its scale exact or
	 * measured to within 100 ppm at worst (a machine too busy to measure
	 * gets CLOCK_MONOTONIC), and the user did not say no.
	 */
	c->tsc_ok = c->source != TCLOCK_SRC_NONE && c->invariant && !env_is("EVTRACE_TSC", "0") &&
		    (c->source != TCLOCK_SRC_MEASURED ||
		     c->bracket_ns <= CALIB_MEASURE_MS * 1000000ull / 10000);
	c->mode = c->tsc_ok ? TCLOCK_MODE_CYCLES : TCLOCK_MODE_MONO;
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		c->err = -errno;
	c->calib_ns = tclock_posix(CLOCK_MONOTONIC_RAW) - t0;
}

/* The calibrator, owning calib_state: fill tclock, publish it, mark READY. */
static int calib_run(void)
{
	struct tclock_calib c;

	/* A takeover after fork() may find the dead owner's calibration already published. */
	if (ld_relaxed(&tclock.mode) == TCLOCK_MODE_UNINIT) {
		calibrate(&c);
		tclock.shift = c.shift;
		tclock.mult = c.mult;
		tclock.offset = c.offset;
		tclock.tsc_ok = c.tsc_ok;
		tclock.invariant = c.invariant;
		tclock.source = c.source;
		tclock.err = c.err;
		tclock.freq_hz = c.freq_hz;
		tclock.base_cyc = c.base_cyc;
		tclock.base_ns = c.base_ns;
		tclock.bracket_ns = c.bracket_ns;
		tclock.calib_ns = c.calib_ns;
		/* Release: the fields above are visible to whoever sees mode (ld_acquire). */
		st_release(&tclock.mode, c.mode);
	}
	/* Release: pairs with the ld_acquire in evt_clock_init()/calib_slow(): all of tclock. */
	st_release(&calib_state, (uint64_t)CALIB_READY);
	return tclock.err;
}

/* Whether thread @tid is gone from this process (e.g. we are a fork() child). */
static bool owner_gone(uint64_t tid)
{
	return syscall(SYS_tgkill, (long)getpid(), (long)tid, 0) < 0 && errno == ESRCH;
}

/*
 * calib_slow() - make sure the calibration is done, or at least started.
 * @wait: wait for another thread's calibration to finish.
 *
 * Context: any thread; with !@wait also a signal handler (it never
 * blocks, though it may run the calibration itself). errno is preserved.
 * Return: tclock.err once calibrated; -EAGAIN (!@wait, another thread is
 * calibrating) or -EDEADLK (this thread is, and we interrupted it).
 */
static int calib_slow(bool wait)
{
	int saved_errno = errno, ret;
	uint64_t me, s;

	/* Acquire: pairs with calib_run()'s st_release(READY): tclock is complete. */
	s = ld_acquire(&calib_state);
	if (s == CALIB_READY)
		return tclock.err;
	if (s != CALIB_UNINIT && !wait)
		return -EAGAIN;
	me = (uint64_t)syscall(SYS_gettid) << 1;
	for (;;) {
		if (s == CALIB_READY) {
			ret = tclock.err;
			break;
		}
		if (s == me) {
			ret = -EDEADLK;
			break;
		}
		if (s == CALIB_UNINIT || (wait && owner_gone(s >> 1))) {
			/*
			 * Acq_rel CAS: the claim. Acquire so that a takeover sees
			 * what the gone owner published; on failure s is reloaded
			 * with acquire.
			 */
			if (cas_acq_rel(&calib_state, &s, me)) {
				ret = calib_run();
				break;
			}
			continue;
		}
		if (!wait) {
			ret = -EAGAIN;
			break;
		}
		nap_ns(200000);
		/* Acquire: as above. */
		s = ld_acquire(&calib_state);
	}
	errno = saved_errno;
	return ret;
}

uint64_t tclock_local_slow(void)
{
	/* Acquire: pairs with the calibrator's st_release of mode (mult/shift/offset). */
	uint32_t mode = ld_acquire(&tclock.mode);

	if (mode == TCLOCK_MODE_UNINIT) {
		calib_slow(false);
		/* Acquire: as above. Still UNINIT if another thread is calibrating. */
		mode = ld_acquire(&tclock.mode);
	}
	if (mode == TCLOCK_MODE_CYCLES)
		return tclock_scale_cycles(tclock_cycles());
	return tclock_posix(CLOCK_MONOTONIC);
}

uint64_t tclock_tsc_to_ns(uint64_t cycles)
{
	/* Acquire: pairs with the calibrator's st_release of mode (mult/shift/offset). */
	if (unlikely(ld_acquire(&tclock.mode) == TCLOCK_MODE_UNINIT)) {
		calib_slow(true);
		/* Only -EDEADLK leaves it uncalibrated: give the cycles back unchanged. */
		if (ld_acquire(&tclock.mode) == TCLOCK_MODE_UNINIT)
			return cycles;
	}
	return tclock_scale_cycles(cycles);
}

const char *tclock_source_name(void)
{
	/* Acquire: pairs with the calibrator's st_release of mode (source). */
	if (ld_acquire(&tclock.mode) == TCLOCK_MODE_UNINIT)
		return "uncalibrated";
	return tclock.source < ARRAY_SIZE(source_names) ? source_names[tclock.source] : "?";
}

int evt_clock_init(void)
{
	/* Acquire: pairs with calib_run()'s st_release(READY): tclock is complete. */
	if (likely(ld_acquire(&calib_state) == CALIB_READY))
		return tclock.err;
	return calib_slow(true);
}

uint64_t evt_clock_read(enum evt_clock_id id)
{
	if ((unsigned int)id >= EVT_CLOCK__COUNT)
		return 0;
	return tclock_read(id);
}

uint64_t evt_clock_to_ns(enum evt_clock_id id, uint64_t ts)
{
	return tclock_to_ns(id, ts);
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
	/* Both spellings of the counter clock, on every architecture. */
	if (!strcmp(name, "x86-tsc") || !strcmp(name, "tsc"))
		return EVT_CLOCK_TSC;
	return -EINVAL;
}

bool evt_clock_is_ns(enum evt_clock_id id)
{
	return (unsigned int)id < EVT_CLOCK__COUNT && id != EVT_CLOCK_COUNTER &&
	       id != EVT_CLOCK_TSC;
}
