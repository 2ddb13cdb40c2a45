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

#include "kdiff.h"
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-diff-tp.h"

#define KT KD_TRACING
#define KI "instances/" INST "/"
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
	return kd_kernel_write(KI, path, text, trunc ? O_TRUNC : O_APPEND);
}

static const char *k_read(const char *path)
{
	return kd_kernel_read(KI, path);
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

static void run(const struct side *s, char *out)
{
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *st = &steps[i];
		switch (st->op) {
		case 'M':
			kd_add(out, OUT_MAX, "M = %d\n", s->mkdir());
			break;
		case 'D':
			kd_add(out, OUT_MAX, "D = %d\n", s->rmdir());
			break;
		case 'W':
		case 'T':
			kd_add(out, OUT_MAX, "%c %s '%s' = %zd\n", st->op, st->path, kd_esc(st->text),
			    s->write(st->path, st->text, st->op == 'T'));
			break;
		case 'R':
			kd_add(out, OUT_MAX, "R %s\n", st->path);
			kd_add_text(out, OUT_MAX, s->read(st->path));
			break;
		}
	}
}

/* --- the kernel's uprobes ----------------------------------------------------------------------- */

static bool k_made_probes;

static void k_cleanup(void)
{
	rmdir(KT "instances/" INST);
	if (k_made_probes) {
		kd_uprobes_remove("tfsdiff", 2, events);
		k_made_probes = false;
	}
}

/* The kernel's answers, or NULL with the reason in @why. */
static char *kernel_answers(char *why, size_t size)
{
	static const char *const args[2] = { "a=%di:s64 b=%si:s64", "c=%di:s64" };
	void *const fns[2] = { (void *)tdiff_a, (void *)tdiff_b };
	char *out;

	if (!kd_kernel_usable(why, size))
		return NULL;
	atexit(k_cleanup);
	k_made_probes = true;
	k_cleanup(); /* a run killed before its cleanup */
	k_made_probes = true;
	if (kd_uprobes_add("tfsdiff", 2, events, fns, args, why, size)) {
		k_cleanup();
		return NULL;
	}
	out = calloc(1, OUT_MAX);
	T_ASSERT(out != NULL);
	run(&kernel_side, out);
	k_cleanup();
	return out;
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
	char *ours = calloc(1, OUT_MAX), *kern;

	T_ASSERT(ours != NULL);
	kd_data_path(golden, sizeof(golden), "tracefs/kernel-diff.txt");

	tdiff_a(1, 2); /* our events registered */
	tdiff_b(3);
	run(&our_side, ours);
	api_destroy();

	kern = kernel_answers(why, sizeof(why));
	kd_finish(ours, kern, why, golden, "EVT_TRACEFS_DIFF_SAVE", OUT_MAX, false);
	free(ours);
	free(kern);
	return 0;
}
