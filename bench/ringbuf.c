// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/ringbuf.c - nanoseconds per event on the ring buffer's write path.
 *
 * What is measured, for payloads of 8, 16, 64 and 256 bytes:
 *
 *   floor      what any tracer must do at least: read the trace clock and
 *              store header + payload into a page-sized, thread-local array
 *   write      evt_ring_buffer_lock_reserve() + memcpy + unlock_commit(),
 *              producer/consumer mode
 *   overwrite  the same in overwrite mode
 *   writefn    evt_ring_buffer_write() (reserve + copy + commit in one call)
 *   disabled   lock_reserve() while recording is off (the "tracing off" cost)
 *
 * each with 1 and 2 writer threads (each pinned to its own CPU), and for
 * write/overwrite also with a live consumer thread draining every CPU.
 * For comparison, the reader's side: one thread draining a full buffer
 * with evt_ring_buffer_consume() ("consume") or read_page() + the page
 * iterator ("readpage"), timed per drain, filling untimed.
 *
 * Method. Each writer thread pins itself (sched_setaffinity), waits for
 * the others at a barrier, warms up (untimed), then runs batches of
 * -b events (1000) with clock_gettime(CLOCK_MONOTONIC) around each batch.
 * One vDSO call costs ~20 ns, i.e. 0.02 ns per event over a batch, and it
 * does not depend on the library's TSC calibration, which is part of what
 * is being measured. Every batch gives one sample, ns/event; we report the
 * median and the 90th percentile over all samples of all threads: the
 * median is immune to the few batches a timer interrupt or a preemption
 * lands in, the p90 shows them. Throughput (events/s) is the sum over the
 * writers of 1 / (that writer's median ns per event): what the writers
 * sustain together when nothing interrupts them, as robust to a noisy
 * machine as the medians are. Scaling = 2-writer throughput / 1-writer
 * throughput of the same configuration (not given with a consumer: with
 * two writers on two CPUs the consumer has no CPU of its own).
 *
 * Producer/consumer mode without a consumer would fill up and turn every
 * later reservation into a cheap failure, so each writer resets its own
 * CPU's buffer (evt_ring_buffer_reset_cpu(), outside the timed batches)
 * before the batch that could overflow it; reservations that fail anyway
 * are counted and printed. With a consumer nothing is reset: what the
 * consumer cannot keep up with is dropped and shown as "drop%". In
 * overwrite mode nothing is ever reset either: wrapping is what we want
 * to time.
 *
 * Output: a table, then one "BENCH <name> <value> <unit>" line per figure
 * (bench/README.md lists the names).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#include "bench.h"

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "ringbuf/rb_internal.h"	/* rb_event_size(), rb->rseq: read-only */

/*
 * The floor reads the clock the buffer reads, through the same inline
 * (a private header: benchmarks may look inside src/).
 */
#include "clock/clock_internal.h"
#define FLOOR_CLOCK_NAME	"tclock_read(EVT_CLOCK_LOCAL)"

static inline uint64_t floor_clock(void)
{
	return tclock_read(EVT_CLOCK_LOCAL);
}

#define MAX_THREADS	2
#define FLOOR_AREA	4096u	/* the floor's thread-local "page" */
#define MAX_SAMPLES	(1u << 22)

enum mode {
	MODE_FLOOR,
	MODE_WRITE,
	MODE_OVERWRITE,
	MODE_WRITEFN,
	MODE_DISABLED,
	MODE_CONSUME,
	MODE_READPAGE,
};

static const char *const mode_name[] = {
	[MODE_FLOOR] = "floor",
	[MODE_WRITE] = "write",
	[MODE_OVERWRITE] = "overwrite",
	[MODE_WRITEFN] = "writefn",
	[MODE_DISABLED] = "disabled",
	[MODE_CONSUME] = "consume",
	[MODE_READPAGE] = "readpage",
};

struct config {
	enum mode mode;
	unsigned int payload;
	int nthreads;
	bool consumer;
};

struct result {
	struct config cfg;
	double median;		/* ns per event */
	double p90;
	double throughput;	/* events/s: sum over the writers of 1e9 / their median */
	double floor;		/* floor median of the same payload and threads */
	double scaling;		/* vs the 1-thread run; 0 if none */
	double alone;		/* +consumer: median of the same run without it; 0 if none */
	uint64_t events;	/* reservations attempted in timed batches */
	uint64_t fails;		/* of which returned NULL (or write() < 0) */
	uint64_t consumed;	/* events the consumer read */
	uint64_t lost;		/* drops + overruns the buffer counted */
};

static struct {
	double secs;		/* timed seconds per configuration */
	double warm;		/* untimed warm-up seconds */
	unsigned int batch;	/* events per timed batch */
	unsigned long bufsize;	/* bytes per CPU */
	int cpus[MAX_THREADS];	/* where writer i runs */
	int ncpus;		/* CPUs we may run on */
	int spare_cpu;		/* a CPU for the 1-writer consumer, or -1 */
	const char *filter;	/* -f: run only configs whose label has this at a word start */
} opt = {
	.secs = 0.75,
	.batch = 1000,
	.bufsize = 1ul << 20,
	.spare_cpu = -1,
};

struct run;

struct worker {
	pthread_t thread;
	struct run *run;
	int cpu;
	int err;		/* setup failure, negative errno */
	float *samples;		/* ns per event, one per timed batch */
	size_t nsamples;
	uint64_t events;
	uint64_t fails;
};

struct run {
	struct config cfg;
	struct evt_ring_buffer *rb;
	unsigned int reset_every;	/* batches between untimed resets; 0: never */
	size_t max_samples;
	pthread_barrier_t go;
	int stop;			/* consumer: writers are done (release/acquire) */
	uint64_t consumed;		/* written by the consumer before it exits */
	struct worker workers[MAX_THREADS];
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* ---- the timed loops ------------------------------------------------------ */

/* Reserve, copy, commit: the path instrumented code takes. Return: failures. */
static __attribute__((noinline)) uint64_t batch_reserve(struct evt_ring_buffer *rb,
							 const void *src, unsigned int len,
							 unsigned int n)
{
	uint64_t fails = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct evt_ring_buffer_event *ev = evt_ring_buffer_lock_reserve(rb, len);

		if (unlikely(!ev)) {
			fails++;
			continue;
		}
		memcpy(evt_ring_buffer_event_data(ev), src, len);
		evt_ring_buffer_unlock_commit(rb, ev);
	}
	return fails;
}

static __attribute__((noinline)) uint64_t batch_writefn(struct evt_ring_buffer *rb,
							 const void *src, unsigned int len,
							 unsigned int n)
{
	uint64_t fails = 0;

	for (unsigned int i = 0; i < n; i++)
		fails += evt_ring_buffer_write(rb, len, src) != 0;
	return fails;
}

/* Recording is off: every reservation must come back NULL. Return: the ones that did not. */
static __attribute__((noinline)) uint64_t batch_disabled(struct evt_ring_buffer *rb,
							  unsigned int len, unsigned int n)
{
	uint64_t bad = 0;

	for (unsigned int i = 0; i < n; i++)
		bad += evt_ring_buffer_lock_reserve(rb, len) != NULL;
	return bad;
}

/* Untimed: fill this CPU's buffer (producer/consumer mode) until it refuses. */
static void fill_cpu(struct evt_ring_buffer *rb, const void *src, unsigned int len)
{
	while (!evt_ring_buffer_write(rb, len, src))
		;
}

/* Consume everything of @cpu, as a reader would: time stamp and payload. Return: events. */
static __attribute__((noinline)) unsigned long drain_cpu(struct evt_ring_buffer *rb, int cpu)
{
	struct evt_ring_buffer_event *ev;
	unsigned long n = 0;
	uint64_t ts, sum = 0;

	while ((ev = evt_ring_buffer_consume(rb, cpu, &ts, NULL))) {
		sum += ts + *(unsigned char *)evt_ring_buffer_event_data(ev);
		n++;
	}
	/* keep the loads: the compiler must believe sum is used */
	__asm__ __volatile__("" : : "r"(sum));
	return n;
}

/*
 * The same with evt_ring_buffer_read_page(): a page of events per call,
 * then walked with the page iterator. Return: events, 0 on error.
 */
static __attribute__((noinline)) unsigned long drain_pages(struct evt_ring_buffer *rb, int cpu,
							   void *page, size_t psize)
{
	const struct evt_ring_buffer_event *ev;
	struct evt_rb_page_iter it;
	unsigned long n = 0;
	uint64_t ts, sum = 0;
	int ret;

	while ((ret = evt_ring_buffer_read_page(rb, cpu, page, psize)) > 0) {
		if (evt_rb_page_iter_init(&it, page, psize))
			return 0;
		while ((ret = evt_rb_page_iter_next(&it, &ev, &ts)) == 1) {
			sum += ts + *(const unsigned char *)evt_ring_buffer_event_data(
				(struct evt_ring_buffer_event *)ev);
			n++;
		}
		if (ret < 0)
			return 0;
	}
	__asm__ __volatile__("" : : "r"(sum));
	return ret == -EAGAIN ? n : 0;
}

/* The floor's per-thread state: a page-sized area, written round and round. */
struct floor_area {
	unsigned char page[FLOOR_AREA] __attribute__((aligned(64)));
	uint32_t off;
	uint64_t last;
};

/*
 * The least a writer does: one clock read, a header word built from the
 * time delta, the payload stored after it. barrier() keeps the compiler
 * from dropping or merging the stores of successive iterations.
 */
static __attribute__((noinline)) uint64_t batch_floor(struct floor_area *fa, const void *src,
						       unsigned int len, unsigned int n)
{
	uint32_t size = rb_event_size(len);
	/* as rb_write_header(): big payloads carry a length word, type_len 0 */
	uint32_t hoff = size - 4 > EVT_RB_MAX_SMALL_DATA ? 8 : 4;
	uint32_t type_len = hoff == 4 ? (size - 4) / 4 : 0;
	uint32_t off = fa->off;
	uint64_t last = fa->last;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t now = floor_clock();
		uint32_t hdr = (uint32_t)((now - last) << 5) | type_len;

		last = now;
		if (off + size > FLOOR_AREA)
			off = 0;
		memcpy(fa->page + off, &hdr, 4);
		memcpy(fa->page + off + hoff, src, len);
		off += size;
		barrier();
	}
	fa->off = off;
	fa->last = last;
	return 0;
}

/* ---- threads -------------------------------------------------------------- */

static uint64_t run_batch(struct run *r, struct floor_area *fa, const void *src)
{
	unsigned int len = r->cfg.payload, n = opt.batch;

	switch (r->cfg.mode) {
	case MODE_FLOOR:
		return batch_floor(fa, src, len, n);
	case MODE_WRITEFN:
		return batch_writefn(r->rb, src, len, n);
	case MODE_DISABLED:
		return batch_disabled(r->rb, len, n);
	default:
		return batch_reserve(r->rb, src, len, n);
	}
}

static void *writer_main(void *arg)
{
	unsigned char src[256] __attribute__((aligned(16)));
	uint64_t t0, t1, warm_end, end;
	unsigned int since_reset = 0;
	struct floor_area *fa = NULL;
	struct worker *w = arg;
	struct run *r = w->run;
	void *page = NULL;
	size_t psize = 0;
	int ret;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + w->cpu);
	ret = pin_self(w->cpu);
	if (!ret && r->cfg.mode == MODE_FLOOR) {
		fa = aligned_alloc(64, sizeof(*fa));
		if (fa)
			memset(fa, 0, sizeof(*fa));
		else
			ret = -ENOMEM;
	}
	if (!ret && r->cfg.mode == MODE_READPAGE) {
		psize = evt_ring_buffer_page_size(r->rb);
		page = malloc(psize);
		if (!page)
			ret = -ENOMEM;
	}
	w->err = ret;
	pthread_barrier_wait(&r->go);
	if (ret)
		return NULL;

	t0 = now_ns();
	warm_end = t0 + (uint64_t)(opt.warm * 1e9);
	end = warm_end + (uint64_t)(opt.secs * 1e9);
	for (;;) {
		unsigned long n = opt.batch;
		uint64_t fails = 0;

		if (r->reset_every && since_reset == r->reset_every) {
			/* Untimed: start an empty buffer so the next batch cannot fill it. */
			evt_ring_buffer_reset_cpu(r->rb, w->cpu);
			since_reset = 0;
		}
		if (r->cfg.mode == MODE_CONSUME || r->cfg.mode == MODE_READPAGE) {
			/* One sample = draining a full buffer; the filling is not timed. */
			fill_cpu(r->rb, src, r->cfg.payload);
			t0 = now_ns();
			if (r->cfg.mode == MODE_CONSUME)
				n = drain_cpu(r->rb, w->cpu);
			else
				n = drain_pages(r->rb, w->cpu, page, psize);
			t1 = now_ns();
			if (!n) {
				w->err = -EIO;	/* nothing to read after a fill: broken */
				break;
			}
		} else {
			t0 = now_ns();
			fails = run_batch(r, fa, src);
			t1 = now_ns();
		}
		since_reset++;
		if (t0 < warm_end)
			continue;
		w->samples[w->nsamples++] = (float)((double)(t1 - t0) / (double)n);
		w->events += n;
		w->fails += fails;
		if (t1 >= end || w->nsamples == r->max_samples)
			break;
	}
	free(page);
	free(fa);
	return NULL;
}

/* Drain every CPU until the writers are done, then once more. */
static void *consumer_main(void *arg)
{
	struct run *r = arg;
	int nr = evt_ring_buffer_nr_cpus(r->rb);
	uint64_t n = 0;
	bool last = false;

	for (;;) {
		bool got = false;

		/* Acquire: pairs with the release store of stop after the writers joined. */
		if (ld_acquire(&r->stop))
			last = true;
		for (int cpu = 0; cpu < nr; cpu++) {
			while (evt_ring_buffer_consume(r->rb, cpu, NULL, NULL)) {
				n++;
				got = true;
			}
		}
		if (last)
			break;
		if (!got)
			sched_yield();
	}
	r->consumed = n;
	return NULL;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* Event slots one reset leaves free, in batches, keeping a page spare for time extends. */
static unsigned int batches_per_reset(struct evt_ring_buffer *rb, int cpu, unsigned int payload)
{
	unsigned int psize = evt_ring_buffer_page_size(rb);
	unsigned long pages = evt_ring_buffer_size(rb, cpu) / psize;
	unsigned long per_page = (psize - EVT_RB_PAGE_HDR_SIZE) / rb_event_size(payload);

	if (pages < 3)
		return 0;
	return (unsigned int)((pages - 2) * per_page / opt.batch);
}

static int run_config(const struct config *cfg, struct result *res)
{
	struct run *r = calloc(1, sizeof(*r));
	size_t total = 0, k = 0;
	pthread_t consumer;
	float *all = NULL;
	int ret = 0;

	if (!r)
		return -ENOMEM;
	r->cfg = *cfg;
	r->max_samples = (size_t)(opt.secs * 1e9 / opt.batch) + 16;	/* >= 1 ns/event */
	if (r->max_samples > MAX_SAMPLES)
		r->max_samples = MAX_SAMPLES;
	memset(res, 0, sizeof(*res));
	res->cfg = *cfg;

	if (cfg->mode != MODE_FLOOR) {
		ret = evt_ring_buffer_alloc(opt.bufsize,
					    cfg->mode == MODE_OVERWRITE ? EVT_RB_FL_OVERWRITE : 0,
					    &r->rb);
		if (ret)
			goto out;
		if (cfg->mode == MODE_DISABLED)
			evt_ring_buffer_record_disable(r->rb);
		if ((cfg->mode == MODE_WRITE || cfg->mode == MODE_WRITEFN) && !cfg->consumer) {
			r->reset_every = batches_per_reset(r->rb, opt.cpus[0], cfg->payload);
			if (!r->reset_every) {
				fprintf(stderr, "ringbuf: -s %lu is too small for a batch of %u\n",
					opt.bufsize, opt.batch);
				ret = -EINVAL;
				goto out;
			}
		}
	}
	for (int i = 0; i < cfg->nthreads; i++) {
		r->workers[i].samples = malloc(r->max_samples * sizeof(float));
		if (!r->workers[i].samples) {
			ret = -ENOMEM;
			goto out;
		}
	}

	pthread_barrier_init(&r->go, NULL, (unsigned int)cfg->nthreads);
	if (cfg->consumer) {
		ret = -pthread_create(&consumer, NULL, consumer_main, r);
		if (ret)
			goto out_barrier;
		/* One writer: give the consumer a CPU of its own, as a tracer daemon would have. */
		if (cfg->nthreads == 1 && opt.spare_cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(opt.spare_cpu, &set);
			pthread_setaffinity_np(consumer, sizeof(set), &set);
		}
	}
	for (int i = 0; i < cfg->nthreads; i++) {
		r->workers[i].run = r;
		r->workers[i].cpu = opt.cpus[i];
		ret = -pthread_create(&r->workers[i].thread, NULL, writer_main, &r->workers[i]);
		if (ret) {
			/* Cannot happen short of resource exhaustion: give up. */
			fprintf(stderr, "ringbuf: pthread_create: %s\n", strerror(-ret));
			exit(1);
		}
	}
	for (int i = 0; i < cfg->nthreads; i++) {
		pthread_join(r->workers[i].thread, NULL);
		if (r->workers[i].err)
			ret = r->workers[i].err;
	}
	if (cfg->consumer) {
		/* Release: the consumer's last pass starts after every writer finished. */
		st_release(&r->stop, 1);
		pthread_join(consumer, NULL);
		res->consumed = r->consumed;
	}
	if (ret)
		goto out_barrier;

	for (int i = 0; i < cfg->nthreads; i++) {
		struct worker *w = &r->workers[i];

		total += w->nsamples;
		res->events += w->events;
		res->fails += w->fails;
		/* This writer's median rate; the samples are sorted in place. */
		if (w->nsamples) {
			qsort(w->samples, w->nsamples, sizeof(float), cmp_float);
			res->throughput += 1e9 / w->samples[w->nsamples / 2];
		}
	}
	all = malloc((total ? total : 1) * sizeof(float));
	if (!all) {
		ret = -ENOMEM;
		goto out_barrier;
	}
	for (int i = 0; i < cfg->nthreads; i++) {
		memcpy(all + k, r->workers[i].samples, r->workers[i].nsamples * sizeof(float));
		k += r->workers[i].nsamples;
	}
	qsort(all, total, sizeof(float), cmp_float);
	if (total) {
		res->median = all[total / 2];
		res->p90 = all[total * 9 / 10];
	}
	if (r->rb)
		res->lost = evt_ring_buffer_dropped_events(r->rb) + evt_ring_buffer_overruns(r->rb);
	free(all);
out_barrier:
	pthread_barrier_destroy(&r->go);
out:
	for (int i = 0; i < MAX_THREADS; i++)
		free(r->workers[i].samples);
	if (r->rb)
		evt_ring_buffer_free(r->rb);
	free(r);
	return ret;
}

/* ---- reporting ------------------------------------------------------------ */

static void config_label(const struct config *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %uB %dt%s", mode_name[c->mode], c->payload, c->nthreads,
		 c->consumer ? " +consumer" : "");
}

/* The figure key: "<payload>B_<n>t[_consumer]". */
static void config_key(const struct config *c, char *buf, size_t len)
{
	snprintf(buf, len, "%uB_%dt%s", c->payload, c->nthreads, c->consumer ? "_consumer" : "");
}

/* Selected by -f? */
static bool wanted(const struct config *c)
{
	const char *hit;
	char label[64];

	if (!opt.filter)
		return true;
	config_label(c, label, sizeof(label));
	/* match at the start of a word: "write 16B" is not "overwrite 16B" */
	for (hit = strstr(label, opt.filter); hit; hit = strstr(hit + 1, opt.filter))
		if (hit == label || hit[-1] == ' ')
			return true;
	return false;
}

static void print_row(const struct result *r)
{
	char label[64], extra[96] = "";
	int n = 0;

	config_label(&r->cfg, label, sizeof(label));
	if (r->cfg.mode == MODE_DISABLED || r->cfg.mode >= MODE_CONSUME) {
		printf("  %-30s %8.2f %8.2f %8s %6s %8.1f\n", label, r->median, r->p90, "", "",
		       r->throughput / 1e6);
		return;
	}
	if (r->cfg.consumer)
		n += snprintf(extra + n, sizeof(extra) - (size_t)n, " read %.1fM",
			      (double)r->consumed / 1e6);
	if (r->fails && r->events)
		n += snprintf(extra + n, sizeof(extra) - (size_t)n, " drop%% %.1f",
			      100.0 * (double)r->fails / (double)r->events);
	if (r->cfg.mode == MODE_OVERWRITE && r->lost)
		snprintf(extra + n, sizeof(extra) - (size_t)n, " overrun %.1fM",
			 (double)r->lost / 1e6);
	printf("  %-30s %8.2f %8.2f %8.2f %6.2f %8.1f", label, r->median, r->p90, r->floor,
	       r->floor > 0 ? r->median / r->floor : 0.0, r->throughput / 1e6);
	if (r->scaling > 0)
		printf(" %6.2f", r->scaling);
	else
		printf(" %6s", "");
	printf("%s\n", extra);
	fflush(stdout);
}

static void print_bench(const struct result *r)
{
	const char *m = mode_name[r->cfg.mode];
	char key[48], pre[24] = "";

	if (r->cfg.mode == MODE_DISABLED) {
		printf("BENCH ringbuf_disabled_reserve %.2f ns\n", r->median);
		return;
	}
	config_key(&r->cfg, key, sizeof(key));
	printf("BENCH ringbuf_%s_%s_median %.2f ns\n", m, key, r->median);
	printf("BENCH ringbuf_%s_%s_p90 %.2f ns\n", m, key, r->p90);
	if (r->cfg.mode == MODE_FLOOR || r->cfg.mode >= MODE_CONSUME)
		return;
	/* derived figures: "ringbuf_[<mode>_]<figure>_<key>", no mode for plain write */
	if (r->cfg.mode != MODE_WRITE)
		snprintf(pre, sizeof(pre), "%s_", m);
	if (r->floor > 0)
		printf("BENCH ringbuf_%sratio_%s %.2f x\n", pre, key, r->median / r->floor);
	if (r->cfg.nthreads > 1) {
		printf("BENCH ringbuf_%sthroughput_%s %.2f Mevents/s\n", pre, key,
		       r->throughput / 1e6);
		if (r->scaling > 0)
			printf("BENCH ringbuf_%sscaling_%s %.2f x\n", pre, key, r->scaling);
	}
	if (r->cfg.consumer && r->events)
		printf("BENCH ringbuf_%sdrops_%s %.2f %%\n", pre, key,
		       100.0 * (double)r->fails / (double)r->events);
	/* what a live consumer costs the writer: median against the run without it */
	if (r->cfg.consumer && r->alone > 0)
		printf("BENCH ringbuf_%sslowdown_%s %.2f x\n", pre, key, r->median / r->alone);
	if (r->median > 0)
		printf("BENCH ringbuf_%sp90_ratio_%s %.2f x\n", pre, key, r->p90 / r->median);
}

static void print_machine(void)
{
	struct evt_ring_buffer *rb;
	char model[128];
	struct utsname u;
	int ret;

	bench_cpu_model(model, sizeof(model));
	uname(&u);
	printf("evtrace %s ring buffer benchmark\n", EVTRACE_VERSION);
	printf("machine:   %s, %ld CPUs online (%d usable), %s %s %s\n", model,
	       sysconf(_SC_NPROCESSORS_ONLN), opt.ncpus, u.sysname, u.release, u.machine);
	printf("writers:   pinned to CPU %d", opt.cpus[0]);
	if (opt.ncpus > 1)
		printf(" (and %d)", opt.cpus[1]);
	printf("; consumer with 1 writer: ");
	if (opt.spare_cpu >= 0)
		printf("CPU %d\n", opt.spare_cpu);
	else
		printf("unpinned\n");

	ret = evt_ring_buffer_alloc(opt.bufsize, 0, &rb);
	if (ret) {
		printf("buffer:    cannot allocate: %s\n", evt_strerror(ret));
		return;
	}
	printf("buffer:    %lu bytes per CPU (-s %lu), %d CPU buffers, page %u bytes (host %ld)\n",
	       evt_ring_buffer_size(rb, 0), opt.bufsize, evt_ring_buffer_nr_cpus(rb),
	       evt_ring_buffer_page_size(rb), sysconf(_SC_PAGESIZE));
	printf("clock:     %s", evt_clock_name(evt_ring_buffer_clock(rb)));
	if (tclock.tsc_ok)
		printf(" (cycle counter at %.3f GHz, scaled to ns)", (double)tclock.freq_hz / 1e9);
	else
		printf(" (no invariant TSC: clock_gettime)");
	printf("; writer sync: %s\n",
	       rb->rseq ? "rseq per-CPU ops" : "cmpxchg16b (no rseq, or EVTRACE_RSEQ=0)");
	printf("modes:     write/writefn = producer/consumer (reset_cpu between batches when "
	       "no consumer),\n           overwrite = EVT_RB_FL_OVERWRITE\n");
	printf("timing:    %.2f s per config after %.2f s warm-up, batches of %u events, "
	       "clock_gettime(MONOTONIC) per batch\n", opt.secs, opt.warm, opt.batch);
	printf("floor:     %s + store of header+payload to a %u-byte thread-local area\n\n",
	       FLOOR_CLOCK_NAME, FLOOR_AREA);
	evt_ring_buffer_free(rb);
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-q] [-d SECONDS] [-b EVENTS] [-s BYTES] [-f TEXT]\n"
		"  -q          quick: 0.1 s per configuration\n"
		"  -d SECONDS  timed seconds per configuration (default 0.75)\n"
		"  -b EVENTS   events per timed batch (default 1000)\n"
		"  -s BYTES    buffer bytes per CPU (default 1048576)\n"
		"  -f TEXT     only configurations whose label has TEXT at a word start\n"
		"              (\"16B 1t\", \"write 64B\", \"+consumer\"; the floors they need\n"
		"              run too)\n", prog);
}

static void pick_cpus(void)
{
	cpu_set_t set;
	int n = 0;

	opt.cpus[0] = opt.cpus[1] = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		CPU_SET(0, &set);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (n < MAX_THREADS)
			opt.cpus[n] = cpu;
		else if (opt.spare_cpu < 0)
			opt.spare_cpu = cpu;
		n++;
	}
	opt.ncpus = n;
	/* With one writer, the second writer's CPU is free for the consumer. */
	if (opt.spare_cpu < 0 && n > 1)
		opt.spare_cpu = opt.cpus[1];
}

static const unsigned int payloads[] = { 8, 16, 64, 256 };

/* The writer configurations timed for every payload, after its floors. */
static const struct {
	enum mode mode;
	bool consumer;
} kinds[] = {
	{ MODE_WRITE, false }, { MODE_WRITE, true },
	{ MODE_OVERWRITE, false }, { MODE_OVERWRITE, true },
	{ MODE_WRITEFN, false },
};

#define NR_RESULTS	80
static struct result results[NR_RESULTS];
static int nr_results;

/* Run one configuration and print its row. Return: its result, or NULL. */
static struct result *measure(struct config cfg)
{
	struct result *r = &results[nr_results];
	int ret;

	if (nr_results == NR_RESULTS)
		return NULL;
	ret = run_config(&cfg, r);
	if (ret) {
		fprintf(stderr, "ringbuf: %s %uB %dt: %s\n", mode_name[cfg.mode], cfg.payload,
			cfg.nthreads, evt_strerror(ret));
		return NULL;
	}
	nr_results++;
	return r;
}

/* Everything for one payload size. Return: 0, or 1 if something failed. */
static int bench_payload(unsigned int payload, int maxt)
{
	double floor_ns[MAX_THREADS + 1] = { 0 };
	struct result *r;
	int failed = 0;

	for (int t = 1; t <= maxt; t++) {
		struct config cfg = { MODE_FLOOR, payload, t, false };
		bool want = wanted(&cfg);

		/* With -f, a floor runs only for the configurations that need it. */
		for (size_t k = 0; k < ARRAY_SIZE(kinds) && !want; k++) {
			struct config o = { kinds[k].mode, payload, t, kinds[k].consumer };

			want = wanted(&o);
		}
		if (!want)
			continue;
		r = measure(cfg);
		if (!r) {
			failed = 1;
			continue;
		}
		r->floor = floor_ns[t] = r->median;
		print_row(r);
	}
	double alone[MODE_CONSUME][MAX_THREADS + 1] = { { 0 } };	/* medians without a consumer */

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		double thr1 = 0;	/* this kind's 1-writer throughput */

		for (int t = 1; t <= maxt; t++) {
			struct config cfg = { kinds[k].mode, payload, t, kinds[k].consumer };

			if (!wanted(&cfg))
				continue;
			r = measure(cfg);
			if (!r) {
				failed = 1;
				continue;
			}
			r->floor = floor_ns[t];
			if (!cfg.consumer)
				alone[cfg.mode][t] = r->median;
			else
				r->alone = alone[cfg.mode][t];
			/*
			 * No scaling with a consumer: with 2 writers on 2 CPUs the
			 * consumer has no CPU of its own, so the two runs differ in
			 * more than the number of writers.
			 */
			if (t == 1)
				thr1 = r->throughput;
			else if (thr1 > 0 && !cfg.consumer)
				r->scaling = r->throughput / thr1;
			print_row(r);
			if (!cfg.consumer && cfg.mode != MODE_OVERWRITE && r->fails)
				fprintf(stderr, "ringbuf: warning: %s: %lu reservations failed "
					"without a consumer\n", mode_name[cfg.mode],
					(unsigned long)r->fails);
		}
	}
	return failed;
}

int main(int argc, char **argv)
{
	struct config disabled = { MODE_DISABLED, 16, 1, false };
	int c, failed = 0, maxt;
	struct result *r;

	while ((c = getopt(argc, argv, "qd:b:s:f:h")) != -1) {
		switch (c) {
		case 'q':
			opt.secs = 0.1;
			break;
		case 'd':
			opt.secs = strtod(optarg, NULL);
			break;
		case 'b':
			opt.batch = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt.bufsize = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			opt.filter = optarg;
			break;
		default:
			usage(argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (opt.secs <= 0 || opt.secs > 600 || opt.batch < 1 || opt.batch > 10000000) {
		usage(argv[0]);
		return 2;
	}
	opt.warm = opt.secs / 10 < 0.02 ? 0.02 : opt.secs / 10;
	/* The floor reads the clock without a buffer: calibrate it first. */
	if (evt_clock_init()) {
		fprintf(stderr, "ringbuf: no usable clock\n");
		return 1;
	}
	pick_cpus();
	maxt = opt.ncpus > 1 ? 2 : 1;
	print_machine();

	printf("  %-30s %8s %8s %8s %6s %8s %6s\n", "config (ns/event)", "median", "p90", "floor",
	       "ratio", "Mev/s", "scale");
	for (size_t p = 0; p < ARRAY_SIZE(payloads); p++)
		failed |= bench_payload(payloads[p], maxt);
	/* The reader's side, for comparison: one thread drains a full buffer. */
	for (int m = MODE_CONSUME; m <= MODE_READPAGE; m++) {
		for (size_t p = 0; p < ARRAY_SIZE(payloads); p++) {
			struct config cfg = { (enum mode)m, payloads[p], 1, false };

			if (!wanted(&cfg))
				continue;
			r = measure(cfg);
			if (r)
				print_row(r);
			else
				failed = 1;
		}
	}
	if (wanted(&disabled)) {
		r = measure(disabled);
		if (r && !r->fails) {
			print_row(r);
		} else {
			fprintf(stderr, "ringbuf: lock_reserve succeeded with recording off\n");
			failed = 1;
		}
	}

	printf("\n");
	for (int i = 0; i < nr_results; i++)
		print_bench(&results[i]);
	return failed;
}
