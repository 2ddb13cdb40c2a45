// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-export: `evtrace export FILE` writes JSON that python3's json module
 * loads (strictly, numbers exact) with one instant event per record: the
 * same time stamps (whole nanoseconds), tids and pids as the ring buffer
 * held, every field's value (checked against what the writers wrote),
 * thread names from the saved cmdlines, strings with quotes, backslashes,
 * control characters and invalid UTF-8 escaped or replaced as python's
 * decoder replaces them; --durations makes B/E events of a begin/end pair;
 * -o writes the same bytes as stdout; two kernel-made files (sched_switch and
 * sched_wakeup; openat enter/exit, exec, exit, with and without --durations); a truncated file
 * (nothing written, the offset on stderr, exit 1); a corrupt page (valid JSON
 * up to it, metadata.error, exit 1); a write error (exit 1); usage errors (2).
 * The checks on the JSON are tests/unit/cmd-export-check.py. SKIP without python3.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"
#define CREATE_TRACE_POINTS
#include "cmd-export-tp.h"

#include "tracedat-util.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif

#define NREQ 5

/* Bytes to escape: quotes, backslash, controls, DEL, valid and invalid UTF-8. */
static const char weird[] = "q\"b\\n\n t\t r\r c\x01\x1f d\x7f e\xc3\xa9 eur\xe2\x82\xac "
			    "emoji\xf0\x9f\x98\x80 bad:\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82|"
			    "\xf4\x90\x80\x80|\xf8|\xe2\x82z|\xf0\x9f\x98 end\xc3";
static const char raw[8] = { 'a', '"', '\x02', '\xff', '\\', '\xc3', '\xa9', 'z' };
/* a comm (15 bytes at most) with a quote, a backslash, a control and a bad byte */
static const char comm[] = "ex\"c\\o\x01m\xfe";

static char *src_path(const char *rel)
{
	const char *slash = strrchr(__FILE__, '/');
	char *p = malloc(1024);

	T_ASSERT(p);
	snprintf(p, 1024, "%.*s%s", slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__, rel);
	return p;
}

static void hex(const void *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
	out[2 * n] = '\0';
}

static void *weird_thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	trace_ex_weird(weird, raw);
	for (int i = 0; i < NREQ; i++) {
		trace_ex_req_begin(i);
		trace_ex_req_end(i);
	}
	trace_ex_proc_exit(3);
	return NULL;
}

/* `sh -c CMD`'s exit status. */
static long fsize(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* Records in @path, as the reader reads them; the file offset of the last one. */
static unsigned int page_size;

static int count_records(const char *path, long long *last_off)
{
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	int n = 0;

	T_ASSERT_OK(evt_tracedat_open(path, &td));
	page_size = evt_tracedat_page_size(td);
	while (evt_tracedat_next(td, &rec) == 1) {
		n++;
		if (last_off)
			*last_off = rec.offset;
	}
	evt_tracedat_close(td);
	return n;
}

/* The ID the file @path gives event @name. */
static unsigned int file_event_id(const char *path, const char *name)
{
	struct evt_tracedat *td;
	unsigned int id = ~0U;

	T_ASSERT_OK(evt_tracedat_open(path, &td));
	for (int i = 0; i < evt_tracedat_nr_events(td); i++)
		if (!strcmp(evt_tracedat_event(td, i)->name, name))
			id = evt_tracedat_event(td, i)->id;
	evt_tracedat_close(td);
	T_ASSERT(id != ~0U);
	return id;
}

int main(void)
{
	char *path, *check, *kfile, exp[256], js[256], js2[256], cut[256], errf[256];
	char whex[2 * sizeof(weird) + 1], rhex[17], chex[2 * sizeof(comm) + 1];
	struct td_rec *recs;
	struct evt_instance *inst;
	long long last_off = 0;
	unsigned int psz;
	pthread_t th;
	int n, nk;
	FILE *f;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	if (t_sh("command -v python3 >/dev/null 2>&1"))
		t_skip("python3 is missing (it checks the JSON)");
	check = src_path("cmd-export-check.py");
	kfile = src_path("../data/tracedat/kernel-sched.dat");

	inst = td_record("cmd-export", NULL);
	T_ASSERT(evt_instance_event_enable(inst, "exapp", NULL, true) == 4);
	T_ASSERT(pthread_create(&th, NULL, weird_thread, NULL) == 0);
	pthread_join(th, NULL);
	n = td_snapshot(inst, &recs);
	path = td_write_tmp(inst, "cmd-export");
	T_ASSERT_EQ(count_records(path, &last_off), n);
	psz = page_size;

	snprintf(exp, sizeof(exp), "%s.expected", path);
	snprintf(js, sizeof(js), "%s.json", path);
	snprintf(js2, sizeof(js2), "%s.2.json", path);
	snprintf(cut, sizeof(cut), "%s.cut", path);
	snprintf(errf, sizeof(errf), "%s.err", path);
	f = fopen(exp, "w");
	T_ASSERT(f);
	for (int i = 0; i < n; i++) {
		struct evt_trace_entry ent;

		memcpy(&ent, recs[i].data, sizeof(ent));
		fprintf(f, "%llu %d %d\n", (unsigned long long)recs[i].ts, ent.common_pid,
			ent.common_tgid);
	}
	fclose(f);
	hex(weird, sizeof(weird) - 1, whex);
	hex(raw, sizeof(raw), rhex);
	hex(comm, sizeof(comm) - 1, chex);

	/* the recording: every record, value and name */
	T_ASSERT_EQ(t_sh("%s export -o %s %s", EVT_TOOL, js, path), 0);
	T_ASSERT_EQ(t_sh("python3 %s app %s %s %d %d %s %s %s %d", check, js, exp, TD_THREADS,
		       TD_PER_THREAD, whex, rhex, chex, NREQ),
		    0);
	/* stdout: the same bytes; --format=perfetto is the default */
	T_ASSERT_EQ(t_sh("%s export --format=perfetto %s > %s", EVT_TOOL, path, js2), 0);
	T_ASSERT_EQ(t_sh("cmp -s %s %s", js, js2), 0);
	/* "-": standard input, a pipe (the same JSON but metadata.source) */
	T_ASSERT_EQ(t_sh("cat %s | %s export - > %s", path, EVT_TOOL, js2), 0);
	T_ASSERT_EQ(t_sh("python3 %s app %s %s %d %d %s %s %s %d", check, js2, exp, TD_THREADS,
		       TD_PER_THREAD, whex, rhex, chex, NREQ), 0);
	/* --durations */
	T_ASSERT_EQ(t_sh("%s export --durations -o %s %s", EVT_TOOL, js2, path), 0);
	T_ASSERT_EQ(t_sh("python3 %s durations %s %d", check, js2, NREQ), 0);

	/* the selection of evtrace report: -e, -c with -e, -F; a filter no event takes */
	{
		unsigned int big = file_event_id(path, "td_big");
		int nbig = 0, nbig0 = 0;

		for (int i = 0; i < n; i++) {
			struct evt_trace_entry ent;

			memcpy(&ent, recs[i].data, sizeof(ent));
			if (ent.common_type == big) {
				nbig++;
				nbig0 += recs[i].cpu == 0;
			}
		}
		T_ASSERT_EQ(t_sh("%s export -e 'tdnet:*' -o %s %s", EVT_TOOL, js2, path), 0);
		T_ASSERT_EQ(t_sh("python3 %s select %s %d %d td_big", check, js2, n, nbig), 0);
		T_ASSERT_EQ(t_sh("%s export -e td_big -c 0 -o %s %s", EVT_TOOL, js2, path), 0);
		T_ASSERT_EQ(t_sh("python3 %s select %s %d %d td_big", check, js2, n, nbig0), 0);
		T_ASSERT_EQ(t_sh("%s export -F 'worker == 1' -o %s %s", EVT_TOOL, js2, path), 0);
		T_ASSERT_EQ(t_sh("python3 %s select %s %d %d td_ints,td_strings,td_arrays,td_big "
			       "worker=1",
			       check, js2, n, TD_PER_THREAD),
			    0);
		T_ASSERT_EQ(t_sh("%s export -F 'nosuch == 1' %s >/dev/null 2>&1", EVT_TOOL, path), 2);
	}

	/* a kernel-made file (sched_switch/sched_wakeup, trace-cmd extract) */
	nk = count_records(kfile, NULL);
	T_ASSERT(nk > 0);
	T_ASSERT_EQ(t_sh("%s export -o %s %s", EVT_TOOL, js2, kfile), 0);
	T_ASSERT_EQ(t_sh("python3 %s kernel %s %d", check, js2, nk), 0);

	/* a kernel file with syscalls (a pointer field, an enter before its exit was enabled),
	 * exec (a __data_loc filename) and exit: instant events, then --durations */
	free(kfile);
	kfile = src_path("../data/tracedat/kernel-openat.dat");
	nk = count_records(kfile, NULL);
	T_ASSERT(nk > 0);
	T_ASSERT_EQ(t_sh("%s export -o %s %s", EVT_TOOL, js2, kfile), 0);
	T_ASSERT_EQ(t_sh("python3 %s openat %s %d 0", check, js2, nk), 0);
	T_ASSERT_EQ(t_sh("%s export --durations -o %s %s", EVT_TOOL, js2, kfile), 0);
	T_ASSERT_EQ(t_sh("python3 %s openat %s %d 1", check, js2, nk), 0);

	/* truncated: the open fails, nothing is written, the offset is named, exit 1 */
	unlink(js2);
	T_ASSERT_EQ(t_sh("head -c 5000 %s > %s", path, cut), 0);
	T_ASSERT_EQ(t_sh("%s export -o %s %s 2>%s", EVT_TOOL, js2, cut, errf), 1);
	T_ASSERT(access(js2, F_OK) != 0);
	T_ASSERT_EQ(t_sh("grep -q 'offset [0-9]' %s", errf), 0);
	T_ASSERT_EQ(t_sh("%s export %s 2>/dev/null > %s", EVT_TOOL, cut, js2), 1);
	T_ASSERT_EQ(fsize(js2), 0);

	/* a corrupt page (the last record's page commits more than a page): the JSON of
	 * the records before it, closed, metadata.error naming the offset; exit 1 */
	{
		long long page = last_off - last_off % psz;
		uint64_t commit = 1 << 20;
		int fd;

		T_ASSERT_EQ(t_sh("cp %s %s", path, cut), 0);
		fd = open(cut, O_WRONLY);
		T_ASSERT(fd >= 0);
		T_ASSERT(pwrite(fd, &commit, 8, page + 8) == 8);
		close(fd);
		T_ASSERT_EQ(t_sh("%s export -o %s %s 2>%s", EVT_TOOL, js2, cut, errf), 1);
		T_ASSERT_EQ(t_sh("grep -q 'offset [0-9]' %s", errf), 0);
		T_ASSERT_EQ(t_sh("python3 %s corrupt %s %d", check, js2, n), 0);
	}

	/* a write error: exit 1 */
	if (access("/dev/full", W_OK) == 0)
		T_ASSERT_EQ(t_sh("%s export %s > /dev/full 2>/dev/null", EVT_TOOL, path), 1);
	/* usage */
	T_ASSERT_EQ(t_sh("%s export --format=xml %s 2>/dev/null", EVT_TOOL, path), 2);
	T_ASSERT_EQ(t_sh("%s export %s %s 2>/dev/null", EVT_TOOL, path, path), 2);
	T_ASSERT_EQ(t_sh("%s export --help | grep -q 'usage: evtrace export'", EVT_TOOL), 0);
	T_ASSERT_EQ(t_sh("%s export /nonexistent.dat 2>/dev/null", EVT_TOOL), 1);

	unlink(exp);
	unlink(js);
	unlink(js2);
	unlink(cut);
	unlink(errf);
	unlink(path);
	free(path);
	free(check);
	free(kfile);
	free(recs);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
