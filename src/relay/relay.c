// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay/relay.c - relay channels: the writer side (kernel/relay.c's
 * relay_open/write/switch/flush/reset/close, for user space).
 *
 * The bytes and the state machine of a buffer are described in
 * relay_internal.h. Here:
 *
 *   write fast path   one CAS on the buffer's wstate (the reservation),
 *                     memcpy, one atomic add on the sub-buffer's commit.
 *                     Threads migrate and signals interrupt: the CAS makes
 *                     any interleaving of writers on one buffer correct, so
 *                     a per-CPU buffer is only a matter of locality and a
 *                     global buffer needs nothing more.
 *   switch path       under the buffer's switch lock (a word holding the
 *                     owner's thread id, process-local): close the word,
 *                     finish the sub-buffer, ask subbuf_start(), open the
 *                     next one. A signal handler that finds its own thread
 *                     holding the lock drops its message (counted) instead
 *                     of deadlocking; another thread yields until the lock
 *                     is free (the holder is a writer in a short switch).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <evtrace/relay.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/cpu.h"
#include "compat/rseq.h"
#include "compat/secdir.h"
#include "relay/relay_internal.h"

#define RELAY_MAX_CPUS 4096

struct rbuf {
	struct evt_rchan_buf pub;
	struct relay_shm *shm;
	char *data;
	size_t map_len;
	uint64_t size; /* subbuf_size */
	uint64_t n;    /* n_subbufs */
	char *path;    /* the file create_buf_file() made, or NULL */
	/* switch state: only under the switch lock */
	int lock; /* owner's thread id, 0 when free */
	size_t start_reserve;
	uint64_t prev_slot;
	size_t prev_padding;
	int has_prev;
	uint32_t seen_maps;
	uint32_t seen_unmaps;
} __attribute__((aligned(64)));

struct rchan {
	struct evt_rchan pub;
	struct evt_rchan_callbacks cb;
	char *base_filename;
	char *parent;
	unsigned int nr_map; /* entries of map[] (possible CPUs) */
	int rseq;	     /* writers reserve by restartable sequence */
	struct rbuf **bufs;  /* pub.nr_bufs buffers */
	struct rbuf **map;   /* CPU -> buffer (all buffer 0 when global) */
	struct rchan *reg_next; /* the registry of channels (fork) */
	int forked;		/* a fork() child's copy: writes fail with -ECHILD */
};

/*
 * fork(): the child shares the buffers (MAP_SHARED memfds) but not the
 * switch locks, which are process-local: a child writing would switch
 * sub-buffers concurrently with its parent. So the child must not write,
 * and that is enforced at no cost to the fast path: the atfork child
 * handler points every CPU of every channel at relay_dead, a private
 * buffer whose word is CLOSED, so every reservation takes the switch path,
 * and relay_switch() answers -ECHILD for relay_dead. The buffers stay on
 * c->bufs for evt_relay_close(), which in the child only drops its
 * mappings (the files, the reference and finalized are the parent's).
 */
static struct relay_shm relay_dead_shm = { .wstate = RELAY_CLOSED };
static struct rbuf relay_dead = { .shm = &relay_dead_shm };
static pthread_mutex_t relay_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rchan *relay_reg;
static pthread_once_t relay_atfork_once = PTHREAD_ONCE_INIT;

static void relay_atfork_prepare(void)
{
	pthread_mutex_lock(&relay_reg_lock);
}

static void relay_atfork_parent(void)
{
	pthread_mutex_unlock(&relay_reg_lock);
}

static void relay_atfork_child(void)
{
	/* Only this thread exists now: plain stores are seen by whatever it does next. */
	for (struct rchan *c = relay_reg; c; c = c->reg_next) {
		c->forked = 1;
		for (unsigned int cpu = 0; cpu < c->nr_map; cpu++)
			c->map[cpu] = &relay_dead;
	}
	pthread_mutex_unlock(&relay_reg_lock);
}

static void relay_atfork_init(void)
{
	pthread_atfork(relay_atfork_prepare, relay_atfork_parent, relay_atfork_child);
}

static void relay_register(struct rchan *c)
{
	pthread_once(&relay_atfork_once, relay_atfork_init);
	pthread_mutex_lock(&relay_reg_lock);
	c->reg_next = relay_reg;
	relay_reg = c;
	pthread_mutex_unlock(&relay_reg_lock);
}

static void relay_unregister(struct rchan *c)
{
	pthread_mutex_lock(&relay_reg_lock);
	for (struct rchan **pp = &relay_reg; *pp; pp = &(*pp)->reg_next) {
		if (*pp == c) {
			*pp = c->reg_next;
			break;
		}
	}
	pthread_mutex_unlock(&relay_reg_lock);
}

int relay_chan_forked(struct evt_rchan *chan)
{
	return chan && ((struct rchan *)chan)->forked;
}

static inline struct rchan *to_rchan(struct evt_rchan *c)
{
	return (struct rchan *)c;
}

static inline struct rbuf *to_rbuf(struct evt_rchan_buf *b)
{
	return (struct rbuf *)b;
}

static __thread int relay_tid;

static int my_tid(void)
{
	if (unlikely(!relay_tid))
		relay_tid = (int)syscall(SYS_gettid);
	return relay_tid;
}

static int possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n < 1)
		n = 1;
	return n > RELAY_MAX_CPUS ? RELAY_MAX_CPUS : (int)n;
}

/* --- the host directory ------------------------------------------------------------------- */

int evt_relay_default_dir(char *dst, size_t len)
{
	const char *xdg = secure_getenv("XDG_RUNTIME_DIR");
	int n, fd;

	if (!dst)
		return -EINVAL;
	if (xdg && xdg[0] == '/')
		n = snprintf(dst, len, "%s/evtrace", xdg);
	else
		n = snprintf(dst, len, "/tmp/evtrace-%u", (unsigned int)getuid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* shared with the control sockets: ours, nobody else can write to it (compat/secdir.h) */
	fd = secdir_make(dst, NULL, NULL, 0);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int evt_relay_file_create(const char *filename, const char *parent, int mode,
			  struct evt_rchan_buf *buf, int *is_global)
{
	char path[PATH_MAX], target[64], def[PATH_MAX];
	struct stat st;
	int ret;

	(void)mode; /* a link to /proc/PID/fd/N: access is the owner's and root's */
	(void)is_global;
	if (!filename || !buf || buf->fd < 0)
		return -EINVAL;
	if (!parent) {
		ret = evt_relay_default_dir(def, sizeof(def));
		if (ret < 0)
			return ret;
		parent = def;
	}
	if (snprintf(path, sizeof(path), "%s/%s", parent, filename) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	snprintf(target, sizeof(target), "/proc/%d/fd/%d", (int)getpid(), buf->fd);
	/* A link left by a process that died is ours to replace; anything else is not. */
	if (lstat(path, &st) == 0) {
		if (!S_ISLNK(st.st_mode))
			return -EEXIST;
		if (unlink(path) < 0)
			return -errno;
	}
	if (symlink(target, path) < 0)
		return -errno;
	return 0;
}

int evt_relay_file_remove(const char *path)
{
	if (!path)
		return -EINVAL;
	return unlink(path) < 0 ? -errno : 0;
}

/* --- buffers ------------------------------------------------------------------------------ */

static void relay_wake(struct relay_shm *shm)
{
	/* Release: produced/finalized stored before are seen by whoever sees the new wake. */
	add_release(&shm->wake, 1);
	/*
	 * Full barrier: the wake bump is visible before we read waiters. Pairs with
	 * the consumer's fence between its waiters increment and its re-check of the
	 * buffer (relay_reader.c): either it sees our data or we see it waiting.
	 */
	fence_seq_cst();
	if (ld_relaxed(&shm->waiters))
		syscall(SYS_futex, &shm->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static int lock_switch(struct rbuf *b)
{
	int tid = my_tid(), owner = 0;

	/* Acquire (in cas_acq_rel): the previous holder's switch is seen whole. */
	while (!cas_acq_rel(&b->lock, &owner, tid)) {
		if (owner == tid)
			return -EDEADLK; /* a signal handler on top of our own switch */
		sched_yield();
		owner = 0;
	}
	return 0;
}

static void unlock_switch(struct rbuf *b)
{
	/* Release: everything the switch wrote is seen by the next holder. */
	st_release(&b->lock, 0);
}

/*
 * Tell the client about consumers' mappings that came or went (under the
 * lock): one call per evt_relay_reader_mmap() and per unmap since the last
 * look, at most 64 of each (the counters come from shared memory).
 */
static void relay_deliver_maps(struct rchan *c, struct rbuf *b)
{
	uint32_t m = ld_relaxed(&b->shm->map_events), u = ld_relaxed(&b->shm->unmap_events);
	unsigned int maps = ld_relaxed(&b->shm->maps);

	for (int i = 0; b->seen_maps != m && i < 64; i++, b->seen_maps++)
		if (c->cb.buf_mapped)
			c->cb.buf_mapped(&b->pub, maps);
	for (int i = 0; b->seen_unmaps != u && i < 64; i++, b->seen_unmaps++)
		if (c->cb.buf_unmapped)
			c->cb.buf_unmapped(&b->pub, maps);
	b->seen_maps = m;
	b->seen_unmaps = u;
}

static int default_subbuf_start(struct evt_rchan_buf *buf, void *subbuf, void *prev_subbuf,
				size_t prev_padding)
{
	(void)subbuf;
	(void)prev_subbuf;
	(void)prev_padding;
	return !evt_relay_buf_full(buf);
}

/*
 * Open the sub-buffer numbered produced (wstate is CLOSED or being set up,
 * the lock is held). @ask: 0 at open/reset (the callback is told, its answer
 * ignored, as the kernel's __relay_reset() does). Return 1 opened, 0 refused.
 */
static int relay_open_next(struct rchan *c, struct rbuf *b, uint64_t cur_slot, int ask)
{
	struct relay_shm *shm = b->shm;
	uint64_t produced = ld_relaxed(&shm->produced);
	uint64_t slot = produced % b->n, reserve;
	int ok;

	/* The slot's previous round must be complete: a writer still copying into it? */
	if (ask && ld_acquire(&shm->sb[slot].commit) + ld_acquire(&shm->sb[slot].rcommit) !=
			   ld_relaxed(&shm->sb[slot].len))
		goto refuse;
	b->start_reserve = 0;
	ok = c->cb.subbuf_start(&b->pub, b->data + slot * b->size,
				b->has_prev ? b->data + b->prev_slot * b->size : NULL,
				b->has_prev ? b->prev_padding : 0);
	if (!ok && ask)
		goto refuse;
	reserve = b->start_reserve < b->size ? b->start_reserve : b->size;
	st_relaxed(&shm->opened, produced);
	/*
	 * Full barrier: a consumer that sees any byte written into the slot from
	 * now on sees opened too (it re-reads opened after copying, to tell an
	 * overwritten copy from a good one).
	 */
	fence_seq_cst();
	st_relaxed(&shm->sb[slot].commit, reserve);
	st_relaxed(&shm->sb[slot].rcommit, 0);
	st_relaxed(&shm->sb[slot].len, 0);
	/*
	 * Release: the commit reset and the header the callback wrote are visible
	 * before any writer can reserve in the new sub-buffer (its CAS acquires).
	 */
	st_release(&shm->wstate, RELAY_WS(slot, reserve));
	return 1;
refuse:
	st_release(&shm->wstate, RELAY_WS(cur_slot, RELAY_OFF_FULL));
	return 0;
}

/*
 * The switch path (kernel relay_switch_subbuf()). @length: the message that
 * did not fit (0 for a flush). Return 1: try the fast path again; -ENOBUFS:
 * dropped and counted; -E2BIG: larger than a sub-buffer can hold.
 */
static int relay_switch(struct rchan *c, struct rbuf *b, size_t length, int force)
{
	struct relay_shm *shm = b->shm;
	uint64_t ws, off, slot, produced;
	size_t reserve;
	int ret;

	if (unlikely(b == &relay_dead))
		return -ECHILD; /* a fork() child: see relay_atfork_child() */
	if (unlikely(length > b->size)) {
		add_relaxed(&shm->toobig, 1);
		return -E2BIG;
	}
	if (lock_switch(b) < 0) {
		add_relaxed(&shm->dropped, 1);
		return -ENOBUFS;
	}
	ws = ld_acquire(&shm->wstate);
	off = RELAY_WS_OFF(ws);
	if (!force && !(ws & RELAY_CLOSED) && off != RELAY_OFF_FULL && off + length <= b->size &&
	    RELAY_WS_SLOT(ws) < b->n) {
		unlock_switch(b); /* another writer switched meanwhile */
		return 1;
	}
	/* Close the word: reservations stop, the offset is final. */
	for (;;) {
		uint64_t now;

		while (!cas_acq_rel(&shm->wstate, &ws, ws | RELAY_CLOSED))
			;
		if (!c->rseq || RELAY_WS_OFF(ws) == RELAY_OFF_FULL)
			break;
		/*
		 * An rseq writer that compared the open word before our CAS may
		 * have stored its reservation after it, reopening the word: after
		 * the fence no such sequence is left; look again.
		 */
		rseq_ops_fence();
		now = ld_acquire(&shm->wstate);
		if (now & RELAY_CLOSED)
			break;
		ws = now;
	}
	off = RELAY_WS_OFF(ws);
	slot = RELAY_WS_SLOT(ws);
	relay_deliver_maps(c, b);
	if (slot >= b->n) { /* someone scribbled on our header: start over in slot 0 */
		slot = 0;
		off = RELAY_OFF_FULL;
		b->has_prev = 0;
	}
	if (off != RELAY_OFF_FULL) {
		if (off > b->size)
			off = b->size;
		st_relaxed(&shm->sb[slot].len, off);
		b->prev_slot = slot;
		b->prev_padding = b->size - off;
		b->has_prev = 1;
		produced = ld_relaxed(&shm->produced) + 1;
		/* Release: the sub-buffer's len is visible to whoever sees it finished. */
		st_release(&shm->produced, produced);
		relay_wake(shm);
	}
	ret = relay_open_next(c, b, slot, 1);
	reserve = b->start_reserve; /* read under the lock */
	unlock_switch(b);
	if (!ret) {
		if (length)
			add_relaxed(&shm->dropped, 1);
		return -ENOBUFS;
	}
	if (length > b->size - reserve) {
		add_relaxed(&shm->toobig, 1);
		return -E2BIG;
	}
	return 1;
}

static inline struct rbuf *relay_this_buf(struct rchan *c)
{
	unsigned int cpu = (unsigned int)evt_cpu_current();

	if (unlikely(cpu >= c->nr_map))
		cpu %= c->nr_map;
	return c->map[cpu];
}

/*
 * Reserve @length bytes in @b; on success *slotp is the sub-buffer's slot.
 * Return: the address, or NULL with *errp set.
 */
static inline char *relay_reserve_in(struct rchan *c, struct rbuf *b, size_t length,
				     uint64_t *slotp, int *errp)
{
	struct relay_shm *shm = b->shm;
	uint64_t ws = ld_relaxed(&shm->wstate);

	for (;;) {
		uint64_t off = RELAY_WS_OFF(ws), slot = RELAY_WS_SLOT(ws);
		int ret;

		if (likely(!(ws & RELAY_CLOSED) && off + length <= b->size && slot < b->n)) {
			/*
			 * Acquire: the sub-buffer the switcher opened (commit reset,
			 * header) is seen before we write into it. Release: nothing.
			 */
			if (cas_acq_rel(&shm->wstate, &ws, ws + length)) {
				*slotp = slot;
				return b->data + slot * b->size + off;
			}
			continue;
		}
		ret = relay_switch(c, b, length, 0);
		if (ret < 0) {
			*errp = ret;
			return NULL;
		}
		ws = ld_relaxed(&shm->wstate);
	}
}

#if EVT_HAVE_RSEQ_OPS
/* rseq mode: reserve in the buffer of the CPU we are on, by restartable sequence. */
static inline char *relay_reserve_rseq(struct rchan *c, size_t length, struct rbuf **bp,
				       uint64_t *slotp, int *errp)
{
	for (;;) {
		unsigned int cpu = evt_rseq_cpu();
		struct relay_shm *shm;
		uint64_t ws, tag, off, slot;
		struct rbuf *b;
		int ret;

		if (unlikely(cpu >= c->nr_map)) { /* a CPU hot-added since open */
			add_relaxed(&c->map[0]->shm->dropped, 1);
			*errp = -ENOBUFS;
			return NULL;
		}
		b = c->map[cpu];
		shm = b->shm;
		ws = ld_relaxed(&shm->wstate);
		tag = ld_relaxed(&shm->wtag);
		off = RELAY_WS_OFF(ws);
		slot = RELAY_WS_SLOT(ws);
		if (likely(!(ws & RELAY_CLOSED) && off + length <= b->size && slot < b->n)) {
			/*
			 * Stores the pair only if still on @cpu, uninterrupted, and the
			 * pair unchanged: the CPU serializes this buffer's writers.
			 * Ordering: x86 keeps our later stores (the message, the commit)
			 * after this one.
			 */
			if (evt_rseq_cmp2_store2(&shm->wstate, ws, tag, ws + length, tag, cpu) ==
			    0) {
				*bp = b;
				*slotp = slot;
				return b->data + slot * b->size + off;
			}
			continue;
		}
		ret = relay_switch(c, b, length, 0);
		if (ret < 0) {
			*errp = ret;
			return NULL;
		}
	}
}
#endif

/*
 * Copy a message. Small ones (the common trace record) inline, as two
 * overlapping fixed-size moves: a call to memcpy() costs more than the
 * copy itself at these sizes.
 */
static inline void relay_copy(char *dst, const void *data, size_t n)
{
	const char *src = data;

	if (n >= 8 && n <= 16) {
		uint64_t a, b;

		__builtin_memcpy(&a, src, 8);
		__builtin_memcpy(&b, src + n - 8, 8);
		__builtin_memcpy(dst, &a, 8);
		__builtin_memcpy(dst + n - 8, &b, 8);
	} else if (n > 16 && n <= 32) {
		char a[16], b[16];

		__builtin_memcpy(a, src, 16);
		__builtin_memcpy(b, src + n - 16, 16);
		__builtin_memcpy(dst, a, 16);
		__builtin_memcpy(dst + n - 16, b, 16);
	} else {
		memcpy(dst, src, n);
	}
}

/* Count @length bytes of sub-buffer @slot of @b as written. */
static inline void relay_commit(struct rchan *c, struct rbuf *b, uint64_t slot, size_t length)
{
#if EVT_HAVE_RSEQ_OPS
	if (c->rseq) {
		for (;;) {
			unsigned int cpu = evt_rseq_cpu();

			if (cpu != b->pub.cpu)
				break; /* migrated since the reservation */
			/* A plain add on the buffer's CPU; x86 orders it after the message. */
			if (evt_rseq_addv(&b->shm->sb[slot].commit, length, cpu) == 0)
				return;
		}
		/* Release: the message's bytes are visible before the count. */
		add_release(&b->shm->sb[slot].rcommit, length);
		return;
	}
#endif
	(void)c;
	/* Release: the message's bytes are visible before the commit that covers them. */
	add_release(&b->shm->sb[slot].commit, length);
}

static inline char *relay_reserve(struct rchan *c, size_t length, struct rbuf **bp, uint64_t *slotp,
				  int *errp)
{
#if EVT_HAVE_RSEQ_OPS
	if (likely(c->rseq))
		return relay_reserve_rseq(c, length, bp, slotp, errp);
#endif
	*bp = relay_this_buf(c);
	return relay_reserve_in(c, *bp, length, slotp, errp);
}

int evt_relay_write(struct evt_rchan *chan, const void *data, size_t length)
{
	struct rchan *c = to_rchan(chan);
	struct rbuf *b;
	uint64_t slot;
	int err = 0;
	char *p = relay_reserve(c, length, &b, &slot, &err);

	if (unlikely(!p))
		return err;
	relay_copy(p, data, length);
	relay_commit(c, b, slot, length);
	return 0;
}

int evt_relay_write_serialized(struct evt_rchan *chan, const void *data, size_t length)
{
	struct rchan *c = to_rchan(chan);
	struct rbuf *b = relay_this_buf(c);
	struct relay_shm *shm = b->shm;
	uint64_t ws = ld_relaxed(&shm->wstate);
	uint64_t off = RELAY_WS_OFF(ws), slot = RELAY_WS_SLOT(ws);
	int err = 0;
	char *p;

	if (likely(!(ws & RELAY_CLOSED) && off + length <= b->size && slot < b->n)) {
		/* The caller serializes writers: a plain store reserves. Relaxed: the
		 * consumer only trusts bytes covered by commit, stored with release. */
		st_relaxed(&shm->wstate, ws + length);
		p = b->data + slot * b->size + off;
	} else {
		p = relay_reserve_in(c, b, length, &slot, &err);
		if (!p)
			return err;
	}
	relay_copy(p, data, length);
	/* Release: the bytes before the commit; no other writer adds concurrently. */
	st_release(&shm->sb[slot].commit, ld_relaxed(&shm->sb[slot].commit) + length);
	return 0;
}

void *evt_relay_reserve(struct evt_rchan *chan, size_t length)
{
	struct rchan *c = to_rchan(chan);
	struct rbuf *b;
	uint64_t slot;
	int err = 0;
	char *p = relay_reserve(c, length, &b, &slot, &err);

	if (!p)
		return NULL;
	/*
	 * The kernel's relay_reserve() leaves synchronization to the client: the
	 * slot counts as written now (a consumer may read it before it is filled).
	 */
	relay_commit(c, b, slot, length);
	return p;
}

bool evt_relay_buf_full(struct evt_rchan_buf *buf)
{
	struct rbuf *b = to_rbuf(buf);
	uint64_t produced = ld_relaxed(&b->shm->produced);
	/* Acquire: the consumer's reads of the sub-buffers it consumed are done. */
	uint64_t consumed = ld_acquire(&b->shm->consumed);

	return produced - consumed >= b->n;
}

void evt_subbuf_start_reserve(struct evt_rchan_buf *buf, size_t length)
{
	if (buf)
		to_rbuf(buf)->start_reserve = length;
}

int evt_relay_subbufs_consumed(struct evt_rchan *chan, unsigned int cpu, size_t consumed)
{
	struct rchan *c = to_rchan(chan);
	struct relay_shm *shm;
	uint64_t old, nv, produced;

	if (!c || cpu >= c->nr_map)
		return -EINVAL;
	if (c->forked)
		return -ECHILD; /* map[] points at relay_dead: a consumer uses the reader API */
	if (consumed > c->pub.n_subbufs)
		return -EINVAL;
	shm = c->map[cpu]->shm;
	old = ld_relaxed(&shm->consumed);
	do {
		produced = ld_acquire(&shm->produced);
		nv = old + consumed;
		if (nv > produced || nv < old)
			nv = produced;
		/* Release: our reads of those sub-buffers before the writer may reuse them. */
	} while (!cas_acq_rel(&shm->consumed, &old, nv));
	st_relaxed(&shm->bytes_consumed, 0);
	return 0;
}

static int rbuf_alloc(struct rchan *c, unsigned int cpu, struct rbuf **bp)
{
	uint64_t hdr = relay_hdr_size(c->pub.n_subbufs);
	size_t total = hdr + c->pub.alloc_size;
	struct relay_shm *shm;
	struct rbuf *b;
	int fd, ret;

	b = aligned_alloc(64, sizeof(*b));
	if (!b)
		return -ENOMEM;
	memset(b, 0, sizeof(*b));
	fd = memfd_create("evtrace-relay", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		ret = -errno;
		goto err_free;
	}
	if (ftruncate(fd, (off_t)total) < 0) {
		ret = -errno;
		goto err_close;
	}
	/* The consumer refuses a buffer that could shrink under its mapping. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		ret = -errno;
		goto err_close;
	}
	shm = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (shm == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}
	shm->version = RELAY_VERSION;
	shm->hdr_size = (uint32_t)hdr;
	shm->subbuf_size = c->pub.subbuf_size;
	shm->n_subbufs = c->pub.n_subbufs;
	shm->cpu = cpu;
	shm->creator_pid = (uint64_t)getpid();
	shm->refs = 1;
	shm->wstate = RELAY_WS(0, RELAY_OFF_FULL) | RELAY_CLOSED;
	/* Release: the geometry is complete before anyone sees the magic. */
	st_release(&shm->magic, RELAY_MAGIC);
	b->shm = shm;
	b->data = (char *)shm + hdr;
	b->map_len = total;
	b->size = c->pub.subbuf_size;
	b->n = c->pub.n_subbufs;
	b->pub.chan = &c->pub;
	b->pub.start = b->data;
	b->pub.cpu = cpu;
	b->pub.fd = fd;
	*bp = b;
	return 0;
err_close:
	close(fd);
err_free:
	free(b);
	return ret;
}

/* Back to the state of a new buffer (kernel __relay_reset()); the lock is held or unneeded. */
static void rbuf_reset(struct rchan *c, struct rbuf *b)
{
	struct relay_shm *shm = b->shm;

	st_relaxed(&shm->wstate, RELAY_WS(0, RELAY_OFF_FULL) | RELAY_CLOSED);
	for (uint64_t i = 0; i < b->n; i++) {
		st_relaxed(&shm->sb[i].commit, 0);
		st_relaxed(&shm->sb[i].rcommit, 0);
		st_relaxed(&shm->sb[i].len, 0);
	}
	st_relaxed(&shm->produced, 0);
	st_relaxed(&shm->opened, 0);
	st_relaxed(&shm->consumed, 0);
	st_relaxed(&shm->bytes_consumed, 0);
	st_relaxed(&shm->dropped, 0);
	st_relaxed(&shm->toobig, 0);
	st_relaxed(&shm->finalized, 0);
	b->has_prev = 0;
	b->prev_padding = 0;
	relay_open_next(c, b, 0, 0);
}

static void rbuf_free(struct rchan *c, struct rbuf *b)
{
	if (c->forked) { /* the child's mappings only: the buffer is the parent's */
		munmap(b->shm, b->map_len);
		close(b->pub.fd);
		free(b->path);
		free(b);
		return;
	}
	if (b->path) {
		if (c->cb.remove_buf_file)
			c->cb.remove_buf_file(b->path);
		free(b->path);
	}
	/* Our reference goes first: a consumer that sees finalized sees it gone. */
	sub_relaxed(&b->shm->refs, 1);
	/* Release: everything written (and the reference) before finalized. */
	st_release(&b->shm->finalized, 1);
	relay_wake(b->shm);
	munmap(b->shm, b->map_len);
	close(b->pub.fd);
	free(b);
}

/* create_buf_file() for buffer @b; *is_global comes back. */
static int rbuf_create_file(struct rchan *c, struct rbuf *b, const char *base, const char *parent,
			    int *is_global)
{
	char name[NAME_MAX + 1], path[PATH_MAX];
	int ret;

	if (snprintf(name, sizeof(name), "%s%u", base, b->pub.cpu) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	if (snprintf(path, sizeof(path), "%s/%s", parent, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = c->cb.create_buf_file(name, parent, 0400, &b->pub, is_global);
	if (ret < 0)
		return ret;
	b->path = strdup(path);
	if (!b->path) {
		if (c->cb.remove_buf_file)
			c->cb.remove_buf_file(path);
		return -ENOMEM;
	}
	return 0;
}

static int resolve_parent(const char *parent, char **out)
{
	char def[PATH_MAX];
	int ret;

	if (!parent) {
		ret = evt_relay_default_dir(def, sizeof(def));
		if (ret < 0)
			return ret;
		parent = def;
	}
	*out = strdup(parent);
	return *out ? 0 : -ENOMEM;
}

static void rchan_free(struct rchan *c)
{
	relay_unregister(c);
	for (unsigned int i = 0; i < c->pub.nr_bufs; i++)
		if (c->bufs[i])
			rbuf_free(c, c->bufs[i]);
	free(c->bufs);
	free(c->map);
	free(c->base_filename);
	free(c->parent);
	free(c);
}

int evt_relay_open(const char *base_filename, const char *parent, size_t subbuf_size,
		   size_t n_subbufs, const struct evt_rchan_callbacks *cb, void *private_data,
		   struct evt_rchan **chanp)
{
	unsigned int nr = (unsigned int)possible_cpus();
	struct rchan *c;
	int ret, is_global = 0;

	if (!chanp || !subbuf_size || !n_subbufs || subbuf_size > EVT_RELAY_MAX_SUBBUF_SIZE ||
	    n_subbufs > EVT_RELAY_MAX_SUBBUFS ||
	    (uint64_t)subbuf_size * n_subbufs > EVT_RELAY_MAX_BUF_SIZE)
		return -EINVAL;
	/* Files need both file callbacks (the kernel fails relay_open() without them). */
	if (base_filename && (!cb || !cb->create_buf_file || !cb->remove_buf_file))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (cb)
		c->cb = *cb;
	if (!c->cb.subbuf_start)
		c->cb.subbuf_start = default_subbuf_start;
	c->pub.subbuf_size = subbuf_size;
	c->pub.n_subbufs = n_subbufs;
	c->pub.alloc_size = subbuf_size * n_subbufs;
	c->pub.private_data = private_data;
	c->nr_map = nr;
	c->bufs = calloc(nr, sizeof(*c->bufs));
	c->map = calloc(nr, sizeof(*c->map));
	if (!c->bufs || !c->map) {
		ret = -ENOMEM;
		goto err;
	}
	if (base_filename) {
		c->base_filename = strdup(base_filename);
		ret = c->base_filename ? resolve_parent(parent, &c->parent) : -ENOMEM;
		if (ret < 0)
			goto err;
	}
	for (unsigned int cpu = 0; cpu < nr; cpu++) {
		struct rbuf *b = NULL;

		ret = rbuf_alloc(c, cpu, &b);
		if (ret < 0)
			goto err;
		c->bufs[cpu] = b;
		c->pub.nr_bufs = cpu + 1;
		if (base_filename) {
			ret = rbuf_create_file(c, b, c->base_filename, c->parent, &is_global);
			if (ret < 0)
				goto err;
		}
		if (is_global) {
			/* One buffer for every CPU; create_buf_file() is not called again. */
			c->pub.is_global = 1;
			b->shm->flags |= RELAY_SHM_GLOBAL;
			break;
		}
	}
	for (unsigned int cpu = 0; cpu < nr; cpu++)
		c->map[cpu] = c->bufs[is_global ? 0 : cpu];
	/* One buffer per CPU, each written only on its CPU: restartable sequences work. */
	c->rseq = !is_global && rseq_ops_init();
	for (unsigned int i = 0; i < c->pub.nr_bufs; i++)
		rbuf_reset(c, c->bufs[i]);
	relay_register(c);
	*chanp = &c->pub;
	return 0;
err:
	rchan_free(c);
	return ret;
}

int evt_relay_late_setup_files(struct evt_rchan *chan, const char *base_filename,
			       const char *parent)
{
	struct rchan *c = to_rchan(chan);
	unsigned int i = 0;
	int ret, is_global = 0;

	if (!c || !base_filename)
		return -EINVAL;
	if (c->forked)
		return -ECHILD;
	if (c->base_filename)
		return -EEXIST;
	if (!c->cb.create_buf_file || !c->cb.remove_buf_file)
		return -EINVAL;
	ret = resolve_parent(parent, &c->parent);
	if (ret < 0)
		return ret;
	c->base_filename = strdup(base_filename);
	if (!c->base_filename) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < c->pub.nr_bufs; i++) {
		ret = rbuf_create_file(c, c->bufs[i], base_filename, c->parent, &is_global);
		if (ret < 0)
			goto err;
		/* The buffers already exist, one per CPU: too late to make them one. */
		if (is_global && c->pub.nr_bufs > 1) {
			i++;
			ret = -EINVAL;
			goto err;
		}
	}
	return 0;
err:
	while (i-- > 0) {
		struct rbuf *b = c->bufs[i];

		c->cb.remove_buf_file(b->path);
		free(b->path);
		b->path = NULL;
	}
	free(c->base_filename);
	free(c->parent);
	c->base_filename = NULL;
	c->parent = NULL;
	return ret;
}

void evt_relay_flush(struct evt_rchan *chan)
{
	struct rchan *c = to_rchan(chan);

	if (!c || c->forked)
		return;
	for (unsigned int i = 0; i < c->pub.nr_bufs; i++)
		relay_switch(c, c->bufs[i], 0, 1);
}

void evt_relay_reset(struct evt_rchan *chan)
{
	struct rchan *c = to_rchan(chan);

	if (!c || c->forked)
		return;
	for (unsigned int i = 0; i < c->pub.nr_bufs; i++)
		rbuf_reset(c, c->bufs[i]);
}

void evt_relay_close(struct evt_rchan *chan)
{
	if (chan)
		rchan_free(to_rchan(chan));
}

uint64_t relay_chan_dropped(struct evt_rchan *chan)
{
	struct rchan *c = to_rchan(chan);
	uint64_t sum = 0;

	for (unsigned int i = 0; c && i < c->pub.nr_bufs; i++)
		sum += ld_relaxed(&c->bufs[i]->shm->dropped);
	return sum;
}

void relay_chan_rewind(struct evt_rchan *chan)
{
	struct rchan *c = to_rchan(chan);

	for (unsigned int i = 0; c && i < c->pub.nr_bufs; i++)
		relay_shm_rewind(c->bufs[i]->shm, c->pub.n_subbufs);
}
