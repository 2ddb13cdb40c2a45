// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/relay.c - relay channels: what a record costs the writer, and how
 * fast a consumer process drains a buffer to a file.
 *
 *   relay [-q]        -q: a quick run (fewer batches, a smaller drain)
 *
 * Writing: one thread pinned to a CPU writes 16- and 256-byte records
 * into a per-CPU overwrite channel (64 KiB x 16 sub-buffers, so writes
 * never fail and the sub-buffer switches are included). Batches of 1000
 * writes are timed with clock_gettime(); the figure is the median batch
 * divided by 1000. The floor, measured the same way in the same run, is
 * an inlined copy of the record (constant size) into a page-sized area
 * the writer walks through (wrapping, a compiler barrier keeps the
 * stores): what any in-memory logger does at least. Relay records carry
 * no time stamp; the floor of a timestamped tracer (a read of the trace
 * clock, then the copy) is shown next to it for comparison with the
 * other benchmarks.
 * evt_relay_write_serialized() (the caller serializes writers: no locked
 * instruction) is shown too.
 *
 * Draining: the writer fills a global no-overwrite buffer (1 MiB x 64 =
 * 64 MiB of 4 KiB records, so nothing is padding), then a consumer
 * process drains it to a file in the current directory with
 * evt_relay_reader_splice() (write(2) from the mapping) and, in a
 * second round, with evt_relay_reader_read() + write(). The floor is
 * `cp` of a 64 MiB file to a file in the same directory, same run. A first
 * drain, untimed, warms up (the first one of a run is several times slower:
 * page faults on fresh mappings and a fresh output file).
 * Throughput counts bytes of records delivered, in 10^9 bytes per second.
 *
 * Output: a table, then "BENCH <name> <value> <unit>" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#include "bench.h"

#include "clock/clock_internal.h"	/* the timestamped floor reads the trace clock */

#define BATCH 1000

static int quick;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int always(struct evt_rchan_buf *buf, void *s, void *p, size_t pad)
{
	(void)buf;
	(void)s;
	(void)p;
	(void)pad;
	return 1;
}

static int create(const char *f, const char *parent, int mode, struct evt_rchan_buf *buf,
		  int *is_global)
{
	*is_global = *(int *)buf->chan->private_data;
	return evt_relay_file_create(f, parent, mode, buf, is_global);
}

static int remove_file(const char *path)
{
	return evt_relay_file_remove(path);
}

enum what {
	W_FLOOR,
	W_CLOCK_FLOOR,
	W_WRITE,
	W_UWRITE
};

/* Median ns per record over @batches batches of BATCH. */
static double measure(struct evt_rchan *chan, enum what w, size_t len, int batches)
{
	static char area[4096] __attribute__((aligned(64)));
	double *t = calloc((size_t)batches, sizeof(double)), med;
	char rec[256];
	size_t at = 0;

	memset(rec, 0x5a, sizeof(rec));
	for (int b = -batches / 10; b < batches; b++) {
		double t0 = now();

		for (int i = 0; i < BATCH; i++) {
			switch (w) {
			case W_FLOOR:
				/* constant sizes: the compiler inlines the copy */
				if (at + len > sizeof(area))
					at = 0;
				if (len == 16)
					__builtin_memcpy(area + at, rec, 16);
				else
					__builtin_memcpy(area + at, rec, 256);
				at += len;
				__asm__ __volatile__("" : : "r"(area) : "memory");
				break;
			case W_CLOCK_FLOOR: {
				/* the floor of a timestamped tracer: a clock read, then the copy */
				uint64_t ts = tclock_read(EVT_CLOCK_LOCAL);

				if (at + 8 + len > sizeof(area))
					at = 0;
				__builtin_memcpy(area + at, &ts, 8);
				if (len == 16)
					__builtin_memcpy(area + at + 8, rec, 16);
				else
					__builtin_memcpy(area + at + 8, rec, 256);
				at += 8 + len;
				__asm__ __volatile__("" : : "r"(area) : "memory");
				break;
			}
			case W_WRITE:
				evt_relay_write(chan, rec, len);
				break;
			case W_UWRITE:
				evt_relay_write_serialized(chan, rec, len);
				break;
			}
		}
		if (b >= 0)
			t[b] = (now() - t0) * 1e9 / BATCH;
	}
	qsort(t, (size_t)batches, sizeof(double), cmp_double);
	med = t[batches / 2];
	free(t);
	return med;
}

/* Drain @path (a relay file) to @out: 0 splice, 1 read + write. Returns seconds. */
static int drain(const char *path, const char *out, int how, double *secs, size_t *bytes)
{
	struct evt_relay_reader *r;
	static char buf[1 << 20];
	size_t total = 0;
	double t0;
	ssize_t n;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || evt_relay_reader_open(path, &r) < 0)
		return 1;
	t0 = now();
	for (;;) {
		if (how == 0) {
			n = evt_relay_reader_splice(r, fd, 1 << 24);
		} else {
			n = evt_relay_reader_read(r, buf, sizeof(buf));
			if (n > 0 && write(fd, buf, (size_t)n) != n)
				return 1;
		}
		if (n <= 0)
			break;
		total += (size_t)n;
	}
	*secs = now() - t0;
	*bytes = total;
	evt_relay_reader_close(r);
	close(fd);
	return 0;
}

struct drain_result {
	double secs;
	size_t bytes;
	int ok;
};

int main(int argc, char **argv)
{
	struct evt_rchan_callbacks ow = { .subbuf_start = always };
	struct evt_rchan_callbacks files = { .create_buf_file = create,
					     .remove_buf_file = remove_file };
	double floor16, floor256, w16, w256, u16, u256, cp_secs, gbs[2], cfl16, cfl256;
	int batches, global = 1, cpu;
	struct drain_result *dr;
	struct evt_rchan *chan;
	char model[128], dir[] = "./relay-bench-XXXXXX", path[PATH_MAX], cmd[PATH_MAX * 2];
	const size_t subbuf = 1 << 20, nsub = 64, rec = 4096;
	cpu_set_t set;

	quick = argc > 1 && !strcmp(argv[1], "-q");
	batches = quick ? 200 : 2000;
	bench_cpu_model(model, sizeof(model));
	cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	printf("evtrace %s relay benchmark\n", EVTRACE_VERSION);
	printf("machine:   %s, %ld CPUs online; writer pinned to CPU %d\n", model,
	       sysconf(_SC_NPROCESSORS_ONLN), cpu);

	if (evt_relay_open(NULL, NULL, 65536, 16, &ow, NULL, &chan) < 0)
		return 1;
	floor16 = measure(chan, W_FLOOR, 16, batches);
	cfl16 = measure(chan, W_CLOCK_FLOOR, 16, batches);
	cfl256 = measure(chan, W_CLOCK_FLOOR, 256, batches);
	w16 = measure(chan, W_WRITE, 16, batches);
	u16 = measure(chan, W_UWRITE, 16, batches);
	floor256 = measure(chan, W_FLOOR, 256, batches);
	w256 = measure(chan, W_WRITE, 256, batches);
	u256 = measure(chan, W_UWRITE, 256, batches);
	evt_relay_close(chan);
	printf("\nwriting (median ns per record, batches of %d)\n", BATCH);
	printf("  %-28s %8s %8s %8s\n", "", "16 B", "256 B", "");
	printf("  %-28s %8.2f %8.2f\n", "memcpy floor", floor16, floor256);
	printf("  %-28s %8.2f %8.2f   (records carry no time: for comparison)\n",
	       "clock read + memcpy", cfl16, cfl256);
	printf("  %-28s %8.2f %8.2f   ratio %.2f / %.2f\n", "evt_relay_write", w16, w256,
	       w16 / floor16, w256 / floor256);
	printf("  %-28s %8.2f %8.2f   ratio %.2f / %.2f\n", "evt_relay_write_serialized", u16, u256,
	       u16 / floor16, u256 / floor256);

	/* draining: fill 64 MiB, drain it from another process; twice */
	if (!mkdtemp(dir))
		return 1;
	dr = mmap(NULL, 2 * sizeof(*dr), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* a first, untimed round: the first drain of a process pays for its page faults */
	for (int round = 0; round < 3; round++) {
		int how = round == 0 ? 1 : round - 1;
		static char r4k[4096];
		size_t n = quick ? nsub / 4 : nsub;
		pid_t pid;

		if (evt_relay_open("d", dir, subbuf, nsub, &files, &global, &chan) < 0)
			return 1;
		memset(r4k, 'x', sizeof(r4k));
		for (size_t i = 0; i < n * (subbuf / rec); i++)
			evt_relay_write(chan, r4k, rec);
		evt_relay_flush(chan);
		snprintf(path, sizeof(path), "%s/d0", dir);
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			char out[PATH_MAX + 8];

			snprintf(out, sizeof(out), "%s/out", dir);
			dr[how].ok = !drain(path, out, how, &dr[how].secs, &dr[how].bytes);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		evt_relay_close(chan);
		if (!dr[how].ok || !dr[how].bytes)
			return 1;
		gbs[how] = (double)dr[how].bytes / dr[how].secs / 1e9;
	}
	/* the floor: cp of a file of the same size */
	snprintf(cmd, sizeof(cmd), "cp %s/out %s/out2 && sync -f %s/out2 2>/dev/null; true", dir,
		 dir, dir);
	{
		double t0 = now();

		snprintf(cmd, sizeof(cmd), "cp %s/out %s/out2", dir, dir);
		if (system(cmd) != 0)
			return 1;
		cp_secs = now() - t0;
	}
	printf("\ndraining %zu MiB to a file from another process (GB/s = 10^9 B/s)\n",
	       dr[0].bytes >> 20);
	printf("  %-28s %8.2f\n", "cp of an equal file (floor)",
	       (double)dr[0].bytes / cp_secs / 1e9);
	printf("  %-28s %8.2f   ratio %.2f\n", "splice", gbs[0],
	       gbs[0] / ((double)dr[0].bytes / cp_secs / 1e9));
	printf("  %-28s %8.2f   ratio %.2f\n", "read + write", gbs[1],
	       gbs[1] / ((double)dr[0].bytes / cp_secs / 1e9));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;

	printf("\nBENCH relay_floor_memcpy_16B %.2f ns\n", floor16);
	printf("BENCH relay_write_16B_median %.2f ns\n", w16);
	printf("BENCH relay_write_16B_ratio %.2f x\n", w16 / floor16);
	printf("BENCH relay___write_16B_median %.2f ns\n", u16);
	printf("BENCH relay_floor_clock_store_16B %.2f ns\n", cfl16);
	printf("BENCH relay_floor_clock_store_256B %.2f ns\n", cfl256);
	printf("BENCH relay_floor_memcpy_256B %.2f ns\n", floor256);
	printf("BENCH relay_write_256B_median %.2f ns\n", w256);
	printf("BENCH relay_write_256B_ratio %.2f x\n", w256 / floor256);
	printf("BENCH relay___write_256B_median %.2f ns\n", u256);
	printf("BENCH relay_drain_floor_cp %.2f GB/s\n", (double)dr[0].bytes / cp_secs / 1e9);
	printf("BENCH relay_drain_splice %.2f GB/s\n", gbs[0]);
	printf("BENCH relay_drain_read %.2f GB/s\n", gbs[1]);
	return 0;
}
