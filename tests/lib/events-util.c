// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/events-util.c - shared helpers of the tests that include events-util.h
 */
#include "events-util.h"

struct evt_instance *t_instance(const char *what)
{
	struct evt_instance *inst = NULL;
	char name[64];

	snprintf(name, sizeof(name), "evtest-%s-%d", what, (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	return inst;
}

unsigned long t_consume(struct evt_instance *inst,
				      void (*fn)(const void *rec, unsigned int len, void *arg),
				      void *arg)
{
	struct evt_ring_buffer *rb = evt_instance_ring_buffer(inst);
	unsigned long n = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++) {
		struct evt_ring_buffer_event *e;

		while ((e = evt_ring_buffer_consume(rb, cpu, NULL, NULL))) {
			if (fn)
				fn(evt_ring_buffer_event_data(e), evt_ring_buffer_event_length(e),
				   arg);
			n++;
		}
	}
	return n;
}

const char *t_trace_text(struct evt_instance *inst, int cpu)
{
	static char buf[1 << 20];
	int n = evt_instance_trace_text(inst, cpu, buf, sizeof(buf));

	T_ASSERT(n >= 0 && (size_t)n < sizeof(buf));
	return buf;
}

int t_count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}
