// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_x86.c - the probe mechanism on x86-64 (docs/probes.md).
 *
 * A probe site is a 5-byte `jmp rel32` written over the instruction(s) at
 * the probed address, into a trampoline page mapped within +-2 GiB of it:
 *
 *   entry:  lea -128(%rsp),%rsp          skip the red zone (probes inside leaf code)
 *           pushfq; push 15 GPRs; 16 x movdqu %xmmN -> struct probe_regs
 *           mov %rsp,%rsi; movabs $site,%rdi; align %rsp; call probe_site_entry
 *           restore xmm, GPRs, flags; lea 128(%rsp),%rsp
 *   skip:   the displaced instructions, relocated (RIP-relative displacements and
 *           relative branches re-aimed; nops dropped)
 *           jmp back to the first byte after the patched range
 *
 * Cross-modification, as the kernel's text_poke_bp(): an int3 on the first
 * byte, a sync of every CPU running the process (membarrier SYNC_CORE where
 * the kernel has it; the mprotect() round trip around each write also
 * flushes every CPU's TLB through an IPI, which serializes it), the other
 * four bytes, a sync, then the first byte. A thread that hits the int3
 * meanwhile takes a SIGTRAP: our handler (chained to the program's own)
 * sends it to the trampoline (to `skip` during a removal, or after one).
 *
 * Refused: an instruction the decoder does not know, jrcxz/loop/xbegin
 * (rel8 only, or state we cannot move), a call that is not the last
 * displaced instruction (its callee would return into the patched bytes),
 * a probe point that is not an instruction boundary of a linear decode of
 * the function, a function too short for 5 bytes, and a relative jump of
 * the function aimed inside the patched range. A thread stopped between two
 * of the displaced instructions is moved out before the bytes change (the
 * evacuation below). Not detected: indirect jumps (switch tables) aimed
 * inside the range (docs/probes.md).
 *
 * Sites and trampolines are never freed (a thread may still be inside a
 * trampoline, or get the SIGTRAP of an int3 long gone): a removed probe
 * costs one page. Everything here runs under event_mutex but the SIGTRAP
 * handler and probe_site_entry(), which run in the traced threads.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/rcu.h"
#include "probe/probe.h"

/* The per-thread re-entry guard: a hit inside a handler (or a signal handler
 * interrupting one) is missed, never nested. Only this thread touches it. */
static __thread unsigned char probe_nest;

bool probe_enter(void)
{
	if (probe_nest)
		return false;
	probe_nest = 1;
	signal_fence(); /* the flag is set before the handler's body, for a signal handler */
	return true;
}

void probe_leave(void)
{
	signal_fence(); /* the handler's body is done before the flag clears */
	probe_nest = 0;
}

#if defined(__x86_64__) && defined(EVT_HAVE_ZYDIS)

#include <Zydis/Zydis.h>

#define JMP_LEN	   5
#define TRAMP_SIZE 4096
#define SITES_MAX  4096
#define FUNC_SCAN_MAX (64u << 10) /* bytes of a function decoded for jumps into the range */

struct probe_site {
	uint64_t addr;		 /* the patched bytes */
	unsigned int len;	 /* how many (>= 5) */
	uint8_t saved[32];	 /* the original bytes */
	uint8_t *tramp;		 /* the trampoline page */
	uint64_t skip;		 /* its `skip` entry */
	struct probe *probe;	 /* NULL once removed (RCU: the handler's read) */
	probe_handler_t handler;
	uint8_t removing;	 /* the SIGTRAP handler's choice of entry */
	/* by byte offset in the patched range: where the trampoline runs the instruction that
	 * starts there (offset from tramp; 0: no instruction starts there) */
	uint16_t map[32];
};

/* Every site ever installed, for the SIGTRAP handler: published with a release store of
 * nr_sites after the entry is complete; never removed. */
static struct probe_site *sites[SITES_MAX];
static unsigned int nr_sites;

static struct sigaction old_trap;
static bool trap_installed;

bool probe_supported(void)
{
	return true;
}

uint64_t probe_site_addr(const struct probe_site *site)
{
	return site->addr;
}

const uint8_t *probe_site_saved(const struct probe_site *site, size_t *len)
{
	*len = site->len;
	return site->saved;
}

/* --- the hit ------------------------------------------------------------------------------ */

/* Called by every entry trampoline (never inlined: the trampoline calls it by address). */
static void __attribute__((noinline, used)) probe_site_entry(struct probe_site *site,
							    struct probe_regs *regs)
{
	struct probe_ctx ctx;
	struct probe *p;

	if (!probe_enter())
		return;
	rcu_lock();
	p = rcu_deref(site->probe); /* pairs with rcu_publish() in install/remove */
	if (p) {
		ctx.regs = regs;
		ctx.sp = (uint64_t)(uintptr_t)(regs + 1) + 128;
		ctx.ip = site->addr;
		ctx.retval = 0;
		ctx.is_return = false;
		site->handler(p, &ctx);
	}
	rcu_unlock();
	probe_leave();
}


/*
 * --- threads stopped inside the range ------------------------------------------------------
 *
 * The int3 protocol covers a thread that arrives at the first byte while the jump is being
 * written. It does not cover one that is already past it: preempted (or blocked in a
 * syscall) between two of the displaced instructions, or between two of gcc's 1-byte nops
 * of a -fpatchable-function-entry pad. That thread would resume in the middle of the new
 * jump's bytes. So, at an install, once the int3 is in place and before any other byte
 * changes, every other thread of the process that may be in the range is interrupted with
 * a real-time signal of our own (evac_sig: the highest one whose disposition was the
 * default, checked again before each use; rt_tgsigqueueinfo with SI_QUEUE and si_value =
 * &evac_cookie). Not SIGTRAP: a second SIGTRAP is not queued while one is pending, so an
 * int3 hit at that moment would be lost and its thread left past the int3, in the range.
 * Its handler looks at the interrupted
 * RIP; if it lies strictly inside the range, it moves it to the same instruction's
 * relocated copy in the trampoline (site->map), which runs the rest of the displaced code
 * and jumps back after the range: the thread goes on as if nothing happened (this call
 * is not recorded: it began before the probe). Then it acknowledges. After every thread
 * has answered, no thread is inside the range, and none can enter it but through the
 * first byte (which traps): the tail can be written.
 *
 * A thread asleep in the kernel is not interrupted when /proc/self/task/TID/syscall gives
 * its user RIP outside the range (it can only come back through the first byte), and one
 * that does not answer (it blocks the signal) is looked at that way again while we wait.
 * One still running after EVAC_WAIT_MS makes the install fail with -EBUSY, the int3
 * undone. Not covered: a thread whose interrupted context inside the range was saved by a
 * signal handler it is still running (sigreturn would go back there).
 *
 * State (written under event_mutex by the one installer; read by the handlers):
 *   evac_cur    NULL, or the running evacuation: its site and the threads asked.
 *   ack[i].gen  the evacuation's generation, written by thread ack[i].tid's handler.
 * An evacuation record is freed when every thread asked answered (then no handler of it
 * runs any more); once a thread was let off without answering, its signal is still
 * pending and a late handler may read the record, so from then on records are never freed.
 */
#define EVAC_WAIT_MS 2000

struct evac_ack {
	pid_t tid;
	unsigned int gen;
};

struct evac {
	struct evac *kept; /* the records kept (see above) */
	const struct probe_site *site;
	unsigned int gen;
	unsigned int n;
	struct evac_ack ack[];
};

static const char evac_cookie;		/* its address tells our signal apart */
static int evac_sig;			/* event_mutex; 0: not chosen yet */
static struct evac *evac_cur;		/* see above; published with release */
static unsigned int evac_gen;		/* event_mutex */
static bool evac_leaky;			/* event_mutex: a thread did not answer once */
static struct evac *evac_kept;		/* event_mutex: the records never freed */
static unsigned long evac_moved;	/* threads moved out of a range, ever (atomic) */

unsigned long probe_evac_moved(void)
{
	return ld_relaxed(&evac_moved); /* a statistic alone */
}

/* The evacuation signal's handler. Async-signal-safe. */
static void evac_handler(int sig, siginfo_t *info, void *ucp)
{
	/* Acquire: the record and its site are complete (pairs with the release in evac_run). */
	struct evac *ev = ld_acquire(&evac_cur);
	const struct probe_site *s;
	ucontext_t *uc = ucp;
	uint64_t rip;
	pid_t me;

	(void)sig;
	if (info->si_code != SI_QUEUE || info->si_value.sival_ptr != &evac_cookie ||
	    info->si_pid != getpid())
		return; /* not ours (the signal's default action was ours to replace) */
	if (!ev)
		return; /* a late signal of an evacuation that let its thread off */
	s = ev->site;
	rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	if (rip > s->addr && rip < s->addr + s->len && s->map[rip - s->addr]) {
		uc->uc_mcontext.gregs[REG_RIP] =
			(greg_t)((uint64_t)(uintptr_t)s->tramp + s->map[rip - s->addr]);
		add_relaxed(&evac_moved, 1); /* a statistic alone */
	}
	me = (pid_t)syscall(SYS_gettid);
	for (unsigned int i = 0; i < ev->n; i++) {
		if (ev->ack[i].tid == me) {
			/* Release: the RIP is moved before the installer reads the answer (pairs
			 * with the acquire in evac_wait); the last access to the record. */
			st_release(&ev->ack[i].gen, ev->gen);
			break;
		}
	}
}

/* Whether thread @tid may be inside (@lo, @hi): false only when it sleeps in the kernel with
 * its user RIP elsewhere (/proc/self/task/TID/syscall: "NR ARGS... SP PC" or "-1 SP PC"). */
static bool evac_may_be_inside(pid_t tid, uint64_t lo, uint64_t hi)
{
	char path[64], buf[256], *last;
	unsigned long long pc;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	if (!strncmp(buf, "running", 7))
		return true;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	last = strrchr(buf, ' ');
	if (!last || sscanf(last + 1, "%llx", &pc) != 1)
		return true;
	return pc > lo && pc < hi;
}

/* The threads to ask (all but this one that may be inside the range), into a new record. */
static struct evac *evac_collect(const struct probe_site *site)
{
	pid_t me = (pid_t)syscall(SYS_gettid);
	unsigned int cap = 64, n = 0;
	struct evac *ev = malloc(sizeof(*ev) + cap * sizeof(ev->ack[0])), *bigger;
	struct dirent *de;
	DIR *d;

	if (!ev)
		return NULL;
	d = opendir("/proc/self/task");
	if (!d) {
		free(ev);
		return NULL;
	}
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || tid == me || !evac_may_be_inside(tid, site->addr,
								  site->addr + site->len))
			continue;
		if (n == cap) {
			cap *= 2;
			bigger = realloc(ev, sizeof(*ev) + cap * sizeof(ev->ack[0]));
			if (!bigger) {
				closedir(d);
				free(ev);
				return NULL;
			}
			ev = bigger;
		}
		ev->ack[n].tid = tid;
		ev->ack[n].gen = 0;
		n++;
	}
	closedir(d);
	ev->site = site;
	ev->n = n;
	ev->gen = ++evac_gen ? evac_gen : ++evac_gen; /* never 0: an unanswered slot */
	return ev;
}

/*
 * Wait until every thread asked answered, or is asleep outside the range, or exited: 0, or
 * -EBUSY after EVAC_WAIT_MS. @let_off: a thread was let off with the signal still pending.
 */
static int evac_wait(struct evac *ev, bool *let_off)
{
	const struct probe_site *s = ev->site;
	struct timespec t0, now, ts = { 0, 0 };
	long waited_ms = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0; i < ev->n; i++) {
		/* Acquire: pairs with the handler's release (its RIP is out of the range). */
		while (ld_acquire(&ev->ack[i].gen) != ev->gen) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/self/task/%d", (int)ev->ack[i].tid);
			if (access(path, F_OK))
				break; /* it exited (a new thread with its tid starts outside) */
			if (waited_ms >= 1 &&
			    !evac_may_be_inside(ev->ack[i].tid, s->addr, s->addr + s->len)) {
				*let_off = true; /* asleep elsewhere, the signal blocked */
				break;
			}
			if (waited_ms >= EVAC_WAIT_MS) {
				*let_off = true;
				return -EBUSY;
			}
			/* 10 us, doubling up to 1 ms: most threads answer within microseconds */
			ts.tv_nsec = ts.tv_nsec ? (ts.tv_nsec < 1000000 ? ts.tv_nsec * 2 : 1000000) :
						  10000;
			nanosleep(&ts, NULL);
			clock_gettime(CLOCK_MONOTONIC, &now);
			waited_ms = (now.tv_sec - t0.tv_sec) * 1000 +
				    (now.tv_nsec - t0.tv_nsec) / 1000000;
		}
	}
	return 0;
}

/* Choose (again, if the program took it since) the signal, and install its handler. */
static int evac_sig_ready(void)
{
	struct sigaction sa, cur;

	if (evac_sig && !sigaction(evac_sig, NULL, &cur) && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == evac_handler)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = evac_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (int sig = SIGRTMAX; sig > SIGRTMIN; sig--) {
		if (sigaction(sig, NULL, &cur) || (cur.sa_flags & SA_SIGINFO) ||
		    cur.sa_handler != SIG_DFL)
			continue;
		if (!sigaction(sig, &sa, NULL)) {
			evac_sig = sig;
			return 0;
		}
	}
	return -EBUSY;
}

/*
 * evac_run() - after the int3 is in place: move every thread stopped inside @site's range
 * to the trampoline. 0, -ENOMEM, or -EBUSY (a thread did not answer).
 */
static int evac_run(const struct probe_site *site)
{
	pid_t pid = getpid();
	bool let_off = false;
	struct evac *ev;
	int ret;

	ret = evac_sig_ready();
	if (ret)
		return ret;
	ev = evac_collect(site);
	if (!ev)
		return -ENOMEM;
	if (!ev->n) {
		free(ev);
		return 0;
	}
	/* Release: the record is complete before a handler can load it (pairs with its acquire);
	 * the int3 was written and synced before, so a thread past its answer enters no more. */
	st_release(&evac_cur, ev);
	for (unsigned int i = 0; i < ev->n; i++) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		si.si_signo = evac_sig;
		si.si_code = SI_QUEUE;
		si.si_pid = pid;
		si.si_uid = getuid();
		si.si_value.sival_ptr = (void *)&evac_cookie;
		if (syscall(SYS_rt_tgsigqueueinfo, pid, ev->ack[i].tid, evac_sig, &si))
			/* Relaxed: only this thread reads it (the target exited, nothing to wait for) */
			st_relaxed(&ev->ack[i].gen, ev->gen);
	}
	ret = evac_wait(ev, &let_off);
	/* Relaxed: a handler that still loads the record finds it valid (freed only below, when
	 * every handler asked has made its last access). */
	st_relaxed(&evac_cur, NULL);
	if (let_off)
		evac_leaky = true;
	if (evac_leaky) {
		ev->kept = evac_kept;
		evac_kept = ev;
	} else {
		free(ev);
	}
	return ret;
}

static void trap_handler(int sig, siginfo_t *info, void *ucp)
{
	ucontext_t *uc = ucp;
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
	/* Acquire: the entries below nr_sites are complete (pairs with the release in install). */
	unsigned int n = ld_acquire(&nr_sites);


	for (unsigned int i = 0; i < n; i++) {
		struct probe_site *s = sites[i];

		if (s->addr == rip) {
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(ld_relaxed(&s->removing) ?
						 s->skip : (uint64_t)(uintptr_t)s->tramp);
			return;
		}
	}
	/* not ours: the program's handler, or what it would have had */
	if (old_trap.sa_flags & SA_SIGINFO) {
		old_trap.sa_sigaction(sig, info, ucp);
	} else if (old_trap.sa_handler == SIG_IGN) {
		return;
	} else if (old_trap.sa_handler == SIG_DFL) {
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
	} else {
		old_trap.sa_handler(sig);
	}
}

static int trap_install(void)
{
	struct sigaction sa;

	if (trap_installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old_trap))
		return -EPERM;
	trap_installed = true;
	return 0;
}

/* --- writing code --------------------------------------------------------------------------- */

/* The protection of the mapping that holds @addr (from /proc/self/maps); -1 if unmapped. */
static int prot_of(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long lo, hi;
	char perms[8];
	int prot = -1;

	if (!f)
		return PROT_READ | PROT_EXEC;
	while (fscanf(f, "%lx-%lx %7s %*[^\n]", &lo, &hi, perms) == 3) {
		if (addr >= lo && addr < hi) {
			prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			       (perms[2] == 'x' ? PROT_EXEC : 0);
			break;
		}
	}
	fclose(f);
	return prot;
}

static void sync_cores(void)
{
	static int registered; /* event_mutex */

	if (!registered)
		registered = syscall(SYS_membarrier, 1 << 6 /* REGISTER_PRIVATE_EXPEDITED_SYNC_CORE */,
				     0, 0) == 0 ? 1 : -1;
	if (registered > 0)
		syscall(SYS_membarrier, 1 << 5 /* PRIVATE_EXPEDITED_SYNC_CORE */, 0, 0);
}

/* Write @n bytes at @addr of mapped code (in one page or two), then sync every core. */
static int text_poke(uint64_t addr, const uint8_t *bytes, size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t lo = addr & ~(uint64_t)(pg - 1);
	uint64_t hi = (addr + n + (uint64_t)pg - 1) & ~(uint64_t)(pg - 1);
	int prot = prot_of(addr), prot2 = prot_of(addr + n - 1);

	if (prot < 0 || prot2 < 0)
		return -EFAULT;
	if (mprotect((void *)(uintptr_t)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EPERM;
	for (size_t i = 0; i < n; i++) /* byte stores: the first byte's is the one that matters */
		st_relaxed((uint8_t *)(uintptr_t)(addr + i), bytes[i]);
	mprotect((void *)(uintptr_t)lo, hi - lo, prot | prot2);
	sync_cores();
	return 0;
}

/*
 * text_poke_bp(): int3, the tail, the head, a sync between each. At an install (@site: the
 * new trampoline), the threads stopped inside the range are moved out of it between the
 * int3 and the tail; if one does not answer, the int3 is undone and -EBUSY returned.
 */
static int text_poke_bp(uint64_t addr, const uint8_t *bytes, size_t n,
			const struct probe_site *site)
{
	static const uint8_t int3 = 0xcc;
	int ret = text_poke(addr, &int3, 1);

	if (!ret && site) {
		ret = evac_run(site);
		if (ret) {
			text_poke(addr, site->saved, 1);
			return ret;
		}
	}
	if (!ret && n > 1)
		ret = text_poke(addr + 1, bytes + 1, n - 1);
	if (!ret)
		ret = text_poke(addr, bytes, 1);
	return ret;
}

/* --- the trampoline ------------------------------------------------------------------------ */

/* A page within +-2 GiB of @near (RW, for writing), or NULL. */
static uint8_t *tramp_alloc(uint64_t near)
{
	const uint64_t step = 1u << 20, reach = (1ull << 31) - (4u << 20);

	for (uint64_t d = step; d < reach; d += step) {
		for (int dir = -1; dir <= 1; dir += 2) {
			uint64_t hint = (dir < 0 ? near - d : near + d) & ~(uint64_t)0xffff;
			void *p;

			if ((dir < 0 && d > near) || hint < 0x10000)
				continue;
			p = mmap((void *)(uintptr_t)hint, TRAMP_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if ((uint64_t)(uintptr_t)p != hint) { /* a kernel without NOREPLACE */
				munmap(p, TRAMP_SIZE);
				continue;
			}
			return p;
		}
	}
	return NULL;
}

struct emit {
	uint8_t *buf;
	size_t len;
	uint64_t at; /* the address buf[0] will run at */
};

static void put(struct emit *e, const void *b, size_t n)
{
	if (e->len + n <= TRAMP_SIZE)
		memcpy(e->buf + e->len, b, n);
	e->len += n;
}

static void put8(struct emit *e, uint8_t b)
{
	put(e, &b, 1);
}

static void put32(struct emit *e, uint32_t v)
{
	put(e, &v, 4);
}

static void put64(struct emit *e, uint64_t v)
{
	put(e, &v, 8);
}

static bool rel32_ok(int64_t d)
{
	return d >= INT32_MIN && d <= INT32_MAX;
}

/* jmp rel32 from here to @target. */
static int put_jmp(struct emit *e, uint64_t target)
{
	int64_t d = (int64_t)(target - (e->at + e->len + 5));

	if (!rel32_ok(d))
		return -EINVAL;
	put8(e, 0xe9);
	put32(e, (uint32_t)d);
	return 0;
}

/* movdqu between %xmmN and N*16(%rsp): @store true saves. */
static void put_xmm(struct emit *e, unsigned int n, bool store)
{
	put8(e, 0xf3);
	if (n >= 8)
		put8(e, 0x44);
	put8(e, 0x0f);
	put8(e, store ? 0x7f : 0x6f);
	put8(e, (uint8_t)(0x84 | ((n & 7) << 3))); /* disp32(%rsp) through a SIB */
	put8(e, 0x24);
	put32(e, n * 16);
}

/* Save everything into a struct probe_regs, call @fn(@arg, regs), restore. */
static void put_save_call(struct emit *e, uint64_t fn, uint64_t arg)
{
	static const uint8_t lea_down[] = { 0x48, 0x8d, 0x64, 0x24, 0x80 };
	static const uint8_t push[] = { 0x9c, 0x50, 0x51, 0x52, 0x53, 0x55, 0x56, 0x57,
					0x41, 0x50, 0x41, 0x51, 0x41, 0x52, 0x41, 0x53,
					0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57 };
	static const uint8_t pop[] = { 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c,
				       0x41, 0x5b, 0x41, 0x5a, 0x41, 0x59, 0x41, 0x58,
				       0x5f, 0x5e, 0x5d, 0x5b, 0x5a, 0x59, 0x58, 0x9d };
	static const uint8_t sub256[] = { 0x48, 0x81, 0xec, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t add256[] = { 0x48, 0x81, 0xc4, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t call_pre[] = {
		0x48, 0x89, 0xe6,	/* mov %rsp,%rsi */
		0x48, 0x89, 0xe3,	/* mov %rsp,%rbx */
		0x48, 0x83, 0xe4, 0xf0, /* and $-16,%rsp */
	};
	static const uint8_t call_post[] = {
		0xff, 0xd0,		/* call *%rax */
		0x48, 0x89, 0xdc,	/* mov %rbx,%rsp */
	};
	static const uint8_t lea_up[] = { 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00 };

	put(e, lea_down, sizeof(lea_down));
	put(e, push, sizeof(push));
	put(e, sub256, sizeof(sub256));
	for (unsigned int i = 0; i < 16; i++)
		put_xmm(e, i, true);
	put(e, call_pre, sizeof(call_pre));
	put8(e, 0x48); /* movabs $arg,%rdi */
	put8(e, 0xbf);
	put64(e, arg);
	put8(e, 0x48); /* movabs $fn,%rax */
	put8(e, 0xb8);
	put64(e, fn);
	put(e, call_post, sizeof(call_post));
	for (unsigned int i = 0; i < 16; i++)
		put_xmm(e, i, false);
	put(e, add256, sizeof(add256));
	put(e, pop, sizeof(pop));
	put(e, lea_up, sizeof(lea_up));
}

static void decoder(ZydisDecoder *d)
{
	ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

static bool is_rip_relative(const ZydisDecodedInstruction *in)
{
	return (in->attributes & ZYDIS_ATTRIB_HAS_MODRM) && in->raw.modrm.mod == 0 &&
	       in->raw.modrm.rm == 5 && in->raw.disp.size == 32;
}

/*
 * Copy one displaced instruction @in (@code, run at @from) into @e, re-aimed.
 * @last: it is the last one (a call may only be that).
 */
static int relocate(struct emit *e, const ZydisDecodedInstruction *in, const uint8_t *code,
		    uint64_t from, bool last, const char **why)
{
	uint64_t next = from + in->length;

	if (in->mnemonic == ZYDIS_MNEMONIC_NOP)
		return 0;
	if (in->meta.category == ZYDIS_CATEGORY_CALL && in->raw.imm[0].is_relative) {
		uint64_t target = next + (uint64_t)in->raw.imm[0].value.s;
		static const uint8_t lea8[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };

		if (!last) {
			*why = "a call that is not the last displaced instruction";
			return -EINVAL;
		}
		/* push the original return address (lea and movs leave the flags alone) */
		put(e, lea8, sizeof(lea8));
		put8(e, 0xc7), put8(e, 0x04), put8(e, 0x24), put32(e, (uint32_t)next);
		put8(e, 0xc7), put8(e, 0x44), put8(e, 0x24), put8(e, 0x04);
		put32(e, (uint32_t)(next >> 32));
		return put_jmp(e, target);
	}
	if (in->raw.imm[0].is_relative) {
		uint64_t target = next + (uint64_t)in->raw.imm[0].value.s;

		if (in->meta.category == ZYDIS_CATEGORY_UNCOND_BR)
			return put_jmp(e, target);
		if (in->meta.category == ZYDIS_CATEGORY_COND_BR &&
		    in->mnemonic != ZYDIS_MNEMONIC_JRCXZ && in->mnemonic != ZYDIS_MNEMONIC_JECXZ &&
		    in->mnemonic != ZYDIS_MNEMONIC_LOOP && in->mnemonic != ZYDIS_MNEMONIC_LOOPE &&
		    in->mnemonic != ZYDIS_MNEMONIC_LOOPNE) {
			int64_t d = (int64_t)(target - (e->at + e->len + 6));

			if (!rel32_ok(d))
				return -EINVAL;
			put8(e, 0x0f);
			put8(e, (uint8_t)(0x80 | (in->opcode & 0x0f)));
			put32(e, (uint32_t)d);
			return 0;
		}
		*why = "a relative branch that cannot be relocated (jrcxz, loop, xbegin)";
		return -EINVAL;
	}
	if (is_rip_relative(in)) {
		uint8_t copy[ZYDIS_MAX_INSTRUCTION_LENGTH];
		int64_t disp = in->raw.disp.value + (int64_t)(from - (e->at + e->len));
		int32_t d32 = (int32_t)disp;

		if (!rel32_ok(disp)) {
			*why = "a RIP-relative operand out of reach of the trampoline";
			return -EINVAL;
		}
		memcpy(copy, code, in->length);
		memcpy(copy + in->raw.disp.offset, &d32, 4);
		put(e, copy, in->length);
		return 0;
	}
	if (in->attributes & ZYDIS_ATTRIB_IS_RELATIVE) {
		*why = "an instruction relative to its address that cannot be relocated";
		return -EINVAL;
	}
	put(e, code, in->length);
	return 0;
}

/*
 * Decode the function linearly: @addr must be an instruction boundary and no
 * relative branch may land in (@addr, @addr + @len).
 */
/*
 * clang's -fsanitize=function signature at a function's entry, `jmp .+8` and the magic
 * 0x3276 (then 4 bytes of data): the bytes the jump skips, else 0. Nothing looser: a plain
 * jump at an entry (gcc's loop rotation) goes into code a probe there must not move to.
 */
static int64_t entry_skip(const uint8_t *code)
{
	static const uint8_t sig[] = { 0xeb, 0x06, 0x76, 0x32 };

	return memcmp(code, sig, sizeof(sig)) ? 0 : 6;
}

static bool is_endbr(const ZydisDecodedInstruction *in)
{
	return in->mnemonic == ZYDIS_MNEMONIC_ENDBR64 || in->mnemonic == ZYDIS_MNEMONIC_ENDBR32;
}

static int check_function(uint64_t func, uint64_t size, uint64_t addr, unsigned int len,
			  const char **why)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)func;
	bool boundary = addr == func, entry = true;
	ZydisDecodedInstruction in;
	ZydisDecoder d;
	uint64_t off = 0;

	if (!size)
		return 0; /* no size known: nothing to scan */
	if (size > FUNC_SCAN_MAX)
		size = FUNC_SCAN_MAX;
	decoder(&d);
	while (off < size) {
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&d, NULL, code + off, size - off,
							      &in)))
			break; /* data, padding: stop here */
		if (func + off == addr)
			boundary = true;
		if (in.raw.imm[0].is_relative) {
			uint64_t target = func + off + in.length + (uint64_t)in.raw.imm[0].value.s;

			if (target > addr && target < addr + len) {
				*why = "a jump of the function lands inside the patched bytes";
				return -EINVAL;
			}
		}
		if (entry && entry_skip(code + off)) /* the data it jumps over is no code */
			off += (uint64_t)entry_skip(code + off);
		entry = entry && is_endbr(&in);
		off += in.length;
	}
	if (!boundary) {
		*why = "Probe point is not an instruction boundary";
		return -EILSEQ;
	}
	return 0;
}

/* Build the trampoline for @site into its page; the displaced code is at @code. */
static int tramp_build(struct probe_site *site, const uint8_t *code, const char **why)
{
	struct emit e = { site->tramp, 0, (uint64_t)(uintptr_t)site->tramp };
	unsigned int off = 0;
	ZydisDecodedInstruction in;
	ZydisDecoder d;
	int ret;

	decoder(&d);
	put_save_call(&e, (uint64_t)(uintptr_t)probe_site_entry, (uint64_t)(uintptr_t)site);
	site->skip = e.at + e.len;
	while (off < site->len) {
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&d, NULL, code + off,
							      site->len - off, &in))) {
			*why = "an instruction the decoder does not know";
			return -EINVAL;
		}
		/* a thread stopped at this instruction resumes here (a dropped nop: at the next) */
		site->map[off] = (uint16_t)e.len;
		ret = relocate(&e, &in, code + off, site->addr + off, off + in.length >= site->len,
			       why);
		if (ret)
			return ret;
		off += in.length;
	}
	ret = put_jmp(&e, site->addr + site->len);
	if (ret || e.len > TRAMP_SIZE) {
		*why = "the trampoline does not fit";
		return -EINVAL;
	}
	return 0;
}

/*
 * How many bytes from @addr to displace (whole instructions, >= 5); an endbr64 first is kept,
 * and at a function's entry (@at_entry) a short jump over data is followed.
 */
static int measure(uint64_t *addr, uint64_t end, bool at_entry, unsigned int *lenp,
		   const char **why)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)*addr;
	ZydisDecodedInstruction in;
	unsigned int len = 0;
	ZydisDecoder d;

	decoder(&d);
	if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d, NULL, code, 15, &in)) && is_endbr(&in)) {
		/* indirect branches land on the endbr: the jump goes after it */
		*addr += in.length;
		code += in.length;
	}
	if (at_entry && entry_skip(code)) {
		/* every call goes on at the jump's target: the probe goes there */
		*addr += 2 + (uint64_t)entry_skip(code);
		code = (const uint8_t *)(uintptr_t)*addr;
	}
	while (len < JMP_LEN) {
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&d, NULL, code + len, 15, &in))) {
			*why = "an instruction the decoder does not know";
			return -EINVAL;
		}
		if (len + in.length < JMP_LEN &&
		    (in.meta.category == ZYDIS_CATEGORY_RET ||
		     (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR && !in.raw.imm[0].is_relative) ||
		     in.mnemonic == ZYDIS_MNEMONIC_INT3 || in.mnemonic == ZYDIS_MNEMONIC_UD2)) {
			*why = "the function is too short to patch";
			return -EINVAL;
		}
		len += in.length;
	}
	if (end && *addr + len > end) {
		*why = "the function is too short to patch";
		return -EINVAL;
	}
	*lenp = len;
	return 0;
}


/* --- return probes: the shadow stack and the return trampoline --------------------------------- */

#define SHADOW_MAX 64

struct shadow_ent {
	uint64_t ret;	/* the original return address */
	uint64_t sp;	/* where it was: the stack pointer at the function's entry */
	uint64_t func;	/* the probed function */
	struct probe *p;
	unsigned int slot;
	uint32_t serial;
	bool restored; /* the stack slot holds `ret` again, for an unwinder (below) */
};

/* One per thread that hit a return probe, mmap()ed at its first hit (async-signal-safe). */
struct probe_thread {
	unsigned int depth;
	struct shadow_ent ent[SHADOW_MAX];
};

/* The one thread-local pointer (general-dynamic TLS: the library stays dlopen()able). */
static __thread struct probe_thread *probe_thr;
static pthread_key_t thr_key;
static pthread_once_t thr_once = PTHREAD_ONCE_INIT;
static uint8_t *ret_tramp; /* written once under event_mutex before any hijack */

static void shadow_drop(struct probe_thread *t);

/* At thread exit (a key destructor, in the thread): frames left never return. */
static void thr_free(void *arg)
{
	struct probe_thread *t = arg;

	while (t->depth)
		shadow_drop(t);
	probe_thr = NULL;
	munmap(t, sizeof(*t));
}

static void thr_key_init(void)
{
	pthread_key_create(&thr_key, thr_free);
}

static struct probe_thread *thr_get(void)
{
	struct probe_thread *t = probe_thr;
	void *m;

	if (likely(t))
		return t;
	m = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	t = m;
	probe_thr = t;
	/* glibc's keys below 32 live in the thread descriptor: no allocation here */
	pthread_setspecific(thr_key, t);
	return t;
}

unsigned int probe_shadow_depth(void)
{
	return probe_thr ? probe_thr->depth : 0;
}

/* Pop the top entry of a frame that will never return through us: a lost return. */
static void shadow_drop(struct probe_thread *t)
{
	const struct shadow_ent *e = &t->ent[t->depth - 1];

	probe_ret_lost(e->p, e->slot, e->serial);
	t->depth--;
}

/*
 * --- unwinders: C++ exceptions, pthread_exit(), pthread_cancel() -----------------------------
 *
 * An unwinder walks the stack by the return addresses it finds there; one we replaced
 * points at the return trampoline, which has no unwind information: the unwinder would
 * find no frame and terminate the program. So, as uftrace does, when the first return
 * probe is created, internal entry hooks (probe sites of ours, no event) go on the
 * functions through which every unwind starts (libgcc_s: _Unwind_RaiseException,
 * _Unwind_Resume, _Unwind_Resume_or_Rethrow, _Unwind_ForcedUnwind):
 *
 *   unwind_restore  (at an unwinder's entry) every entry of this thread whose frame is
 *                   still on the stack gets its original return address back in its
 *                   slot (`restored`); entries of frames below the caller are dropped;
 *   unwind_catch    (at __cxa_begin_catch, when libstdc++ is loaded: a catch clause
 *                   begins) entries of frames the exception unwound are dropped, each a
 *                   lost return (counted in the probe's nmissed); the frames that are
 *                   still there get the return trampoline again: their returns are
 *                   recorded as if nothing had happened.
 *
 * A thread that ends by pthread_exit() or pthread_cancel() loses the returns of its
 * probed frames (counted). Both hooks run in the thread that unwinds, inside
 * probe_site_entry() (the re-entry guard, RCU read side), and touch only its own shadow
 * stack. Not covered: an unwinder linked into the program (-static-libgcc, LLVM's
 * libunwind), and a catch by other means than __cxa_begin_catch (a foreign runtime): the
 * frames above it return to their original addresses, their returns unrecorded.
 */
static void unwind_restore(struct probe *unused, struct probe_ctx *ctx)
{
	struct probe_thread *t = probe_thr;
	uint64_t tramp = (uint64_t)(uintptr_t)ret_tramp, v;

	(void)unused;
	if (!t)
		return;
	/* the hooked function's own return address is at ctx->sp: frames at or below it went */
	while (t->depth && t->ent[t->depth - 1].sp <= ctx->sp)
		shadow_drop(t);
	for (unsigned int i = 0; i < t->depth; i++) {
		struct shadow_ent *e = &t->ent[i];

		memcpy(&v, (const void *)(uintptr_t)e->sp, 8);
		if (!e->restored && v == tramp) {
			memcpy((void *)(uintptr_t)e->sp, &e->ret, 8);
			e->restored = true;
		}
	}
}

static void unwind_catch(struct probe *unused, struct probe_ctx *ctx)
{
	struct probe_thread *t = probe_thr;
	uint64_t tramp = (uint64_t)(uintptr_t)ret_tramp, v;

	(void)unused;
	if (!t)
		return;
	while (t->depth && t->ent[t->depth - 1].sp <= ctx->sp)
		shadow_drop(t); /* unwound by the exception this clause catches */
	for (unsigned int i = 0; i < t->depth; i++) {
		struct shadow_ent *e = &t->ent[i];

		memcpy(&v, (const void *)(uintptr_t)e->sp, 8);
		if (e->restored && v == e->ret) {
			memcpy((void *)(uintptr_t)e->sp, &tramp, 8);
			e->restored = false;
		}
	}
}

static const char unwind_sentinel; /* the "probe" of the hooks' sites: no event */

/* Hook @name of @lib; 0, or -errno: the hook is missing (nothing changed). */
static int unwind_hook(const char *lib, const char *name, probe_handler_t handler)
{
	struct probe_site *site;
	struct probe_sym sym;
	const char *why;
	int ret;

	ret = probe_sym_lookup(lib, name, &sym);
	if (ret)
		return ret;
	return probe_site_install((struct probe *)(uintptr_t)&unwind_sentinel, sym.addr,
				  sym.addr, sym.size, handler, &site, &why);
}

/*
 * Hook the unwinders before the first return probe (libgcc_s is loaded for it if it is not:
 * glibc loads it at the first pthread_exit() anyway), and __cxa_begin_catch once libstdc++
 * is there (checked again at each return probe). -EOPNOTSUPP if an unwinder entry cannot
 * be hooked: a return probe could then kill the program.
 */
static int unwind_hooks(void)
{
	static const char *const entries[] = { "_Unwind_RaiseException", "_Unwind_Resume",
					       "_Unwind_Resume_or_Rethrow",
					       "_Unwind_ForcedUnwind" };
	static bool done[sizeof(entries) / sizeof(entries[0])], catch; /* event_mutex */
	int ret;

	for (unsigned int i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		if (done[i])
			continue;
		if (!dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD) &&
		    !dlopen("libgcc_s.so.1", RTLD_NOW))
			return -EOPNOTSUPP;
		ret = unwind_hook("libgcc_s", entries[i], unwind_restore);
		if (ret && ret != -ENOENT) /* -ENOENT: an older libgcc, fewer entries */
			return -EOPNOTSUPP;
		done[i] = true;
	}
	if (!catch && dlopen("libstdc++.so.6", RTLD_NOW | RTLD_NOLOAD)) {
		ret = unwind_hook("libstdc++", "__cxa_begin_catch", unwind_catch);
		if (ret && ret != -ENOENT)
			return -EOPNOTSUPP;
		catch = true;
	}
	return 0;
}

bool probe_ret_hijack(struct probe *p, struct probe_ctx *ctx, unsigned int maxactive)
{
	struct probe_thread *t = thr_get();
	struct shadow_ent *e;
	unsigned int mine = 0;

	if (!t || !ret_tramp)
		return false;
	/* entries at or below this frame belong to frames a longjmp() abandoned */
	while (t->depth && t->ent[t->depth - 1].sp <= ctx->sp)
		shadow_drop(t);
	if (t->depth == SHADOW_MAX)
		return false;
	if (maxactive) {
		for (unsigned int i = 0; i < t->depth; i++)
			mine += t->ent[i].p == p;
		if (mine >= maxactive)
			return false;
	}
	e = &t->ent[t->depth];
	memcpy(&e->ret, (const void *)(uintptr_t)ctx->sp, 8);
	e->sp = ctx->sp;
	e->func = ctx->ip;
	e->p = p;
	e->restored = false;
	probe_ident(p, &e->slot, &e->serial);
	signal_fence(); /* the entry is complete before a signal handler's hit can see it */
	t->depth++;
	{
		uint64_t r = (uint64_t)(uintptr_t)ret_tramp;

		memcpy((void *)(uintptr_t)ctx->sp, &r, 8);
	}
	return true;
}

/*
 * Called by the return trampoline with the registers at the return; gives the
 * address to go back to. The matching entry is the one saved at this frame:
 * entries below it were abandoned (longjmp, exceptions) and are dropped.
 */
static uint64_t __attribute__((noinline, used)) probe_ret_entry(struct probe_regs *regs)
{
	struct probe_thread *t = probe_thr;
	uint64_t sp = (uint64_t)(uintptr_t)(regs + 1); /* the slot of the return address */
	struct shadow_ent e;
	struct probe_ctx ctx;

	while (t && t->depth && t->ent[t->depth - 1].sp < sp)
		shadow_drop(t);
	if (!t || !t->depth || t->ent[t->depth - 1].sp != sp) {
		/* cannot happen: a hijacked frame always has its entry */
		static const char msg[] = "evtrace: return probe lost its return address\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	e = t->ent[t->depth - 1];
	t->depth--;
	signal_fence(); /* popped before the handler, which may hit probes itself */
	if (probe_enter()) {
		rcu_lock();
		if (probe_live_rcu(e.p, e.slot, e.serial)) {
			ctx.regs = regs;
			ctx.sp = sp + 8;
			ctx.ip = e.ret;
			ctx.retval = regs->ax;
			ctx.is_return = true;
			probe_ret_record(e.p, &ctx, e.func, e.ret);
		}
		rcu_unlock();
		probe_leave();
	}
	return e.ret;
}

/* The return trampoline: a slot for the address to return to, the registers, the call. */
static int ret_tramp_build(void)
{
	struct emit e;
	uint8_t *page;
	static const uint8_t push0[] = { 0x6a, 0x00 };
	static const uint8_t push[] = { 0x9c, 0x50, 0x51, 0x52, 0x53, 0x55, 0x56, 0x57,
					0x41, 0x50, 0x41, 0x51, 0x41, 0x52, 0x41, 0x53,
					0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57 };
	static const uint8_t pop[] = { 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c,
				       0x41, 0x5b, 0x41, 0x5a, 0x41, 0x59, 0x41, 0x58,
				       0x5f, 0x5e, 0x5d, 0x5b, 0x5a, 0x59, 0x58, 0x9d };
	static const uint8_t sub256[] = { 0x48, 0x81, 0xec, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t add256[] = { 0x48, 0x81, 0xc4, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t call_pre[] = { 0x48, 0x89, 0xe7, 0x48, 0x89, 0xe3, 0x48, 0x83, 0xe4,
					    0xf0 }; /* mov %rsp,%rdi; mov %rsp,%rbx; and $-16,%rsp */
	static const uint8_t call_post[] = {
		0xff, 0xd0,				    /* call *%rax */
		0x48, 0x89, 0xdc,			    /* mov %rbx,%rsp */
		0x48, 0x89, 0x84, 0x24, 0x80, 0x01, 0x00, 0x00, /* mov %rax,384(%rsp): the slot */
	};

	if (ret_tramp)
		return 0;
	page = mmap(NULL, TRAMP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -ENOMEM;
	e.buf = page;
	e.len = 0;
	e.at = (uint64_t)(uintptr_t)page;
	put(&e, push0, sizeof(push0));
	put(&e, push, sizeof(push));
	put(&e, sub256, sizeof(sub256));
	for (unsigned int i = 0; i < 16; i++)
		put_xmm(&e, i, true);
	put(&e, call_pre, sizeof(call_pre));
	put8(&e, 0x48);
	put8(&e, 0xb8);
	put64(&e, (uint64_t)(uintptr_t)probe_ret_entry);
	put(&e, call_post, sizeof(call_post));
	for (unsigned int i = 0; i < 16; i++)
		put_xmm(&e, i, false);
	put(&e, add256, sizeof(add256));
	put(&e, pop, sizeof(pop));
	put8(&e, 0xc3); /* ret: to the slot's address */
	if (mprotect(page, TRAMP_SIZE, PROT_READ | PROT_EXEC)) {
		munmap(page, TRAMP_SIZE);
		return -EPERM;
	}
	pthread_once(&thr_once, thr_key_init);
	/* Release: a hijack that reads it sees the finished page (pairs with nothing weaker
	 * than the hit's own loads; it is set before any return probe is armed). */
	st_release(&ret_tramp, page);
	return 0;
}

int probe_ret_prepare(void)
{
	int ret = ret_tramp_build();

	return ret ? ret : unwind_hooks();
}

int probe_site_install(struct probe *p, uint64_t addr, uint64_t func, uint64_t size,
		       probe_handler_t handler, struct probe_site **sitep, const char **why)
{
	struct probe_site *site;
	uint8_t jmp[32];
	unsigned int len;
	int ret, prot;

	*why = NULL;
	prot = prot_of(addr);
	if (prot < 0 || !(prot & PROT_EXEC)) {
		*why = "the address is not in mapped code";
		return -EFAULT;
	}
	if (ld_relaxed(&nr_sites) == SITES_MAX) {
		*why = "too many probe sites";
		return -ENOSPC;
	}
	ret = check_function(func, size, addr, 0, why); /* an instruction boundary? */
	if (ret)
		return ret;
	ret = measure(&addr, size ? func + size : 0, addr == func, &len, why);
	if (ret)
		return ret;
	ret = check_function(func, size, addr, len, why);
	if (ret)
		return ret;
	ret = trap_install();
	if (ret)
		return ret;
	site = calloc(1, sizeof(*site));
	if (!site)
		return -ENOMEM;
	site->addr = addr;
	site->len = len;
	memcpy(site->saved, (const void *)(uintptr_t)addr, len);
	site->handler = handler;
	site->tramp = tramp_alloc(addr);
	if (!site->tramp) {
		*why = "no room for a trampoline within 2 GiB";
		free(site);
		return -ENOMEM;
	}
	ret = tramp_build(site, (const uint8_t *)(uintptr_t)addr, why);
	if (ret || mprotect(site->tramp, TRAMP_SIZE, PROT_READ | PROT_EXEC)) {
		munmap(site->tramp, TRAMP_SIZE);
		free(site);
		return ret ? ret : -EPERM;
	}
	rcu_publish(site->probe, p); /* the trampoline's handler sees a complete probe */
	sites[nr_sites] = site;
	/* Release: the SIGTRAP handler that sees the count sees the entry (pairs with acquire). */
	st_release(&nr_sites, nr_sites + 1);
	jmp[0] = 0xe9;
	{
		int32_t d = (int32_t)((int64_t)((uint64_t)(uintptr_t)site->tramp - (addr + 5)));

		memcpy(jmp + 1, &d, 4);
	}
	memset(jmp + JMP_LEN, 0xcc, sizeof(jmp) - JMP_LEN); /* the rest of the range: int3 */
	ret = text_poke_bp(addr, jmp, len, site);
	if (ret) {
		*why = ret == -EBUSY ? "a thread of the process did not answer (it blocks SIGTRAP)" :
				       "the code could not be written";
		st_relaxed(&site->removing, 1);
		rcu_publish(site->probe, NULL);
		return ret; /* the site stays in the table: a thread may have trapped */
	}
	*sitep = site;
	return 0;
}

int probe_site_remove(struct probe_site *site, bool restore)
{
	int ret = 0;

	/* Relaxed: the SIGTRAP handler reads it only to pick an entry; both are valid. */
	st_relaxed(&site->removing, 1);
	if (restore)
		ret = text_poke_bp(site->addr, site->saved, site->len, NULL);
	rcu_publish(site->probe, NULL); /* the caller waits a grace period before freeing it */
	return ret;
}

#else /* no mechanism for this architecture or build */

struct probe_site {
	int unused;
};

int probe_site_install(struct probe *p, uint64_t addr, uint64_t func, uint64_t size,
		       probe_handler_t handler, struct probe_site **sitep, const char **why)
{
	(void)p, (void)addr, (void)func, (void)size, (void)handler, (void)sitep;
	*why = "probes need x86-64 and the Zydis decoder";
	return -EOPNOTSUPP;
}

int probe_site_remove(struct probe_site *site, bool restore)
{
	(void)site, (void)restore;
	return -EOPNOTSUPP;
}

bool probe_ret_hijack(struct probe *p, struct probe_ctx *ctx, unsigned int maxactive)
{
	(void)p, (void)ctx, (void)maxactive;
	return false;
}

int probe_ret_prepare(void)
{
	return -EOPNOTSUPP;
}

unsigned int probe_shadow_depth(void)
{
	return 0;
}

unsigned long probe_evac_moved(void)
{
	return 0;
}

bool probe_supported(void)
{
	return false;
}

uint64_t probe_site_addr(const struct probe_site *site)
{
	(void)site;
	return 0;
}

const uint8_t *probe_site_saved(const struct probe_site *site, size_t *len)
{
	(void)site;
	*len = 0;
	return NULL;
}

#endif
