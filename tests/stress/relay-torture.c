// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay-torture [-d SECONDS]: writers on every CPU (unpinned threads, so
 * they migrate, one more than there are CPUs) write records of 16 to 256
 * bytes carrying (writer, sequence number) into a no-overwrite channel,
 * while a consumer process drains every buffer, taking turns between
 * read(), the mmap interface (next_subbuf / subbufs_consumed) and splice
 * (sendfile into a memfd, read back). Half the time per-CPU buffers, half
 * one global buffer. At the end, for every writer:
 *
 *   records received + records refused (-ENOBUFS) == records written
 *   sum of the sequence numbers received + refused == sum of all written
 *
 * every record is whole (its filler bytes derive from its sequence
 * number), a writer's records come in increasing order within a buffer,
 * and the buffers' dropped counters add up to the refusals exactly.
 *
 * A helper thread interrupts the writers with SIGUSR1 all along; the
 * handler writes a record of its own (a writer id per thread, accounted
 * the same way), in the middle of whatever the thread was doing:
 * reservations, commits, sub-buffer switches.
 *
 * A third run uses overwrite mode (subbuf_start always 1) with a consumer
 * that reads with read() only, beside the writers: records are lost to
 * overwriting, but every record received must still be whole and in
 * order, and nothing more can be received than was written.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/relay.h>

#include "helpers.h"

#define MAXW  130 /* writer threads, then one signal "writer" per thread */
#define MAXT  64
#define MAXB  4096
#define MAGIC 0x544f5254u /* "TORT" */

struct trec {
	uint32_t magic;
	uint16_t writer;
	uint16_t len;
	uint64_t seq;
};

struct wstats {
	uint64_t written, refused, seqsum_refused, seqsum_all;
};

/* The consumer's findings, in memory shared with the parent. */
struct results {
	uint64_t received[MAXW], seqsum[MAXW];
	uint64_t bad, order, dropped_shm;
	uint64_t by_read, by_mmap, by_splice;
	int done;
};

static struct evt_rchan *chan;
static volatile int stop;
static struct wstats ws[MAXW];
static int nw;
static char dir[PATH_MAX];
static struct results *res;
static int overwrite;

static int always(struct evt_rchan_buf *buf, void *s, void *p, size_t pad)
{
	(void)buf;
	(void)s;
	(void)p;
	(void)pad;
	return 1;
}

static int create(const char *filename, const char *parent, int mode, struct evt_rchan_buf *buf,
		  int *is_global)
{
	*is_global = *(int *)buf->chan->private_data;
	return evt_relay_file_create(filename, parent, mode, buf, is_global);
}

static int remove_file(const char *path)
{
	return evt_relay_file_remove(path);
}

static int nthreads;
static __thread int my_sig_id = -1;
static __thread uint64_t my_sig_seq;

/* Write one record of writer @id with sequence number @seq, and account for it. */
static void write_one(int id, uint64_t seq, uint16_t len)
{
	struct wstats *s = &ws[id];
	unsigned char rec[256];
	struct trec h = { .magic = MAGIC, .writer = (uint16_t)id, .len = len, .seq = seq };
	int ret;

	memcpy(rec, &h, sizeof(h));
	for (unsigned int i = sizeof(h); i < len; i++)
		rec[i] = (unsigned char)(seq * 7 + i);
	ret = evt_relay_write(chan, rec, len);
	s->written++;
	s->seqsum_all += seq;
	if (ret == -ENOBUFS) {
		s->refused++;
		s->seqsum_refused += seq;
	} else if (ret) {
		fprintf(stderr, "write: %d\n", ret);
		abort();
	}
}

static void on_signal(int sig)
{
	(void)sig;
	if (my_sig_id >= 0) {
		uint64_t seq = my_sig_seq++;

		write_one(my_sig_id, seq, (uint16_t)(sizeof(struct trec) + seq % 100));
	}
}

static void *writer(void *arg)
{
	int id = (int)(long)arg;
	struct t_rand rnd = { .s = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1) };

	my_sig_seq = 0;
	my_sig_id = nthreads + id;
	for (uint64_t seq = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); seq++)
		write_one(id, seq, (uint16_t)t_rand_range(&rnd, sizeof(struct trec), 256));
	return NULL;
}

static pthread_t wth[MAXT];

static void *signaller(void *arg)
{
	struct t_rand rnd = { .s = 12345 };

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		pthread_kill(wth[t_rand_range(&rnd, 0, (uint64_t)nthreads - 1)], SIGUSR1);
		usleep(50);
	}
	return NULL;
}

/* Per-buffer stream reassembly: records may be cut between two reads. */
struct stream {
	unsigned char part[256];
	size_t have;
	uint64_t last_seq[MAXW];
	unsigned char seen[MAXW];
};

static void check_rec(struct stream *st, const unsigned char *p)
{
	const struct trec *h = (const struct trec *)p;

	if (h->writer >= nw) {
		res->bad++;
		return;
	}
	for (unsigned int i = sizeof(*h); i < h->len; i++)
		if (p[i] != (unsigned char)(h->seq * 7 + i)) {
			res->bad++;
			return;
		}
	if (st->seen[h->writer] && h->seq <= st->last_seq[h->writer])
		res->order++;
	st->seen[h->writer] = 1;
	st->last_seq[h->writer] = h->seq;
	res->received[h->writer]++;
	res->seqsum[h->writer] += h->seq;
}

static void feed(struct stream *st, const unsigned char *p, size_t n)
{
	while (n) {
		size_t want, k;

		if (st->have < sizeof(struct trec)) {
			want = sizeof(struct trec);
		} else {
			const struct trec *h = (const struct trec *)st->part;

			if (h->magic != MAGIC || h->len < sizeof(*h)) {
				res->bad++;
				st->have = 0;
				return;
			}
			want = h->len;
		}
		k = want - st->have < n ? want - st->have : n;
		memcpy(st->part + st->have, p, k);
		st->have += k;
		p += k;
		n -= k;
		if (st->have >= sizeof(struct trec) &&
		    st->have == ((const struct trec *)st->part)->len) {
			check_rec(st, st->part);
			st->have = 0;
		}
	}
}

static int consumer(int nbufs)
{
	static struct stream streams[MAXB];
	static unsigned char buf[1 << 16];
	struct evt_relay_reader *r[MAXB];
	int eof[MAXB] = { 0 }, left = nbufs, mfd;
	static uint64_t lost[MAXB];

	mfd = memfd_create("sink", 0);
	for (int i = 0; i < nbufs; i++) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/t%d", dir, i);
		if (evt_relay_reader_open(path, &r[i]) < 0)
			return 1;
	}
	for (uint64_t round = 0; left; round++) {
		int progress = 0;

		for (int i = 0; i < nbufs; i++) {
			struct stream *st = &streams[i];
			ssize_t n = 0;

			if (eof[i])
				continue;
			switch (overwrite ? 0 : (round + (uint64_t)i) % 3) {
			case 0:
				n = evt_relay_reader_read(r[i], buf,
							  (size_t)(round % 7 + 1) * 4096);
				if (n > 0) {
					struct evt_relay_info info;

					/* a gap (overwritten sub-buffers) precedes the bytes */
					evt_relay_reader_info(r[i], &info);
					if (info.lost != lost[i]) {
						lost[i] = info.lost;
						st->have = 0;
					}
					feed(st, buf, (size_t)n);
					res->by_read += (uint64_t)n;
				}
				break;
			case 1: {
				const void *map;
				size_t len, off, sl;

				evt_relay_reader_mmap(r[i], &map, &len);
				while (evt_relay_reader_next_subbuf(r[i], &off, &sl) == 1) {
					feed(st, (const unsigned char *)map + off, sl);
					res->by_mmap += sl;
					evt_relay_reader_subbufs_consumed(r[i], 1);
					n = 1;
				}
				if (!n)
					n = evt_relay_reader_read(r[i], buf, 0) == 0 ? 0 : -EAGAIN;
				break;
			}
			default:
				if (ftruncate(mfd, 0) < 0 || lseek(mfd, 0, SEEK_SET) < 0)
					return 1;
				n = evt_relay_reader_splice(r[i], mfd, sizeof(buf));
				if (n > 0) {
					if (pread(mfd, buf, (size_t)n, 0) != n)
						return 1;
					feed(st, buf, (size_t)n);
					res->by_splice += (uint64_t)n;
				}
				break;
			}
			if (n > 0) {
				progress = 1;
			} else if (n == 0) {
				/* end of file only once nothing is left: check with a read */
				ssize_t m = evt_relay_reader_read(r[i], buf, sizeof(buf));

				if (m > 0 && overwrite) {
					struct evt_relay_info info;

					evt_relay_reader_info(r[i], &info);
					if (info.lost != lost[i]) {
						lost[i] = info.lost;
						st->have = 0;
					}
				}
				if (m > 0) {
					feed(st, buf, (size_t)m);
					res->by_read += (uint64_t)m;
				} else if (m == 0) {
					struct evt_relay_info info;

					evt_relay_reader_info(r[i], &info);
					res->dropped_shm += info.dropped;
					if (st->have)
						res->bad++;
					eof[i] = 1;
					left--;
				}
				progress = 1;
			} else if (n != -EAGAIN) {
				fprintf(stderr, "consumer: %zd\n", n);
				return 1;
			}
		}
		if (!progress)
			evt_relay_reader_poll(r[round % (uint64_t)nbufs], 10);
	}
	for (int i = 0; i < nbufs; i++)
		evt_relay_reader_close(r[i]);
	res->done = 1;
	return 0;
}

static int run(int global, double seconds)
{
	struct evt_rchan_callbacks cb = { .create_buf_file = create,
					  .remove_buf_file = remove_file };
	pthread_t sigth;
	uint64_t lost_total = 0;
	uint64_t written = 0, refused = 0;
	int status, fail = 0;
	pid_t pid;

	memset(ws, 0, sizeof(ws));
	memset(res, 0, sizeof(*res));
	stop = 0;
	if (overwrite)
		cb.subbuf_start = always;
	T_ASSERT_OK(evt_relay_open("t", dir, 4096, 8, &cb, &global, &chan));
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(consumer((int)chan->nr_bufs));
	for (int i = 0; i < nthreads; i++)
		T_ASSERT_EQ(pthread_create(&wth[i], NULL, writer, (void *)(long)i), 0);
	T_ASSERT_EQ(pthread_create(&sigth, NULL, signaller, NULL), 0);
	for (double t0 = t_seconds_now(); t_seconds_now() - t0 < seconds;)
		usleep(10000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(sigth, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(wth[i], NULL);
	evt_relay_close(chan);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0 && res->done);
	for (int i = 0; i < nw; i++) {
		written += ws[i].written;
		refused += ws[i].refused;
		if (overwrite) {
			if (res->received[i] + ws[i].refused > ws[i].written)
				fail = 1;
			lost_total += ws[i].written - ws[i].refused - res->received[i];
			continue;
		}
		if (res->received[i] + ws[i].refused != ws[i].written ||
		    res->seqsum[i] + ws[i].seqsum_refused != ws[i].seqsum_all) {
			fprintf(stderr, "writer %d: written %llu refused %llu received %llu\n", i,
				(unsigned long long)ws[i].written,
				(unsigned long long)ws[i].refused,
				(unsigned long long)res->received[i]);
			fail = 1;
		}
	}
	printf("%s%s: %d writer threads + their signal handlers, %llu records written, "
	       "%llu refused (buffers say %llu); consumer bytes: read %llu, mmap %llu, "
	       "splice %llu; bad %llu, out of order %llu\n",
	       global ? "global" : "per-cpu", overwrite ? " overwrite" : "", nthreads,
	       (unsigned long long)written, (unsigned long long)refused,
	       (unsigned long long)res->dropped_shm, (unsigned long long)res->by_read,
	       (unsigned long long)res->by_mmap, (unsigned long long)res->by_splice,
	       (unsigned long long)res->bad, (unsigned long long)res->order);
	if (overwrite)
		printf("  overwritten before they were read: %llu records\n",
		       (unsigned long long)lost_total);
	T_ASSERT_EQ(res->dropped_shm, refused);
	T_ASSERT_EQ(res->bad, 0);
	T_ASSERT_EQ(res->order, 0);
	T_ASSERT_EQ(fail, 0);
	return 0;
}

static int rm_dir(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

int main(int argc, char **argv)
{
	double d = t_parse_duration(argc, argv, 4);
	struct sigaction sa = { .sa_handler = on_signal };

	nthreads = t_nr_cpus() + 1;
	if (nthreads > MAXT)
		nthreads = MAXT;
	nw = 2 * nthreads; /* thread writers, then their signal handlers */
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	snprintf(dir, sizeof(dir), "/tmp/evt-relay-torture-XXXXXX");
	if (!mkdtemp(dir))
		t_fail("mkdtemp");
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	T_ASSERT(res != MAP_FAILED);
	run(0, d / 3);
	run(1, d / 3);
	overwrite = 1;
	run(0, d / 3);
	rm_dir();
	return T_PASS;
}
