// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-torture [-d SECONDS]: writer threads (one pinned per CPU, plus
 * unpinned ones the scheduler migrates) write sequence-numbered events
 * into a small overwriting buffer while the main thread writes trace.dat
 * files of it again and again (each write consumes what it wrote) and
 * reads every file back with the reader.
 *
 * Checks: every file opens and reads to the end; per CPU the time stamps
 * never go back; each pinned writer's sequence numbers only grow across
 * all files; and at the end, after a last drain, records read + events
 * overwritten + events dropped == events written.
 */
#include <stdatomic.h>

#include <sys/mman.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

#define MAXW 64

static atomic_bool stop;
static uint64_t written[MAXW];

struct wr {
	int id, cpu;
};

static void *writer(void *arg)
{
	struct wr *w = arg;
	uint64_t seq = 0;

	if (w->cpu >= 0)
		t_pin_to_cpu(w->cpu);
	/* relaxed: the flag only ends the loop; the count is read after join */
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		trace_td_ints(w->id, (int64_t)seq++);
	written[w->id] = seq;
	return NULL;
}

static const struct evt_field *field(const struct evt_tracedat_event *e, const char *name)
{
	for (unsigned int i = 0; i < e->nr_fields; i++)
		if (!strcmp(e->fields[i].name, name))
			return &e->fields[i];
	return NULL;
}

/* Write @inst to a memfd and read it all back. Return: records read. */
static uint64_t drain(struct evt_instance *inst, int64_t *last_seq, int nw)
{
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	uint64_t n = 0, *last_ts;
	unsigned char *buf;
	long long len;
	int fd, ret;

	fd = memfd_create("tracedat-torture", 0);
	T_ASSERT(fd >= 0);
	len = evt_tracedat_write(inst, fd, 0);
	T_ASSERT(len > 0);
	buf = malloc((size_t)len);
	T_ASSERT(buf);
	T_ASSERT(pread(fd, buf, (size_t)len, 0) == len);
	close(fd);
	ret = evt_tracedat_open_mem(buf, (size_t)len, &td);
	if (ret)
		t_fail("open: %d %s", ret, evt_error_detail());
	last_ts = calloc((size_t)evt_tracedat_nr_cpus(td), sizeof(*last_ts));
	T_ASSERT(last_ts);
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		const struct evt_field *fw, *fl;
		int32_t wid;
		int64_t l;

		T_ASSERT(rec.event && !strcmp(rec.event->name, "td_ints"));
		if (rec.ts < last_ts[rec.cpu])
			t_fail("cpu %d: time %llu after %llu", rec.cpu,
			       (unsigned long long)rec.ts, (unsigned long long)last_ts[rec.cpu]);
		last_ts[rec.cpu] = rec.ts;
		fw = field(rec.event, "worker");
		fl = field(rec.event, "l");
		T_ASSERT(fw && fl && fl->offset + 8u <= rec.size);
		memcpy(&wid, (const char *)rec.data + fw->offset, 4);
		memcpy(&l, (const char *)rec.data + fl->offset, 8);
		T_ASSERT(wid >= 0 && wid < nw);
		/* pinned writers: their records are on one CPU, in order */
		if (last_seq[wid] != INT64_MIN && l + 7 <= last_seq[wid])
			t_fail("writer %d: seq %lld after %lld", wid, (long long)(l + 7),
			       (long long)last_seq[wid]);
		last_seq[wid] = l + 7;
		n++;
	}
	if (ret < 0)
		t_fail("next: %s", evt_error_detail());
	evt_tracedat_close(td);
	free(last_ts);
	free(buf);
	return n;
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 3), end;
	int ncpus = t_nr_cpus(), nw = 0, files = 0;
	struct evt_instance *inst = NULL;
	struct evt_ring_buffer *rb;
	struct wr w[MAXW];
	pthread_t th[MAXW];
	int64_t last_seq[MAXW];
	uint64_t read = 0, total = 0, lost;
	char name[64];

	snprintf(name, sizeof(name), "tracedat-torture-%d", (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT_OK(evt_instance_resize_kb(inst, -1, 64));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", "td_ints", true) == 1);
	rb = evt_instance_ring_buffer(inst);
	for (int i = 0; i < ncpus && nw < MAXW - 2; i++, nw++) {
		w[nw].id = nw;
		w[nw].cpu = i;
	}
	for (int i = 0; i < 2; i++, nw++) {
		w[nw].id = nw;
		w[nw].cpu = -1;
	}
	for (int i = 0; i < nw; i++) {
		/* unpinned writers migrate: their order across CPUs is not checked */
		last_seq[i] = INT64_MIN;
		T_ASSERT(pthread_create(&th[i], NULL, writer, &w[i]) == 0);
	}
	end = t_seconds_now() + secs;
	while (t_seconds_now() < end) {
		read += drain(inst, last_seq, nw);
		for (int i = 0; i < nw; i++)
			if (w[i].cpu < 0)
				last_seq[i] = INT64_MIN;
		files++;
	}
	atomic_store_explicit(&stop, true, memory_order_relaxed);
	for (int i = 0; i < nw; i++) {
		pthread_join(th[i], NULL);
		total += written[i];
	}
	read += drain(inst, last_seq, nw);
	/* the buffer is empty now: a last write finds nothing */
	T_ASSERT(evt_ring_buffer_empty(rb));
	lost = evt_ring_buffer_overruns(rb) + evt_ring_buffer_dropped_events(rb);
	printf("%d files, %d writers: written %llu = read %llu + lost %llu\n", files + 1, nw,
	       (unsigned long long)total, (unsigned long long)read, (unsigned long long)lost);
	if (read + lost != total)
		t_fail("written %llu != read %llu + lost %llu", (unsigned long long)total,
		       (unsigned long long)read, (unsigned long long)lost);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
