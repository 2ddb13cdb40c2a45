// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tracepipe [-d DIR] [-t SECONDS]: what a tracepipe event costs and
 * how fast a reader drains a channel to disk.
 *
 * 1. Write cost: one writer thread pinned to CPU 0, a reader process
 *    draining the FIFO to /dev/null with splice(). Events go in batches
 *    of 1000 (timed with CLOCK_MONOTONIC around the batch); batches in
 *    which an event was missed are left out (their cost is the drop
 *    path's, reported as "missed %"). Median and p90 ns per event, for
 *    16- and 256-byte payloads, next to the floor: the event's clock read
 *    (tclock_cycles(), an rdtsc) and the same payload memcpy'd behind a
 *    12-byte header into a 64 KiB buffer, same batches.
 * 2. Drain: a writer thread fills the channel with 256-byte events as
 *    fast as it can; a reader process splice()s the FIFO to a file in DIR
 *    (default: $TMPDIR, else /var/tmp) for SECONDS (default 2) and
 *    reports GB/s of stream moved; pages handed by write() and by
 *    vmsplice(). The floor: `cp` of a file of the same size, in DIR, in
 *    the same run (page cache warm: the data was just written). Then the
 *    same into /dev/shm (tmpfs), where the disk does not set the pace.
 *
 * Output: the table, then "BENCH <name> <value> <unit>" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/tracepipe.h>

#include "bench.h"

#include "clock/clock_internal.h"	/* tclock_cycles(): the event's own clock read */

#define BATCH  1000
#define NBATCH 2000

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A reader process: splice the FIFO to @out_path for @seconds from the
 * first byte (0: until EOF); writes "bytes seconds" to @res.
 */
static pid_t reader(const char *fifo, const char *out_path, double seconds, int res)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	{
		int fd = open(fifo, O_RDONLY);
		int ofd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		double t0 = 0, t1 = 0;
		uint64_t bytes = 0;
		char line[64];
		int n;

		if (fd < 0 || ofd < 0)
			_exit(1);
		for (;;) {
			ssize_t r = splice(fd, NULL, ofd, NULL, 1 << 20, 0);

			if (r <= 0)
				break;
			if (!bytes)
				t0 = now_s();
			bytes += (uint64_t)r;
			t1 = now_s();
			if (seconds > 0 && t1 - t0 >= seconds)
				break;
		}
		n = snprintf(line, sizeof(line), "%" PRIu64 " %.6f\n", bytes, t1 - t0);
		if (write(res, line, (size_t)n) != n)
			_exit(1);
		_exit(0);
	}
}

struct cost {
	double median, p90, floor, missed_pct;
};

static struct cost write_cost(const char *dir, unsigned int len)
{
	static double per[NBATCH], fl[NBATCH];
	static unsigned char payload[256], ring[1 << 16];
	struct evt_tracepipe_opts o = { .dir = dir, .pages_per_cpu = 1024 };
	struct evt_tracepipe_channel *chan;
	struct cost c = { 0 };
	size_t nper = 0, off = 0;
	uint64_t missed_ev = 0;
	int res[2], st;
	pid_t pid;

	memset(payload, 0x5a, sizeof(payload));
	if (evt_tracepipe_create_channel_opts("bench", &o, &chan) || pipe(res))
		exit(1);
	pid = reader(evt_tracepipe_path(chan), "/dev/null", 0, res[1]);
	while (evt_tracepipe_readers(chan) != 1)
		usleep(1000);
	pin(0);
	for (int b = 0; b < NBATCH; b++) {
		uint64_t t0, t1, m0 = evt_tracepipe_missed(chan), m;

		t0 = now_ns();
		for (int i = 0; i < BATCH; i++)
			evt_tracepipe_event(chan, payload, len);
		t1 = now_ns();
		m = evt_tracepipe_missed(chan) - m0;
		missed_ev += m;
		if (!m)
			per[nper++] = (double)(t1 - t0) / BATCH;

		/* the floor: the clock read the event makes (tclock_cycles()), then
		 * header + payload copied into a buffer */
		t0 = now_ns();
		for (int i = 0; i < BATCH; i++) {
			uint64_t hdr[2] = { tclock_cycles(), len };

			if (off + 12 + len > sizeof(ring))
				off = 0;
			memcpy(ring + off, hdr, 12);
			memcpy(ring + off + 12, payload, len);
			__asm__ __volatile__("" ::: "memory");
			off += (12 + len + 3) & ~3u;
		}
		t1 = now_ns();
		fl[b] = (double)(t1 - t0) / BATCH;
		usleep(50); /* let the flusher and reader keep up */
	}
	evt_tracepipe_flush(chan);
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	close(res[0]);
	close(res[1]);
	while (evt_tracepipe_readers(chan))
		usleep(1000);
	evt_tracepipe_remove_channel(chan);
	qsort(per, nper, sizeof(double), cmp_double);
	qsort(fl, NBATCH, sizeof(double), cmp_double);
	c.median = nper ? per[nper / 2] : 0;
	c.p90 = nper ? per[nper * 9 / 10] : 0;
	c.floor = fl[NBATCH / 2];
	c.missed_pct = 100.0 * (double)missed_ev / ((double)NBATCH * BATCH);
	return c;
}

static volatile int drain_stop;
static struct evt_tracepipe_channel *drain_chan;

static void *drain_writer(void *arg)
{
	static unsigned char payload[256];

	(void)arg;
	memset(payload, 0xa5, sizeof(payload));
	while (!__atomic_load_n(&drain_stop, __ATOMIC_RELAXED))
		for (int i = 0; i < 256; i++)
			evt_tracepipe_event(drain_chan, payload, sizeof(payload));
	return NULL;
}

/* GB/s of stream spliced to @out; *@bytes moved. */
static double drain(const char *dir, const char *out, unsigned int flags, double seconds,
		    uint64_t *bytes)
{
	struct evt_tracepipe_opts o = { .dir = dir, .pages_per_cpu = 256, .flags = flags };
	char line[64] = { 0 };
	double secs = 0;
	pthread_t th;
	int res[2], st;
	pid_t pid;

	if (evt_tracepipe_create_channel_opts("drain", &o, &drain_chan) || pipe(res))
		exit(1);
	pid = reader(evt_tracepipe_path(drain_chan), out, seconds, res[1]);
	while (evt_tracepipe_readers(drain_chan) != 1)
		usleep(1000);
	drain_stop = 0;
	pthread_create(&th, NULL, drain_writer, NULL);
	waitpid(pid, &st, 0);
	__atomic_store_n(&drain_stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	if (read(res[0], line, sizeof(line) - 1) <= 0 ||
	    sscanf(line, "%" SCNu64 " %lf", bytes, &secs) != 2 || secs <= 0)
		return 0;
	close(res[0]);
	close(res[1]);
	while (evt_tracepipe_readers(drain_chan))
		usleep(1000);
	evt_tracepipe_remove_channel(drain_chan);
	return (double)*bytes / secs / 1e9;
}

static double cp_floor(const char *src, const char *dst, uint64_t bytes)
{
	char cmd[2200];
	double t0, t1;

	(void)bytes;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
	t0 = now_s();
	if (system(cmd) != 0)
		return 0;
	t1 = now_s();
	return (double)bytes / (t1 - t0) / 1e9;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	double seconds = 2;
	char model[128], fifo_dir[64], out[1024], out2[1024];
	struct cost c16, c256;
	uint64_t bw = 0, bv = 0;
	double gw, gv, gcp;
	int opt;

	while ((opt = getopt(argc, argv, "d:t:")) != -1) {
		if (opt == 'd')
			dir = optarg;
		else if (opt == 't')
			seconds = atof(optarg);
		else {
			fprintf(stderr, "usage: tracepipe [-d DIR] [-t SECONDS]\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	strcpy(fifo_dir, "/tmp/evt-bench-tp-XXXXXX");
	if (!mkdtemp(fifo_dir))
		return 1;
	snprintf(out, sizeof(out), "%s/evt-bench-tracepipe.out", dir);
	snprintf(out2, sizeof(out2), "%s/evt-bench-tracepipe.cp", dir);
	bench_cpu_model(model, sizeof(model));
	printf("tracepipe: %s, %ld CPUs, drain to %s, %.1f s per run\n", model,
	       sysconf(_SC_NPROCESSORS_ONLN), dir, seconds);

	c16 = write_cost(fifo_dir, 16);
	c256 = write_cost(fifo_dir, 256);
	printf("\n  %-22s %8s %8s %8s %6s %8s\n", "event", "median", "p90", "floor", "ratio",
	       "missed%");
	printf("  %-22s %8.2f %8.2f %8.2f %6.2f %8.2f\n", "16 B (ns/event)", c16.median, c16.p90,
	       c16.floor, c16.median / c16.floor, c16.missed_pct);
	printf("  %-22s %8.2f %8.2f %8.2f %6.2f %8.2f\n", "256 B (ns/event)", c256.median, c256.p90,
	       c256.floor, c256.median / c256.floor, c256.missed_pct);

	gw = drain(fifo_dir, out, 0, seconds, &bw);
	gv = drain(fifo_dir, out, EVT_TRACEPIPE_VMSPLICE, seconds, &bv);
	gcp = cp_floor(out, out2, bv);
	printf("\n  %-22s %8s %10s\n", "drain (splice to file)", "GB/s", "bytes");
	printf("  %-22s %8.2f %10" PRIu64 "\n", "pages by write()", gw, bw);
	printf("  %-22s %8.2f %10" PRIu64 "\n", "pages by vmsplice()", gv, bv);
	printf("  %-22s %8.2f %10" PRIu64 "\n", "floor: cp", gcp, bv);
	printf("\nBENCH tracepipe_event_16B_median %.2f ns\n", c16.median);
	printf("BENCH tracepipe_event_16B_p90 %.2f ns\n", c16.p90);
	printf("BENCH tracepipe_event_16B_floor %.2f ns\n", c16.floor);
	printf("BENCH tracepipe_event_16B_ratio %.2f x\n", c16.median / c16.floor);
	printf("BENCH tracepipe_event_256B_median %.2f ns\n", c256.median);
	printf("BENCH tracepipe_event_256B_p90 %.2f ns\n", c256.p90);
	printf("BENCH tracepipe_event_256B_floor %.2f ns\n", c256.floor);
	printf("BENCH tracepipe_event_256B_ratio %.2f x\n", c256.median / c256.floor);
	printf("BENCH tracepipe_drain_write %.2f GB/s\n", gw);
	printf("BENCH tracepipe_drain_vmsplice %.2f GB/s\n", gv);
	printf("BENCH tracepipe_drain_cp_floor %.2f GB/s\n", gcp);
	printf("BENCH tracepipe_drain_ratio %.2f x\n", gcp > 0 ? (gw > gv ? gw : gv) / gcp : 0);

	/* The same into memory (tmpfs), where the disk does not set the pace. */
	if (!access("/dev/shm", W_OK)) {
		char shm[64], shm2[80];

		snprintf(shm, sizeof(shm), "/dev/shm/evt-bench-tracepipe-%d", (int)getpid());
		snprintf(shm2, sizeof(shm2), "%s.cp", shm);
		gw = drain(fifo_dir, shm, 0, seconds, &bw);
		gv = drain(fifo_dir, shm, EVT_TRACEPIPE_VMSPLICE, seconds, &bv);
		gcp = cp_floor(shm, shm2, bv);
		unlink(shm);
		unlink(shm2);
		printf("\n  %-22s %8s %10s\n", "drain to /dev/shm", "GB/s", "bytes");
		printf("  %-22s %8.2f %10" PRIu64 "\n", "pages by write()", gw, bw);
		printf("  %-22s %8.2f %10" PRIu64 "\n", "pages by vmsplice()", gv, bv);
		printf("  %-22s %8.2f %10" PRIu64 "\n", "floor: cp", gcp, bv);
		printf("BENCH tracepipe_drain_shm_write %.2f GB/s\n", gw);
		printf("BENCH tracepipe_drain_shm_vmsplice %.2f GB/s\n", gv);
		printf("BENCH tracepipe_drain_shm_cp_floor %.2f GB/s\n", gcp);
	}
	unlink(out);
	unlink(out2);
	rmdir(fifo_dir);
	return 0;
}
