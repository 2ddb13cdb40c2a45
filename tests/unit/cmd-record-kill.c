// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record-kill: `evtrace record -- CMD` killed with SIGKILL at a random
 * moment (0.1-0.5 s in, 20 runs, 12 under a sanitizer; `-n RUNS`, `-s SEED`, the seed is
 * printed; even runs count from the start, so some die while the recorder
 * sets up, odd runs from the first page in the journal, so that they hold
 * events however slow the machine is) leaves a file that `evtrace report`
 * reads as it is (a journal) and, after `evtrace recover FILE`, a trace.dat
 * that `evtrace report` and `trace-cmd report` read with the same count;
 * each worker's sequence numbers from 0 with no gap and in order. Every
 * fourth run, a second consumer is started on the same program after the
 * kill (`evtrace extract -p`): it gets the buffer (the dead one let go), and
 * its events continue the first file's, none twice, in order (it starts
 * inside the page the dead one was reading: once one extract in six had
 * that page stamped ~0, its events sorted first).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/prctl.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"

static char out[1 << 24];

/* `trace-cmd report FILE | grep -c ctl_tick:`, or -1 without trace-cmd. */
static long tc_ticks(const char *file)
{
	char cmd[600];
	long n = -1;
	FILE *p;

	if (system("command -v trace-cmd >/dev/null 2>&1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null | grep -c ctl_tick:", file);
	p = popen(cmd, "r");
	T_ASSERT(p && fscanf(p, "%ld", &n) == 1);
	pclose(p);
	return n;
}

/* The traced program started by the record @rec (its only child), waiting for it. */
static pid_t child_of(pid_t rec)
{
	char path[64];
	long pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)rec, (int)rec);
	for (int i = 0; i < 1000 && pid <= 0; i++) {
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%ld", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		if (pid <= 0)
			usleep(1000);
	}
	T_ASSERT(pid > 0);
	return (pid_t)pid;
}

/*
 * Wait until the journal @file holds a page record (type 1: docs/tracedat.md,
 * "The recording journal"), at most 60 s.
 */
static void wait_first_page(const char *file)
{
	unsigned char hdr[16];
	uint32_t magic, len;
	uint16_t type;

	for (int i = 0; i < 60000; i++, usleep(1000)) {
		int fd = open(file, O_RDONLY);
		off_t off = 64;

		if (fd < 0)
			continue;
		while (pread(fd, hdr, sizeof(hdr), off) == (ssize_t)sizeof(hdr)) {
			memcpy(&magic, hdr, 4);
			memcpy(&type, hdr + 4, 2);
			memcpy(&len, hdr + 12, 4);
			if (magic != 0x4352564a)
				break;
			if (type == 1) {
				close(fd);
				return;
			}
			off += (off_t)(sizeof(hdr) + ((len + 7u) & ~7u));
		}
		close(fd);
	}
	t_fail("%s: no page in the journal after 60 s", file);
}

/* Read @file: counts, each worker in order; @last: each worker's last seq (-1: none). */
static long check_file(const char *file, long long *first, long long *last)
{
	struct crt_count cnt;
	long tc;

	T_ASSERT_OK(crt_read_file(file, &cnt));
	for (int w = 0; w < 2; w++) {
		T_ASSERT(cnt.in_order[w]);
		first[w] = cnt.ticks[w] ? cnt.first[w] : -1;
		last[w] = cnt.ticks[w] ? cnt.first[w] + cnt.ticks[w] - 1 : -1;
	}
	T_ASSERT_EQ(cnt.missed, 0);
	tc = tc_ticks(file);
	if (tc >= 0)
		T_ASSERT_EQ(tc, cnt.ticks[0] + cnt.ticks[1]);
	return cnt.ticks[0] + cnt.ticks[1];
}

static void one_run(const char *self, const char *tmp, int run, unsigned int ms, long *total)
{
	char file[300], file2[300], msbuf[32];
	long long first[2], last[2], first2[2], last2[2];
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	int ofd, st;
	pid_t rec, child;
	long n;

	snprintf(file, sizeof(file), "%s/kill-%d.dat", tmp, run);
	snprintf(file2, sizeof(file2), "%s/kill-%d-extract.dat", tmp, run);
	snprintf(msbuf, sizeof(msbuf), "%u", ms);
	rec = cmdt_run((char *[]){ "evtrace", "record", "-q", "-e", "ctltest:ctl_tick", "-o", file,
				   "--", (char *)self, "--child", "2", "-1", NULL },
		       &ofd, -1);
	child = child_of(rec);
	if (run % 2)
		wait_first_page(file);
	nanosleep(&ts, NULL);
	T_ASSERT(kill(rec, SIGKILL) == 0);
	st = cmdt_wait_status(rec);
	close(ofd);
	T_ASSERT_EQ(st, 128 + SIGKILL);

	/* as it is: a journal, which evtrace report reads */
	{
		char *a[] = { "evtrace", "report", file, NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
	}
	if (run % 4 == 0) {
		/* a second consumer on the same program: the dead one's buffer is free */
		char *a[] = { "evtrace", "extract", "-q", "-p", NULL, "-o", file2, NULL };
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", (int)child);
		a[4] = pid;
		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);	/* reparented to us? not always: harmless */

	{
		char *a[] = { "evtrace", "recover", "-q", file, NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
	}
	n = check_file(file, first, last);
	printf("run %2d: killed after %3u ms: %6ld ticks (worker 0: %lld-%lld, 1: %lld-%lld)\n",
	       run, ms, n, first[0], last[0], first[1], last[1]);
	for (int w = 0; w < 2; w++)
		T_ASSERT(first[w] <= 0); /* held until set up: from seq 0 */
	*total += n;
	if (run % 4 == 0) {
		long n2 = check_file(file2, first2, last2);

		printf("        extract after the kill: %ld ticks (worker 0 from %lld, 1 from %lld)\n",
		       n2, first2[0], first2[1]);
		/* none twice: the extract's go on after the record's */
		for (int w = 0; w < 2; w++)
			T_ASSERT(first2[w] < 0 || first2[w] > last[w]);
	}
	unlink(file);
	unlink(file2);
}

int main(int argc, char **argv)
{
	char tmp[256], self[4096], cmd[600];
	unsigned int seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	long total = 0;
#ifdef T_UNDER_SANITIZER
	int runs = 12;	/* each run is 3-4 times slower: the same kinds of moments, fewer */
#else
	int runs = 20;
#endif

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-s"))
			seed = (unsigned int)strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "-n"))
			runs = atoi(argv[i + 1]);
	}
	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	printf("seed %u (-s %u repeats it), %d runs\n", seed, seed, runs);
	srand(seed);
	for (int run = 0; run < runs; run++)
		one_run(self, tmp, run, 100 + (unsigned int)(rand() % 401), &total);
	T_ASSERT(total > 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(cmd), 0);
	printf("PASS\n");
	return 0;
}
