// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-nested-signal: signal handlers write events while the code they
 * interrupted is between lock_reserve and unlock_commit - the user-space
 * version of an interrupt tracing inside a traced function. Two signals
 * (SIGALRM from setitimer, SIGUSR1 from a thread with pthread_kill) can
 * nest three deep; a handler sometimes nests two reservations itself and
 * sometimes discards. A consumer thread reads everything concurrently.
 *
 * Checked: every event comes back intact (payload pattern), none twice,
 * per stream and CPU in order; every sequence number of every stream is
 * either read back or was refused/discarded by its writer; refusals
 * equal dropped_events exactly; the interrupted code's events are fine.
 */
#include "rb-test.h"

#include <stdatomic.h>
#include <sys/time.h>

#define NSTREAMS	3	/* 0: the thread, 1: SIGALRM, 2: SIGUSR1 */
#define MAXSEQ		(1u << 22)
#define TAG(s)		(200u + (uint32_t)(s))

struct stream {
	uint64_t attempts;	/* next seq */
	uint64_t committed;
	uint64_t refused;	/* NULL reservations */
	uint64_t discarded;
	unsigned char *absent;	/* bitmap: refused or discarded (writer side) */
	unsigned char *seen;	/* bitmap: read back (consumer side) */
};

static struct evt_ring_buffer *rb;
static struct stream streams[NSTREAMS];
static volatile sig_atomic_t in_reservation;	/* the thread is between reserve and commit */
static volatile sig_atomic_t handler_depth;
static atomic_ulong nested_hits;		/* handler ran while a reservation was open */
static atomic_ulong depth3;			/* SIGUSR1 inside SIGALRM inside a reservation */
static atomic_int stop, writer_done, fail;
static uint64_t consumed;
static int nr_cpus;
static uint64_t *last_seq;			/* [stream][cpu]: seq + 1 */

static void set_bit(unsigned char *map, uint64_t n)
{
	map[n >> 3] |= (unsigned char)(1u << (n & 7));
}

static bool get_bit(const unsigned char *map, uint64_t n)
{
	return map[n >> 3] & (1u << (n & 7));
}

static size_t len_for(uint64_t seq, int s)
{
	return 16 + (size_t)(rbt_mix64(seq * 3 + (uint64_t)s) % 200);
}

/* One event of stream @s; in a handler, maybe a nested pair or a discard. */
static void emit(int s, bool nest)
{
	struct stream *st = &streams[s];
	struct evt_ring_buffer_event *ev;
	uint64_t seq;
	size_t len;

	if (st->attempts >= MAXSEQ)
		return;
	seq = st->attempts++;
	len = len_for(seq, s);
	ev = evt_ring_buffer_lock_reserve(rb, len);
	if (!ev) {
		st->refused++;
		set_bit(st->absent, seq);
		return;
	}
	rbt_rec_fill(evt_ring_buffer_event_data(ev), len, TAG(s), seq);
	if (nest)
		emit(s, false);		/* a second reservation inside the first */
	if (seq % 13 == 5) {
		evt_ring_buffer_discard_commit(rb, ev);
		st->discarded++;
		set_bit(st->absent, seq);
	} else {
		evt_ring_buffer_unlock_commit(rb, ev);
		st->committed++;
	}
}

static void handler(int sig)
{
	int saved = errno;
	int s = sig == SIGALRM ? 1 : 2;

	handler_depth++;
	if (in_reservation) {
		atomic_fetch_add_explicit(&nested_hits, 1, memory_order_relaxed);
		if (handler_depth >= 2)
			atomic_fetch_add_explicit(&depth3, 1, memory_order_relaxed);
	}
	emit(s, (streams[s].attempts & 3) == 1);
	handler_depth--;
	errno = saved;
}

static void check_event(struct evt_ring_buffer_event *ev, int cpu)
{
	struct rbt_rec r;
	unsigned int s;
	uint64_t *last;

	memcpy(&r, evt_ring_buffer_event_data(ev), sizeof(r));
	if (r.tag < TAG(0) || r.tag >= TAG(NSTREAMS) || r.seq >= MAXSEQ) {
		fprintf(stderr, "torn event: tag %u seq %" PRIu64 "\n", r.tag, r.seq);
		atomic_store(&fail, 1);
		return;
	}
	s = r.tag - TAG(0);
	rbt_rec_check(ev, r.tag, len_for(r.seq, (int)s));
	if (get_bit(streams[s].seen, r.seq)) {
		fprintf(stderr, "stream %u seq %" PRIu64 " read twice\n", s, r.seq);
		atomic_store(&fail, 1);
	}
	set_bit(streams[s].seen, r.seq);
	last = &last_seq[s * (unsigned int)nr_cpus + (unsigned int)cpu];
	if (*last > r.seq) {
		fprintf(stderr, "stream %u cpu %d: seq %" PRIu64 " after %" PRIu64 "\n", s, cpu,
			r.seq, *last - 1);
		atomic_store(&fail, 1);
	}
	*last = r.seq + 1;
	consumed++;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (;;) {
		int done = atomic_load(&writer_done);
		unsigned long got = 0;

		for (int c = 0; c < nr_cpus; c++) {
			struct evt_ring_buffer_event *ev;

			while ((ev = evt_ring_buffer_consume(rb, c, NULL, NULL))) {
				check_event(ev, c);
				got++;
			}
		}
		if (done && !got)
			return NULL;
		if (!got)
			rbt_sleep_ns(50000);
	}
}

static void *kicker(void *arg)
{
	pthread_t target = *(pthread_t *)arg;

	while (!atomic_load(&stop)) {
		pthread_kill(target, SIGUSR1);
		rbt_sleep_ns(70000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = rbt_duration(argc, argv, 1.0);
	int cpus[CPU_SETSIZE], n = rbt_allowed_cpus(cpus, CPU_SETSIZE);
	struct itimerval itv = { .it_interval = { 0, 150 }, .it_value = { 0, 150 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	sigset_t block, old;
	pthread_t self = pthread_self(), cth, kth;
	uint64_t deadline, total_refused = 0;

	if (n < 1 || rbt_pin(cpus[0]) < 0)
		rbt_skip("cannot pin");
	rb = rbt_alloc(8u << 20, 0);
	nr_cpus = evt_ring_buffer_nr_cpus(rb);
	last_seq = calloc((size_t)NSTREAMS * (size_t)nr_cpus, sizeof(*last_seq));
	RBT_ASSERT(last_seq);
	for (int s = 0; s < NSTREAMS; s++) {
		streams[s].absent = calloc(MAXSEQ / 8, 1);
		streams[s].seen = calloc(MAXSEQ / 8, 1);
		RBT_ASSERT(streams[s].absent && streams[s].seen);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	RBT_EQ_I(sigaction(SIGALRM, &sa, NULL), 0);
	RBT_EQ_I(sigaction(SIGUSR1, &sa, NULL), 0);

	/* helper threads never take the signals */
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (n > 1)
		rbt_pin(cpus[1]);
	RBT_EQ_I(pthread_create(&cth, NULL, consumer, NULL), 0);
	RBT_EQ_I(pthread_create(&kth, NULL, kicker, &self), 0);
	RBT_EQ_I(rbt_pin(cpus[0]), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	RBT_EQ_I(setitimer(ITIMER_REAL, &itv, NULL), 0);
	deadline = rbt_now_ns() + (uint64_t)(secs * 1e9);
	while (rbt_now_ns() < deadline && streams[0].attempts < MAXSEQ) {
		struct stream *st = &streams[0];
		struct evt_ring_buffer_event *ev;
		uint64_t seq = st->attempts++;
		size_t len = len_for(seq, 0);
		unsigned char *p;

		ev = evt_ring_buffer_lock_reserve(rb, len);
		if (!ev) {
			st->refused++;
			set_bit(st->absent, seq);
			continue;
		}
		in_reservation = 1;
		/* fill slowly, a byte at a time, so signals land in the middle */
		p = evt_ring_buffer_event_data(ev);
		rbt_rec_fill(p, len, TAG(0), seq);
		for (size_t i = 16; i < len; i++) {
			unsigned char b = p[i];

			p[i] = 0xee;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			p[i] = b;
		}
		in_reservation = 0;
		evt_ring_buffer_unlock_commit(rb, ev);
		st->committed++;
	}
	RBT_EQ_I(setitimer(ITIMER_REAL, &off, NULL), 0);
	atomic_store(&stop, 1);
	RBT_EQ_I(pthread_join(kth, NULL), 0);
	/* no more signals for us: block them, then let the consumer drain */
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	atomic_store(&writer_done, 1);
	RBT_EQ_I(pthread_join(cth, NULL), 0);
	RBT_EQ_I(atomic_load(&fail), 0);

	for (int s = 0; s < NSTREAMS; s++) {
		struct stream *st = &streams[s];
		uint64_t seen = 0;

		for (uint64_t q = 0; q < st->attempts; q++) {
			bool a = get_bit(st->absent, q), b = get_bit(st->seen, q);

			RBT_ASSERTF(a != b, "stream %d seq %" PRIu64 ": %s", s, q,
				    a ? "refused or discarded, yet read" :
					"committed, never read (producer/consumer mode: no loss)");
			seen += b;
		}
		RBT_EQ_U(seen, st->committed);
		RBT_EQ_U(st->committed + st->refused + st->discarded, st->attempts);
		total_refused += st->refused;
		printf("stream %d: %" PRIu64 " attempts, %" PRIu64 " committed, %" PRIu64
		       " refused, %" PRIu64 " discarded\n", s, st->attempts, st->committed,
		       st->refused, st->discarded);
	}
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), total_refused);
	RBT_EQ_U(evt_ring_buffer_overruns(rb), 0);
	RBT_EQ_U(evt_ring_buffer_entries(rb), 0);
	printf("%lu handler runs inside an open reservation, %lu three deep; %" PRIu64
	       " consumed\n", atomic_load(&nested_hits), atomic_load(&depth3), consumed);
	RBT_ASSERT(streams[1].committed > 0 || streams[2].committed > 0);
	/* TSan delivers signals only at its own sync points: do not insist there */
	if (!RBT_TSAN)
		RBT_ASSERTF(atomic_load(&nested_hits) > 0, "no signal hit an open reservation");
	printf("rb-nested-signal: PASS\n");
	return RBT_PASS;
}
