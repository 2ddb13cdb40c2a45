// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-kshark: KernelShark's library (libkshark 2.x, loaded with
 * dlopen: the build does not need it) reads our trace.dat files as we wrote
 * them: as many entries as records, each with the CPU, time stamp, pid and
 * event id of the record, CPUs merged by time, the event's "system/name",
 * the comm we saved for the pid, the marker as "tracing_mark_write: text"; with
 * 4 threads on every CPU, with the counter clock (raw time stamps), with
 * all records on one CPU (the others empty), with lost events (libkshark
 * adds one "missed_events" entry before each record whose page says events
 * were lost), with no records at all, with gaps that need time-extend
 * entries, and with the stacktrace trigger's ftrace:kernel_stack records
 * (their frames in the info, the empty slots not named tracing_mark_write:
 * our kallsyms symbol is not at 0).
 * SKIP (77) when libkshark.so.2 is not installed (Debian: kernelshark).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include <evtrace/tracefs.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

/*
 * The part of libkshark 2.x's public API (libkshark.h of KernelShark 2.x)
 * used here. Debian ships the library without its headers, so the
 * declarations are ours, from the 2.x header and checked against 2.2.1's
 * symbols and against the values below (a layout mismatch fails the test).
 * struct kshark_entry: 40 bytes; libkshark allocates each one and the
 * array of pointers, the caller frees both. kshark_get_task(),
 * kshark_get_event_name() and kshark_get_info() return malloc'd strings.
 */
struct ks_entry {
	struct ks_entry *next; /* the next entry of the same CPU */
	uint16_t visible;
	int16_t stream_id;
	int16_t event_id; /* common_type; < 0 for libkshark's own entries */
	int16_t cpu;
	int32_t pid;
	int64_t offset; /* file offset of the record */
	int64_t ts;
};
_Static_assert(sizeof(struct ks_entry) == 40, "struct kshark_entry of libkshark 2.x");

#define KS_EVENT_OVERFLOW (-EOVERFLOW) /* libkshark's "missed_events" entries */

static struct {
	bool (*instance)(void **ctx);
	int (*open)(void *ctx, const char *file);
	ssize_t (*load_entries)(void *ctx, int sd, struct ks_entry ***rows);
	char *(*get_task)(const struct ks_entry *e);
	char *(*get_event_name)(const struct ks_entry *e);
	char *(*get_info)(const struct ks_entry *e);
	int (*close)(void *ctx, int sd);
	void (*free)(void *ctx);
	void *ctx;
} ks;

/*
 * LeakSanitizer (ASan builds): what KernelShark's libraries keep until exit
 * is theirs. Their allocations through glibc (sscanf's %ms) need the slow
 * unwinder to show who called.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libkshark.so\nleak:libtracecmd.so\nleak:libtraceevent.so\n"
	       "leak:libtracefs.so\n";
}

static void ks_load_library(void)
{
	static const char *const names[] = { "libkshark.so.2", "libkshark.so.2.2.1" };
	void *h = NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		t_skip("KernelShark's libkshark.so.2 is not installed (%s); "
		       "apt-get install kernelshark",
		       dlerror());
#define KS_SYM(field, name)                                                         \
	do {                                                                        \
		*(void **)&ks.field = dlsym(h, name);                               \
		if (!ks.field)                                                      \
			t_skip("libkshark.so.2 without %s: not the 2.x API", name); \
	} while (0)
	KS_SYM(instance, "kshark_instance");
	KS_SYM(open, "kshark_open");
	KS_SYM(load_entries, "kshark_load_entries");
	KS_SYM(get_task, "kshark_get_task");
	KS_SYM(get_event_name, "kshark_get_event_name");
	KS_SYM(get_info, "kshark_get_info");
	KS_SYM(close, "kshark_close");
	KS_SYM(free, "kshark_free");
#undef KS_SYM
	if (!ks.instance(&ks.ctx) || !ks.ctx)
		t_fail("kshark_instance failed");
	/* the library stays loaded: its threads and atexit handlers may use it */
}

/* What a run recorded, before it was written: per CPU in order. */
struct ks_expect {
	struct td_rec *recs;
	int nrecs;
	bool has_marker; /* worker 0 wrote a trace_marker record */
};

/* Record TD_THREADS workers, pinned round-robin or all to @one_cpu (>= 0), in a fresh
 * instance; *@x gets its records. */
static struct evt_instance *ks_record(const char *what, const char *clock, int one_cpu,
				      struct ks_expect *x)
{
	struct evt_instance *inst;
	char name[64];

	snprintf(name, sizeof(name), "kshark-%s", what);
	inst = td_record_on(name, clock, one_cpu);
	x->nrecs = td_snapshot(inst, &x->recs);
	T_ASSERT_EQ(x->nrecs, TD_THREADS * TD_PER_THREAD + 1);
	return inst;
}

static int16_t rec_type(const struct td_rec *r)
{
	uint16_t t;

	memcpy(&t, r->data, sizeof(t)); /* common_type */
	return (int16_t)t;
}

static int32_t rec_pid(const struct td_rec *r)
{
	int32_t pid;

	memcpy(&pid, r->data + 4, sizeof(pid)); /* common_pid */
	return pid;
}

/*
 * Open @path with libkshark and check its entries against @x (records per
 * CPU in order) and our reader's view of the same file (names, comms,
 * lost-event marks). @x NULL: compare with our reader's records instead.
 * @want_stacks: the number of ftrace:kernel_stack records (-1: not checked).
 */
static void ks_check(const char *what, const char *path, const struct ks_expect *x, int want_stacks)
{
	struct evt_tracedat *td;
	struct evt_tracedat_record rec;
	struct td_rec *recs = x ? x->recs : NULL;
	int nrecs = x ? x->nrecs : 0, nmissed = 0, ncpus, *start, *pos;
	struct ks_entry **rows = NULL;
	ssize_t n;
	int sd, ret, markers = 0, stacks = 0, seen = 0, missed_seen = 0;
	int64_t last_ts = 0;

	/* our reader: the records (when not given), which ones follow lost events */
	ret = evt_tracedat_open(path, &td);
	if (ret)
		t_fail("%s: our reader: %d %s", what, ret, evt_error_detail());
	ncpus = evt_tracedat_nr_cpus(td);
	if (!x) {
		int cap = 64;

		recs = calloc((size_t)cap, sizeof(*recs));
		T_ASSERT(recs);
		/* per CPU in order: our reader merges, so sort back by CPU (stable) */
		for (int cpu = 0; cpu < ncpus; cpu++) {
			evt_tracedat_rewind(td);
			while ((ret = evt_tracedat_next(td, &rec)) == 1) {
				if (rec.cpu != cpu)
					continue;
				if (nrecs == cap) {
					cap *= 2;
					recs = realloc(recs, (size_t)cap * sizeof(*recs));
					T_ASSERT(recs);
				}
				T_ASSERT(rec.size <= sizeof(recs[nrecs].data));
				recs[nrecs].cpu = rec.cpu;
				recs[nrecs].ts = rec.ts;
				recs[nrecs].len = rec.size;
				memcpy(recs[nrecs].data, rec.data, rec.size);
				nrecs++;
				if (rec.missed)
					nmissed++;
			}
			T_ASSERT_EQ(ret, 0);
		}
	}

	sd = ks.open(ks.ctx, path);
	if (sd < 0)
		t_fail("%s: kshark_open(%s): %d", what, path, sd);
	n = ks.load_entries(ks.ctx, sd, &rows);
	if (n < 0)
		t_fail("%s: kshark_load_entries: %zd", what, n);
	printf("%s: %zd libkshark entries, %d records written, %d after lost events\n", what, n,
	       nrecs, nmissed);
	if (n != nrecs + nmissed)
		t_fail("%s: libkshark has %zd entries, we wrote %d records (+%d lost marks)", what,
		       n, nrecs, nmissed);

	start = calloc((size_t)ncpus + 1, sizeof(*start));
	pos = calloc((size_t)ncpus, sizeof(*pos));
	T_ASSERT(start && pos);
	for (int k = nrecs - 1; k >= 0; k--)
		start[recs[k].cpu] = k;
	for (ssize_t i = 0; i < n; i++) {
		const struct ks_entry *e = rows[i];
		const struct evt_tracedat_event *ev;
		const struct td_rec *r;
		char want[128], *s;
		int k;

		if (e->cpu < 0 || e->cpu >= ncpus)
			t_fail("%s: entry %zd: CPU %d of %d", what, i, e->cpu, ncpus);
		if (e->ts < last_ts)
			t_fail("%s: entry %zd: time %lld before %lld", what, i, (long long)e->ts,
			       (long long)last_ts);
		last_ts = e->ts;
		if (e->event_id == KS_EVENT_OVERFLOW) {
			/* libkshark's mark before a record that follows lost events */
			s = ks.get_event_name(e);
			T_ASSERT(s && !strcmp(s, "missed_events"));
			free(s);
			missed_seen++;
			continue;
		}
		k = start[e->cpu] + pos[e->cpu]++;
		if (k >= nrecs || recs[k].cpu != e->cpu)
			t_fail("%s: entry %zd: more entries on CPU %d than records", what, i,
			       e->cpu);
		r = &recs[k];
		if (e->ts < 0 || (uint64_t)e->ts != r->ts || e->pid != rec_pid(r) ||
		    e->event_id != rec_type(r))
			t_fail("%s: entry %zd (CPU %d): ts %lld pid %d id %d; wrote ts %llu pid "
			       "%d id %d",
			       what, i, e->cpu, (long long)e->ts, e->pid, e->event_id,
			       (unsigned long long)r->ts, rec_pid(r), rec_type(r));
		seen++;

		ev = evt_tracedat_event_by_id(td, (unsigned int)rec_type(r));
		T_ASSERT(ev);
		snprintf(want, sizeof(want), "%s/%s", ev->system, ev->name);
		s = ks.get_event_name(e);
		if (!s || strcmp(s, want))
			t_fail("%s: entry %zd: event [%s], want [%s]", what, i, s ? s : "(null)",
			       want);
		free(s);
		s = ks.get_task(e);
		if (!s || strcmp(s, evt_tracedat_comm(td, e->pid)))
			t_fail("%s: entry %zd: task [%s], want [%s]", what, i, s ? s : "(null)",
			       evt_tracedat_comm(td, e->pid));
		free(s);
		if (!strcmp(want, "ftrace/print")) {
			s = ks.get_info(e);
			/* its ip is the file's one kallsyms symbol, as the kernel's is */
			if (!s || strncmp(s, "tracing_mark_write: half way there", 34))
				t_fail("%s: marker info [%s]", what, s ? s : "(null)");
			free(s);
			markers++;
		} else if (!strcmp(want, "ftrace/kernel_stack")) {
			/* a stacktrace trigger's record: libtraceevent prints the frames */
			s = ks.get_info(e);
			if (getenv("KSHARK_VERBOSE"))
				printf("%s: stack info [%s]\n", what, s ? s : "(null)");
			/* the empty slots (0) are no symbol: trace_marker's ip is not 0 */
			if (!s || !strstr(s, "=>") || strstr(s, "tracing_mark_write"))
				t_fail("%s: entry %zd: stack info [%s]", what, i, s ? s : "(null)");
			free(s);
			stacks++;
		} else if (i % 97 == 0) {
			/* a sample of the others: the print format's fields come out */
			s = ks.get_info(e);
			if (!s || !strstr(s, "worker="))
				t_fail("%s: entry %zd: info [%s]", what, i, s ? s : "(null)");
			free(s);
		}
	}
	T_ASSERT_EQ(seen, nrecs);
	T_ASSERT_EQ(missed_seen, nmissed);
	if (x && x->has_marker)
		T_ASSERT_EQ(markers, 1);
	if (want_stacks >= 0)
		T_ASSERT_EQ(stacks, want_stacks);
	for (ssize_t i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
	ks.close(ks.ctx, sd);
	evt_tracedat_close(td);
	free(start);
	free(pos);
	if (!x)
		free(recs);
}

static void ks_run(const char *what, const char *clock, int one_cpu)
{
	struct ks_expect x = { .has_marker = true };
	struct evt_instance *inst = ks_record(what, clock, one_cpu, &x);
	char *path = td_write_tmp(inst, what);

	ks_check(what, path, &x, 0);
	if (!getenv("TRACEDAT_KEEP"))
		unlink(path);
	free(path);
	free(x.recs);
	T_ASSERT_OK(evt_instance_destroy(inst));
}

int main(void)
{
	struct evt_instance *inst = NULL;
	char name[64], *path;
	int ncpus = t_nr_cpus();

	ks_load_library();
	prctl(PR_SET_NAME, "td-kshark", 0, 0, 0);

	/* 4 threads over every CPU; the counter clock; everything on the last CPU */
	ks_run("kshark-cpus", NULL, -1);
	ks_run("kshark-counter", "counter", -1);
	ks_run("kshark-onecpu", NULL, ncpus - 1);

	/* lost events: an overwriting 8 KB buffer on CPU 0 */
	snprintf(name, sizeof(name), "tracedat-kshark-lost-%d", (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT_OK(evt_instance_resize_kb(inst, -1, 8));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", "td_ints", true) == 1);
	t_pin_to_cpu(0);
	for (int i = 0; i < 5000; i++)
		trace_td_ints(i % 7, i);
	t_unpin();
	path = td_write_tmp(inst, "kshark-lost");
	ks_check("kshark-lost", path, NULL, 0);
	if (!getenv("TRACEDAT_KEEP"))
		unlink(path);
	free(path);

	/* the buffer is empty now: a file with no records */
	path = td_write_tmp(inst, "kshark-empty");
	ks_check("kshark-empty", path, NULL, 0);
	unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));

	/* gaps over 2^27 ns between records: time-extend entries in the pages */
	snprintf(name, sizeof(name), "tracedat-kshark-extend-%d", (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", "td_ints", true) == 1);
	for (int i = 0; i < 3; i++) {
		trace_td_ints(i, i);
		usleep(150 * 1000); /* > 134.2 ms: the next delta needs an extend */
	}
	path = td_write_tmp(inst, "kshark-extend");
	{
		struct evt_tracedat_record rec;
		struct evt_tracedat *td;
		uint64_t prev = 0;
		int n = 0;

		T_ASSERT_OK(evt_tracedat_open(path, &td));
		for (; evt_tracedat_next(td, &rec) == 1; n++, prev = rec.ts)
			T_ASSERT(!n || rec.ts - prev > (1ULL << 27));
		T_ASSERT_EQ(n, 3);
		evt_tracedat_close(td);
	}
	ks_check("kshark-extend", path, NULL, 0);
	if (!getenv("TRACEDAT_KEEP"))
		unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));

	/* the stacktrace trigger's ftrace:kernel_stack records (3 of 10 events) */
	snprintf(name, sizeof(name), "tracedat-kshark-stack-%d", (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", "td_ints", true) == 1);
	T_ASSERT_EQ(evt_tracefs_write(inst, "events/tdapp/td_ints/trigger", "stacktrace:3\n", 13,
				      EVT_TRACEFS_APPEND),
		    13);
	for (int i = 0; i < 10; i++)
		trace_td_ints(i, i);
	path = td_write_tmp(inst, "kshark-stack");
	ks_check("kshark-stack", path, NULL, 3);
	if (!getenv("TRACEDAT_KEEP"))
		unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));

	ks.free(ks.ctx);
	return T_PASS;
}
