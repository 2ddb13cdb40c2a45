// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-torture: tracepoints firing while their state changes under them.
 *
 *   - W writer threads fire evtest_seq(writer, seq, check(writer, seq))
 *     as fast as they can; a timer thread sends them SIGUSR1 and the
 *     handler fires its own stream (writer + W) on top of whatever the
 *     thread was doing (nested reservations);
 *   - instance "keep": the event always on, no filter, a consumer thread
 *     draining it live: exact accounting there;
 *   - instance "churn": a control thread enables/disables the event,
 *     swaps its filter among a few programs (and none), flips soft-disable
 *     and tracing_on, changes set_event_pid; a second consumer drains it;
 *   - a third instance is created and destroyed over and over with the
 *     event enabled in it.
 *
 * Proven:
 *   - no torn record (check field, size, common_type, common_pid/tgid);
 *   - per (stream, CPU) the sequence numbers strictly increase: nothing
 *     duplicated or reordered;
 *   - "keep": every record written is read or counted lost:
 *     written (the writers' counts) = read + lost events reported by the
 *     consumer (which counts overwritten and dropped events alike);
 *   - "churn": each record read passes at least one of the filters used.
 *
 * Usage: events-torture [-d SECONDS] [-w WRITERS]
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include "events-util.h"

#define MAX_WRITERS	16
#define MAX_STREAMS	(2 * MAX_WRITERS)

static int nr_writers = 3;
static volatile int stop_writers, stop_others;
static struct evt_instance *keep, *churn;
static pthread_t writer_th[MAX_WRITERS];

/* Per stream: how many events were fired (the handler's streams too). */
static uint64_t fired[MAX_STREAMS];
static __thread int my_writer = -1;

static uint32_t check_of(uint32_t writer, uint64_t seq)
{
	uint64_t h = (seq + 1) * 0x9e3779b97f4a7c15ull ^ (writer * 0xff51afd7ed558ccdull);

	return (uint32_t)(h >> 29);
}

static void on_signal(int sig)
{
	int w = my_writer;
	uint32_t stream;
	uint64_t seq;

	(void)sig;
	if (w < 0)
		return;
	stream = (uint32_t)(w + nr_writers);
	seq = fired[stream];
	trace_evtest_seq(stream, seq, check_of(stream, seq));
	/* The handler's stream is only touched by this thread's handler. */
	__atomic_store_n(&fired[stream], seq + 1, __ATOMIC_RELAXED);
}

static void *writer(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t seq = 0;

	my_writer = w;
	while (!__atomic_load_n(&stop_writers, __ATOMIC_RELAXED)) {
		trace_evtest_seq((uint32_t)w, seq, check_of((uint32_t)w, seq));
		seq++;
		__atomic_store_n(&fired[w], seq, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *signaller(void *arg)
{
	struct timespec ts = { 0, 200000 };

	(void)arg;
	while (!__atomic_load_n(&stop_writers, __ATOMIC_RELAXED)) {
		pthread_kill(writer_th[rand() % nr_writers], SIGUSR1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* --- reading ----------------------------------------------------------------------------- */

struct reader {
	struct evt_instance *inst;
	bool exact;			/* "keep" */
	uint64_t last[MAX_STREAMS][64];	/* per stream and CPU: last seq + 1 */
	uint64_t read, lost;
	unsigned int type;
};

static const char *const filters[] = {
	"seq & 1", "writer == 0 || writer > 2", "check < 2147483648", "seq > 1000 && check != 0",
};

static bool passes_some_filter(const struct evt_raw_evtest_seq *e)
{
	return (e->seq & 1) || e->writer == 0 || e->writer > 2 || e->check < 2147483648u ||
	       (e->seq > 1000 && e->check != 0);
}

static void check_record(struct reader *r, int cpu, const void *data, unsigned int len)
{
	const struct evt_raw_evtest_seq *e = data;
	uint64_t *last;

	if (len < sizeof(*e))
		t_fail("short record: %u bytes", len);
	if (e->ent.common_type != r->type)
		t_fail("record of type %u", e->ent.common_type);
	if (e->writer >= (uint32_t)(2 * nr_writers))
		t_fail("writer %u", e->writer);
	if (e->check != check_of(e->writer, e->seq))
		t_fail("torn record: writer %u seq %llu check %x", e->writer,
		       (unsigned long long)e->seq, e->check);
	if (e->ent.common_tgid != getpid())
		t_fail("tgid %d", e->ent.common_tgid);
	last = &r->last[e->writer][cpu & 63];
	if (e->seq + 1 <= *last)
		t_fail("stream %u cpu %d: seq %llu after %llu", e->writer, cpu,
		       (unsigned long long)e->seq, (unsigned long long)*last - 1);
	*last = e->seq + 1;
	if (!r->exact && !passes_some_filter(e))
		t_fail("churn: a record no filter passes: writer %u seq %llu", e->writer,
		       (unsigned long long)e->seq);
	r->read++;
}

static unsigned long drain(struct reader *r)
{
	struct evt_ring_buffer *rb = evt_instance_ring_buffer(r->inst);
	unsigned long n = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		struct evt_ring_buffer_event *e;
		unsigned long lost = 0;

		while ((e = evt_ring_buffer_consume(rb, cpu, NULL, &lost))) {
			r->lost += lost;
			check_record(r, cpu, evt_ring_buffer_event_data(e),
				     evt_ring_buffer_event_length(e));
			n++;
		}
	}
	return n;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	while (!__atomic_load_n(&stop_others, __ATOMIC_RELAXED))
		if (!drain(r))
			sched_yield();
	return NULL;
}

/* --- churn --------------------------------------------------------------------------------- */

static void *control(void *arg)
{
	struct t_rand *rnd = arg;
	int destroyed = 0;

	while (!__atomic_load_n(&stop_others, __ATOMIC_RELAXED)) {
		switch (t_rand_range(rnd, 0, 7)) {
		case 0:
		case 1:
			evt_instance_event_enable(churn, "evtest", "evtest_seq",
						  t_rand_range(rnd, 0, 1));
			break;
		case 2:
		case 3:
			T_ASSERT_OK(evt_instance_event_filter(churn, "evtest", "evtest_seq",
				filters[t_rand_range(rnd, 0, 3)]));
			break;
		case 4:
			evt_instance_event_soft(churn, "evtest", "evtest_seq",
						t_rand_range(rnd, 0, 1), t_rand_range(rnd, 0, 1));
			break;
		case 5:
			evt_instance_tracing_on(churn, t_rand_range(rnd, 0, 1));
			break;
		case 6: {
			pid_t p = getpid();

			evt_instance_set_event_pid(churn, &p, t_rand_range(rnd, 0, 1),
						   EVT_PID_PROCESS);
			break;
		}
		case 7: {
			struct evt_instance *tmp = NULL;
			char name[64];

			snprintf(name, sizeof(name), "evtest-tmp-%d", (int)getpid());
			if (evt_instance_create(name, &tmp) == 0) {
				evt_instance_event_enable(tmp, "evtest", "evtest_seq", true);
				evt_instance_event_filter(tmp, "evtest", "evtest_seq", filters[0]);
				T_ASSERT_OK(evt_instance_destroy(tmp));
				destroyed++;
			}
			break;
		}
		}
	}
	printf("control: %d instances created and destroyed\n", destroyed);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 4);
	static struct reader rk, rc;
	pthread_t sig_th, ctl_th, rk_th, rc_th;
	struct evt_ring_buffer *rb;
	struct sigaction sa = { 0 };
	uint64_t written = 0;
	unsigned long dropped;
	struct t_rand rnd;

	for (int i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "-w"))
			nr_writers = atoi(argv[i + 1]);
	if (nr_writers < 1 || nr_writers > MAX_WRITERS)
		t_fail("-w 1..%d", MAX_WRITERS);
	t_rand_init(&rnd, 0);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);

	keep = t_instance("keep");
	churn = t_instance("churn");
	T_ASSERT_OK(evt_instance_resize_kb(keep, -1, 4096));
	T_ASSERT_EQ(evt_instance_event_enable(keep, "evtest", "evtest_seq", true), 1);
	rk.inst = keep;
	rk.exact = true;
	rk.type = evt_event_id(__evt_def_evtest_seq.event);
	rc.inst = churn;
	rc.type = rk.type;
	/* churn always has one of the filters (the control thread only swaps them) */
	T_ASSERT_OK(evt_instance_event_filter(churn, "evtest", "evtest_seq", filters[0]));

	pthread_create(&rk_th, NULL, reader_main, &rk);
	pthread_create(&rc_th, NULL, reader_main, &rc);
	pthread_create(&ctl_th, NULL, control, &rnd);
	for (int i = 0; i < nr_writers; i++)
		pthread_create(&writer_th[i], NULL, writer, (void *)(intptr_t)i);
	pthread_create(&sig_th, NULL, signaller, NULL);

	{
		struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&stop_writers, 1, __ATOMIC_RELAXED);
	pthread_join(sig_th, NULL);
	for (int i = 0; i < nr_writers; i++)
		pthread_join(writer_th[i], NULL);
	__atomic_store_n(&stop_others, 1, __ATOMIC_RELAXED);
	pthread_join(ctl_th, NULL);
	pthread_join(rk_th, NULL);
	pthread_join(rc_th, NULL);
	drain(&rk);
	drain(&rc);

	for (int s = 0; s < 2 * nr_writers; s++)
		written += __atomic_load_n(&fired[s], __ATOMIC_RELAXED);
	rb = evt_instance_ring_buffer(keep);
	dropped = evt_ring_buffer_dropped_events(rb);
	printf("keep: written %llu read %llu lost %llu dropped %lu; churn: read %llu\n",
	       (unsigned long long)written, (unsigned long long)rk.read,
	       (unsigned long long)rk.lost, dropped, (unsigned long long)rc.read);
	if (written != rk.read + rk.lost)
		t_fail("keep: written %llu != read %llu + lost %llu",
		       (unsigned long long)written, (unsigned long long)rk.read,
		       (unsigned long long)rk.lost);
	T_ASSERT(rk.read > 0);
	T_ASSERT_OK(evt_instance_destroy(keep));
	T_ASSERT_OK(evt_instance_destroy(churn));
	return T_PASS;
}
