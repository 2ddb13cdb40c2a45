// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-entries-overruns: the statistics per CPU and in total. Each CPU's
 * events are counted on that CPU only; totals are the sums; overruns
 * (overwrite mode) and dropped events (producer/consumer mode) are
 * exact per CPU; read_events_cpu counts consumed events; and for every
 * CPU entries + overruns + read == written.
 */
#include "rb-test.h"

static void run(unsigned int flags, const int *cpus, int ncpu)
{
	struct evt_ring_buffer *rb = rbt_alloc(4 * 4096, flags);
	int nr = evt_ring_buffer_nr_cpus(rb);
	uint64_t written[CPU_SETSIZE] = { 0 }, refused[CPU_SETSIZE] = { 0 };
	uint64_t te = 0, to = 0, td = 0;
	int use = ncpu < 4 ? ncpu : 4;

	/* different amounts per CPU: 50, 150, 450 ... events; the last ones overflow */
	for (int k = 0; k < use; k++) {
		int c = cpus[k];
		int n = 50;

		for (int j = 0; j < k; j++)
			n *= 3;
		RBT_EQ_I(rbt_pin(c), 0);
		for (int i = 0; i < n; i++) {
			int ret = rbt_write_rec(rb, 60, (uint32_t)c, (uint64_t)i);

			if (ret == 0)
				written[c]++;
			else if (ret == -ENOBUFS)
				refused[c]++;
			else
				RBT_FAILF("write: %d", ret);
		}
	}
	/* a big burst on the first CPU: it surely overflows */
	RBT_EQ_I(rbt_pin(cpus[0]), 0);
	for (int i = 0; i < 1000; i++) {
		int ret = rbt_write_rec(rb, 60, (uint32_t)cpus[0], 1000u + (uint64_t)i);

		if (ret == 0)
			written[cpus[0]]++;
		else if (ret == -ENOBUFS)
			refused[cpus[0]]++;
		else
			RBT_FAILF("write: %d", ret);
	}

	for (int c = 0; c < nr; c++) {
		uint64_t e = evt_ring_buffer_entries_cpu(rb, c);
		uint64_t o = evt_ring_buffer_overrun_cpu(rb, c);
		uint64_t d = evt_ring_buffer_dropped_events_cpu(rb, c);

		if (c < CPU_SETSIZE) {
			RBT_ASSERTF(e + o == written[c], "cpu %d: entries %" PRIu64 " + overruns %"
				    PRIu64 " != written %" PRIu64, c, e, o, written[c]);
			RBT_EQ_U(d, refused[c]);
		}
		if (flags)
			RBT_EQ_U(d, 0);
		else
			RBT_EQ_U(o, 0);
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, c), 0);
		RBT_EQ_U(evt_ring_buffer_empty_cpu(rb, c), e == 0);
		te += e;
		to += o;
		td += d;
	}
	RBT_EQ_U(evt_ring_buffer_entries(rb), te);
	RBT_EQ_U(evt_ring_buffer_overruns(rb), to);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), td);
	RBT_ASSERT(flags ? to > 0 : td > 0);

	/* consume some on each CPU: read counts move from entries to read */
	for (int k = 0; k < use; k++) {
		int c = cpus[k];
		uint64_t e0 = evt_ring_buffer_entries_cpu(rb, c), got = 0;

		for (int i = 0; i < 30 && evt_ring_buffer_consume(rb, c, NULL, NULL); i++)
			got++;
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, c), got);
		RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, c), e0 - got);
		RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, c) + evt_ring_buffer_overrun_cpu(rb, c) +
				 evt_ring_buffer_read_events_cpu(rb, c),
			 written[c]);
	}
	/* read_page counts as reading too */
	{
		unsigned char page[4096];
		int c = cpus[0];
		uint64_t r0 = evt_ring_buffer_read_events_cpu(rb, c);
		uint64_t e0 = evt_ring_buffer_entries_cpu(rb, c);
		int ret = evt_ring_buffer_read_page(rb, c, page, sizeof(page));
		struct evt_rb_page_iter it;
		unsigned int n = 0;

		RBT_ASSERT(ret > 0);
		RBT_EQ_I(evt_rb_page_iter_init(&it, page, sizeof(page)), 0);
		while (evt_rb_page_iter_next(&it, NULL, NULL) == 1)
			n++;
		RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, c), r0 + n);
		RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, c), e0 - n);
	}
	/* drain all: entries 0, the sum still holds */
	rbt_drain(rb);
	RBT_EQ_U(evt_ring_buffer_entries(rb), 0);
	for (int k = 0; k < use; k++) {
		int c = cpus[k];
		uint64_t o = evt_ring_buffer_overrun_cpu(rb, c);

		RBT_EQ_U(o + evt_ring_buffer_read_events_cpu(rb, c), written[c]);
	}
	evt_ring_buffer_free(rb);
}

int main(void)
{
	int cpus[CPU_SETSIZE], n = rbt_allowed_cpus(cpus, CPU_SETSIZE);

	if (n < 1)
		rbt_skip("no CPU");
	run(0, cpus, n);
	run(EVT_RB_FL_OVERWRITE, cpus, n);
	printf("rb-entries-overruns: PASS (%d CPUs)\n", n);
	return RBT_PASS;
}
