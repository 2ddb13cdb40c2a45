// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay/relay_reader.c - the consumer side of a relay buffer: what the
 * kernel's relay file operations do (open, mmap, read, sendfile, poll,
 * close), for a process that opens a relay file.
 *
 * Nothing in the buffer is trusted. The geometry is copied and checked
 * once at open (and the memfd must be sealed against shrinking, so the
 * mappings stay valid); after that every position, slot, length and
 * offset read from the header is checked against the copy before use,
 * and every retry loop is bounded. A header that contradicts itself gives
 * -EBADMSG.
 *
 * Reading the sub-buffer the writer is filling: bytes [0, off) are
 * complete when the sub-buffer's commit equals off. commit is read
 * first, then wstate: commit then counted only reservations made before
 * it was read, so commit == off means no reservation below off was
 * pending (see relay_internal.h).
 *
 * Overwrite mode: a sub-buffer may be reused while it is copied. After a
 * copy the reader checks that opened has not reached the sub-buffer's
 * number + n_subbufs (the writer opening that one reuses the slot); if
 * it has, the copy is discarded and the sub-buffers skipped are counted
 * as lost. Splice cannot take bytes back: there the check only counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/relay.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "relay/relay_internal.h"

struct evt_relay_reader {
	int fd;
	struct relay_shm *shm; /* header, read-write (consumer fields) */
	const char *data;      /* the sub-buffers, read-only */
	uint64_t hdr_size;
	uint64_t size;
	uint64_t n;
	uint64_t lost;
	int mapped;
	int is_global;
};

/* Where the next unread bytes are. */
struct rd_pos {
	uint64_t c; /* sub-buffer number */
	uint64_t slot;
	uint64_t b;   /* first unread byte */
	uint64_t end; /* end of the readable bytes */
	int finished; /* the sub-buffer is finished: consume it at end */
};

int relay_shm_check(const struct relay_shm *shm, uint64_t file_size)
{
	struct relay_shm h;

	memcpy(&h, shm, sizeof(h)); /* one snapshot: the writer may change it meanwhile */
	if (h.magic != RELAY_MAGIC || h.version != RELAY_VERSION)
		return -EBADMSG;
	if (!h.subbuf_size || h.subbuf_size > EVT_RELAY_MAX_SUBBUF_SIZE || !h.n_subbufs ||
	    h.n_subbufs > EVT_RELAY_MAX_SUBBUFS)
		return -EBADMSG;
	if (h.subbuf_size * h.n_subbufs > EVT_RELAY_MAX_BUF_SIZE)
		return -EBADMSG;
	if (h.hdr_size != relay_hdr_size(h.n_subbufs))
		return -EBADMSG;
	if (file_size < h.hdr_size + h.subbuf_size * h.n_subbufs)
		return -EBADMSG;
	return 0;
}

int evt_relay_reader_open(const char *path, struct evt_relay_reader **rp)
{
	struct evt_relay_reader *r;
	struct relay_shm *head, h;
	struct stat st;
	void *m;
	int fd, seals, ret;

	if (!path || !rp)
		return -EINVAL;
	/*
	 * Read-write: the consume protocol writes the shared header (consumed and
	 * bytes_consumed by CAS, refs, maps, waiters), and a writable MAP_SHARED mapping
	 * needs a writable descriptor. The sub-buffers are mapped read-only.
	 */
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto err_close;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < RELAY_PAGE) {
		ret = -EBADMSG;
		goto err_close;
	}
	/* Sealed against shrinking, or a truncate would turn our loads into SIGBUS. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
		ret = -EBADMSG;
		goto err_close;
	}
	head = mmap(NULL, RELAY_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (head == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}
	memcpy(&h, head, sizeof(h));
	munmap(head, RELAY_PAGE);
	ret = relay_shm_check(&h, (uint64_t)st.st_size);
	if (ret < 0)
		goto err_close;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto err_close;
	}
	r->fd = fd;
	r->hdr_size = h.hdr_size;
	r->size = h.subbuf_size;
	r->n = h.n_subbufs;
	r->is_global = !!(h.flags & RELAY_SHM_GLOBAL);
	m = mmap(NULL, r->hdr_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		goto err_free;
	}
	r->shm = m;
	m = mmap(NULL, r->size * r->n, PROT_READ, MAP_SHARED, fd, (off_t)r->hdr_size);
	if (m == MAP_FAILED) {
		ret = -errno;
		munmap(r->shm, r->hdr_size);
		goto err_free;
	}
	r->data = m;
	add_relaxed(&r->shm->refs, 1);
	*rp = r;
	return 0;
err_free:
	free(r);
err_close:
	close(fd);
	return ret;
}

int evt_relay_reader_close(struct evt_relay_reader *r)
{
	uint32_t old;

	if (!r)
		return -EINVAL;
	if (r->mapped) {
		sub_relaxed(&r->shm->maps, 1);
		add_relaxed(&r->shm->unmap_events, 1);
	}
	/* Release: our reads are done before anyone sees the reference go. */
	old = __atomic_fetch_sub(&r->shm->refs, 1, __ATOMIC_ACQ_REL);
	munmap((void *)r->data, r->size * r->n);
	munmap(r->shm, r->hdr_size);
	close(r->fd);
	free(r);
	return old == 1;
}

/*
 * Find the next unread bytes. Return 1 (found; p->end may equal p->b for
 * a finished sub-buffer to consume), 0 (nothing now, or a skip over
 * overwritten sub-buffers is due and !@may_skip), or -EBADMSG.
 */
static int rd_locate(struct evt_relay_reader *r, struct rd_pos *p, int may_skip)
{
	struct relay_shm *shm = r->shm;

	for (int tries = 0; tries < 8; tries++) {
		/* Acquire: the len of every finished sub-buffer is visible. */
		uint64_t O = ld_acquire(&shm->opened);
		uint64_t P = ld_acquire(&shm->produced);
		uint64_t C = ld_acquire(&shm->consumed);
		uint64_t Bw = ld_relaxed(&shm->bytes_consumed);
		/* The offset counts only if it was stored for sub-buffer C (see rd_advance()). */
		uint64_t B = RELAY_BC_TAG(Bw) == RELAY_BC_TAG(C << 32) ? (Bw & RELAY_OFF_MASK) : 0;
		uint64_t slot, len, commit, ws, off;
/* A contradiction is corruption only if the writer did not move meanwhile. */
#define RD_BAD()                                                                      \
	do {                                                                          \
		if (ld_acquire(&shm->produced) != P || ld_acquire(&shm->opened) != O) \
			goto again;                                                   \
		return -EBADMSG;                                                      \
	} while (0)

		if (C > P) { /* a reset under us, or garbage: start at the writer */
			if (cas_acq_rel(&shm->consumed, &C, P))
				st_relaxed(&shm->bytes_consumed, 0);
			continue;
		}
		if (O > P + 1)
			RD_BAD();
		if (O >= C + r->n) { /* overwritten: skip to the oldest intact sub-buffer */
			uint64_t nc = O - r->n + 1;

			if (!may_skip)
				return 0; /* one read never spans a gap */

			if (cas_acq_rel(&shm->consumed, &C, nc)) {
				st_relaxed(&shm->bytes_consumed, 0);
				r->lost += nc - C;
			}
			continue;
		}
		slot = C % r->n;
		p->c = C;
		p->slot = slot;
		if (C < P) {
			len = ld_relaxed(&shm->sb[slot].len);
			/* Acquire: the bytes the writers committed are visible. */
			commit = ld_acquire(&shm->sb[slot].commit) +
				 ld_acquire(&shm->sb[slot].rcommit);
			if (len > r->size || B > len || commit > len)
				RD_BAD();
			if (commit != len) {
				if (ld_acquire(&shm->opened) >= C + r->n)
					goto again; /* reused meanwhile */
				return 0;	    /* a writer is still copying */
			}
			/* len and commit were of sub-buffer C, not of a later one in its slot */
			if (ld_acquire(&shm->opened) >= C + r->n)
				goto again;
			p->b = B;
			p->end = len;
			p->finished = 1;
			return 1;
		}
		/* C == P: the sub-buffer being written. commit first (see the top). */
		commit = ld_acquire(&shm->sb[slot].commit) + ld_acquire(&shm->sb[slot].rcommit);
		ws = ld_acquire(&shm->wstate);
		off = RELAY_WS_OFF(ws);
		if (off == RELAY_OFF_FULL || (ws & RELAY_CLOSED))
			return 0;
		if (RELAY_WS_SLOT(ws) != slot || off > r->size || B > off)
			RD_BAD();
		if (commit != off || off == B)
			return 0;
		p->b = B;
		p->end = off;
		p->finished = 0;
		return 1;
again:
		continue;
#undef RD_BAD
	}
	return 0;
}

/* After a copy of sub-buffer number @c: was its slot reused meanwhile? */
static int rd_overwritten(struct evt_relay_reader *r, uint64_t c)
{
	/* Acquire fence: the copy's loads are done before produced is read again. */
	fence_acquire();
	return ld_acquire(&r->shm->opened) >= c + r->n;
}

/* @k bytes of @p were taken: move the read position, consume a finished sub-buffer. */
static void rd_advance(struct evt_relay_reader *r, const struct rd_pos *p, uint64_t k)
{
	struct relay_shm *shm = r->shm;
	uint64_t c = p->c;

	if (p->finished && p->b + k == p->end) {
		/* Release: our reads of the sub-buffer happen before the writer may reuse it. */
		if (cas_acq_rel(&shm->consumed, &c, p->c + 1))
			st_relaxed(&shm->bytes_consumed, 0);
	} else {
		/* Tagged with the sub-buffer's number: a consumed moved by someone else voids it. */
		st_relaxed(&shm->bytes_consumed, (c << 32) | (p->b + k));
	}
}

typedef int (*rd_copy_fn)(struct evt_relay_reader *r, const struct rd_pos *p, uint64_t k, void *arg,
			  size_t done);

static ssize_t rd_transfer(struct evt_relay_reader *r, size_t len, rd_copy_fn copy, void *arg,
			   int validate)
{
	uint64_t iters = r->n + 16;
	size_t total = 0;
	int fin;

	if (!r)
		return -EINVAL;
	/* Acquire: if the writer had closed, everything it wrote is visible below. */
	fin = ld_acquire(&r->shm->finalized);
	while (total < len && iters--) {
		struct rd_pos p;
		uint64_t k;
		int ret = rd_locate(r, &p, total == 0);

		if (ret < 0)
			return total ? (ssize_t)total : ret;
		if (ret == 0)
			break;
		k = p.end - p.b;
		if (k > len - total)
			k = len - total;
		if (k) {
			ret = copy(r, &p, k, arg, total);
			if (ret < 0)
				return total ? (ssize_t)total : ret;
			k = (uint64_t)ret;
			if (rd_overwritten(r, p.c)) {
				if (validate)
					continue; /* discard; rd_locate() skips and counts */
				r->lost++;
			}
		}
		total += k;
		rd_advance(r, &p, k);
		if (!k && !p.finished)
			break;
	}
	if (total)
		return (ssize_t)total;
	return fin ? 0 : -EAGAIN;
}

static int copy_mem(struct evt_relay_reader *r, const struct rd_pos *p, uint64_t k, void *arg,
		    size_t done)
{
	memcpy((char *)arg + done, r->data + p->slot * r->size + p->b, k);
	return (int)k;
}

ssize_t evt_relay_reader_read(struct evt_relay_reader *r, void *dst, size_t len)
{
	if (!r || (!dst && len))
		return -EINVAL;
	if (len > INT_MAX)
		len = INT_MAX;
	return rd_transfer(r, len, copy_mem, dst, 1);
}

/*
 * To a descriptor: write(2) straight from the read-only mapping, one copy.
 * Not splice(2)/sendfile(2): into a pipe they hand over references to the
 * memfd's pages, which the writer refills once the sub-buffer is consumed
 * (the kernel's relay consumes at pipe-buffer release; we cannot).
 */
static int copy_fd(struct evt_relay_reader *r, const struct rd_pos *p, uint64_t k, void *arg,
		   size_t done)
{
	const char *src = r->data + p->slot * r->size + p->b;
	int out = *(int *)arg;
	uint64_t sent = 0;

	(void)done;
	while (sent < k) {
		ssize_t n = write(out, src + sent, k - sent);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (sent)
				break;
			return -errno;
		}
		if (n == 0)
			break;
		sent += (uint64_t)n;
	}
	return (int)sent;
}

ssize_t evt_relay_reader_splice(struct evt_relay_reader *r, int out_fd, size_t len)
{
	if (!r || out_fd < 0)
		return -EINVAL;
	if (len > INT_MAX)
		len = INT_MAX;
	return rd_transfer(r, len, copy_fd, &out_fd, 0);
}

static int rd_ready(struct evt_relay_reader *r)
{
	uint64_t P = ld_acquire(&r->shm->produced);
	uint64_t C = ld_acquire(&r->shm->consumed);
	int mask = 0;

	if (P > C)
		mask |= POLLIN | POLLRDNORM;
	if (ld_acquire(&r->shm->finalized))
		mask |= POLLHUP;
	return mask;
}

int evt_relay_reader_poll(struct evt_relay_reader *r, int timeout_ms)
{
	struct timespec ts, *tsp = NULL;
	int mask;

	if (!r)
		return -EINVAL;
	mask = rd_ready(r);
	if (mask || timeout_ms == 0)
		return mask;
	if (timeout_ms > 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	/* -1 waits until something is ready; a timeout may end early after a bare wake-up. */
	for (int rounds = 0; timeout_ms < 0 || rounds < 2; rounds++) {
		uint32_t w = ld_acquire(&r->shm->wake);
		long ret;

		add_relaxed(&r->shm->waiters, 1);
		/* Full barrier: waiters is visible before we look again (see relay_wake()). */
		fence_seq_cst();
		mask = rd_ready(r);
		if (mask) {
			sub_relaxed(&r->shm->waiters, 1);
			return mask;
		}
		ret = syscall(SYS_futex, &r->shm->wake, FUTEX_WAIT, w, tsp, NULL, 0);
		sub_relaxed(&r->shm->waiters, 1);
		mask = rd_ready(r);
		if (mask || (ret < 0 && errno == ETIMEDOUT))
			return mask;
		/* Woken by a bump that made nothing readable (or EINTR): once more. */
	}
	return rd_ready(r);
}

/* A deadline @timeout_ms from now on CLOCK_MONOTONIC. */
static void rd_deadline(struct timespec *ts, int timeout_ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += timeout_ms / 1000;
	ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static int rd_ready_set(struct evt_relay_reader *const *rs, unsigned int n, short *revents)
{
	int ready = 0;

	for (unsigned int i = 0; i < n; i++) {
		revents[i] = (short)rd_ready(rs[i]);
		ready += revents[i] != 0;
	}
	return ready;
}

#if defined(FUTEX_WAITV_MAX) && defined(SYS_futex_waitv)
#define RD_HAVE_WAITV 1
#define RD_SET_MAX    FUTEX_WAITV_MAX
#else
#define RD_HAVE_WAITV 0
#define RD_SET_MAX    128
#endif

/*
 * Several buffers at once (a per-CPU channel's files): one futex_waitv(2)
 * (Linux 5.16) on every buffer's wake word; where the kernel lacks it, a
 * look every millisecond.
 */
int evt_relay_reader_poll_set(struct evt_relay_reader *const *rs, unsigned int n, int timeout_ms,
			      short *revents)
{
#if RD_HAVE_WAITV
	struct futex_waitv w[RD_SET_MAX];
#endif
	struct timespec deadline;
	int ready;

	if (!rs || !revents || !n || n > RD_SET_MAX)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (!rs[i])
			return -EINVAL;
	if (timeout_ms > 0)
		rd_deadline(&deadline, timeout_ms);
	for (;;) {
		struct timespec now;
		int nosys = !RD_HAVE_WAITV;

		ready = rd_ready_set(rs, n, revents);
		if (ready || timeout_ms == 0)
			return ready;
		for (unsigned int i = 0; i < n; i++) {
#if RD_HAVE_WAITV
			w[i].val = ld_acquire(&rs[i]->shm->wake);
			w[i].uaddr = (uint64_t)(uintptr_t)&rs[i]->shm->wake;
			w[i].flags = FUTEX_32; /* shared: no FUTEX_PRIVATE_FLAG */
			w[i].__reserved = 0;
#endif
			add_relaxed(&rs[i]->shm->waiters, 1);
		}
		/* Full barrier: waiters are visible before we look again (see relay_wake()). */
		fence_seq_cst();
		ready = rd_ready_set(rs, n, revents);
#if RD_HAVE_WAITV
		if (!ready &&
		    syscall(SYS_futex_waitv, w, n, 0, timeout_ms > 0 ? &deadline : NULL,
			    CLOCK_MONOTONIC) < 0 &&
		    errno == ENOSYS)
			nosys = 1;
#endif
		for (unsigned int i = 0; i < n; i++)
			sub_relaxed(&rs[i]->shm->waiters, 1);
		if (ready)
			return ready;
		if (nosys) {
			struct timespec ms = { 0, 1000000L };

			nanosleep(&ms, NULL);
		}
		if (timeout_ms > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline.tv_sec ||
			    (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec))
				return rd_ready_set(rs, n, revents);
		}
	}
}

int evt_relay_reader_mmap(struct evt_relay_reader *r, const void **addr, size_t *len)
{
	if (!r || !addr || !len)
		return -EINVAL;
	if (!r->mapped) {
		r->mapped = 1;
		add_relaxed(&r->shm->maps, 1);
		add_relaxed(&r->shm->map_events, 1);
	}
	*addr = r->data;
	*len = r->size * r->n;
	return 0;
}

int evt_relay_reader_next_subbuf(struct evt_relay_reader *r, size_t *offset, size_t *len)
{
	struct rd_pos p;
	int ret;

	if (!r || !offset || !len)
		return -EINVAL;
	ret = rd_locate(r, &p, 1);
	if (ret <= 0)
		return ret;
	if (!p.finished)
		return 0;
	*offset = p.slot * r->size + p.b;
	*len = p.end - p.b;
	return 1;
}

int evt_relay_reader_subbufs_consumed(struct evt_relay_reader *r, size_t consumed)
{
	struct relay_shm *shm;
	uint64_t old, nv, P;

	if (!r || consumed > r->n)
		return -EINVAL;
	shm = r->shm;
	old = ld_relaxed(&shm->consumed);
	do {
		P = ld_acquire(&shm->produced);
		nv = old + consumed;
		if (nv > P || nv < old)
			nv = P;
		/* Release: the caller's reads of these sub-buffers before their reuse. */
	} while (!cas_acq_rel(&shm->consumed, &old, nv));
	st_relaxed(&shm->bytes_consumed, 0);
	return 0;
}

void relay_shm_rewind(struct relay_shm *shm, uint64_t n)
{
	uint64_t old = ld_relaxed(&shm->consumed), O, nv;

	do {
		/* The oldest sub-buffer whose slot was not reopened since. */
		O = ld_acquire(&shm->opened);
		nv = O >= n ? O - n + 1 : 0;
	} while (!cas_acq_rel(&shm->consumed, &old, nv));
	st_relaxed(&shm->bytes_consumed, 0);
}

int evt_relay_reader_rewind(struct evt_relay_reader *r)
{
	if (!r)
		return -EINVAL;
	relay_shm_rewind(r->shm, r->n);
	return 0;
}

int evt_relay_reader_info(struct evt_relay_reader *r, struct evt_relay_info *info)
{
	struct relay_shm *shm;

	if (!r || !info)
		return -EINVAL;
	shm = r->shm;
	memset(info, 0, sizeof(*info));
	info->subbuf_size = r->size;
	info->n_subbufs = r->n;
	info->produced = ld_acquire(&shm->produced);
	info->consumed = ld_acquire(&shm->consumed);
	info->dropped = ld_relaxed(&shm->dropped);
	info->toobig = ld_relaxed(&shm->toobig);
	info->lost = r->lost;
	info->finalized = ld_acquire(&shm->finalized);
	info->refs = ld_relaxed(&shm->refs);
	info->maps = ld_relaxed(&shm->maps);
	info->is_global = (unsigned int)r->is_global;
	return 0;
}
