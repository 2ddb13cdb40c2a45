// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: evt_ring_buffer_map() on an untrusted memfd.
 *
 * The input is the whole file: it is written into a memfd of exactly its
 * length (sealed against shrinking, as the library's own memfds are),
 * mapped as a consumer, and every read-side call is made on every CPU a
 * bounded number of times: peek, consume, iterators, read_page (whose
 * output is walked with the page iterator), statistics. Nothing may
 * crash, hang or read out of bounds; events handed out are touched byte
 * by byte.
 *
 * Seeds (tests/fuzz/corpus/rb-map/) are real buffers' memfd images made
 * by this file built with -DRB_FUZZ_GEN_MAIN (see the end), kept small
 * with 256-byte pages and one or two CPUs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>

#define MAX_CPUS_TOUCHED	8
#define MAX_READS		300

static volatile unsigned int sink;

static void check(int cond)
{
	if (!cond)
		abort();
}

static void touch(struct evt_ring_buffer_event *ev)
{
	const unsigned char *d = evt_ring_buffer_event_data(ev);
	unsigned int len = evt_ring_buffer_event_length(ev);

	check(ev->type_len <= EVT_RINGBUF_TYPE_DATA_TYPE_LEN_MAX);
	for (unsigned int i = 0; i < len; i++)
		sink += d[i];
}

static void exercise(struct evt_ring_buffer *m)
{
	unsigned int ps = evt_ring_buffer_page_size(m);
	int nr = evt_ring_buffer_nr_cpus(m);
	unsigned char *page = malloc(ps);

	if (!page)
		return;
	for (int cpu = 0; cpu < nr && cpu < MAX_CPUS_TOUCHED; cpu++) {
		struct evt_ring_buffer_iter *it;
		struct evt_ring_buffer_event *ev;
		unsigned long lost;
		uint64_t ts;

		sink += (unsigned int)evt_ring_buffer_entries_cpu(m, cpu);
		sink += evt_ring_buffer_empty_cpu(m, cpu);
		sink += (unsigned int)(evt_ring_buffer_overrun_cpu(m, cpu) +
				       evt_ring_buffer_dropped_events_cpu(m, cpu) +
				       evt_ring_buffer_read_events_cpu(m, cpu) +
				       evt_ring_buffer_size(m, cpu));
		if (evt_ring_buffer_read_start(m, cpu, &it) == 0) {
			for (int i = 0; i < MAX_READS && (ev = evt_ring_buffer_read(it, &ts)); i++)
				touch(ev);
			evt_ring_buffer_iter_reset(it);
			if ((ev = evt_ring_buffer_iter_peek(it, &ts)))
				touch(ev);
			sink += evt_ring_buffer_iter_empty(it);
			sink += (unsigned int)evt_ring_buffer_iter_lost(it);
			evt_ring_buffer_read_finish(it);
		}
		if ((ev = evt_ring_buffer_peek(m, cpu, &ts, &lost)))
			touch(ev);
		for (int i = 0; i < MAX_READS && (ev = evt_ring_buffer_consume(m, cpu, &ts, &lost));
		     i++)
			touch(ev);
		for (int i = 0; i < 30; i++) {
			struct evt_rb_page_iter pit;
			const struct evt_ring_buffer_event *e;
			int ret = evt_ring_buffer_read_page(m, cpu, page, ps);

			if (ret <= 0)
				break;
			check((unsigned int)ret <= ps - EVT_RB_PAGE_HDR_SIZE);
			check(evt_rb_page_iter_init(&pit, page, ps) == 0);
			while (evt_rb_page_iter_next(&pit, &e, &ts) == 1)
				touch((struct evt_ring_buffer_event *)e);
		}
	}
	sink += (unsigned int)(evt_ring_buffer_entries(m) + evt_ring_buffer_overruns(m));
	sink += evt_ring_buffer_empty(m);
	free(page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evt_ring_buffer *m = NULL;
	int fd, ret;

	/* keep each run small: the seeds are tens of KiB */
	if (size > (1u << 20))
		return 0;
	fd = memfd_create("rb-map-fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return 0;
	if ((size && ftruncate(fd, (off_t)size) < 0) ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		close(fd);
		return 0;
	}
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
	ret = evt_ring_buffer_map(fd, &m);
	close(fd);	/* the mapping keeps what it needs */
	if (ret < 0) {
		check(m == NULL);
		return 0;
	}
	check(m != NULL);
	exercise(m);
	exercise(m);
	evt_ring_buffer_free(m);
	return 0;
}

#ifdef RB_FUZZ_GEN_MAIN
/*
 * Seed generator:
 *   cc -DRB_FUZZ_GEN_MAIN -D_GNU_SOURCE -Iinclude -I<build>/include \
 *      tests/fuzz/rb-map.c <build>/libevtrace_static.a -lpthread -latomic -o gen
 *   ./gen tests/fuzz/corpus/rb-map
 */
#include <sched.h>
#include <sys/stat.h>

static void dump(struct evt_ring_buffer *rb, const char *dir, const char *name)
{
	int fd = evt_ring_buffer_fd(rb);
	char path[4096];
	struct stat st;
	unsigned char *buf;
	FILE *f;

	if (fstat(fd, &st) < 0 || st.st_size > 65536) {
		fprintf(stderr, "%s: image of %lld bytes\n", name, (long long)st.st_size);
		exit(1);
	}
	buf = malloc((size_t)st.st_size);
	if (!buf || pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		exit(1);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		perror(path);
		exit(1);
	}
	fclose(f);
	free(buf);
}

static struct evt_ring_buffer *mk(unsigned int pages, unsigned int ps, unsigned int flags,
				  int nr_cpus)
{
	struct evt_ring_buffer_opts o = { .size = (size_t)pages * ps, .flags = flags,
					  .page_size = ps, .nr_cpus = nr_cpus };
	struct evt_ring_buffer *rb;

	if (evt_ring_buffer_alloc_opts(&o, &rb) < 0)
		exit(1);
	return rb;
}

static void fill(struct evt_ring_buffer *rb, int n, int maxlen)
{
	unsigned char buf[4096];

	for (int i = 0; i < n; i++) {
		int len = 1 + (i * 53) % maxlen;

		memset(buf, 'A' + i % 26, (size_t)len);
		evt_ring_buffer_write(rb, (unsigned long)len, buf);
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	struct evt_ring_buffer *rb;
	cpu_set_t set;

	/* nr_cpus 1: every event lands in CPU 0 wherever we run */
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	sched_setaffinity(0, sizeof(set), &set);

	rb = mk(2, 256, 0, 1);
	fill(rb, 5, 40);
	dump(rb, dir, "pc-1cpu-few");
	evt_ring_buffer_free(rb);

	rb = mk(4, 256, EVT_RB_FL_OVERWRITE, 1);
	fill(rb, 200, 120);		/* wrapped: overruns, type_len 0 events */
	evt_ring_buffer_consume(rb, 0, NULL, NULL);
	dump(rb, dir, "overwrite-1cpu-wrapped");
	evt_ring_buffer_free(rb);

	rb = mk(2, 256, 0, 2);
	fill(rb, 100, 60);		/* full: drops */
	dump(rb, dir, "pc-2cpu-full");
	evt_ring_buffer_free(rb);

	rb = mk(2, 4096, 0, 1);
	fill(rb, 30, 300);
	for (int i = 0; i < 3; i++)
		evt_ring_buffer_consume(rb, 0, NULL, NULL);	/* read_pos mid-page */
	dump(rb, dir, "pc-1cpu-4k-partial");
	evt_ring_buffer_free(rb);

	rb = mk(2, 256, 0, 1);
	fill(rb, 3, 20);
	evt_ring_buffer_resize(rb, 8 * 256, 0);		/* a second region */
	fill(rb, 10, 20);
	dump(rb, dir, "pc-1cpu-resized");
	evt_ring_buffer_free(rb);
	return 0;
}
#endif
