// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/record.c - events per second `evtrace record` sustains with no
 * loss, from 1 and 2 writer threads, next to the raw write rate of the ring
 * buffer measured in the same run.
 *
 *   build/bench/record [-d SECONDS]     (default 1 s per trial)
 *
 * Raw: writer threads (pinned, one per CPU) call trace_ctl_tick() -- the
 * event a traced program writes, 24-byte record -- as fast as they can
 * into the top instance with no reader (overwrite mode) for SECONDS; the
 * rate is events / wall time over all threads.
 *
 * Sustained: this program runs itself as the traced command under
 * `evtrace record -e ctltest:ctl_tick -- ./record --child T RATE SECONDS
 * COUNTFILE`: T threads write at RATE events/s in total (paced each
 * millisecond), then the program exits and the recorder drains what is
 * left. A trial is lossless when the file holds every event written (the
 * count the child leaves in COUNTFILE) and no page reports a loss. The rate
 * starts at 1/64 of the raw rate and doubles while trials are lossless,
 * then is refined by bisection (4 steps); the result is the highest
 * lossless rate tried. The default buffer (1408 KiB per CPU) and the
 * recorder's 50 ms drain period are what is measured.
 *
 * Output: a table, then "BENCH record_raw_<T>t <N> events/s",
 * "BENCH record_sustained_<T>t <N> events/s" and
 * "BENCH record_sustained_<T>t_ratio <x> x" (sustained / raw).
 *
 * The machine is shared (2 CPUs, other jobs): read the figures as orders
 * of magnitude, never as assertions.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/tracedat.h>

#define CREATE_TRACE_POINTS
#include "control-tp.h"

#include "bench.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void pin(int i)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	CPU_SET(n > 0 ? i % (int)n : 0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* --- the writers ----------------------------------------------------------------------- */

struct writer {
	int id;
	double rate; /* events/s for this thread; 0: as fast as possible */
	double seconds;
	unsigned long long written;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	double t0, end;
	unsigned long long n = 0;

	pin(w->id);
	t0 = now_s();
	end = t0 + w->seconds;
	if (w->rate <= 0) {
		do {
			for (int i = 0; i < 1024; i++)
				trace_ctl_tick(w->id, n++);
		} while (now_s() < end);
	} else {
		/* paced: each millisecond, catch up with rate * elapsed */
		for (double t = t0; t < end; t = now_s()) {
			unsigned long long due = (unsigned long long)((t - t0) * w->rate);
			struct timespec ms = { 0, 1000 * 1000 };

			while (n < due)
				trace_ctl_tick(w->id, n++);
			nanosleep(&ms, NULL);
		}
	}
	w->written = n;
	return NULL;
}

static unsigned long long run_writers(int nthreads, double rate, double seconds, double *elapsed)
{
	struct writer w[2];
	pthread_t t[2];
	unsigned long long total = 0;
	double t0 = now_s();

	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct writer){ .id = i, .rate = rate / nthreads, .seconds = seconds };
		pthread_create(&t[i], NULL, writer_main, &w[i]);
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(t[i], NULL);
		total += w[i].written;
	}
	if (elapsed)
		*elapsed = now_s() - t0;
	return total;
}

/* `record --child T RATE SECONDS COUNTFILE` */
static int child_main(char **argv)
{
	unsigned long long n = run_writers(atoi(argv[2]), atof(argv[3]), atof(argv[4]), NULL);
	FILE *f = fopen(argv[5], "w");

	if (!f)
		return 1;
	fprintf(f, "%llu\n", n);
	fclose(f);
	return 0;
}

/* --- one recorded trial ------------------------------------------------------------------ */

/* Events in @path and whether a page said events were lost; -1 if unreadable. */
static long long count_file(const char *path, bool *lost)
{
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	long long n = 0;
	int ret;

	*lost = false;
	if (evt_tracedat_open(path, &td))
		return -1;
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		if (rec.missed && rec.missed != ~0ULL)
			*lost = true;
		if (rec.event && !strcmp(rec.event->name, "ctl_tick"))
			n++;
	}
	evt_tracedat_close(td);
	return ret < 0 ? -1 : n;
}

/* Run one trial; 1 lossless, 0 lossy, -1 failed. */
static int trial(const char *self, const char *dir, int nthreads, double rate, double seconds)
{
	char file[512], countf[512], th[16], rt[32], sec[32];
	unsigned long long written = 0;
	long long got;
	bool lost;
	pid_t pid;
	int st;
	FILE *f;

	snprintf(file, sizeof(file), "%s/trial.dat", dir);
	snprintf(countf, sizeof(countf), "%s/count", dir);
	snprintf(th, sizeof(th), "%d", nthreads);
	snprintf(rt, sizeof(rt), "%.0f", rate);
	snprintf(sec, sizeof(sec), "%g", seconds);
	unlink(countf);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(nul, 2);
		execl(EVT_TOOL, "evtrace", "record", "-q", "-e", "ctltest:ctl_tick", "-o", file,
		      "--", self, "--child", th, rt, sec, countf, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	f = fopen(countf, "r");
	if (!f || fscanf(f, "%llu", &written) != 1) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	got = count_file(file, &lost);
	unlink(file);
	if (got < 0)
		return -1;
	return (unsigned long long)got == written && !lost;
}

int main(int argc, char **argv)
{
	char self[4096], tmpl[] = "/tmp/evt-bench-record-XXXXXX", model[128];
	double seconds = 1, raw[3], sus[3];
	ssize_t sl;
	int opt;

	if (argc == 6 && !strcmp(argv[1], "--child"))
		return child_main(argv);
	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt == 'd' && atof(optarg) > 0) {
			seconds = atof(optarg);
		} else {
			fprintf(stderr, "usage: record [-d SECONDS]\n");
			return 2;
		}
	}
	if (access(EVT_TOOL, X_OK)) {
		fprintf(stderr, "record: %s is not built\n", EVT_TOOL);
		return 1;
	}
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0 || !mkdtemp(tmpl))
		return 1;
	self[sl] = '\0';
	setenv("EVTRACE_CONTROL_DIR", tmpl, 1); /* private sockets (a subdirectory is made) */
	{
		char d[600];

		snprintf(d, sizeof(d), "%s/sock", tmpl);
		setenv("EVTRACE_CONTROL_DIR", d, 1);
	}
	bench_cpu_model(model, sizeof(model));
	printf("record: %s, %ld CPUs, %g s per trial, 24-byte records (ctltest:ctl_tick), "
	       "default buffer\n",
	       model, sysconf(_SC_NPROCESSORS_ONLN), seconds);

	/* raw: the top instance, this event, no reader */
	evt_instance_event_enable(evt_instance_top(), "ctltest", "ctl_tick", true);
	for (int t = 1; t <= 2; t++) {
		double el;
		unsigned long long n = run_writers(t, 0, seconds, &el);

		raw[t] = (double)n / el;
	}
	evt_instance_event_enable(evt_instance_top(), "ctltest", "ctl_tick", false);

	for (int t = 1; t <= 2; t++) {
		double lo = 0, hi = 0, rate = raw[t] / 64;
		int r;

		/* double while lossless */
		while (rate <= raw[t] * 2) {
			r = trial(self, tmpl, t, rate, seconds);
			printf("  %dt  %12.0f events/s: %s\n", t, rate,
			       r > 0  ? "no loss" :
			       r == 0 ? "LOSS" :
					"failed");
			if (r < 0) {
				fprintf(stderr, "record: a trial failed\n");
				return 1;
			}
			if (!r) {
				hi = rate;
				break;
			}
			lo = rate;
			rate *= 2;
		}
		/* bisect between the last lossless and the first lossy rate */
		for (int i = 0; hi > 0 && i < 4; i++) {
			rate = (lo + hi) / 2;
			r = trial(self, tmpl, t, rate, seconds);
			printf("  %dt  %12.0f events/s: %s\n", t, rate,
			       r > 0  ? "no loss" :
			       r == 0 ? "LOSS" :
					"failed");
			if (r < 0)
				return 1;
			if (r)
				lo = rate;
			else
				hi = rate;
		}
		sus[t] = lo;
	}
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
		if (system(cmd))
			fprintf(stderr, "record: could not remove %s\n", tmpl);
	}
	printf("\n  %-4s %16s %20s %8s\n", "", "raw (events/s)", "recorded, no loss", "ratio");
	for (int t = 1; t <= 2; t++)
		printf("  %dt   %16.0f %20.0f %8.3f\n", t, raw[t], sus[t], sus[t] / raw[t]);
	for (int t = 1; t <= 2; t++) {
		printf("BENCH record_raw_%dt %.0f events/s\n", t, raw[t]);
		printf("BENCH record_sustained_%dt %.0f events/s\n", t, sus[t]);
		printf("BENCH record_sustained_%dt_ratio %.3f x\n", t, sus[t] / raw[t]);
	}
	return 0;
}
