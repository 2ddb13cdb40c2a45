// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_evac.c - the other threads of the process around a patch
 * (docs/probes.md): moved out of a range being patched (x86-64's multi-byte
 * patches), or parked in a signal handler while one instruction is written
 * (aarch64's patches of an instruction the architecture does not allow to be
 * modified while it runs).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "probe/probe_arch.h"

#ifdef PROBE_HAVE_ARCH

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
 * Parking (aarch64, docs/probes.md): to write one instruction that the architecture does not
 * allow to change while another CPU may be running it, every other thread (asleep or not;
 * one asleep in the kernel away from the site and blocking the signal is let off) gets the
 * same signal, answers, and waits in the handler (a futex on `hold`) until the instruction
 * and its cache maintenance are done (probe_evac_release()). Its return from the handler
 * is an exception return, which synchronizes its instruction stream with the new code.
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
	bool park;		/* parking: the handlers wait while `hold` */
	unsigned int hold;	/* futex word: 1 while the parked threads must wait */
	unsigned int parked;	/* handlers that parked, and that left the record */
	unsigned int left;
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
static struct evac *evac_parked;	/* event_mutex: the parking to release */

unsigned long probe_evac_moved(void)
{
	return ld_relaxed(&evac_moved); /* a statistic alone */
}

/* A parked thread: wait for the patch, then leave the record. Async-signal-safe. */
static void evac_park(struct evac *ev)
{
	/* Acquire: the new instruction and its cache maintenance are complete once it reads 0
	 * (pairs with the release in probe_evac_release()). */
	while (ld_acquire(&ev->hold))
		syscall(SYS_futex, &ev->hold, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
	/* Release: the last access to the record (pairs with the acquire before it is freed). */
	add_release(&ev->left, 1);
}

/* The evacuation signal's handler. Async-signal-safe. */
static void evac_handler(int sig, siginfo_t *info, void *ucp)
{
	/* Acquire: the record and its site are complete (pairs with the release in evac_run). */
	struct evac *ev = ld_acquire(&evac_cur);
	const struct probe_site *s;
	ucontext_t *uc = ucp;
	uint64_t rip;
	bool park;
	pid_t me;

	(void)sig;
	if (info->si_code != SI_QUEUE || info->si_value.sival_ptr != &evac_cookie ||
	    info->si_pid != getpid())
		return; /* not ours (the signal's default action was ours to replace) */
	if (!ev)
		return; /* a late signal of an evacuation that let its thread off */
	s = ev->site;
	park = ev->park; /* read before the answer: the record may be freed right after it */
	rip = arch_uc_pc(uc);
	if (!park && rip > s->addr && rip < s->addr + s->len && s->map[rip - s->addr]) {
		arch_uc_set_pc(uc, (uint64_t)(uintptr_t)s->tramp + s->map[rip - s->addr]);
		add_relaxed(&evac_moved, 1); /* a statistic alone */
	}
	me = (pid_t)syscall(SYS_gettid);
	for (unsigned int i = 0; i < ev->n; i++) {
		if (ev->ack[i].tid == me) {
			if (park) /* Relaxed: counted before the answer, which releases it */
				add_relaxed(&ev->parked, 1);
			/* Release: the RIP is moved before the installer reads the answer (pairs
			 * with the acquire in evac_wait); the last access to the record but a
			 * parked thread's (not parked: evac_end() may free it at once). */
			st_release(&ev->ack[i].gen, ev->gen);
			if (park)
				evac_park(ev);
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

/* The threads to ask (all but this one that may be inside the range; all, to @park), into a
 * new record. */
static struct evac *evac_collect(const struct probe_site *site, bool park)
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

		if (tid <= 0 || tid == me ||
		    (!park && !evac_may_be_inside(tid, site->addr, site->addr + site->len)))
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
	ev->park = park;
	ev->hold = park;
	ev->parked = 0;
	ev->left = 0;
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

/* Done with @ev: free it, or keep it once a thread was let off (its handler may still come). */
static void evac_end(struct evac *ev, bool let_off)
{
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
}

/* Let the parked threads of @ev go; wait until they left it. */
static void evac_unpark(struct evac *ev)
{
	/* Acquire: the handlers' counts before their answers, read after all answered. */
	unsigned int parked = ld_acquire(&ev->parked);
	struct timespec ts = { 0, 10000 };

	/* Release: the patch and its cache maintenance before a parked thread goes on (pairs
	 * with the acquire in evac_park()). */
	st_release(&ev->hold, 0);
	syscall(SYS_futex, &ev->hold, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	/* Acquire: pairs with each parked handler's release as it leaves the record. */
	while (ld_acquire(&ev->left) < parked)
		nanosleep(&ts, NULL);
}

/*
 * probe_evac_run() - after the int3 is in place: move every thread stopped inside @site's
 * range to the trampoline; or (@park) stop every other thread in the handler until
 * probe_evac_release(). 0, -ENOMEM, or -EBUSY (a thread did not answer: none is parked).
 */
int probe_evac_run(const struct probe_site *site, bool park)
{
	pid_t pid = getpid();
	bool let_off = false;
	struct evac *ev;
	int ret;

	ret = evac_sig_ready();
	if (ret)
		return ret;
	ev = evac_collect(site, park);
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
	if (park && !ret) {
		evac_leaky |= let_off;
		evac_parked = ev;
		return 0;
	}
	if (park)
		evac_unpark(ev);
	evac_end(ev, let_off);
	return ret;
}

/* The patch is written: let the threads parked by probe_evac_run() go. */
void probe_evac_release(void)
{
	struct evac *ev = evac_parked;

	if (!ev)
		return;
	evac_parked = NULL;
	evac_unpark(ev);
	evac_end(ev, evac_leaky);
}

#else /* no mechanism */

unsigned long probe_evac_moved(void)
{
	return 0;
}

#endif
