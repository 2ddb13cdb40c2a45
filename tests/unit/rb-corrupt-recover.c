// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-corrupt-recover: a CPU buffer that another process wrote over (it
 * holds the memfd and maps it writable, as a consumer can) is detected,
 * counted and rebuilt, and tracing goes on (issue 11, defect 9: reset and
 * resize answered -EBUSY for ever, recording stopped, the counters read
 * 2683590258697699328).
 *
 * For each kind of garbage - random bytes over the CPU's control block and
 * pages, a huge commit count, a write position far ahead of read_pos (a
 * sequence that would run on for 2^40 pages), read_pos past the write
 * position, the disabled bit and a time stamp from the far future, wild
 * counters, an offset that is no multiple of 4 - in a child process (a
 * crash or a hang fails the test):
 *  - the owner's writers go on writing without crashing or looping, and a
 *    consumer mapping the memfd reads without crashing;
 *  - every statistic stays plausible (counters at most 2^52, entries at
 *    most what the ring can hold);
 *  - reset (what `> trace` does) returns 0, not -EBUSY, and counts the CPU
 *    buffer as corrupt; or resize (buffer_size_kb) does, and the events of
 *    another CPU are kept;
 *  - events written afterwards are read back exactly, by the owner and by
 *    a consumer's mapping, with nothing counted lost.
 * Then once through an instance's tracefs files (`> trace`, buffer_size_kb,
 * per_cpu/cpuN/stats with its "corrupt:" line). The whole runs again with
 * EVTRACE_RSEQ=0 (the CAS write path) when rseq was in use.
 *
 * White-box: the shared layout comes from src/ringbuf/rb_internal.h.
 */
#include "rb-test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <evtrace/instance.h>
#include <evtrace/tracefs.h>

#include "ringbuf/rb_internal.h"

#define SIZE		(16 * 4096)	/* bytes per CPU */
#define BEFORE		500		/* events on the victim CPU before the garbage */
#define OTHER		50		/* events on another CPU (resize keeps them) */
#define AFTER		100		/* events after the repair, read back exactly */
#define WILD		UINT64_C(2683590258697699328)

enum garbage {
	G_RANDOM,	/* random bytes over the control block and the pages */
	G_COMMIT,	/* every page's commit count huge */
	G_AHEAD,	/* write position 2^40 pages ahead, pages "complete" */
	G_BEHIND,	/* read_pos far past the write position */
	G_TIME,		/* disabled bit and a time stamp from the far future */
	G_COUNTERS,	/* dropped, overrun, read_events wild */
	G_OFFSET,	/* a write offset that is no multiple of 4 */
	G__COUNT
};

static const char *const names[G__COUNT] = {
	"random bytes", "huge commit count", "write position far ahead", "read_pos past the writer",
	"disabled bit and future time", "wild counters", "misaligned offset",
};

struct victim {
	unsigned char *map;	/* the whole memfd, as another process maps it */
	size_t len;
	struct rb_cpu_shm *shm;	/* the victim CPU's control block */
	struct rb_page *pages;	/* its pages */
	uint32_t order;
	uint32_t page_size;
};

static void map_victim(struct evt_ring_buffer *rb, int cpu, struct victim *v)
{
	int fd = evt_ring_buffer_fd(rb);
	const struct rb_shm_hdr *h;
	struct stat st;

	RBT_ASSERT(fd >= 0);
	RBT_EQ_I(fstat(fd, &st), 0);
	v->len = (size_t)st.st_size;
	v->map = mmap(NULL, v->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	RBT_ASSERT(v->map != MAP_FAILED);
	h = (const struct rb_shm_hdr *)v->map;
	v->shm = (struct rb_cpu_shm *)(v->map + h->cpu_off +
				       (size_t)cpu * sizeof(struct rb_cpu_shm));
	v->pages = (struct rb_page *)(v->map + v->shm->data_off);
	v->order = v->shm->order;
	v->page_size = h->page_size;
}

static struct rb_page *vpage(const struct victim *v, uint64_t slot)
{
	return (struct rb_page *)((unsigned char *)v->pages + slot * v->page_size);
}

static void scribble(const struct victim *v, enum garbage g, uint64_t seed)
{
	uint64_t n = UINT64_C(1) << v->order, ds = v->page_size - EVT_RB_PAGE_HDR_SIZE;
	uint64_t rseq = RB_POS_SEQ(v->shm->read_pos), s = seed;

	switch (g) {
	case G_RANDOM:
		for (size_t i = 0; i < sizeof(struct rb_cpu_shm); i++)
			((unsigned char *)v->shm)[i] = (unsigned char)rbt_rand(&s);
		for (size_t i = 0; i < n * v->page_size; i++)
			((unsigned char *)v->pages)[i] = (unsigned char)rbt_rand(&s);
		break;
	case G_COMMIT:
		for (uint64_t j = 0; j < n; j++)
			vpage(v, j)->commit = WILD + j;
		break;
	case G_AHEAD: {
		uint64_t w = rseq + (UINT64_C(1) << 40);

		/* every slot complete for the lap that ends at w: a reader would walk on */
		for (uint64_t i = 0; i < n; i++)
			vpage(v, (w - i) & (n - 1))->commit = (((w - i) >> v->order) + 1) * ds;
		v->shm->w.hi = RB_POS(w, ds);
		break;
	}
	case G_BEHIND:
		v->shm->read_pos = RB_POS(RB_POS_SEQ(v->shm->w.hi) + 12345, 0);
		break;
	case G_TIME:
		v->shm->w.lo = UINT64_MAX;
		break;
	case G_COUNTERS:
		v->shm->dropped = WILD;
		v->shm->overrun = WILD;
		v->shm->read_events = WILD;
		break;
	case G_OFFSET:
		v->shm->w.hi = RB_POS(RB_POS_SEQ(v->shm->w.hi), ds - 1);
		break;
	default:
		break;
	}
}

static void put(struct evt_ring_buffer *rb, uint32_t tag, uint64_t i)
{
	unsigned char rec[24];

	rbt_rec_fill(rec, sizeof(rec), tag, i);
	/* refusals are fine here (a wedged CPU drops); crashing or looping is not */
	(void)evt_ring_buffer_write(rb, sizeof(rec), rec);
}

/* Every statistic of @rb plausible for a ring of @size bytes per CPU. */
static void check_plausible(struct evt_ring_buffer *rb, int cpu)
{
	unsigned long cap = SIZE / 8;	/* the smallest event takes 8 bytes */

	RBT_ASSERTF(evt_ring_buffer_overrun_cpu(rb, cpu) <= RB_COUNTER_MAX, "overrun %lu",
		    evt_ring_buffer_overrun_cpu(rb, cpu));
	RBT_ASSERTF(evt_ring_buffer_dropped_events_cpu(rb, cpu) <= RB_COUNTER_MAX, "dropped %lu",
		    evt_ring_buffer_dropped_events_cpu(rb, cpu));
	RBT_ASSERTF(evt_ring_buffer_read_events_cpu(rb, cpu) <= RB_COUNTER_MAX, "read %lu",
		    evt_ring_buffer_read_events_cpu(rb, cpu));
	RBT_ASSERTF(evt_ring_buffer_entries_cpu(rb, cpu) <= cap, "entries %lu",
		    evt_ring_buffer_entries_cpu(rb, cpu));
}

/* Consume CPU @cpu of @rb: exactly @count records of @tag, in order, none lost. */
static void read_back(struct evt_ring_buffer *rb, int cpu, uint32_t tag, unsigned int count)
{
	struct evt_ring_buffer_event *ev;
	unsigned int got = 0;
	unsigned long lost;
	uint64_t ts;

	while ((ev = evt_ring_buffer_consume(rb, cpu, &ts, &lost)) && got <= count) {
		RBT_EQ_U(rbt_rec_check(ev, tag, 24), got);
		RBT_EQ_U(lost, 0);
		got++;
	}
	RBT_EQ_U(got, count);
}

/* One kind of garbage on CPU @cpus[0]; @resize: recover by resize instead of reset. */
static void one_case(enum garbage g, bool resize, const int *cpus, int ncpus)
{
	struct evt_ring_buffer *rb, *m;
	struct victim v;
	int cpu = cpus[0];

	RBT_EQ_I(evt_ring_buffer_alloc(SIZE, 0, &rb), 0);
	if (cpu >= evt_ring_buffer_nr_cpus(rb))
		rbt_skip("the first allowed CPU is beyond the buffer's");
	if (ncpus > 1 && cpus[1] < evt_ring_buffer_nr_cpus(rb)) {
		RBT_EQ_I(rbt_pin(cpus[1]), 0);
		for (unsigned int i = 0; i < OTHER; i++)
			put(rb, 2, i);
	}
	RBT_EQ_I(rbt_pin(cpu), 0);
	for (unsigned int i = 0; i < BEFORE; i++)
		put(rb, 1, i);
	map_victim(rb, cpu, &v);
	scribble(&v, g, 0x5eed + (uint64_t)g);

	/* the traced program goes on; so do readers, in it and in a consumer */
	for (unsigned int i = 0; i < 2 * BEFORE; i++)
		put(rb, 1, i);
	check_plausible(rb, cpu);
	if (evt_ring_buffer_map(evt_ring_buffer_fd(rb), &m) == 0) {
		for (int i = 0; i < 5000 && evt_ring_buffer_consume(m, cpu, NULL, NULL); i++)
			;
		check_plausible(m, cpu);
		evt_ring_buffer_free(m);
	}

	if (resize) {
		RBT_EQ_I(evt_ring_buffer_resize(rb, 2 * SIZE, EVT_RB_ALL_CPUS), 0);
		if (ncpus > 1 && cpus[1] < evt_ring_buffer_nr_cpus(rb))
			RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpus[1]), OTHER);
	} else {
		RBT_EQ_I(evt_ring_buffer_reset(rb), 0);
	}
	RBT_ASSERTF(evt_ring_buffer_corrupt_cpu(rb, cpu) >= 1, "%s: not counted", names[g]);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_overrun_cpu(rb, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 0);
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), 0);

	/* recording works again, for the owner and for a consumer's mapping */
	for (unsigned int i = 0; i < AFTER; i++)
		put(rb, 3, i);
	RBT_EQ_I(evt_ring_buffer_map(evt_ring_buffer_fd(rb), &m), 0);
	read_back(m, cpu, 3, AFTER);
	evt_ring_buffer_free(m);
	for (unsigned int i = 0; i < AFTER; i++)
		put(rb, 4, i);
	read_back(rb, cpu, 4, AFTER);
	RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), 0);
	munmap(v.map, v.len);
	evt_ring_buffer_free(rb);
}

static void in_child(void (*fn)(enum garbage, bool, const int *, int), enum garbage g,
		     bool resize, const int *cpus, int ncpus)
{
	pid_t pid = fork();
	int st;

	RBT_ASSERT(pid >= 0);
	if (!pid) {
		alarm(30);	/* a loop on garbage is a failure, not a hang */
		fn(g, resize, cpus, ncpus);
		_exit(0);
	}
	RBT_EQ_I(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == RBT_SKIP)
		exit(RBT_SKIP);
	RBT_ASSERTF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s (%s): child status 0x%x",
		    names[g], resize ? "resize" : "reset", st);
	printf("ok: %s, %s\n", names[g], resize ? "resize" : "reset");
}

/* The same through an instance's files: `> trace`, buffer_size_kb, stats. */
static void instance_case(enum garbage g, bool resize, const int *cpus, int ncpus)
{
	struct evt_instance *inst;
	struct evt_ring_buffer *rb;
	char path[64], buf[1024];
	struct victim v;
	int cpu = cpus[0];
	ssize_t n;

	(void)ncpus;
	RBT_EQ_I(evt_instance_create("rb-corrupt", &inst), 0);
	rb = evt_instance_ring_buffer(inst);
	RBT_ASSERT(rb && cpu < evt_ring_buffer_nr_cpus(rb));
	RBT_EQ_I(rbt_pin(cpu), 0);
	for (unsigned int i = 0; i < BEFORE; i++)
		put(rb, 1, i);
	map_victim(rb, cpu, &v);
	scribble(&v, g, 42);
	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	n = evt_tracefs_read(inst, path, buf, sizeof(buf) - 1, 0);
	RBT_ASSERT(n > 0);
	buf[n] = '\0';
	/* no number in the file is wild */
	for (char *p = buf; *p; p++)
		if (*p >= '0' && *p <= '9') {
			RBT_ASSERTF(strtoull(p, &p, 10) <= RB_COUNTER_MAX, "stats:\n%s", buf);
			p--;
		}
	if (resize)
		RBT_EQ_I(evt_tracefs_write(inst, "buffer_size_kb", "128", 3, EVT_TRACEFS_TRUNC), 3);
	else
		RBT_EQ_I(evt_tracefs_write(inst, "trace", "", 0, EVT_TRACEFS_TRUNC), 0);
	n = evt_tracefs_read(inst, path, buf, sizeof(buf) - 1, 0);
	RBT_ASSERT(n > 0);
	buf[n] = '\0';
	RBT_ASSERTF(strstr(buf, "\ncorrupt: 1\n") && strstr(buf, "entries: 0\n"), "stats:\n%s",
		    buf);
	for (unsigned int i = 0; i < AFTER; i++)
		put(rb, 3, i);
	read_back(rb, cpu, 3, AFTER);
	munmap(v.map, v.len);
	RBT_EQ_I(evt_instance_destroy(inst), 0);
}

int main(int argc, char **argv)
{
	int cpus[2], ncpus = rbt_allowed_cpus(cpus, 2);
	struct evt_ring_buffer *probe;
	bool rseq;

	if (ncpus < 1)
		rbt_skip("no CPU to pin to");
	RBT_EQ_I(evt_ring_buffer_alloc(SIZE, 0, &probe), 0);
	rseq = probe->rseq;
	evt_ring_buffer_free(probe);
	printf("%s write path\n", rseq ? "rseq" : "CAS");
	for (int g = 0; g < G__COUNT; g++) {
		in_child(one_case, (enum garbage)g, false, cpus, ncpus);
		in_child(one_case, (enum garbage)g, true, cpus, ncpus);
	}
	in_child(instance_case, G_COMMIT, false, cpus, ncpus);
	in_child(instance_case, G_RANDOM, true, cpus, ncpus);

	if (rseq && !(argc > 1 && !strcmp(argv[1], "--cas"))) {
		pid_t pid = fork();
		int st;

		RBT_ASSERT(pid >= 0);
		if (!pid) {
			setenv("EVTRACE_RSEQ", "0", 1);
			execl("/proc/self/exe", argv[0], "--cas", (char *)NULL);
			_exit(127);
		}
		RBT_EQ_I(waitpid(pid, &st, 0), pid);
		RBT_ASSERTF(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == RBT_SKIP),
			    "the CAS run: status 0x%x", st);
	}
	printf("PASS\n");
	return 0;
}
