// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-diff: the differential test of the filter compiler against the kernel.
 *
 * The kernel's answers for a corpus of expressions (tests/data/filter-diff/
 * corpus.tsv, made by gen.py with this program's --record mode) are replayed
 * against filter_compile()/filter_match(): for each expression, accepted or
 * rejected with the same errno, the same `filter` file text (expression,
 * caret, parse_error), the same error_log message and caret, and for
 * accepted ones the same records passing. The records are those of
 * tests/data/filter-diff/records, laid out as the kernel's uprobe event
 * (tests/data/filter-diff/format) laid them out.
 *
 * Live part (root and tracefs only; skipped otherwise, never the corpus):
 * the kernel is asked again, now: a uprobe on filt_probe() of this very
 * program, enabled in an instance of our own, a child process that calls
 * filt_probe() once per record, and each expression written to the
 * instance's filter file. Differences fail the test when the kernel is the
 * one that made the corpus, and are only reported on another kernel.
 *
 *   filter-diff                 corpus, then live (when possible)
 *   filter-diff --record FILE   ask the kernel about each expression of FILE
 *                               (one escaped expression a line), print corpus.tsv
 *   FILTER_DIFF_DIR=dir         where the data is (default: next to this source)
 *   FILTER_DIFF_LIVE=0          no live part
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter/filter.h"
#include "helpers.h"

#define TRACEFS "/sys/kernel/tracing"

/* ---- the traced function and its records -------------------------------------------------- */

struct vals {
	uint32_t id;		/* 0 */
	uint8_t a8;		/* 4 */
	int8_t b8;		/* 5 */
	uint16_t a16;		/* 6 */
	int16_t b16;		/* 8 */
	uint16_t pad;		/* 10 */
	uint32_t a32;		/* 12 */
	int32_t b32;		/* 16 */
	uint32_t pad2;		/* 20 */
	uint64_t a64;		/* 24 */
	int64_t b64;		/* 32 */
	char name[16];		/* 40 */
	const char *str;	/* 56 */
	const char *ustr;	/* 64 */
	uint64_t x;		/* 72 */
};

/* The uprobe's arguments: name, fetch type, offset in struct vals (%di). */
static const struct parg {
	const char *name;
	const char *type;
	int off;
} pargs[] = {
	{ "id", "u32", 0 },	    { "a8", "u8", 4 },	       { "b8", "s8", 5 },
	{ "a16", "u16", 6 },	    { "b16", "s16", 8 },       { "a32", "u32", 12 },
	{ "b32", "s32", 16 },	    { "a64", "u64", 24 },      { "b64", "s64", 32 },
	{ "name", "char[16]", 40 }, { "arr", "u8[4]", 40 },    { "c", "char", 40 },
	{ "x", "x64", 72 },	    { "h16", "x16", 6 },       { "str", "string", 56 },
	{ "ustr", "ustring", 64 },
};
#define NR_PARGS (sizeof(pargs) / sizeof(pargs[0]))

__attribute__((noinline, used)) void filt_probe(volatile struct vals *v)
{
	__asm__ volatile("" : : "r"(v) : "memory");
}

#define MAX_RECS 64
static struct vals recs[MAX_RECS];
static int nr_recs;

/*
 * Two suites. S_UPROBE: the uprobe on filt_probe(), records = recs[]. S_RENAME:
 * the kernel's task/task_rename, fired by prctl(PR_SET_NAME, names[i]): the only
 * kernel event whose char[16] fields (oldcomm, newcomm) we choose, for the
 * static strings the uprobe cannot give. Record i: oldcomm = the name before
 * (names[i - 1], "filt-target" for the first), newcomm = names[i].
 */
enum { S_UPROBE, S_RENAME, NR_SUITES };
static int suite;
static const char *const suite_name[] = { "uprobe", "task_rename" };
static const char *const suite_corpus[] = { "corpus.tsv", "corpus-rename.tsv" };
static char names[MAX_RECS][16];
static int nr_names;

static int nr_records(void)
{
	return suite == S_RENAME ? nr_names : nr_recs;
}

/* The record-independent common values, as the kernel filled them in. */
struct meta {
	long pid;
	long type;
	long flags;
	long preempt;
	uint64_t ip;
	int cpu;
	char comm[17];
	long oom;
};

/* ---- escaping (the corpus is one line per expression, tab-separated) ------------------------ */

static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static char *unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 >= n) {
			*o++ = s[i];
			continue;
		}
		i++;
		switch (s[i]) {
		case 't': *o++ = '\t'; break;
		case 'n': *o++ = '\n'; break;
		case 'x': {
			unsigned int c = 0;

			if (i + 2 < n + 0 + 1 && sscanf(s + i + 1, "%2x", &c) == 1)
				i += 2;
			*o++ = (char)c;
			break;
		}
		default: *o++ = s[i]; break;
		}
	}
	*o = 0;
	return out;
}

static char *unhex(const char *s)
{
	size_t n = strlen(s) / 2;
	char *out = calloc(1, n + 1);

	for (size_t i = 0; i < n; i++)
		sscanf(s + 2 * i, "%2hhx", (unsigned char *)&out[i]);
	return out;
}

static char data_dir[PATH_MAX];

static FILE *data_open(const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", data_dir, name);
	return fopen(path, "r");
}

/* records: "id a8 b8 a16 b16 a32 b32 a64 b64 x(hex) name(hex) str(hex) ustr(hex)" */
static int load_records(void)
{
	FILE *f = data_open("records");
	char line[4096];

	if (!f)
		return -1;
	while (nr_recs < MAX_RECS && fgets(line, sizeof(line), f)) {
		char name[64], str[1024], ustr[1024];
		struct vals *v = &recs[nr_recs];
		char *nm;

		if (line[0] == '#')
			continue;
		if (sscanf(line,
			   "%" SCNu32 " %" SCNu8 " %" SCNd8 " %" SCNu16 " %" SCNd16 " %" SCNu32
			   " %" SCNd32 " %" SCNu64 " %" SCNd64 " %" SCNx64 " %63s %1023s %1023s",
			   &v->id, &v->a8, &v->b8, &v->a16, &v->b16, &v->a32, &v->b32, &v->a64,
			   &v->b64, &v->x, name, str, ustr) != 13)
			continue;
		nm = unhex(!strcmp(name, "-") ? "" : name);
		memcpy(v->name, nm, 16);
		free(nm);
		v->str = unhex(!strcmp(str, "-") ? "" : str);
		v->ustr = unhex(!strcmp(ustr, "-") ? "" : ustr);
		nr_recs++;
	}
	fclose(f);
	/* rename-names: one name a line, hex (at most 15 bytes) */
	f = data_open("rename-names");
	while (f && nr_names < MAX_RECS && fgets(line, sizeof(line), f)) {
		char *nm;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		nm = unhex(line);
		strncpy(names[nr_names++], nm, 15);
		free(nm);
	}
	if (f)
		fclose(f);
	return nr_recs && nr_names ? 0 : -1;
}

/* ---- the event's fields, from its `format` text ------------------------------------------- */

#define MAX_FIELDS 48
static struct evt_field fields[MAX_FIELDS];
static size_t nr_fields;
static unsigned int fixed_size;

static void free_fields(void)
{
	for (size_t i = 0; i < nr_fields; i++) {
		free((char *)fields[i].type);
		free((char *)fields[i].name);
	}
	nr_fields = 0;
}

static int parse_format(const char *text)
{
	const char *p = text;

	free_fields();
	fixed_size = 0;
	while ((p = strstr(p, "field:"))) {
		char decl[256], *name, *br;
		unsigned int off, size, sign;
		struct evt_field *f = &fields[nr_fields];
		const char *semi;

		p += 6;
		semi = strchr(p, ';');
		if (!semi || (size_t)(semi - p) >= sizeof(decl) || nr_fields >= MAX_FIELDS)
			return -1;
		memcpy(decl, p, (size_t)(semi - p));
		decl[semi - p] = 0;
		if (sscanf(semi, ";\toffset:%u;\tsize:%u;\tsigned:%u;", &off, &size, &sign) != 3)
			return -1;
		name = strrchr(decl, ' ');
		if (!name)
			return -1;
		*name++ = 0;
		br = strchr(name, '[');
		memset(f, 0, sizeof(*f));
		f->offset = (uint16_t)off;
		f->size = (uint16_t)size;
		f->elem_size = (uint16_t)size;
		f->is_signed = (uint8_t)sign;
		if (strstr(decl, "__data_loc")) {
			f->kind = strstr(decl, "char") ? EVT_FIELD_DYN_STRING : EVT_FIELD_DYN_ARRAY;
			f->type = strdup(decl);
		} else if (br) {
			char t[300];

			*br = 0;
			snprintf(t, sizeof(t), "%s[%u]", decl, size);
			f->kind = EVT_FIELD_ARRAY;
			f->elem_size = 1;
			f->type = strdup(t);
		} else {
			f->kind = EVT_FIELD_INT;
			f->type = strdup(decl);
		}
		f->name = strdup(name);
		if (off + size > fixed_size)
			fixed_size = off + size;
		nr_fields++;
		p = semi;
	}
	return nr_fields ? 0 : -1;
}

static const struct parg *parg_of(const char *name)
{
	for (size_t i = 0; i < NR_PARGS; i++)
		if (!strcmp(pargs[i].name, name))
			return &pargs[i];
	return NULL;
}

/* Lay record @idx out as the kernel's event does (uprobe or task_rename); return its length. */
static size_t build_record(int idx, const struct meta *m, char *rec, size_t size)
{
	const struct vals *v = &recs[idx];
	size_t dyn = fixed_size;

	memset(rec, 0, size);
	for (size_t i = 0; i < nr_fields; i++) {
		const struct evt_field *f = &fields[i];
		const struct parg *pa = suite == S_UPROBE ? parg_of(f->name) : NULL;
		uint64_t u = 0;

		if (suite == S_RENAME && !strcmp(f->name, "oldcomm")) {
			/* task->comm: zero-padded */
			strncpy(rec + f->offset, idx ? names[idx - 1] : "filt-target", 16);
			continue;
		}
		if (suite == S_RENAME && !strcmp(f->name, "newcomm")) {
			/*
			 * The kernel's task_rename copies the new name with strscpy(),
			 * without padding, into the per-CPU page filtered events are
			 * built in: after the NUL are the bytes of the event before,
			 * the previous rename of the sequence (names[0] fills all 16).
			 */
			char buf[16] = "";

			for (int j = 0; j <= idx; j++)
				memcpy(buf, names[j], strlen(names[j]) + 1);
			memcpy(rec + f->offset, buf, 16);
			continue;
		}
		if (suite == S_RENAME && !strcmp(f->name, "pid"))
			u = (uint64_t)m->pid;
		else if (suite == S_RENAME && !strcmp(f->name, "oom_score_adj"))
			u = (uint64_t)m->oom;

		if (!strcmp(f->name, "common_type"))
			u = (uint64_t)m->type;
		else if (!strcmp(f->name, "common_flags"))
			u = (uint64_t)m->flags;
		else if (!strcmp(f->name, "common_preempt_count"))
			u = (uint64_t)m->preempt;
		else if (!strcmp(f->name, "common_pid"))
			u = (uint64_t)m->pid;
		else if (!strcmp(f->name, "__probe_ip"))
			u = m->ip;
		if (!pa) {
			memcpy(rec + f->offset, &u, f->size);	/* little-endian */
			continue;
		}
		if (f->kind == EVT_FIELD_DYN_STRING) {
			const char *s = *(const char *const *)((const char *)v + pa->off);
			size_t n = strlen(s) + 1;
			uint32_t loc;

			if (dyn + n > size)
				n = 0;
			memcpy(rec + dyn, s, n);
			loc = (uint32_t)(n << 16 | dyn);
			memcpy(rec + f->offset, &loc, 4);
			dyn += n;
		} else {
			memcpy(rec + f->offset, (const char *)v + pa->off, f->size);
		}
	}
	return dyn;
}

/* ---- one answer: the kernel's or ours ----------------------------------------------------- */

struct answer {
	int err;		/* 0 or the positive errno */
	uint64_t mask;		/* accepted: bit i = record i passed */
	char *text;		/* the filter file */
	char *log_msg;		/* rejected: error_log's message */
	int log_pos;		/* and its caret */
};

static void answer_free(struct answer *a)
{
	free(a->text);
	free(a->log_msg);
	memset(a, 0, sizeof(*a));
}

static void ours(const char *expr, const struct meta *m, struct answer *a)
{
	struct filter_ctx ctx = { .cpu = m->cpu, .comm = m->comm };
	struct filter_error err = { 0 };
	struct filter_prog *prog = NULL;
	char rec[4096];
	int ret;

	memset(a, 0, sizeof(*a));
	ret = filter_compile(fields, nr_fields, expr, &prog, &err);
	if (ret) {
		int n = filter_error_format(expr, &err, NULL, 0);

		a->err = -ret;
		a->text = malloc((size_t)n + 2);
		filter_error_format(expr, &err, a->text, (size_t)n + 1);
		strcat(a->text, "\n");
		a->log_msg = strdup(err.log_msg ? err.log_msg : "");
		a->log_pos = err.log_pos;
		return;
	}
	if (asprintf(&a->text, "%s\n", filter_prog_text(prog)) < 0)
		a->text = NULL;
	for (int i = 0; i < nr_records(); i++) {
		size_t len = build_record(i, m, rec, sizeof(rec));

		/* task_rename fires before the rename: COMM is still the old name */
		if (suite == S_RENAME)
			ctx.comm = i ? names[i - 1] : "filt-target";

		if (filter_match_ctx(prog, rec, len, &ctx))
			a->mask |= 1ull << i;
	}
	filter_free(prog);
}

/* ---- the kernel --------------------------------------------------------------------------- */

static char group[64], inst[256], evdir[512], filter_path[PATH_MAX + 64];
static pid_t child = -1;
static int to_child = -1, from_child = -1;
static bool have_uprobe, have_inst, cleanup_registered;

static int write_file(const char *path, const char *s, size_t n, int flags)
{
	int fd = open(path, O_WRONLY | flags), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, n) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static char *read_file(const char *path)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

static void kernel_cleanup(void)
{
	char path[PATH_MAX + 64], cmd[128];

	if (child > 0) {
		close(to_child);
		close(from_child);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
	if (have_inst) {
		snprintf(path, sizeof(path), "%s/enable", evdir);
		write_file(path, "0", 1, 0);
		rmdir(inst);
		have_inst = false;
	}
	if (have_uprobe) {
		snprintf(cmd, sizeof(cmd), "-:%s/probe\n", group);
		write_file(TRACEFS "/uprobe_events", cmd, strlen(cmd), O_APPEND);
		have_uprobe = false;
	}
}

static void on_signal(int sig)
{
	kernel_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The child: pinned to CPU 0, named filt-target, one round of calls per line read. */
static void child_loop(int in, int out)
{
	char c;

	t_pin_to_cpu(0);
	prctl(PR_SET_NAME, "filt-target", 0, 0, 0);
	while (read(in, &c, 1) == 1) {
		if (c == 'r') {
			for (int i = 0; i < nr_names; i++)
				prctl(PR_SET_NAME, names[i], 0, 0, 0);
			prctl(PR_SET_NAME, "filt-target", 0, 0, 0);
		} else {
			for (int i = 0; i < nr_recs; i++)
				filt_probe(&recs[i]);
		}
		if (write(out, "d", 1) != 1)
			break;
	}
	_exit(0);
}

static int kernel_fire(void)
{
	char c;

	if (write(to_child, suite == S_RENAME ? "r" : "g", 1) != 1 || read(from_child, &c, 1) != 1)
		return -1;
	return 0;
}

/* Set up the uprobe, the instance and the child. Return 0, or a reason to skip. */
static const char *kernel_setup(struct meta *m)
{
	char cmd[2048], path[PATH_MAX + 64], exe[PATH_MAX], line[512];
	uintptr_t a = (uintptr_t)filt_probe, off = 0;
	int p1[2], p2[2], ret;
	bool found = false;
	char *fmt;
	FILE *maps;
	ssize_t n;

	if (geteuid() != 0)
		return "not root";
	if (access(TRACEFS "/uprobe_events", W_OK))
		return "no tracefs with uprobes at " TRACEFS;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return "no /proc/self/exe";
	exe[n] = 0;
	maps = fopen("/proc/self/maps", "r");
	while (maps && fgets(line, sizeof(line), maps)) {
		uintptr_t lo, hi, o;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %" SCNxPTR, &lo, &hi, &o) == 3 &&
		    a >= lo && a < hi) {
			off = a - lo + o;
			found = true;
			break;
		}
	}
	if (maps)
		fclose(maps);
	if (!found)
		return "filt_probe not found in /proc/self/maps";

	snprintf(group, sizeof(group), "evtfilt_%d", (int)getpid());
	snprintf(inst, sizeof(inst), TRACEFS "/instances/filt-%d", (int)getpid());
	if (!cleanup_registered) {
		atexit(kernel_cleanup);
		cleanup_registered = true;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	n = snprintf(cmd, sizeof(cmd), "p:%s/probe %s:0x%" PRIxPTR, group, exe, off);
	for (size_t i = 0; i < NR_PARGS; i++) {
		const struct parg *pa = &pargs[i];

		if (!strcmp(pa->type, "string") || !strcmp(pa->type, "ustring"))
			n += snprintf(cmd + n, sizeof(cmd) - (size_t)n, " %s=+0(+%d(%%di)):%s",
				      pa->name, pa->off, pa->type);
		else
			n += snprintf(cmd + n, sizeof(cmd) - (size_t)n, " %s=+%d(%%di):%s",
				      pa->name, pa->off, pa->type);
	}
	strcat(cmd, "\n");
	ret = write_file(TRACEFS "/uprobe_events", cmd, strlen(cmd), O_APPEND);
	if (ret)
		return "cannot create a uprobe (uprobe_events)";
	have_uprobe = true;
	if (mkdir(inst, 0755))
		return "cannot create an instance";
	have_inst = true;
	if (suite == S_RENAME)
		snprintf(evdir, sizeof(evdir), "%s/events/task/task_rename", inst);
	else
		snprintf(evdir, sizeof(evdir), "%s/events/%s/probe", inst, group);
	snprintf(path, sizeof(path), "%s/format", evdir);
	fmt = read_file(path);
	if (!fmt || parse_format(fmt))
		return "cannot read the event's format";
	free(fmt);
	snprintf(path, sizeof(path), "%s/id", evdir);
	fmt = read_file(path);
	m->type = fmt ? atol(fmt) : 0;
	free(fmt);
	snprintf(path, sizeof(path), "%s/enable", evdir);
	if (write_file(path, "1", 1, 0))
		return "cannot enable the event";
	snprintf(filter_path, sizeof(filter_path), "%s/filter", evdir);
	/*
	 * A filter on another event of the instance keeps the kernel's buffered
	 * events referenced: without it, each filter cleared would wait for an RCU
	 * grace period (trace_buffered_event_disable), 20 ms or more per expression.
	 */
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/filter", inst);
	write_file(path, "prev_pid == 0", 13, O_TRUNC);

	if (pipe(p1) || pipe(p2))
		return "pipe";
	child = fork();
	if (child < 0)
		return "fork";
	if (child == 0) {
		close(p1[1]);
		close(p2[0]);
		child_loop(p1[0], p2[1]);
	}
	close(p1[0]);
	close(p2[1]);
	to_child = p1[1];
	from_child = p2[0];
	m->pid = child;
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)child);
	fmt = read_file(path);
	m->oom = fmt ? atol(fmt) : 0;
	free(fmt);
	m->cpu = 0;
	strcpy(m->comm, "filt-target");
	m->ip = a;
	m->flags = 0;
	m->preempt = 0;
	return NULL;
}

/* Which records the kernel kept, from the instance's trace_pipe ("id=N"), consumed. */
static uint64_t kernel_trace_mask(void)
{
	char path[PATH_MAX + 64], buf[65536], *p;
	uint64_t mask = 0;
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/trace_pipe", inst);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = 0;
	if (getenv("FILTER_DIFF_DEBUG"))
		fprintf(stderr, "trace_pipe: %s\n", buf);
	if (suite == S_RENAME) {
		/* "... newcomm=NAME oom_score_adj=0": our names have no spaces */
		for (p = buf; (p = memmem(p, len - (size_t)(p - buf), " newcomm=", 9)); p++) {
			char *e = memmem(p, len - (size_t)(p - buf), " oom_score_adj=", 15);

			for (int i = 0; e && i < nr_names; i++)
				if ((size_t)(e - p - 9) == strlen(names[i]) &&
				    !memcmp(p + 9, names[i], strlen(names[i])))
					mask |= 1ull << i;
		}
		return mask;
	}
	/* the char arrays print their NULs: search the whole buffer, not a C string */
	for (p = buf; (p = memmem(p, len - (size_t)(p - buf), " id=", 4)); p++) {
		unsigned int id = (unsigned int)strtoul(p + 4, NULL, 10);

		for (int i = 0; i < nr_recs; i++)
			if (recs[i].id == id)
				mask |= 1ull << i;
	}
	return mask;
}

static void kernel_ask(const char *expr, struct answer *a)
{
	char path[PATH_MAX + 64];
	char *log, *last, *p;
	int ret;

	memset(a, 0, sizeof(*a));
	snprintf(path, sizeof(path), "%s/error_log", inst);
	write_file(path, "", 0, O_TRUNC);
	ret = write_file(filter_path, expr, strlen(expr), O_TRUNC);
	a->text = read_file(filter_path);
	if (ret) {
		a->err = -ret;
		log = read_file(path);
		/* the last entry: "[ts] event filter parse error: error: MSG\n  Command: X\n  ^" */
		last = NULL;
		for (p = log; p && (p = strstr(p, "parse error: error: ")); p++)
			last = p;
		if (last) {
			char *nl = strchr(last, '\n'), *q;

			a->log_msg = strndup(last + 20, nl ? (size_t)(nl - last - 20) : 0);
			/* the caret line: spaces and '^' only (the command may hold newlines) */
			a->log_pos = -1;
			for (q = nl; q && *q; q = strchr(q + 1, '\n')) {
				size_t sp = strspn(q + 1, " ");

				if (q[1 + sp] == '^' && (q[2 + sp] == '\n' || !q[2 + sp])) {
					a->log_pos = (int)sp - 11;
					break;
				}
			}
		} else {
			a->log_msg = strdup("");
		}
		free(log);
		return;
	}
	kernel_trace_mask();	/* drain anything left */
	if (kernel_fire() == 0)
		a->mask = kernel_trace_mask();
	write_file(filter_path, "0", 1, O_TRUNC);
}

/* common_flags and common_preempt_count as the kernel recorded them (found by asking). */
static void kernel_find_common(struct meta *m)
{
	const uint64_t all = nr_records() >= 64 ? ~0ull : (1ull << nr_records()) - 1;
	struct answer a;
	char expr[64];

	for (long v = 0; v < 256; v++) {
		snprintf(expr, sizeof(expr), "common_flags == %ld", v);
		kernel_ask(expr, &a);
		if (a.mask == all) {
			m->flags = v;
			answer_free(&a);
			break;
		}
		answer_free(&a);
	}
	for (long v = 0; v < 256; v++) {
		snprintf(expr, sizeof(expr), "common_preempt_count == %ld", v);
		kernel_ask(expr, &a);
		if (a.mask == all) {
			m->preempt = v;
			answer_free(&a);
			break;
		}
		answer_free(&a);
	}
}

/* ---- comparing ---------------------------------------------------------------------------- */

static int compare(const char *expr, const struct answer *k, const struct answer *o, bool quiet)
{
	int diff = 0;

	if (k->err != o->err)
		diff = 1;
	else if (strcmp(k->text ? k->text : "", o->text ? o->text : ""))
		diff = 2;
	else if (!k->err && k->mask != o->mask)
		diff = 3;
	else if (k->err && (strcmp(k->log_msg ? k->log_msg : "", o->log_msg ? o->log_msg : "") ||
			    k->log_pos != o->log_pos))
		diff = 4;
	if (diff && !quiet) {
		fprintf(stderr, "DIFF [");
		put_escaped(stderr, expr);
		fprintf(stderr, "]\n  kernel: errno %d mask %#" PRIx64 " log \"%s\"@%d text \"",
			k->err, k->mask, k->log_msg ? k->log_msg : "", k->log_pos);
		put_escaped(stderr, k->text ? k->text : "");
		fprintf(stderr, "\"\n  ours:   errno %d mask %#" PRIx64 " log \"%s\"@%d text \"",
			o->err, o->mask, o->log_msg ? o->log_msg : "", o->log_pos);
		put_escaped(stderr, o->text ? o->text : "");
		fprintf(stderr, "\"\n");
	}
	return diff;
}

/* A tab-separated line: expr, errno, mask, text, log_msg, log_pos. */
static void put_answer(FILE *f, const char *expr, const struct answer *a)
{
	put_escaped(f, expr);
	fprintf(f, "\t%d\t%" PRIx64 "\t", a->err, a->mask);
	put_escaped(f, a->text ? a->text : "");
	fputc('\t', f);
	put_escaped(f, a->log_msg ? a->log_msg : "");
	fprintf(f, "\t%d\n", a->err ? a->log_pos : 0);
}

static char *field_n(char *line, int n, size_t *len)
{
	char *p = line, *t;

	for (int i = 0; i < n && p; i++) {
		p = strchr(p, '\t');
		if (p)
			p++;
	}
	if (!p)
		return NULL;
	t = strpbrk(p, "\t\n");
	*len = t ? (size_t)(t - p) : strlen(p);
	return p;
}

static int record(const char *exprs_path)
{
	FILE *in = fopen(exprs_path, "r");
	struct meta m = { 0 };
	const char *why;
	struct utsname u;
	char line[8192], path[PATH_MAX + 64], *fmt;

	if (!in || load_records())
		t_fail("cannot read %s or the records", exprs_path);
	why = kernel_setup(&m);
	if (why)
		t_fail("cannot ask the kernel: %s", why);
	kernel_find_common(&m);
	uname(&u);
	printf("# filter-diff corpus (%s): expr, errno, mask of passing records, filter file, "
	       "error_log message, error_log caret\n", suite_name[suite]);
	printf("#kernel %s\n", u.release);
	printf("#meta pid=%ld type=%ld flags=%ld preempt=%ld ip=%#" PRIx64 " cpu=%d comm=%s oom=%ld\n",
	       m.pid, m.type, m.flags, m.preempt, m.ip, m.cpu, m.comm, m.oom);
	snprintf(path, sizeof(path), "%s/format", evdir);
	fmt = read_file(path);
	printf("#format ");
	put_escaped(stdout, fmt ? fmt : "");
	printf("\n");
	free(fmt);
	while (fgets(line, sizeof(line), in)) {
		char *expr;
		struct answer a;

		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		expr = unescape(line, strlen(line));
		kernel_ask(expr, &a);
		put_answer(stdout, expr, &a);
		answer_free(&a);
		free(expr);
	}
	fclose(in);
	kernel_cleanup();
	return 0;
}

/*
 * Where the kernel's answer is not defined: an expression ending in && or ||
 * can leave a branch target at -1, and the kernel's second pass then reads
 * prog[-1], memory before its array (trace_events_filter.c, predicate_parse):
 * the same expression is rejected ("Error: (0)", the usual case) or accepted
 * with a jump to wherever that memory says, from one write to the next. We
 * always reject; a difference there is reported, not failed.
 */
static bool kernel_undefined(const char *expr, const struct answer *k, const struct answer *o)
{
	size_t n = strlen(expr);

	while (n && isspace((unsigned char)expr[n - 1]))
		n--;
	if (n < 2 || !((expr[n - 1] == '&' && expr[n - 2] == '&') ||
		       (expr[n - 1] == '|' && expr[n - 2] == '|')))
		return false;
	return (k->err == EINVAL && !o->err) || (o->err == EINVAL && !k->err);
}

/* Expressions whose difference is kept on purpose (known-diffs: escaped expression a line). */
static bool known_diff(const char *expr)
{
	FILE *f = data_open("known-diffs");
	char line[8192];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *e;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		e = unescape(line, strlen(line));
		found = !strcmp(e, expr);
		free(e);
	}
	if (f)
		fclose(f);
	return found;
}

/* Replay the suite's corpus; return the differences, and the corpus's kernel in @kernel. */
static int replay(char *kernel, size_t ksize, struct meta *m)
{
	int diffs = 0, known = 0, n = 0;
	char line[16384];
	FILE *corpus = data_open(suite_corpus[suite]);

	if (!corpus)
		t_fail("cannot read %s/%s", data_dir, suite_corpus[suite]);
	while (fgets(line, sizeof(line), corpus)) {
		if (!strncmp(line, "#kernel ", 8)) {
			snprintf(kernel, ksize, "%.100s", line + 8);
			kernel[strcspn(kernel, "\n")] = 0;
		} else if (!strncmp(line, "#meta ", 6)) {
			sscanf(line, "#meta pid=%ld type=%ld flags=%ld preempt=%ld ip=%" SCNx64
			       " cpu=%d comm=%16s oom=%ld", &m->pid, &m->type, &m->flags, &m->preempt,
			       &m->ip, &m->cpu, m->comm, &m->oom);
		} else if (!strncmp(line, "#format ", 8)) {
			char *fmt = unescape(line + 8, strcspn(line + 8, "\n"));

			if (parse_format(fmt))
				t_fail("bad #format line in %s", suite_corpus[suite]);
			free(fmt);
		} else if (line[0] != '#') {
			struct answer k = { 0 }, o;
			size_t len;
			char *p, *expr;

			p = field_n(line, 0, &len);
			expr = unescape(p, len);
			k.err = atoi(field_n(line, 1, &len));
			k.mask = strtoull(field_n(line, 2, &len), NULL, 16);
			p = field_n(line, 3, &len);
			k.text = unescape(p, len);
			p = field_n(line, 4, &len);
			k.log_msg = p ? unescape(p, len) : strdup("");
			p = field_n(line, 5, &len);
			k.log_pos = p ? atoi(p) : 0;
			ours(expr, m, &o);
			if (compare(expr, &k, &o, false)) {
				if (known_diff(expr) || kernel_undefined(expr, &k, &o))
					known++;
				else
					diffs++;
			}
			n++;
			answer_free(&k);
			answer_free(&o);
			free(expr);
		}
	}
	fclose(corpus);
	free_fields();
	printf("%s corpus (kernel %s): %d expressions, %d differences, %d known differences\n",
	       suite_name[suite], kernel, n, diffs, known);
	return diffs;
}

/*
 * Ask the live kernel about every fourth expression of the suite's corpus.
 * Return the differences, or -1 when the kernel cannot be asked.
 */
static int live(const char *kernel)
{
	int live_diffs = 0, live_n = 0;
	struct meta m = { 0 };
	char line[16384];
	struct utsname u;
	const char *why;
	FILE *corpus;

	why = kernel_setup(&m);
	if (why) {
		printf("SKIP live part: %s\n", why);
		kernel_cleanup();
		free_fields();
		return -1;
	}
	kernel_find_common(&m);
	uname(&u);
	corpus = data_open(suite_corpus[suite]);
	while (corpus && fgets(line, sizeof(line), corpus)) {
		struct answer k, o;
		size_t len = 0;
		char *expr, *p;

		if (line[0] == '#')
			continue;
		if (live_n++ % 4)
			continue;
		p = field_n(line, 0, &len);
		expr = unescape(p, len);
		kernel_ask(expr, &k);
		ours(expr, &m, &o);
		/*
		 * Once more before believing a difference: another process's filtered
		 * event between our renames would change the stale bytes after a short
		 * newcomm (see build_record()).
		 */
		if (compare(expr, &k, &o, true)) {
			answer_free(&k);
			kernel_ask(expr, &k);
		}
		if (compare(expr, &k, &o, false)) {
			if (kernel_undefined(expr, &k, &o))
				printf("(the kernel read prog[-1] for that one: not a failure)\n");
			else if (!known_diff(expr))
				live_diffs++;
		}
		answer_free(&k);
		answer_free(&o);
		free(expr);
	}
	if (corpus)
		fclose(corpus);
	kernel_cleanup();
	free_fields();
	printf("%s live (kernel %s): %d expressions asked, %d differences\n", suite_name[suite],
	       u.release, (live_n + 3) / 4, live_diffs);
	if (live_diffs && strcmp(u.release, kernel)) {
		printf("(not the corpus's kernel: live differences reported, not failed)\n");
		live_diffs = 0;
	}
	return live_diffs;
}

int main(int argc, char **argv)
{
	const char *live_env = getenv("FILTER_DIFF_LIVE");
	char kernel[NR_SUITES][128] = { "" };
	struct meta m = { .cpu = 0 };
	int diffs = 0;
	char *src;

	if (getenv("FILTER_DIFF_DIR")) {
		snprintf(data_dir, sizeof(data_dir), "%s", getenv("FILTER_DIFF_DIR"));
	} else {
		snprintf(data_dir, sizeof(data_dir), "%s", __FILE__);
		src = strrchr(data_dir, '/');
		if (src)
			strcpy(src, "/../data/filter-diff");
	}
	if (argc >= 3 && !strcmp(argv[1], "--record")) {
		suite = argc > 3 && !strcmp(argv[3], "rename") ? S_RENAME : S_UPROBE;
		return record(argv[2]);
	}
	if (load_records())
		t_fail("cannot read %s/records and rename-names", data_dir);

	for (suite = 0; suite < NR_SUITES; suite++)
		diffs += replay(kernel[suite], sizeof(kernel[suite]), &m);
	if (live_env && !strcmp(live_env, "0")) {
		printf("live part: off (FILTER_DIFF_LIVE=0)\n");
		return diffs ? T_FAIL : T_PASS;
	}
	for (suite = 0; suite < NR_SUITES; suite++) {
		int d = live(kernel[suite]);

		if (d < 0)
			break;
		diffs += d;
	}
	return diffs ? T_FAIL : T_PASS;
}
