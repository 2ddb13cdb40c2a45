// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-size-cap: sizes from outside are capped (issue 11, defect 5). A resize
 * or an allocation that would take more than a quarter of MemAvailable, or
 * more than half of what RLIMIT_AS leaves, is refused with -ENOMEM, and a
 * refused resize changes nothing: every CPU keeps its size and every event
 * (all or nothing across CPUs: before, the first CPU was resized and the
 * second failed). buffer_size_kb of tracefs answers -ENOMEM the same way.
 * Under the limit the memory is allocated before the new layout is
 * published.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#include "helpers.h"

#define NR_EVENTS 200

static uint64_t mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

static struct evt_ring_buffer *filled(void)
{
	struct evt_ring_buffer_opts o = { .size = 64 * 1024, .nr_cpus = 2 };
	struct evt_ring_buffer *rb;

	T_ASSERT_OK(evt_ring_buffer_alloc_opts(&o, &rb));
	for (unsigned int i = 0; i < NR_EVENTS; i++)
		T_ASSERT_OK(evt_ring_buffer_write(rb, sizeof(i), &i));
	return rb;
}

/* Every event written by filled() is there, in order, and nothing else. */
static void check_intact(struct evt_ring_buffer *rb)
{
	unsigned int n = 0, last = 0, v;
	struct evt_ring_buffer_event *ev;

	for (int cpu = 0; cpu < 2; cpu++) {
		T_ASSERT_EQ(evt_ring_buffer_size(rb, cpu), 64ul * 1024);
		while ((ev = evt_ring_buffer_consume(rb, cpu, NULL, NULL))) {
			memcpy(&v, evt_ring_buffer_event_data(ev), sizeof(v));
			T_ASSERT(n == 0 || v > last);
			last = v;
			n++;
		}
	}
	T_ASSERT_EQ(n, NR_EVENTS);
	T_ASSERT_EQ(evt_ring_buffer_overruns(rb), 0ul);
}

/* In a child: RLIMIT_AS 256 MiB above what the process maps now. */
static void under_rlimit_as(void)
{
	struct evt_ring_buffer *rb = filled(), *rb2;
	unsigned long long pages = 0;
	struct rlimit rl;
	FILE *f = fopen("/proc/self/statm", "r");

	T_ASSERT(f && fscanf(f, "%llu", &pages) == 1);
	fclose(f);
	rl.rlim_cur = rl.rlim_max = pages * (unsigned long long)sysconf(_SC_PAGESIZE) +
				    (256ull << 20);
	T_ASSERT(setrlimit(RLIMIT_AS, &rl) == 0);
	/* 2 x 96 MiB: each CPU alone fits, both do not fit half of the room */
	T_ASSERT_EQ(evt_ring_buffer_resize(rb, 96ul << 20, EVT_RB_ALL_CPUS), -ENOMEM);
	T_ASSERT_EQ(evt_ring_buffer_alloc(96ul << 20, 0, &rb2), -ENOMEM);
	check_intact(rb);
	evt_ring_buffer_free(rb);
	exit(0);
}

int main(void)
{
	uint64_t avail = mem_available();
	struct evt_ring_buffer *rb;
	int status;
	pid_t pid;

	printf("rb-size-cap: MemAvailable %llu MiB\n", (unsigned long long)(avail >> 20));

	/* 1. RLIMIT_AS: refused, all or nothing */
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid)
		under_rlimit_as();
	T_ASSERT(waitpid(pid, &status, 0) == pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* 2. MemAvailable: 1 TiB per CPU is refused, and changes nothing */
	rb = filled();
	T_ASSERT_EQ(evt_ring_buffer_resize(rb, 1ul << 40, EVT_RB_ALL_CPUS), -ENOMEM);
	T_ASSERT_EQ(evt_ring_buffer_resize(rb, 1ul << 40, 1), -ENOMEM);
	check_intact(rb);
	/* a sane size is allocated (and its memory really there) */
	T_ASSERT_OK(evt_ring_buffer_resize(rb, 1ul << 20, EVT_RB_ALL_CPUS));
	T_ASSERT_EQ(evt_ring_buffer_size(rb, 1), 1ul << 20);
	evt_ring_buffer_free(rb);
	T_ASSERT_EQ(evt_ring_buffer_alloc(1ul << 40, 0, &rb), -ENOMEM);

	/* 3. tracefs: buffer_size_kb 4194304 (4 GiB per CPU) where that is beyond the cap */
	{
		struct evt_instance *inst;
		char buf[64];
		long nr;
		ssize_t n;

		T_ASSERT_OK(evt_instance_create("rb-size-cap", &inst));
		nr = evt_ring_buffer_nr_cpus(evt_instance_ring_buffer(inst));
		if ((uint64_t)nr * (4ull << 30) > avail / 4) {
			unsigned long before = evt_ring_buffer_size(evt_instance_ring_buffer(inst), 0);

			n = evt_tracefs_write(inst, "buffer_size_kb", "4194304\n", 8, 0);
			T_ASSERT_EQ(n, (ssize_t)-ENOMEM);
			n = evt_tracefs_read(inst, "buffer_size_kb", buf, sizeof(buf) - 1, 0);
			T_ASSERT(n > 0);
			buf[n] = 0;
			T_ASSERT_EQ(strtoul(buf, NULL, 10), before >> 10);
		} else {
			printf("rb-size-cap: %ld x 4 GiB fits a quarter of MemAvailable here\n", nr);
		}
		T_ASSERT_OK(evt_instance_destroy(inst));
	}
	printf("rb-size-cap: ok\n");
	return 0;
}
