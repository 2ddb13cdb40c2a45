// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-demo: events from several threads, down a tracepipe channel,
 * to a consumer in another process.
 *
 *   tracepipe-demo [NTHREADS] [NEVENTS]     default 4 threads x 500 events
 *
 * The program creates a channel (a FIFO in a scratch directory) and forks
 * a consumer, which opens the FIFO, as `cat` or `evtrace tracepipe cat`
 * would, and parses the stream with evt_tracepipe_page_parse(). Once the
 * consumer is attached, NTHREADS threads each record NEVENTS events
 * { thread, seq }. The program then flushes the channel and tells the
 * consumer how many events were recorded (the others were missed: no free
 * page); the consumer reads until it has them all, prints the first ones
 * with their time (the stream page's scale turns cycles into seconds),
 * checks every (thread, seq) arrived once, and prints the totals.
 * Exit 0 when received + missed = written.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracepipe.h>

struct demo_event {
	uint32_t thread;
	uint32_t seq;
};

static struct evt_tracepipe_channel *chan;
static unsigned int nthreads = 4, nevents = 500;
static uint64_t recorded[64];

static void *writer(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;

	for (uint32_t i = 0; i < nevents; i++) {
		struct demo_event ev = { t, i };

		if (evt_tracepipe_event(chan, &ev, sizeof(ev)) == 0)
			recorded[t]++;
	}
	return NULL;
}

/* The consumer: read the FIFO until @ctl says how many events to expect and they all came. */
static int consumer(const char *fifo, int ctl)
{
	static unsigned char buf[1 << 20];
	struct evt_tracepipe_stream_info info = { 0 };
	unsigned char *seen = calloc((size_t)nthreads * nevents, 1);
	uint64_t expect = UINT64_MAX, received = 0, per_thread[64] = { 0 };
	size_t have = 0;
	int fd = open(fifo, O_RDONLY); /* blocks until the channel's flusher opens its end */
	int shown = 0, dup = 0, bad = 0;

	if (fd < 0 || !seen)
		return 1;
	while (received < expect) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { ctl, POLLIN, 0 } };
		size_t off = 0;
		ssize_t n;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return 1;
		if (p[1].revents & POLLIN) {
			if (read(ctl, &expect, sizeof(expect)) != sizeof(expect))
				return 1;
			close(ctl);
			ctl = -1;
		}
		if (!(p[0].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n <= 0)
			break; /* end of stream: the program went away */
		have += (size_t)n;
		for (;;) {
			struct evt_tracepipe_page pg;
			struct evt_tracepipe_record rec;
			int len = evt_tracepipe_page_parse(buf + off, have - off, &pg);

			if (len == -EAGAIN)
				break;
			if (len < 0)
				return 1;
			if (pg.stream)
				info = pg.info;
			while (evt_tracepipe_record_next(&pg, &rec) == 1) {
				struct demo_event ev;
				uint64_t ns = EVT_TRACEPIPE_CYCLES_TO_NS(&info, rec.cycles);

				if (rec.len != sizeof(ev)) {
					bad++;
					continue;
				}
				memcpy(&ev, rec.payload, sizeof(ev));
				if (ev.thread >= nthreads || ev.seq >= nevents) {
					bad++;
					continue;
				}
				dup += seen[(size_t)ev.thread * nevents + ev.seq]++ != 0;
				per_thread[ev.thread]++;
				received++;
				if (shown++ < 5)
					printf("[%03u] %6" PRIu64 ".%06" PRIu64 " thread %u seq %u\n",
					       rec.cpu, ns / 1000000000u, ns % 1000000000u / 1000u,
					       ev.thread, ev.seq);
			}
			off += (size_t)len;
		}
		memmove(buf, buf + off, have - off);
		have -= off;
	}
	for (unsigned int t = 0; t < nthreads; t++)
		printf("consumer: thread %u: %" PRIu64 " events\n", t, per_thread[t]);
	printf("consumer: %" PRIu64 " events received, %d twice, %d malformed\n", received, dup,
	       bad);
	free(seen);
	close(fd);
	return received == expect && !dup && !bad ? 0 : 1;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/tracepipe-demo-XXXXXX";
	struct evt_tracepipe_opts o = { 0 };
	pthread_t th[64];
	uint64_t total = 0, written, missed;
	int ctl[2], st, ret;
	pid_t pid;

	if (argc > 1)
		nthreads = (unsigned int)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		nevents = (unsigned int)strtoul(argv[2], NULL, 0);
	if (!nthreads || nthreads > 64 || !nevents || nevents > 1000000) {
		fprintf(stderr, "usage: tracepipe-demo [NTHREADS 1..64] [NEVENTS]\n");
		return 2;
	}
	if (!mkdtemp(dir) || pipe(ctl)) {
		perror("tracepipe-demo");
		return 1;
	}
	o.dir = dir;
	ret = evt_tracepipe_create_channel_opts("demo", &o, &chan);
	if (ret < 0) {
		fprintf(stderr, "tracepipe-demo: create: %s\n", evt_strerror(ret));
		rmdir(dir);
		return 1;
	}
	printf("channel %s\n", evt_tracepipe_path(chan));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int cret;

		close(ctl[1]);
		cret = consumer(evt_tracepipe_path(chan), ctl[0]);
		fflush(stdout); /* _exit() does not */
		_exit(cret);
	}
	close(ctl[0]);
	/* Nothing is recorded without a reader: wait until the consumer is attached. */
	while (pid > 0 && evt_tracepipe_readers(chan) < 1)
		usleep(1000);

	for (unsigned int t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, writer, (void *)(uintptr_t)t);
	for (unsigned int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	ret = evt_tracepipe_flush(chan); /* every recorded event is in the pipe */
	for (unsigned int t = 0; t < nthreads; t++)
		total += recorded[t];
	if (write(ctl[1], &total, sizeof(total)) != sizeof(total))
		ret = -EPIPE;
	close(ctl[1]);

	waitpid(pid, &st, 0);
	written = (uint64_t)nthreads * nevents;
	missed = evt_tracepipe_missed(chan);
	printf("tracepipe-demo: %u threads wrote %" PRIu64 " events: %" PRIu64
	       " recorded, %" PRIu64 " missed\n",
	       nthreads, written, total, missed);
	/* remove fails with -EBUSY until the flusher has seen the consumer go */
	while (evt_tracepipe_remove_channel(chan) == -EBUSY)
		usleep(1000);
	rmdir(dir);
	return ret == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && total + missed == written ? 0 :
												 1;
}
