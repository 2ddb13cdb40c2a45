// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-alloc: allocation sizes (rounded up to a power-of-two number of
 * pages, at least two), every legal page size, the options, and the
 * arguments that must be refused.
 */
#include "rb-test.h"

#include <sys/sysinfo.h>

static void check_size(unsigned long size, unsigned long want)
{
	struct evt_ring_buffer *rb = NULL;
	int ret = evt_ring_buffer_alloc(size, 0, &rb);

	RBT_ASSERTF(ret == 0 && rb, "alloc(%lu): %d", size, ret);
	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++)
		RBT_ASSERTF(evt_ring_buffer_size(rb, cpu) == want,
			    "alloc(%lu): size(cpu %d) = %lu, want %lu", size, cpu,
			    evt_ring_buffer_size(rb, cpu), want);
	RBT_EQ_U(evt_ring_buffer_size(rb, EVT_RB_ALL_CPUS), want);
	RBT_EQ_U(evt_ring_buffer_page_size(rb), EVT_RB_DEFAULT_PAGE_SIZE);
	RBT_ASSERT(!evt_ring_buffer_overwrite(rb));
	RBT_EQ_I(evt_ring_buffer_clock(rb), EVT_CLOCK_LOCAL);
	RBT_ASSERT(evt_ring_buffer_record_is_on(rb));
	RBT_ASSERT(evt_ring_buffer_empty(rb));
	RBT_EQ_U(evt_ring_buffer_entries(rb), 0);
	RBT_EQ_U(evt_ring_buffer_overruns(rb), 0);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);
	RBT_ASSERT(evt_ring_buffer_fd(rb) >= 0);
	evt_ring_buffer_free(rb);
}

static void check_page_size(unsigned int ps, int cpu)
{
	struct evt_ring_buffer *rb;
	unsigned int max = ps - EVT_RB_PAGE_HDR_SIZE - 8;
	static unsigned char buf[1u << 20];
	struct evt_ring_buffer_event *ev;
	uint64_t ts;

	/* three pages' worth rounds up to four */
	rb = rbt_alloc_opts(3ul * ps, 0, ps, 1, EVT_CLOCK_LOCAL);
	RBT_EQ_U(evt_ring_buffer_page_size(rb), ps);
	RBT_EQ_I(evt_ring_buffer_nr_cpus(rb), 1);
	RBT_EQ_U(evt_ring_buffer_size(rb, 0), 4ul * ps);
	RBT_EQ_U(evt_ring_buffer_size(rb, EVT_RB_ALL_CPUS), 4ul * ps);

	/* nr_cpus = 1: whatever CPU we are on, the event lands in buffer 0 */
	(void)cpu;
	rbt_fill(buf, max, ps);
	RBT_EQ_I(evt_ring_buffer_write(rb, max, buf), 0);
	RBT_EQ_I(evt_ring_buffer_write(rb, max + 1, buf), -E2BIG);
	RBT_ASSERT(evt_ring_buffer_lock_reserve(rb, max + 1) == NULL);
	RBT_ASSERT(evt_ring_buffer_lock_reserve(rb, ~0ul) == NULL);
	RBT_EQ_U(evt_ring_buffer_dropped_events(rb), 0);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, 0), 1);

	ev = evt_ring_buffer_consume(rb, 0, &ts, NULL);
	RBT_ASSERT(ev);
	RBT_EQ_U(evt_ring_buffer_event_length(ev), RBT_ALIGN4(max));
	RBT_ASSERT(rbt_check(evt_ring_buffer_event_data(ev), max, ps));
	RBT_ASSERT(evt_ring_buffer_consume(rb, 0, NULL, NULL) == NULL);
	evt_ring_buffer_free(rb);

	/* minimum: two pages */
	rb = rbt_alloc_opts(1, EVT_RB_FL_OVERWRITE, ps, 1, EVT_CLOCK_MONO);
	RBT_EQ_U(evt_ring_buffer_size(rb, 0), 2ul * ps);
	RBT_ASSERT(evt_ring_buffer_overwrite(rb));
	RBT_EQ_I(evt_ring_buffer_clock(rb), EVT_CLOCK_MONO);
	evt_ring_buffer_free(rb);
}

static void check_bad(const struct evt_ring_buffer_opts *o, const char *what)
{
	struct evt_ring_buffer *rb = NULL;
	int ret = evt_ring_buffer_alloc_opts(o, &rb);

	RBT_ASSERTF(ret == -EINVAL, "%s: alloc_opts returned %d, want -EINVAL", what, ret);
	RBT_ASSERTF(rb == NULL, "%s: buffer returned on failure", what);
}

int main(void)
{
	const unsigned long ps = EVT_RB_DEFAULT_PAGE_SIZE;
	struct evt_ring_buffer_opts o;
	struct evt_ring_buffer *rb = NULL;
	int cpu, ret;

	cpu = rbt_pin_first();

	/* size rounding: bytes -> pages -> next power of two, at least 2 */
	check_size(0, 2 * ps);
	check_size(1, 2 * ps);
	check_size(ps, 2 * ps);
	check_size(2 * ps, 2 * ps);
	check_size(2 * ps + 1, 4 * ps);
	check_size(3 * ps, 4 * ps);
	check_size(4 * ps, 4 * ps);
	check_size(5 * ps - 7, 8 * ps);
	check_size(100 * ps, 128 * ps);
	check_size(1ul << 20, 1ul << 20);
	check_size((1ul << 20) + 1, 1ul << 21);

	/* one buffer per possible CPU by default */
	RBT_EQ_I(evt_ring_buffer_alloc(0, EVT_RB_FL_OVERWRITE, &rb), 0);
	RBT_ASSERT(rb);
	RBT_ASSERT(evt_ring_buffer_overwrite(rb));
	RBT_ASSERTF(evt_ring_buffer_nr_cpus(rb) >= get_nprocs_conf(),
		    "nr_cpus %d < possible CPUs %d", evt_ring_buffer_nr_cpus(rb),
		    get_nprocs_conf());
	RBT_ASSERT(evt_ring_buffer_nr_cpus(rb) > cpu);
	evt_ring_buffer_free(rb);
	rb = NULL;

	/* opts: page_size 0 means 4096, nr_cpus 0 means all */
	memset(&o, 0, sizeof(o));
	o.size = 5 * ps;
	RBT_EQ_I(evt_ring_buffer_alloc_opts(&o, &rb), 0);
	RBT_EQ_U(evt_ring_buffer_page_size(rb), 4096);
	RBT_EQ_U(evt_ring_buffer_size(rb, cpu), 8 * ps);
	RBT_ASSERT(evt_ring_buffer_nr_cpus(rb) >= get_nprocs_conf());
	evt_ring_buffer_free(rb);
	rb = NULL;

	/* every clock */
	for (int c = 0; c < EVT_CLOCK__COUNT; c++) {
		memset(&o, 0, sizeof(o));
		o.clock = (enum evt_clock_id)c;
		o.nr_cpus = 2;
		RBT_EQ_I(evt_ring_buffer_alloc_opts(&o, &rb), 0);
		RBT_EQ_I(evt_ring_buffer_clock(rb), c);
		RBT_EQ_I(evt_ring_buffer_nr_cpus(rb), 2);
		evt_ring_buffer_free(rb);
		rb = NULL;
	}

	/* every legal page size, with the largest payload it takes */
	for (unsigned int p = 256; p <= (1u << 20); p <<= 1)
		check_page_size(p, cpu);

	/* bad arguments */
	RBT_EQ_I(evt_ring_buffer_alloc(0, 0, NULL), -EINVAL);
	RBT_EQ_I(evt_ring_buffer_alloc_opts(NULL, NULL), -EINVAL);
	rb = NULL;
	ret = evt_ring_buffer_alloc(0, 1u << 7, &rb);
	RBT_ASSERTF(ret == -EINVAL && !rb, "unknown flag: %d", ret);

	memset(&o, 0, sizeof(o));
	o.page_size = 128;
	check_bad(&o, "page_size 128");
	o.page_size = 255;
	check_bad(&o, "page_size 255");
	o.page_size = 3000;
	check_bad(&o, "page_size 3000");
	o.page_size = 4097;
	check_bad(&o, "page_size 4097");
	o.page_size = 2u << 20;
	check_bad(&o, "page_size 2 MiB");
	o.page_size = 1u << 31;
	check_bad(&o, "page_size 2 GiB");
	memset(&o, 0, sizeof(o));
	o.nr_cpus = -1;
	check_bad(&o, "nr_cpus -1");
	memset(&o, 0, sizeof(o));
	o.clock = EVT_CLOCK__COUNT;
	check_bad(&o, "clock out of range");
	o.clock = (enum evt_clock_id)-1;
	check_bad(&o, "clock -1");
	memset(&o, 0, sizeof(o));
	o.flags = 0x80000000u;
	check_bad(&o, "flags");

	/* absurd sizes: refused, not attempted */
	rb = NULL;
	ret = evt_ring_buffer_alloc(~0ul, 0, &rb);
	RBT_ASSERTF((ret == -EINVAL || ret == -ENOMEM) && !rb, "alloc(ULONG_MAX): %d", ret);
	memset(&o, 0, sizeof(o));
	o.size = (size_t)1 << 62;
	o.nr_cpus = 1;
	ret = evt_ring_buffer_alloc_opts(&o, &rb);
	RBT_ASSERTF((ret == -EINVAL || ret == -ENOMEM) && !rb, "alloc(2^62): %d", ret);

	/* many alloc/free cycles do not leak descriptors */
	{
		int fd0 = dup(0), fd1;

		close(fd0);
		for (int i = 0; i < 200; i++) {
			rb = rbt_alloc(0, i & 1 ? EVT_RB_FL_OVERWRITE : 0);
			RBT_EQ_I(evt_ring_buffer_write(rb, 8, "01234567"), 0);
			evt_ring_buffer_free(rb);
		}
		fd1 = dup(0);
		close(fd1);
		RBT_EQ_I(fd1, fd0);
	}
	evt_ring_buffer_free(NULL);

	printf("rb-alloc: PASS\n");
	return RBT_PASS;
}
