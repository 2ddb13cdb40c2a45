// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-torture: probes added, enabled, disabled and removed while other threads run the
 * probed functions as fast as they can.
 *
 *   - H hitter threads call f0, f1, f2 (tid, seq) in rounds, seq = 1, 2, ...; each call's
 *     result is checked (a hit must not change a register the function uses), and after
 *     each round the thread publishes done[tid] = seq (release);
 *   - one control thread per function k loops: a probe on fk (an entry probe recording
 *     tid and seq, or a return probe recording $retval, which encodes them), enabled in
 *     its own instance for a few milliseconds, disabled, removed (the text checked
 *     byte-identical), its instance drained; the three control threads write
 *     kprobe_events at the same time.
 *
 * Accounting, per window and hitter t, from done[t] read at four points: X0 before the
 * enable, X after it, Y before the disable, Y1 after it. A call of round s entered after
 * the enable if s >= X + 2 (round X + 1 may have begun before) and returned before the
 * disable if s <= Y: every such (t, s) has exactly one record. No record has s < X0 + 1
 * or s > Y1 + 1 (nothing before the enable or after the disable), and none twice. A
 * window whose buffer dropped records checks only the second part (counted; the test
 * fails if most windows drop).
 *
 * Skipped under ThreadSanitizer (the patch's stores to the text fault there).
 * Usage: probe-torture [-d SECONDS]
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "probe-util.h"
#include "compat/atomic.h"

#define NR_FUNCS   3
#define NR_HITTERS 4 /* more than the cores: hitters are preempted anywhere, inside the
			* patched ranges too (the evacuation of probe_evac.c) */

static uint64_t done[NR_HITTERS]; /* the last round each hitter finished (atomic) */
static int stop_hitters;           /* a flag alone (relaxed) */
static double deadline;

#define DEFINE_F(k)                                                                                \
	__attribute__((noinline)) uint64_t f##k(uint32_t tid, uint64_t seq)                        \
	{                                                                                          \
		uint64_t r = seq;                                                                  \
		for (int i = 0; i < 4 + (k); i++)                                                  \
			asm volatile("" : "+r"(r));                                                \
		return (r << 4) | (tid << 2) | (k);                                                \
	}
DEFINE_F(0)
DEFINE_F(1)
DEFINE_F(2)

static uint64_t (*volatile funcs[NR_FUNCS])(uint32_t, uint64_t) = { f0, f1, f2 };

static void *hitter(void *arg)
{
	uint32_t tid = (uint32_t)(uintptr_t)arg;

	for (uint64_t seq = 1; !ld_relaxed(&stop_hitters); seq++) {
		for (uint64_t k = 0; k < NR_FUNCS; k++)
			if (funcs[k](tid, seq) != ((seq << 4) | (tid << 2) | k))
				t_fail("f%llu(%u, %llu) returned a wrong value", (unsigned long long)k,
				       tid, (unsigned long long)seq);
		/* release: the round's calls (and their records) come before the count */
		st_release(&done[tid], seq);
		/*
		 * The count is visible before the next round's calls read the probe's state
		 * (store -> load): pairs with the fence in read_done(), so that a round that
		 * began after the controller read the count sees the enable it made.
		 */
		fence_seq_cst();
		for (int i = 0; i < 200; i++)
			asm volatile("");
	}
	return NULL;
}

struct window {
	uint64_t x0[NR_HITTERS], x[NR_HITTERS], y[NR_HITTERS], y1[NR_HITTERS];
	unsigned char *seen[NR_HITTERS]; /* by s - (x0 + 1) */
};

struct control {
	int k;
	struct evt_instance *inst;
	pthread_t th;
	unsigned long windows, records, dropped_windows, entry_windows;
	unsigned long long checked; /* rounds that had to have a record */
	unsigned long long lost_seen; /* the buffer's overruns + drops at the last drain */
};

static void read_done(uint64_t *v)
{
	/* the enable's (disable's) stores before the counts' loads: pairs with the hitter's */
	fence_seq_cst();
	for (int t = 0; t < NR_HITTERS; t++)
		/* acquire: pairs with the hitter's release (its round's records are written) */
		v[t] = ld_acquire(&done[t]);
}

static void account(struct control *c, struct window *w, uint32_t tid, uint64_t seq)
{
	uint64_t lo, hi;

	if (tid >= NR_HITTERS)
		t_fail("f%d: a record of hitter %u", c->k, tid);
	lo = w->x0[tid] + 1;
	hi = w->y1[tid] + 1;
	if (seq < lo || seq > hi)
		t_fail("f%d: hitter %u round %llu recorded outside its window [%llu, %llu]", c->k,
		       tid, (unsigned long long)seq, (unsigned long long)lo,
		       (unsigned long long)hi);
	if (w->seen[tid][seq - lo]++)
		t_fail("f%d: hitter %u round %llu recorded twice", c->k, tid,
		       (unsigned long long)seq);
}

/* Drain the instance: every record accounted; the number lost. */
static unsigned long drain(struct control *c, struct window *w, bool is_return)
{
	struct evt_ring_buffer *rb = evt_instance_ring_buffer(c->inst);
	unsigned long lost_total = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		struct evt_ring_buffer_event *e;
		unsigned long lost = 0;

		while ((e = evt_ring_buffer_consume(rb, cpu, NULL, &lost))) {
			lost_total += lost;
			const unsigned char *d = evt_ring_buffer_event_data(e);
			unsigned int len = evt_ring_buffer_event_length(e);
			uint32_t tid;
			uint64_t v;

			/* entry: __probe_ip@12, tid@20, seq@24; return: ..., ret@28 */
			if (len < (is_return ? 36u : 32u))
				t_fail("f%d: a record of %u bytes", c->k, len);
			if (is_return) {
				memcpy(&v, d + 28, 8);
				if ((v & 3) != (uint64_t)c->k)
					t_fail("f%d: $retval %llx of another function", c->k,
					       (unsigned long long)v);
				tid = (uint32_t)(v >> 2) & 3;
				v >>= 4;
			} else {
				memcpy(&tid, d + 20, 4);
				memcpy(&v, d + 24, 8);
			}
			account(c, w, tid, v);
			c->records++;
		}
	}
	/* overwritten or refused records of this window (the counts only grow) */
	lost_total += evt_ring_buffer_overruns(rb) + evt_ring_buffer_dropped_events(rb) - c->lost_seen;
	c->lost_seen = evt_ring_buffer_overruns(rb) + evt_ring_buffer_dropped_events(rb);
	return lost_total;
}

static void complete(struct control *c, struct window *w, bool is_return)
{
	for (int t = 0; t < NR_HITTERS; t++) {
		uint64_t miss = 0, first = 0, last = 0;

		for (uint64_t s = w->x[t] + 2; s <= w->y[t]; s++, c->checked++)
			if (!w->seen[t][s - (w->x0[t] + 1)]) {
				if (!miss++)
					first = s;
				last = s;
			}
		if (miss)
			t_fail("f%d (%s): hitter %d: %llu rounds ran while enabled, not recorded "
			       "(%llu..%llu of %llu..%llu; window %llu..%llu)",
			       c->k, is_return ? "return" : "entry", t, (unsigned long long)miss,
			       (unsigned long long)first, (unsigned long long)last,
			       (unsigned long long)w->x[t] + 2, (unsigned long long)w->y[t],
			       (unsigned long long)w->x0[t] + 1, (unsigned long long)w->y1[t] + 1);
	}
}

static void one_window(struct control *c, bool is_return, unsigned int sleep_us)
{
	char def[160], del[64], ev[16];
	unsigned char before[32];
	struct window w;
	long ret;

	snprintf(ev, sizeof(ev), "e%d", c->k);
	if (is_return)
		snprintf(def, sizeof(def), "r:pt/%s f%d ret=$retval:u64\n", ev, c->k);
	else
		snprintf(def, sizeof(def), "p:pt/%s f%d tid=%%di:u32 seq=%%si:u64\n", ev, c->k);
	memcpy(before, (void *)funcs[c->k], sizeof(before));
	ret = evt_tracefs_write(NULL, "kprobe_events", def, strlen(def), EVT_TRACEFS_APPEND);
	if (ret != (long)strlen(def))
		t_fail("f%d: %s: %ld\n%s", c->k, def, ret, cat("error_log"));
	read_done(w.x0);
	T_ASSERT_OK(evt_instance_event_enable(c->inst, "pt", ev, true));
	read_done(w.x);
	usleep(sleep_us);
	read_done(w.y);
	T_ASSERT_OK(evt_instance_event_enable(c->inst, "pt", ev, false));
	read_done(w.y1);
	snprintf(del, sizeof(del), "-:pt/%s\n", ev);
	ret = evt_tracefs_write(NULL, "kprobe_events", del, strlen(del), EVT_TRACEFS_APPEND);
	if (ret != (long)strlen(del))
		t_fail("f%d: %s: %ld", c->k, del, ret);
	if (memcmp(before, (void *)funcs[c->k], sizeof(before)))
		t_fail("f%d: the text differs after removal", c->k);
	/* removal waited for a grace period: every hit of the probe is committed */
	for (int t = 0; t < NR_HITTERS; t++) {
		w.seen[t] = calloc(w.y1[t] - w.x0[t] + 2, 1);
		T_ASSERT(w.seen[t] != NULL);
	}
	if (drain(c, &w, is_return))
		c->dropped_windows++;
	else
		complete(c, &w, is_return);
	for (int t = 0; t < NR_HITTERS; t++)
		free(w.seen[t]);
	c->windows++;
	c->entry_windows += !is_return;
}

static void *control(void *arg)
{
	struct control *c = arg;
	struct t_rand rnd;

	t_rand_init(&rnd, 0);
	do /* one window at least, however starved the machine is */
		one_window(c, t_rand_range(&rnd, 0, 1), (unsigned int)t_rand_range(&rnd, 0, 3000));
	while (t_seconds_now() < deadline);
	return NULL;
}

int main(int argc, char **argv)
{
	struct control ctl[NR_FUNCS];
	pthread_t hit[NR_HITTERS];
	unsigned long windows = 0, dropped = 0;
	double secs = t_parse_duration(argc, argv, 2);

	probe_require_evacuation();
	deadline = t_seconds_now() + secs;
	for (int k = 0; k < NR_FUNCS; k++) {
		char name[16];

		memset(&ctl[k], 0, sizeof(ctl[k]));
		ctl[k].k = k;
		snprintf(name, sizeof(name), "pt%d", k);
		T_ASSERT_OK(evt_instance_create(name, &ctl[k].inst));
		T_ASSERT_OK(evt_instance_resize_kb(ctl[k].inst, -1, 4096));
	}
	for (int t = 0; t < NR_HITTERS; t++)
		T_ASSERT_OK(pthread_create(&hit[t], NULL, hitter, (void *)(uintptr_t)t));
	for (int k = 0; k < NR_FUNCS; k++)
		T_ASSERT_OK(pthread_create(&ctl[k].th, NULL, control, &ctl[k]));
	for (int k = 0; k < NR_FUNCS; k++)
		pthread_join(ctl[k].th, NULL);
	st_relaxed(&stop_hitters, 1);
	for (int t = 0; t < NR_HITTERS; t++)
		pthread_join(hit[t], NULL);
	for (int k = 0; k < NR_FUNCS; k++) {
		printf("f%d: %lu windows (%lu entry, %lu return), %lu records (%llu rounds checked), "
		       "%lu with drops\n", k, ctl[k].windows, ctl[k].entry_windows,
		       ctl[k].windows - ctl[k].entry_windows, ctl[k].records, ctl[k].checked,
		       ctl[k].dropped_windows);
		windows += ctl[k].windows;
		dropped += ctl[k].dropped_windows;
		/* a machine so loaded that no round ran inside a window checks nothing */
		T_ASSERT(ctl[k].records > 0 || !ctl[k].checked);
	}
	printf("hitters: %llu, %llu, %llu and %llu rounds; %lu moved out of a range being patched\n",
	       (unsigned long long)ld_relaxed(&done[0]), (unsigned long long)ld_relaxed(&done[1]),
	       (unsigned long long)ld_relaxed(&done[2]), (unsigned long long)ld_relaxed(&done[3]),
	       probe_evac_moved());
	/* most windows check every round (a starved run of a few windows: one at least) */
	T_ASSERT(windows > 0 && dropped < windows);
	T_ASSERT(windows < 10 || dropped * 2 < windows);
	T_ASSERT_STR(cat("kprobe_events"), "");
	return 0;
}
