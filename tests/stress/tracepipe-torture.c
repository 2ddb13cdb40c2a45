// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-torture [-d SECONDS]: writer threads on every CPU (not
 * pinned: the scheduler migrates them), each also interrupted by a
 * signal whose handler writes events of its own, and a consumer process
 * reading the FIFO and parsing as it goes. Three rounds of SECONDS/3:
 * pages handed by write(), by vmsplice(), and in wrap mode (where pages
 * thrown away make a writer's received <= recorded, and missed is the
 * library's count).
 *
 * Every record carries (writer, sequence number, length pattern). The
 * consumer checks each record's bytes, each page's header, that no
 * (writer, seq) arrives twice, and at the end - given the writers'
 * counts - that each writer's records received equal its events
 * recorded, and received + missed == written over all, with missed ==
 * the -ENOBUFS returns == evt_tracepipe_missed().
 */
#include <pthread.h>
#include <signal.h>

#include "tracepipe-util.h"

#define MAXW 128

struct payload {
	uint32_t wid;
	uint32_t len;
	uint64_t seq;
	unsigned char fill[64];
};

struct totals {
	uint32_t nw;
	uint32_t wrap; /* pages thrown away: a writer's received <= recorded */
	uint64_t ok[MAXW];
	uint64_t written;
	uint64_t missed;
};

static struct evt_tracepipe_channel *chan;
static volatile int stop;
static int nthreads;
static pthread_t threads[MAXW / 2];
static __thread int my_id = -1;
static uint64_t w_ok[MAXW], w_missed[MAXW], w_seq[MAXW];

static void emit(int wid)
{
	struct payload p;
	uint64_t seq = w_seq[wid]++;
	unsigned int len = 16 + (unsigned int)(seq % 65);
	int r;

	p.wid = (uint32_t)wid;
	p.len = len;
	p.seq = seq;
	memset(p.fill, (int)(seq * 31 + (uint64_t)wid), len - 16);
	r = evt_tracepipe_event(chan, &p, len);
	if (r == 0)
		w_ok[wid]++;
	else if (r == -ENOBUFS)
		w_missed[wid]++;
	else
		abort(); /* -EPIPE: the reader left in the middle of the round */
}

static void on_signal(int sig)
{
	(void)sig;
	if (my_id >= 0)
		emit(nthreads + my_id); /* the handler's own writer id */
}

static void *writer(void *arg)
{
	my_id = (int)(intptr_t)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		emit(my_id);
	return NULL;
}

/* ---- the consumer process ---- */

static unsigned char *seen[MAXW];
static uint64_t seen_cap[MAXW], got[MAXW];
static uint64_t pages, bad;

static void consume_record(const struct evt_tracepipe_page *pg,
			   const struct evt_tracepipe_record *rec)
{
	struct payload p;

	if (rec->len < 16 || rec->len > sizeof(p) || rec->cpu != pg->hdr.cpu) {
		bad++;
		return;
	}
	memcpy(&p, rec->payload, rec->len);
	if (p.wid >= MAXW || p.len != rec->len || p.len != 16 + p.seq % 65) {
		bad++;
		return;
	}
	for (unsigned int i = 0; i < p.len - 16; i++)
		if (p.fill[i] != (unsigned char)(p.seq * 31 + p.wid)) {
			bad++;
			return;
		}
	if (p.seq >= seen_cap[p.wid]) {
		uint64_t cap = seen_cap[p.wid] ? seen_cap[p.wid] : 4096;

		while (cap <= p.seq)
			cap *= 2;
		seen[p.wid] = realloc(seen[p.wid], cap);
		if (!seen[p.wid])
			abort();
		memset(seen[p.wid] + seen_cap[p.wid], 0, cap - seen_cap[p.wid]);
		seen_cap[p.wid] = cap;
	}
	if (seen[p.wid][p.seq]) {
		fprintf(stderr, "writer %u seq %" PRIu64 " twice\n", p.wid, p.seq);
		bad++;
		return;
	}
	seen[p.wid][p.seq] = 1;
	got[p.wid]++;
}

/* Parse what is complete at the start of buf; return bytes used. */
static size_t consume(const unsigned char *buf, size_t len)
{
	size_t off = 0;

	for (;;) {
		struct evt_tracepipe_page pg;
		struct evt_tracepipe_record rec;
		int n = evt_tracepipe_page_parse(buf + off, len - off, &pg), r;

		if (n == -EAGAIN)
			return off;
		if (n < 0) {
			fprintf(stderr, "bad page at stream offset +%zu: %d\n", off, n);
			bad++;
			return len;
		}
		while ((r = evt_tracepipe_record_next(&pg, &rec)) == 1)
			consume_record(&pg, &rec);
		if (r < 0)
			bad++;
		pages++;
		off += (size_t)n;
	}
}

static int consumer(const char *fifo, int ctl)
{
	static unsigned char buf[1 << 20];
	struct totals t;
	size_t have = 0;
	int fd = open(fifo, O_RDONLY | O_NONBLOCK), done = 0;
	uint64_t sum = 0;

	if (fd < 0)
		return 3;
	for (;;) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { ctl, done ? 0 : POLLIN, 0 } };
		ssize_t n;

		if (!done && poll(p, 2, -1) < 0 && errno != EINTR)
			return 4;
		if (!done && (p[1].revents & POLLIN)) {
			if (read(ctl, &t, sizeof(t)) != sizeof(t))
				return 5;
			done = 1;
		}
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n > 0) {
			size_t used;

			have += (size_t)n;
			used = consume(buf, have);
			memmove(buf, buf + used, have - used);
			have -= used;
			continue;
		}
		if (n == 0 && !done) {
			usleep(1000);
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return 6;
		if (done)
			break;
	}
	if (have)
		bad++; /* a partial page left over */
	for (uint32_t w = 0; w < t.nw; w++) {
		if (t.wrap ? got[w] > t.ok[w] : got[w] != t.ok[w]) {
			fprintf(stderr, "writer %u: received %" PRIu64 ", recorded %" PRIu64 "\n",
				w, got[w], t.ok[w]);
			bad++;
		}
		sum += got[w];
	}
	printf("consumer: %" PRIu64 " pages, %" PRIu64 " records received + %" PRIu64
	       " missed = %" PRIu64 " written; %" PRIu64 " bad\n",
	       pages, sum, t.missed, t.written, bad);
	if (sum + t.missed != t.written)
		bad++;
	return bad ? 1 : 0;
}

static void round_run(const char *dir, unsigned int flags, double seconds, int ncpu)
{
	struct evt_tracepipe_opts o = { .dir = dir, .flags = flags, .pages_per_cpu = 64 };
	struct totals t = { 0 };
	int ctl[2], st;
	double end;
	pid_t pid;

	T_ASSERT_OK(evt_tracepipe_create_channel_opts("torture", &o, &chan));
	if (pipe(ctl))
		t_fail("pipe");
	fflush(stdout); /* or the child prints our buffer again */
	pid = fork();
	if (pid == 0) {
		close(ctl[1]);
		int rc = consumer(evt_tracepipe_path(chan), ctl[0]);

		fflush(stdout);
		_exit(rc);
	}
	close(ctl[0]);
	tpt_wait_attached(chan);

	memset(w_ok, 0, sizeof(w_ok));
	memset(w_missed, 0, sizeof(w_missed));
	memset(w_seq, 0, sizeof(w_seq));
	stop = 0;
	nthreads = ncpu * 2 > MAXW / 2 ? MAXW / 2 : ncpu * 2;
	for (long i = 0; i < nthreads; i++)
		T_ASSERT_EQ(pthread_create(&threads[i], NULL, writer, (void *)i), 0);
	end = t_seconds_now() + seconds;
	while (t_seconds_now() < end) {
		for (int i = 0; i < nthreads; i++)
			pthread_kill(threads[i], SIGUSR1);
		usleep(200);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	T_ASSERT_EQ(evt_tracepipe_flush(chan), 0);

	t.nw = (uint32_t)nthreads * 2;
	for (uint32_t w = 0; w < t.nw; w++) {
		t.ok[w] = w_ok[w];
		t.written += w_seq[w];
		t.missed += w_missed[w];
	}
	printf("round %s: %d writers (+ their signal handlers), %" PRIu64 " written, %" PRIu64
	       " refused\n",
	       flags & EVT_TRACEPIPE_VMSPLICE ? "vmsplice" :
	       flags & EVT_TRACEPIPE_WRAP     ? "wrap" :
						"write",
	       nthreads, t.written, t.missed);
	if (flags & EVT_TRACEPIPE_WRAP) {
		/* missed = refused + the records of the pages thrown away */
		T_ASSERT(evt_tracepipe_missed(chan) >= t.missed);
		t.missed = evt_tracepipe_missed(chan);
		t.wrap = 1;
	} else {
		T_ASSERT_EQ(evt_tracepipe_missed(chan), t.missed);
	}
	if (write(ctl[1], &t, sizeof(t)) != sizeof(t))
		t_fail("ctl");
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		t_fail("consumer exited with %#x", st);
	close(ctl[1]);
	while (evt_tracepipe_readers(chan))
		usleep(1000);
	T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), 0);
}

int main(int argc, char **argv)
{
	double d = t_parse_duration(argc, argv, 4);
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	tpt_mkdir();
	round_run(tpt_dir, 0, d / 3, t_nr_cpus());
	round_run(tpt_dir, EVT_TRACEPIPE_VMSPLICE, d / 3, t_nr_cpus());
	round_run(tpt_dir, EVT_TRACEPIPE_WRAP, d / 3, t_nr_cpus());
	return T_PASS;
}
