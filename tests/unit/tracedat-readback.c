// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-readback: a multi-threaded recording written as trace.dat and
 * read back by our reader gives the same records (CPU, time stamp, bytes)
 * in per-CPU order, merged by time stamp, each with its event format,
 * and evt_tracedat_print() prints the lines of the instance's `trace`;
 * a file of an empty buffer has no records.
 */
#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

int main(void)
{
	struct evt_instance *inst;
	struct evt_tracedat *td;
	struct evt_tracedat_record rec;
	struct td_rec *snap;
	char **lines, **got, lbuf[1024];
	int nsnap, nlines, n = 0, ret, *pos, *start;
	uint64_t last_ts = 0;
	char *path;
	struct evt_seq s;

	prctl(PR_SET_NAME, "td-readback", 0, 0, 0);
	inst = td_record("readback", NULL);
	nsnap = td_snapshot(inst, &snap);
	T_ASSERT_EQ(nsnap, TD_THREADS * TD_PER_THREAD + 1);
	nlines = td_trace_lines(inst, &lines);
	T_ASSERT_EQ(nlines, nsnap);
	path = td_write_tmp(inst, "readback");
	/* the write consumed the buffer */
	T_ASSERT(evt_ring_buffer_empty(evt_instance_ring_buffer(inst)));

	ret = evt_tracedat_open(path, &td);
	if (ret)
		t_fail("open: %d %s", ret, evt_error_detail());
	T_ASSERT_EQ(evt_tracedat_nr_cpus(td), evt_instance_nr_cpus(inst));
	T_ASSERT_EQ(evt_tracedat_page_size(td), 4096);
	T_ASSERT(!strcmp(evt_tracedat_clock(td), evt_instance_clock(inst)));
	T_ASSERT(evt_tracedat_nr_events(td) >= 5);
	{
		const char *names[] = { "td_ints", "td_strings", "td_arrays", "td_big" };

		for (int i = 0; i < 4; i++) {
			bool found = false;

			for (int k = 0; k < evt_tracedat_nr_events(td); k++) {
				const struct evt_tracedat_event *e = evt_tracedat_event(td, k);

				if (!strcmp(e->name, names[i])) {
					found = true;
					T_ASSERT(!strcmp(e->system, i == 3 ? "tdnet" : "tdapp"));
					T_ASSERT_EQ(e->nr_common, EVT_NR_COMMON_FIELDS);
					T_ASSERT(e->print_fmt && e->format);
				}
			}
			T_ASSERT(found);
		}
	}

	/* per CPU, the records come in the order and with the bytes the buffer had */
	pos = calloc((size_t)evt_tracedat_nr_cpus(td), sizeof(*pos));
	got = calloc((size_t)nsnap, sizeof(*got));
	start = calloc((size_t)evt_tracedat_nr_cpus(td), sizeof(*start));
	T_ASSERT(pos && got && start);
	for (int k = nsnap - 1; k >= 0; k--)
		start[snap[k].cpu] = k;
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		int k;

		T_ASSERT(n < nsnap);
		T_ASSERT(rec.ts >= last_ts);
		last_ts = rec.ts;
		/* the next snapshot record of this CPU (the snapshot is in CPU order) */
		T_ASSERT(rec.cpu >= 0 && rec.cpu < evt_tracedat_nr_cpus(td));
		k = start[rec.cpu] + pos[rec.cpu]++;
		T_ASSERT(k < nsnap && snap[k].cpu == rec.cpu);
		T_ASSERT_EQ(rec.ts, snap[k].ts);
		T_ASSERT_EQ(rec.size, snap[k].len);
		T_ASSERT(!memcmp(rec.data, snap[k].data, rec.size));
		T_ASSERT(rec.event);
		T_ASSERT(rec.offset > 0);
		evt_seq_init(&s, lbuf, sizeof(lbuf));
		T_ASSERT_OK(evt_tracedat_print(td, &rec, &s));
		T_ASSERT(s.len && s.buf[s.len - 1] == '\n');
		s.buf[s.len - 1] = '\0';
		got[n++] = strdup(s.buf);
	}
	if (ret < 0)
		t_fail("next: %d %s", ret, evt_error_detail());
	T_ASSERT_EQ(n, nsnap);

	/* the same lines as `trace` (ties in time may order CPUs differently) */
	qsort(lines, (size_t)nlines, sizeof(*lines), td_strcmp);
	qsort(got, (size_t)n, sizeof(*got), td_strcmp);
	for (int i = 0; i < n; i++)
		if (strcmp(lines[i], got[i]))
			t_fail("line %d differs:\n  trace:    [%s]\n  tracedat: [%s]", i, lines[i],
			       got[i]);

	/* rewind gives it all again */
	evt_tracedat_rewind(td);
	for (n = 0; evt_tracedat_next(td, &rec) == 1; n++)
		;
	T_ASSERT_EQ(n, nsnap);
	evt_tracedat_close(td);
	td_free_lines(lines, nlines);
	td_free_lines(got, nsnap);
	free(pos);
	free(start);
	free(snap);
	if (!getenv("TRACEDAT_KEEP"))
		unlink(path);
	free(path);

	/* the instance is empty now: a file with every CPU empty reads as no records */
	path = td_write_tmp(inst, "readback-empty");
	ret = evt_tracedat_open(path, &td);
	if (ret)
		t_fail("open empty: %d %s", ret, evt_error_detail());
	T_ASSERT_EQ(evt_tracedat_next(td, &rec), 0);
	evt_tracedat_close(td);
	unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
