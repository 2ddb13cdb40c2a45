// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-diff: the same writes to the files of an instance of the kernel and
 * of one of ours, with what each returns and what the files read back after:
 * error_log's lifetime (an instance made again starts with an empty log),
 * filter text as written, odd trigger inputs, several set_event tokens in one
 * write(2), a subsystem filter no event takes.
 *
 * The kernel side (root, tracefs and uprobes): uprobe events tfsdiff/ev_a
 * (a, b) and ev_b (c) on two functions of this program, in an instance of our
 * own (instances/tfsdiff-i); the probes and the instance are removed at the
 * end (and at exit on a failure). Its answers are kept in
 * tests/data/tracefs/kernel-diff.txt (EVT_TRACEFS_DIFF_SAVE=1 rewrites it):
 * without root evtrace is compared with them (the kernel part says SKIP on
 * stderr). Our side: the events of tracefs-diff-tp.h in instances/tfsdiff-i.
 *
 * The transcript: per step "W path 'text' = n" (bytes or -errno) or "R path"
 * and the text read ("[time] " of error_log lines dropped).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-diff-tp.h"

#define KT "/sys/kernel/tracing/"
#define INST "tfsdiff-i"
#define OUT_MAX (64 << 10)

__attribute__((noinline, used)) void tdiff_a(long a, long b);
__attribute__((noinline, used)) void tdiff_b(long c);

__attribute__((noinline, used)) void tdiff_a(long a, long b)
{
	trace_ev_a(a, b);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void tdiff_b(long c)
{
	trace_ev_b(c);
	__asm__ volatile("" ::: "memory");
}

static const char *const events[2] = { "ev_a", "ev_b" };

/*
 * The steps: M mkdir the instance, D rmdir it, W one write (append), T one
 * write that truncates, R read; paths are the instance's.
 */
struct step {
	char op;
	const char *path;
	const char *text;
};

#define EA "events/tfsdiff/ev_a/"
#define SYS "events/tfsdiff/"

static const struct step steps[] = {
	/* 3: error_log belongs to its instance */
	{ 'M', NULL, NULL },
	{ 'T', EA "filter", "nosuch == 1" },
	{ 'R', "error_log", NULL },
	{ 'D', NULL, NULL },
	{ 'M', NULL, NULL },
	{ 'R', "error_log", NULL },
	/* 6: odd trigger inputs */
	{ 'W', EA "trigger", "traceoff if" },
	{ 'W', EA "trigger", "traceoff if " },
	{ 'R', "error_log", NULL },
	{ 'W', EA "trigger", "traceoff if (a == 1" },
	{ 'R', "error_log", NULL },
	{ 'W', EA "trigger", "traceoff if a == 1)" },
	{ 'R', "error_log", NULL },
	{ 'T', "error_log", "" },
	/* 4: the filter text as written */
	{ 'T', EA "filter", "  a == 5" },
	{ 'R', EA "filter", NULL },
	{ 'T', EA "filter", "\ta == 5 && b < 3  " },
	{ 'R', EA "filter", NULL },
	{ 'T', EA "filter", "0" },
	{ 'R', EA "filter", NULL },
	/* 9: several set_event tokens in one write(2) */
	{ 'W', "set_event", "tfsdiff:ev_a tfsdiff:ev_b\n" },
	{ 'R', "set_event", NULL },
	{ 'W', "set_event", "  tfsdiff:ev_b\t!tfsdiff:ev_a\n" },
	{ 'R', "set_event", NULL },
	{ 'W', "set_event", "!tfsdiff:ev_a" },
	{ 'R', "set_event", NULL },
	{ 'W', "set_event", " \n " },
	{ 'W', "set_event", "tfsdiff:nosuch tfsdiff:ev_a\n" },
	{ 'R', "set_event", NULL },
	{ 'T', "set_event", "" },
	{ 'R', "set_event", NULL },
	/* 10: a subsystem filter that no event takes */
	{ 'T', SYS "filter", "nosuch == 1" },
	{ 'R', SYS "filter", NULL },
	{ 'R', EA "filter", NULL },
	{ 'R', "error_log", NULL },
	{ 'T', SYS "filter", "a == 1" },
	{ 'R', SYS "filter", NULL },
	{ 'R', EA "filter", NULL },
	{ 'R', "events/tfsdiff/ev_b/filter", NULL },
	{ 'T', SYS "filter", "0" },
	{ 'R', SYS "filter", NULL },
	{ 'R', EA "filter", NULL },
	{ 'D', NULL, NULL },
};

/* --- one side --------------------------------------------------------------------------------- */

struct side {
	ssize_t (*write)(const char *path, const char *text, bool trunc);
	const char *(*read)(const char *path);
	int (*mkdir)(void);
	int (*rmdir)(void);
};

static char rbuf[1 << 20];

static ssize_t k_write(const char *path, const char *text, bool trunc)
{
	char full[512];
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), KT "instances/" INST "/%s", path);
	fd = open(full, O_WRONLY | (trunc ? O_TRUNC : O_APPEND));
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

static const char *k_read(const char *path)
{
	char full[512];
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), KT "instances/" INST "/%s", path);
	fd = open(full, O_RDONLY);
	if (fd < 0)
		t_fail("open %s: %s", full, strerror(errno));
	while (len < sizeof(rbuf) - 1 && (n = read(fd, rbuf + len, sizeof(rbuf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	rbuf[len] = '\0';
	return rbuf;
}

static int k_mkdir(void)
{
	return mkdir(KT "instances/" INST, 0755) ? -errno : 0;
}

static int k_rmdir(void)
{
	return rmdir(KT "instances/" INST) ? -errno : 0;
}

static ssize_t e_write(const char *path, const char *text, bool trunc)
{
	char full[512];

	snprintf(full, sizeof(full), "instances/" INST "/%s", path);
	return evt_tracefs_write(NULL, full, text, strlen(text), trunc ? GT : GGT);
}

static const char *e_read(const char *path)
{
	char full[512];

	snprintf(full, sizeof(full), "instances/" INST "/%s", path);
	snprintf(rbuf, sizeof(rbuf), "%s", cat(full));
	return rbuf;
}

static int e_mkdir(void)
{
	return evt_tracefs_mkdir(NULL, "instances/" INST);
}

static int e_rmdir(void)
{
	return evt_tracefs_rmdir(NULL, "instances/" INST);
}

static const struct side kernel_side = { k_write, k_read, k_mkdir, k_rmdir };
static const struct side our_side = { e_write, e_read, e_mkdir, e_rmdir };

static void add(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(char *out, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out + n, OUT_MAX - n, fmt, ap);
	va_end(ap);
}

/* @s with its control characters as \n, \t */
static const char *esc(const char *s)
{
	static char buf[512];
	size_t n = 0;

	for (; *s && n < sizeof(buf) - 3; s++) {
		if (*s == '\n' || *s == '\t') {
			buf[n++] = '\\';
			buf[n++] = *s == '\n' ? 'n' : 't';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

static void run(const struct side *s, char *out)
{
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *st = &steps[i];
		const char *t;

		switch (st->op) {
		case 'M':
			add(out, "M = %d\n", s->mkdir());
			break;
		case 'D':
			add(out, "D = %d\n", s->rmdir());
			break;
		case 'W':
		case 'T':
			add(out, "%c %s '%s' = %zd\n", st->op, st->path, esc(st->text),
			    s->write(st->path, st->text, st->op == 'T'));
			break;
		case 'R':
			add(out, "R %s\n", st->path);
			t = s->read(st->path);
			for (const char *l = t; *l;) {
				const char *e = strchr(l, '\n');
				size_t len = e ? (size_t)(e - l) : strlen(l);

				/* error_log's "[  123.456789] " */
				if (*l == '[' && memchr(l, ']', len)) {
					const char *r = memchr(l, ']', len) + 2;

					len -= (size_t)(r - l);
					l = r;
				}
				add(out, "| %.*s\n", (int)len, l);
				l += len + (e ? 1 : 0);
			}
			break;
		}
	}
}

/* --- the kernel's uprobes ----------------------------------------------------------------------- */

static bool k_made_probes;

static int k_probe_write(const char *text)
{
	int fd = open(KT "uprobe_events", O_WRONLY | O_APPEND);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

static void k_cleanup(void)
{
	char cmd[64];

	rmdir(KT "instances/" INST);
	if (k_made_probes) {
		for (int e = 0; e < 2; e++) {
			snprintf(cmd, sizeof(cmd), "-:tfsdiff/%s\n", events[e]);
			k_probe_write(cmd);
		}
		k_made_probes = false;
	}
}

/* The file offset of @fn in the file mapped at it (uprobes want file offsets). */
static int file_offset(void *fn, char *file, size_t size, unsigned long *off)
{
	unsigned long addr = (unsigned long)fn, lo, hi, foff;
	char line[1024], perm[8], path[768];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %767s", &lo, &hi, perm, &foff, path) < 4)
			continue;
		if (addr >= lo && addr < hi && path[0] == '/') {
			snprintf(file, size, "%s", path);
			*off = addr - lo + foff;
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

/* The kernel's answers, or NULL with the reason in @why. */
static char *kernel_answers(char *why, size_t size)
{
	static const char *const args[2] = { "a=%di:s64 b=%si:s64", "c=%di:s64" };
	void *const fns[2] = { (void *)tdiff_a, (void *)tdiff_b };
	char file[768], cmd[1200];
	unsigned long off = 0;
	char *out;

#ifndef __x86_64__
	snprintf(why, size, "the uprobe arguments (%%di, %%si) are x86-64's");
	return NULL;
#endif
	if (geteuid() != 0 || access(KT "uprobe_events", W_OK) || access(KT "instances", W_OK)) {
		snprintf(why, size, "no writable tracefs with uprobe_events (root)");
		return NULL;
	}
	atexit(k_cleanup);
	k_made_probes = true;
	k_cleanup(); /* a run killed before its cleanup */
	k_made_probes = true;
	for (int e = 0; e < 2; e++) {
		if (file_offset(fns[e], file, sizeof(file), &off)) {
			snprintf(why, size, "cannot find this program's file mapping");
			return NULL;
		}
		snprintf(cmd, sizeof(cmd), "p:tfsdiff/%s %s:0x%lx %s\n", events[e], file, off,
			 args[e]);
		if (k_probe_write(cmd)) {
			snprintf(why, size, "the kernel refused the uprobe tfsdiff/%s", events[e]);
			k_cleanup();
			return NULL;
		}
	}
	out = calloc(1, OUT_MAX);
	T_ASSERT(out != NULL);
	run(&kernel_side, out);
	k_cleanup();
	return out;
}

static char *read_golden(const char *path)
{
	char *buf = calloc(1, OUT_MAX);
	FILE *f = fopen(path, "r");
	size_t n;

	T_ASSERT(buf != NULL);
	if (!f)
		t_fail("%s: %s", path, strerror(errno));
	n = fread(buf, 1, OUT_MAX - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void compare(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want))
		t_fail("%s differ:\n--- evtrace:\n%s--- %s:\n%s---", what, got, what, want);
}

/* Ours only: an instance destroyed through the API takes its error_log along too. */
static void api_destroy(void)
{
	struct evt_instance *inst;

	T_ASSERT_OK(evt_instance_create(INST, &inst));
	T_ASSERT(e_write(EA "filter", "nosuch == 1", true) < 0);
	T_ASSERT(strstr(e_read("error_log"), "Field not found") != NULL);
	T_ASSERT_OK(evt_instance_destroy(inst));
	T_ASSERT_OK(evt_instance_create(INST, &inst));
	T_ASSERT_STR(e_read("error_log"), "");
	T_ASSERT_OK(evt_instance_destroy(inst));
}

int main(void)
{
	char golden[4096], why[1024];
	char *ours = calloc(1, OUT_MAX), *kern, *saved;

	T_ASSERT(ours != NULL);
	snprintf(golden, sizeof(golden), "%s", __FILE__);
	*strrchr(golden, '/') = '\0';
	strcat(golden, "/../data/tracefs/kernel-diff.txt");

	tdiff_a(1, 2); /* our events registered */
	tdiff_b(3);
	run(&our_side, ours);
	api_destroy();

	kern = kernel_answers(why, sizeof(why));
	if (kern && getenv("EVT_TRACEFS_DIFF_SAVE")) {
		FILE *f = fopen(golden, "w");

		T_ASSERT(f != NULL);
		fputs(kern, f);
		fclose(f);
	}
	if (!kern)
		fprintf(stderr, "SKIP (kernel part): %s; comparing with %s\n", why, golden);
	else
		compare("the kernel's answers now", ours, kern);
	saved = read_golden(golden);
	compare("the kernel's saved answers", ours, saved);
	free(ours);
	free(kern);
	free(saved);
	return 0;
}
