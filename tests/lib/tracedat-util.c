// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/tracedat-util.c - what the tracedat-* tests share (tracedat-util.h), and the
 * definitions of their events (tracedat-tp.h, tracedat-net-tp.h): the test programs include
 * those headers without CREATE_TRACE_POINTS.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "tracedat-tp.h"
#define CREATE_TRACE_POINTS
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

struct td_worker {
	int id;
	int cpu;
	struct evt_instance *inst;
};

static void *td_worker_fn(void *arg)
{
	struct td_worker *w = arg;
	char name[16], msg[64];
	uint8_t bytes[9];

	snprintf(name, sizeof(name), "td worker %d", w->id);	/* a comm with a space */
	prctl(PR_SET_NAME, name, 0, 0, 0);
	if (w->cpu >= 0)
		t_pin_to_cpu(w->cpu);
	for (int i = 0; i < TD_PER_THREAD; i++) {
		switch (i % 4) {
		case 0:
			trace_td_ints(w->id, i);
			break;
		case 1:
			snprintf(msg, sizeof(msg), "message %d of worker %d", i, w->id);
			trace_td_strings(w->id, msg);
			break;
		case 2:
			for (int k = 0; k < (int)sizeof(bytes); k++)
				bytes[k] = (uint8_t)(i + k);
			trace_td_arrays(w->id, bytes, 1 + i % 9);
			break;
		default:
			snprintf(msg, sizeof(msg), "payload-%d", i);
			trace_td_big(w->id, (uint32_t)i, msg);
			break;
		}
		if (i == TD_PER_THREAD / 2 && w->id == 0) {
			static const char mark[] = "half way there";

			evt_instance_trace_marker(w->inst, mark, sizeof(mark) - 1);
		}
	}
	return NULL;
}

struct evt_instance *td_record_on(const char *what, const char *clock, int one_cpu)
{
	struct evt_instance *inst = NULL;
	struct td_worker w[TD_THREADS];
	pthread_t th[TD_THREADS];
	int ncpus = t_nr_cpus();
	char name[128];

	snprintf(name, sizeof(name), "tracedat-%s-%d", what, (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT_OK(evt_instance_resize_kb(inst, -1, 1024));
	if (clock)
		T_ASSERT_OK(evt_instance_set_clock(inst, clock));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", NULL, true) == 3);
	T_ASSERT(evt_instance_event_enable(inst, "tdnet", NULL, true) == 1);
	for (int i = 0; i < TD_THREADS; i++) {
		w[i].id = i;
		if (ncpus < 2)
			w[i].cpu = -1;
		else
			w[i].cpu = one_cpu >= 0 ? one_cpu : i % ncpus;
		w[i].inst = inst;
		T_ASSERT(pthread_create(&th[i], NULL, td_worker_fn, &w[i]) == 0);
	}
	for (int i = 0; i < TD_THREADS; i++)
		pthread_join(th[i], NULL);
	return inst;
}

struct evt_instance *td_record(const char *what, const char *clock)
{
	return td_record_on(what, clock, -1);
}

int td_snapshot(struct evt_instance *inst, struct td_rec **out)
{
	struct evt_ring_buffer *rb = evt_instance_ring_buffer(inst);
	int n = 0, cap = 1024;
	struct td_rec *r = calloc((size_t)cap, sizeof(*r));

	T_ASSERT(r);
	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		struct evt_ring_buffer_iter *it;
		struct evt_ring_buffer_event *e;
		uint64_t ts;

		T_ASSERT_OK(evt_ring_buffer_read_start(rb, cpu, &it));
		while ((e = evt_ring_buffer_read(it, &ts))) {
			unsigned int len = evt_ring_buffer_event_length(e);

			if (n == cap) {
				cap *= 2;
				r = realloc(r, (size_t)cap * sizeof(*r));
				T_ASSERT(r);
			}
			T_ASSERT(len <= sizeof(r[n].data));
			r[n].cpu = cpu;
			r[n].ts = ts;
			r[n].len = len;
			memcpy(r[n].data, evt_ring_buffer_event_data(e), len);
			n++;
		}
		evt_ring_buffer_read_finish(it);
	}
	*out = r;
	return n;
}

int td_trace_lines(struct evt_instance *inst, char ***linesp)
{
	static char buf[4 << 20];
	int len = evt_instance_trace_text(inst, -1, buf, sizeof(buf));
	char **lines = NULL, *p, *nl;
	int n = 0;

	T_ASSERT(len >= 0 && (size_t)len < sizeof(buf));
	for (p = buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		T_ASSERT(nl);
		*nl = '\0';
		if (*p == '#')
			continue;
		lines = realloc(lines, (size_t)(n + 1) * sizeof(*lines));
		T_ASSERT(lines);
		lines[n++] = strdup(p);
	}
	*linesp = lines;
	return n;
}

void td_free_lines(char **lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

int td_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int td_u64cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

char *td_write_tmp(struct evt_instance *inst, const char *what)
{
	char *path = malloc(256);

	T_ASSERT(path);
	snprintf(path, 256, "/tmp/evt-tracedat-%s-%d.dat", what, (int)getpid());
	T_ASSERT_OK(evt_tracedat_write_file(inst, path, 0));
	return path;
}
