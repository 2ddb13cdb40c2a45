// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/probes.c - the cost of a probe hit next to a static tracepoint's, on the same
 * function, in the same run; and next to the kernel's uprobe when it can be had.
 *
 * One thread pinned to CPU 0 calls target(a, b, c) (a few instructions and a static
 * tracepoint, bench_probe:probe_bench, 16 bytes of fields) CALLS (-n, default 1M) times
 * per figure; each figure is the median of ROUNDS (-r, default 7) rounds, each round
 * measuring every configuration in turn (a shared machine's load hits all alike). The
 * records go to a dedicated instance with a 256 KiB overwrite buffer per CPU.
 *
 *   bare           the call, tracepoint off, no probe (the floor)
 *   tracepoint     the static tracepoint on
 *   entry_off      an entry probe installed, not enabled (the trampoline and one load)
 *   entry          p:kprobes/bench_ent target a=%di:u32 b=%si:u32 c=%dx:u64 (the same 16
 *                  bytes), made with evt_kprobe_event_gen_cmd_start()
 *   return         r:kprobes/bench_ret target ret=$retval:u64
 *   pad_entry      the same entry probe on target_pad(), built with a 5-byte nop pad
 *                  (patchable_function_entry): the patch replaces the pad, nothing moves
 *   uprobe         root with /sys/kernel/tracing: the kernel's uprobe on target with the
 *                  same fetch args, recorded in an instance of its own (CALLS / 10 calls):
 *                  added with >> to uprobe_events, exactly it removed after, the instance
 *                  removed, tracefs left as found
 *
 * Output: a table, "BENCH probes_<figure> <ns> ns" per figure, and the ratios of the
 * costs over the bare call: probes_entry_tp_ratio (entry / tracepoint: the goal is
 * <= 3), probes_return_tp_ratio, probes_uprobe_entry_ratio (uprobe / entry: the goal is
 * >= 20).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/instance.h>
#include <evtrace/kprobe.h>

#define CREATE_TRACE_POINTS
#include "probes-tp.h"

#include "bench.h"

#define MAX_ROUNDS 31
#define BUF_KB	   256
#define KTRACING   "/sys/kernel/tracing"

static uint32_t CALLS = 1000000u;
static int ROUNDS = 7;
static struct evt_instance *inst;
static char inst_name[64];
static volatile uint64_t sink;

__attribute__((noinline)) uint64_t target(uint32_t a, uint32_t b, uint64_t c)
{
	uint64_t r = c;

	trace_probe_bench(a, b, c);
	__asm__ volatile("" : "+r"(r));
	return r + a + b;
}

__attribute__((noinline, patchable_function_entry(5, 0))) uint64_t target_pad(uint32_t a,
									       uint32_t b,
									       uint64_t c)
{
	uint64_t r = c;

	trace_probe_bench(a, b, c);
	__asm__ volatile("" : "+r"(r));
	return r + a + b;
}

static uint64_t (*volatile fn)(uint32_t, uint32_t, uint64_t) = target;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double time_calls(uint64_t (*f)(uint32_t, uint32_t, uint64_t), uint32_t n)
{
	uint64_t s = 0;
	double t0;

	fn = f;
	t0 = now_ns();
	for (uint32_t i = 0; i < n; i++)
		s += fn(i, i + 1, (uint64_t)i << 3);
	sink = s;
	return (now_ns() - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *r)
{
	qsort(r, (size_t)ROUNDS, sizeof(r[0]), cmp_double);
	return r[ROUNDS / 2];
}

/*
 * Define a probe with the API of events.rst 7.3 (evtrace/kprobe.h): an entry probe with
 * the tracepoint's fields, or a return probe with $retval; enable it in our instance (@on).
 */
static int probe_add(bool is_return, const char *event, const char *loc, bool on)
{
	char buf[EVT_MAX_DYNEVENT_CMD_LEN];
	struct evt_dynevent_cmd cmd;
	int ret;

	evt_kprobe_event_cmd_init(&cmd, buf, sizeof(buf));
	if (is_return)
		ret = evt_kretprobe_event_gen_cmd_start(&cmd, event, loc, "ret=$retval:u64");
	else
		ret = evt_kprobe_event_gen_cmd_start(&cmd, event, loc, "a=%di:u32", "b=%si:u32",
						     "c=%dx:u64");
	if (!ret)
		ret = is_return ? evt_kretprobe_event_gen_cmd_end(&cmd) :
				  evt_kprobe_event_gen_cmd_end(&cmd);
	if (ret) {
		fprintf(stderr, "probes: %s: %s\n", buf, strerror(-ret));
		return -1;
	}
	if (on && evt_instance_event_enable(inst, EVT_KPROBE_EVENT_SYSTEM, event, true) < 0)
		return -1;
	return 0;
}

static void probe_del(const char *event)
{
	evt_instance_event_enable(inst, EVT_KPROBE_EVENT_SYSTEM, event, false);
	evt_kprobe_event_delete(event);
}

/* --- the kernel's uprobe ------------------------------------------------------------- */

static int kwrite(const char *path, const char *text, bool append)
{
	char full[512];
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), KTRACING "/%s", path);
	fd = open(full, O_WRONLY | (append ? O_APPEND : O_TRUNC) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : n < 0 ? -errno : -EIO;
}

/* @addr's offset in the file mapped there; 0 and @path filled, or -1. */
static int file_offset(const void *addr, char *path, size_t len, unsigned long *off)
{
	unsigned long a = (unsigned long)addr, lo, hi, foff;
	char line[4608], file[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &foff, file) == 4 &&
		    a >= lo && a < hi && file[0] == '/') {
			snprintf(path, len, "%s", file);
			*off = a - lo + foff;
			ret = 0;
			break;
		}
	if (f)
		fclose(f);
	return ret;
}

/* ns per call with the kernel's uprobe on target, or 0 when it cannot be had. */
static double uprobe_cost(void)
{
	char exe[4096], def[4400], grp[32], path[160];
	double r[MAX_ROUNDS];
	unsigned long off;
	bool added = false, made = false;
	double ret = 0;

	if (geteuid() != 0 || access(KTRACING "/uprobe_events", W_OK)) {
		printf("  (uprobe: not root or no %s: not measured)\n", KTRACING);
		return 0;
	}
	if (file_offset((const void *)target, exe, sizeof(exe), &off))
		return 0;
	snprintf(grp, sizeof(grp), "evtbench_%d", (int)getpid());
	snprintf(def, sizeof(def), "p:%s/target %s:0x%lx a=%%di:u32 b=%%si:u32 c=%%dx:u64\n", grp,
		 exe, off);
	snprintf(path, sizeof(path), KTRACING "/instances/%s", grp);
	if (mkdir(path, 0755))
		goto out;
	made = true;
	if (kwrite("uprobe_events", def, true))
		goto out;
	added = true;
	snprintf(path, sizeof(path), "instances/%s/events/%s/target/enable", grp, grp);
	if (kwrite(path, "1", false))
		goto out;
	time_calls(target, CALLS / 80);
	for (int i = 0; i < ROUNDS; i++)
		r[i] = time_calls(target, CALLS / 10);
	ret = median(r);
	kwrite(path, "0", false);
out:
	if (added) { /* exactly ours */
		snprintf(def, sizeof(def), "-:%s/target\n", grp);
		if (kwrite("uprobe_events", def, true))
			fprintf(stderr, "probes: could not remove uprobe %s/target\n", grp);
	}
	if (made) {
		snprintf(path, sizeof(path), KTRACING "/instances/%s", grp);
		rmdir(path);
	}
	if (!ret)
		printf("  (uprobe: could not be set up: not measured)\n");
	return ret;
}

/* --- ours ------------------------------------------------------------------------------ */

struct figures {
	double bare[MAX_ROUNDS], tp[MAX_ROUNDS], off[MAX_ROUNDS], ent[MAX_ROUNDS];
	double ret[MAX_ROUNDS], pbare[MAX_ROUNDS], pad[MAX_ROUNDS];
};

static int one_round(struct figures *f, int r)
{
	f->bare[r] = time_calls(target, CALLS);
	evt_instance_event_enable(inst, "bench_probe", "probe_bench", true);
	f->tp[r] = time_calls(target, CALLS);
	evt_instance_event_enable(inst, "bench_probe", "probe_bench", false);
	if (probe_add(false, "bench_ent", "target", false))
		return -1;
	f->off[r] = time_calls(target, CALLS);
	evt_instance_event_enable(inst, EVT_KPROBE_EVENT_SYSTEM, "bench_ent", true);
	f->ent[r] = time_calls(target, CALLS);
	probe_del("bench_ent");
	if (probe_add(true, "bench_ret", "target", true))
		return -1;
	f->ret[r] = time_calls(target, CALLS);
	probe_del("bench_ret");
	f->pbare[r] = time_calls(target_pad, CALLS);
	if (probe_add(false, "bench_pad", "target_pad", true))
		return -1;
	f->pad[r] = time_calls(target_pad, CALLS);
	probe_del("bench_pad");
	return 0;
}

static void row(const char *name, double v, double bare)
{
	printf("  %-12s %8.2f ns   cost over the bare call %8.2f ns\n", name, v, v - bare);
}

int main(int argc, char **argv)
{
	double bare, tp, off, ent, ret, pbare, pad, up;
	static struct figures f;
	char model[128];
	cpu_set_t set;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			CALLS = (uint32_t)strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			ROUNDS = atoi(optarg);
		else
			return 2;
	}
	if (CALLS < 100 || ROUNDS < 1 || ROUNDS > MAX_ROUNDS) {
		fprintf(stderr, "usage: probes [-n CALLS (>= 100)] [-r ROUNDS (1-%d)]\n",
			MAX_ROUNDS);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	bench_cpu_model(model, sizeof(model));
	snprintf(inst_name, sizeof(inst_name), "bench-probes-%d", (int)getpid());
	if (evt_instance_create(inst_name, &inst) || evt_instance_resize_kb(inst, -1, BUF_KB)) {
		fprintf(stderr, "probes: setup failed\n");
		return 1;
	}
	printf("probes: %s, pinned to CPU 0, %u calls x %d rounds (median), 16 bytes of fields, "
	       "%d KiB buffers\n", model, CALLS, ROUNDS, BUF_KB);
	up = uprobe_cost(); /* first: before our patches ever touch the page */
	for (int r = 0; r < ROUNDS; r++)
		if (one_round(&f, r)) {
			fprintf(stderr, "probes: probes unavailable (built without Zydis?)\n");
			return 77;
		}
	bare = median(f.bare);
	tp = median(f.tp);
	off = median(f.off);
	ent = median(f.ent);
	ret = median(f.ret);
	pbare = median(f.pbare);
	pad = median(f.pad);
	row("bare", bare, bare);
	row("tracepoint", tp, bare);
	row("entry_off", off, bare);
	row("entry", ent, bare);
	row("return", ret, bare);
	row("pad_bare", pbare, pbare);
	row("pad_entry", pad, pbare);
	if (up > 0)
		row("uprobe", up, bare);
	printf("BENCH probes_bare %.2f ns\n", bare);
	printf("BENCH probes_tracepoint %.2f ns\n", tp);
	printf("BENCH probes_entry_off %.2f ns\n", off);
	printf("BENCH probes_entry %.2f ns\n", ent);
	printf("BENCH probes_return %.2f ns\n", ret);
	printf("BENCH probes_pad_entry %.2f ns\n", pad);
	printf("BENCH probes_entry_tp_ratio %.2f x\n", (ent - bare) / (tp - bare));
	printf("BENCH probes_return_tp_ratio %.2f x\n", (ret - bare) / (tp - bare));
	printf("BENCH probes_pad_tp_ratio %.2f x\n", (pad - pbare) / (tp - bare));
	if (up > 0) {
		printf("BENCH probes_uprobe %.2f ns\n", up);
		printf("BENCH probes_uprobe_entry_ratio %.2f x\n", (up - bare) / (ent - bare));
	}
	evt_instance_destroy(inst);
	return 0;
}
