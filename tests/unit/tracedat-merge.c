// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-merge: evt_tracedat_write_merged() makes one trace.dat of two
 * sources whose event ids differ: the same event (system, name, format)
 * takes the first source's id, an event whose id another one has gets a
 * new id above all, and the second source's records have their
 * common_type rewritten, so that the reader finds each record's event; the
 * sources' CPUs follow each other; the cmdlines are the first source's,
 * then names of threads not named yet; no source gives one empty CPU; a
 * failing page read and bad arguments are errors. The records' fields read
 * back (evt_tracedat_field_read()) and a filter compiled for an event
 * (evt_tracedat_filter_*) passes its records by value.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>
#include <evtrace/tracedat.h>

#include "helpers.h"

#define PAGE 4096

static char fmt_text[4][512];

/* A format text of event @name with ID @id and one int field @field. */
static struct evt_tracedat_format fmt(int slot, const char *sys, const char *name,
				      unsigned int id, const char *field)
{
	int n = snprintf(fmt_text[slot], sizeof(fmt_text[slot]),
			 "name: %s\nID: %u\nformat:\n"
			 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
			 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
			 "\tsigned:0;\n"
			 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			 "\tfield:int %s;\toffset:8;\tsize:4;\tsigned:1;\n\n"
			 "print fmt: \"%s=%%d\", REC->%s\n",
			 name, id, field, field, field);

	return (struct evt_tracedat_format){ sys, name, fmt_text[slot], (size_t)n };
}

/* One page holding records of the given common_types (common_pid @pid, value i). */
static void make_page(unsigned char *page, const unsigned short *types, int n, int pid)
{
	struct evt_ring_buffer_opts o = { .size = 4 * PAGE, .page_size = PAGE, .nr_cpus = 1 };
	struct evt_ring_buffer *rb;

	T_ASSERT_OK(evt_ring_buffer_alloc_opts(&o, &rb));
	for (int i = 0; i < n; i++) {
		unsigned char rec[12] = { 0 };

		memcpy(rec, &types[i], 2);
		memcpy(rec + 4, &pid, 4);
		memcpy(rec + 8, &i, 4);
		T_ASSERT_OK(evt_ring_buffer_write(rb, sizeof(rec), rec));
	}
	T_ASSERT(evt_ring_buffer_read_page(rb, 0, page, PAGE) > 0);
	evt_ring_buffer_free(rb);
}

static unsigned char pages[2][PAGE];
static int fail_read;

static int read_page(void *ctx, unsigned int src, unsigned int cpu, uint64_t idx, void *buf)
{
	(void)ctx;
	T_ASSERT(src < 2 && cpu == 0 && idx == 0);
	if (fail_read)
		return -EIO;
	memcpy(buf, pages[src], PAGE);
	return 0;
}

static struct evt_tracedat *open_fd(int fd)
{
	struct evt_tracedat *td;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (evt_tracedat_open(path, &td))
		t_fail("open: %s", evt_error_detail());
	return td;
}

/* @rec's own field is @value; "FIELD == 0" passes it only when @value is 0. */
static void check_fields(struct evt_tracedat *td, const struct evt_tracedat_record *rec,
			 int value)
{
	const struct evt_field *fl = &rec->event->fields[rec->event->nr_common];
	struct evt_tracedat_filter *f = NULL;
	struct evt_field out = *fl;
	unsigned long long v;
	char expr[64];

	(void)td;
	T_ASSERT_OK(evt_tracedat_field_read(rec, fl, &v));
	T_ASSERT_EQ((long long)v, value);
	T_ASSERT_OK(evt_tracedat_field_read(rec, &rec->event->fields[0], &v));
	T_ASSERT(v >= 40); /* common_type, rewritten where it had to be */
	out.offset = (uint16_t)rec->size;
	T_ASSERT_EQ(evt_tracedat_field_read(rec, &out, &v), -EBADMSG);
	snprintf(expr, sizeof(expr), "%s == 0", fl->name);
	T_ASSERT_OK(evt_tracedat_filter_compile(rec->event, expr, &f));
	T_ASSERT_EQ(evt_tracedat_filter_match(f, rec), value == 0);
	evt_tracedat_filter_free(f);
	f = NULL;
	T_ASSERT(evt_tracedat_filter_compile(rec->event, "nosuchfield == 1", &f) < 0);
	T_ASSERT(!f && strstr(evt_error_detail(), "(at "));
}

static void check_merged(int fd, const struct evt_tracedat_merge_stats *st)
{
	/* file CPU, event, value of each record, in the reader's order (one time stamp each) */
	static const char *want_name[] = { "ev1", "ev2", "ev1", "ev3" };
	struct evt_tracedat *td = open_fd(fd);
	struct evt_tracedat_record rec;
	int n = 0, cpu_seen[2] = { 0, 0 };

	T_ASSERT_EQ(evt_tracedat_nr_cpus(td), 2);
	T_ASSERT_EQ(evt_tracedat_nr_events(td), 3);
	T_ASSERT(evt_tracedat_event_by_id(td, 40) &&
		 !strcmp(evt_tracedat_event_by_id(td, 40)->name, "ev1"));
	T_ASSERT(!strcmp(evt_tracedat_event_by_id(td, 41)->name, "ev2"));
	/* ev3 had id 40, ev1's: a new one above every id (50 was B's highest) */
	T_ASSERT(evt_tracedat_event_by_id(td, 51) &&
		 !strcmp(evt_tracedat_event_by_id(td, 51)->name, "ev3"));
	T_ASSERT(!evt_tracedat_event_by_id(td, 50));
	T_ASSERT(!strcmp(evt_tracedat_comm(td, 100), "alpha"));
	T_ASSERT(!strcmp(evt_tracedat_comm(td, 200), "beta"));
	while (evt_tracedat_next(td, &rec) == 1) {
		T_ASSERT(rec.event);
		T_ASSERT(rec.cpu == 0 || rec.cpu == 1);
		/* per CPU in order: CPU 0 is A's (ev1, ev2), CPU 1 is B's (ev1, ev3) */
		T_ASSERT(!strcmp(rec.event->name, want_name[rec.cpu * 2 + cpu_seen[rec.cpu]]));
		check_fields(td, &rec, cpu_seen[rec.cpu]);
		cpu_seen[rec.cpu]++;
		n++;
	}
	T_ASSERT_EQ(n, 4);
	T_ASSERT_EQ(st->records, 4);
	T_ASSERT_EQ(st->pages, 2);
	T_ASSERT_EQ(st->nr_cpus, 2);
	T_ASSERT(st->meta_len > 0 && st->data_at % PAGE == 0 && st->data_at > st->meta_len);
	evt_tracedat_close(td);
}

int main(void)
{
	static const unsigned short ta[] = { 40, 41 }, tb[] = { 50, 40 };
	struct evt_tracedat_format fa[2], fb[2];
	struct evt_tracedat_source src[2];
	struct evt_tracedat_merge m = { .page_size = PAGE, .clock = "local", .read_page = read_page };
	struct evt_tracedat_merge_stats st;
	uint64_t one = 1;
	long long n;
	int fd;

	fa[0] = fmt(0, "sysa", "ev1", 40, "v");
	fa[1] = fmt(1, "sysb", "ev2", 41, "w");
	fb[0] = fmt(2, "sysa", "ev1", 50, "v"); /* the same event as A's 40 */
	fb[1] = fmt(3, "sysc", "ev3", 40, "x"); /* another event with A's id 40 */
	make_page(pages[0], ta, 2, 100);
	make_page(pages[1], tb, 2, 200);
	src[0] = (struct evt_tracedat_source){ 1, &one, fa, 2, "100 alpha\n", NULL };
	/* B's 100 is named by A already: A's name stays */
	src[1] = (struct evt_tracedat_source){ 1, &one, fb, 2, NULL, "100 other\n200 beta\n" };
	m.sources = src;
	m.nr_sources = 2;

	fd = memfd_create("merge", MFD_CLOEXEC);
	T_ASSERT(fd >= 0);
	n = evt_tracedat_write_merged(&m, fd, &st);
	T_ASSERT_EQ(n, (long long)st.data_at + 2 * PAGE);
	check_merged(fd, &st);
	close(fd);

	/* no source: a valid file with one empty CPU */
	m.nr_sources = 0;
	fd = memfd_create("merge", MFD_CLOEXEC);
	T_ASSERT(evt_tracedat_write_merged(&m, fd, &st) > 0);
	{
		struct evt_tracedat *td = open_fd(fd);
		struct evt_tracedat_record rec;

		T_ASSERT_EQ(evt_tracedat_nr_cpus(td), 1);
		T_ASSERT_EQ(evt_tracedat_next(td, &rec), 0);
		evt_tracedat_close(td);
	}
	close(fd);

	/* a failing read is the error; bad arguments */
	m.nr_sources = 2;
	fail_read = 1;
	fd = memfd_create("merge", MFD_CLOEXEC);
	T_ASSERT_EQ(evt_tracedat_write_merged(&m, fd, NULL), -EIO);
	m.page_size = 1000;
	T_ASSERT_EQ(evt_tracedat_write_merged(&m, fd, NULL), -EINVAL);
	m.page_size = PAGE;
	T_ASSERT_EQ(evt_tracedat_write_merged(NULL, fd, NULL), -EINVAL);
	T_ASSERT_EQ(evt_tracedat_write_merged(&m, -1, NULL), -EINVAL);
	close(fd);
	printf("tracedat-merge: ok\n");
	return 0;
}
