// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-sweep-diff: a sweep of filter, trigger and set_event inputs written
 * to the files of a fresh instance of the kernel and of one of ours, as the
 * held-out corpus replays them: for each input, what the write returns (bytes
 * or -errno), what the file reads back, what error_log says (text and caret
 * column), and for accepted filters which records pass.
 *
 * The inputs: filter expressions with every operator on the numeric fields
 * (decimal, negative, hex, octal), bit tests, parentheses, `!`, precedence,
 * common_* fields, CPU/comm, CPUS{} with the expression ending anywhere in
 * it, globs, string fields, white space, and malformed ones; trigger commands
 * (counts, `if` filters, enable_event targets, unknown commands, removal);
 * set_event tokens. The kernel side: uprobe events tfsweep/ev_a (a, b: s64)
 * and ev_b (c) on two functions of this program, in instances/tfsweep-i; the
 * records are the calls of sweep_fire(), on CPU 0, named sweep-target. Its
 * answers are kept in tests/data/tracefs/sweep-diff.txt
 * (EVT_TRACEFS_SWEEP_SAVE=1 rewrites it): without root, or on a kernel that
 * answers differently (another version), evtrace is compared with them. Our
 * side: the events of tracefs-sweep-tp.h in instances/tfsweep-i.
 *
 * The transcript: per step "W path 'text' = n" or "R path" and the text read
 * ("[time] " of error_log lines dropped; an empty trigger file, whose list of
 * commands depends on the kernel's configuration, as "(none)"), "P" and the
 * a=/b= of each record in trace. EVT_TRACEFS_SWEEP_DUMP=FILE writes ours to
 * FILE.evtrace (diff it with the saved answers).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kdiff.h"
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "tracefs-sweep-tp.h"

#define KT KD_TRACING
#define KI "instances/" INST "/"
#define INST "tfsweep-i"
#define OUT_MAX (1 << 20)

__attribute__((noinline, used)) void sweep_a(long a, long b);
__attribute__((noinline, used)) void sweep_b(long c);

__attribute__((noinline, used)) void sweep_a(long a, long b)
{
	trace_ev_a(a, b);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void sweep_b(long c)
{
	trace_ev_b(c);
	__asm__ volatile("" ::: "memory");
}

static const char *const events[2] = { "ev_a", "ev_b" };

#define EA "events/tfsweep/ev_a/"

/* --- the inputs ------------------------------------------------------------------------------ */

static const char *const filters[] = {
	/* every operator, number forms */
	"a == 1", "a != 1", "a < 3", "a <= 3", "a > 3", "a >= 3", "a & 1", "a & 0x6",
	"a == -5", "b < -1", "b >= -1", "a == 0x64", "a == 0X64", "a == 0144", "a == 00",
	"a > 0xffffffffffffffff", "a == 9223372036854775807", "a == -9223372036854775808",
	"a == 9223372036854775808", "a == 18446744073709551616", "a == 1x", "a == 0x",
	"a == 08", "a == +1", "a == - 1", "a == --1", "a & ~1", "a == 1.5",
	/* logic, precedence, parentheses, ! */
	"a == 1 || b == 3", "a == 1 && b == 3", "a == 2 || a == 3 && b == 3",
	"(a == 2 || a == 3) && b == 3", "!(a == 1)", "!a == 1", "!(a == 1 || b == 3)",
	"((((a == 1))))", "(a == 1) || (b == -5 && a < 0)", "!!(a == 1)", "! ( a == 1 )",
	"a == 1 || !(b > 2 && b < 8)",
	/* white space */
	"a==1", "  a == 1", "a == 1  ", "\ta\t==\t1", "a ==1||b== 3", "a == 1\t&&\tb == 1",
	/* common fields, CPU, comm */
	"common_pid > 0", "common_pid == 0", "common_flags & 0", "common_preempt_count < 256",
	"CPU == 0", "cpu != 0", "common_cpu == 0", "CPU < 1", "CPU & 1",
	"comm == \"sweep-target\"", "COMM ~ \"sweep*\"", "comm != \"x\"", "comm ~ \"*target\"",
	"comm ~ \"*eep-tar*\"", "comm ~ \"sweep-targe?\"", "comm ~ \"[a-s]weep*\"",
	"comm == sweep-target", "comm < \"a\"", "comm == 1", "comm ~ \"\"", "comm == \"\"",
	"comm ~ \"!sweep*\"", "comm == 'sweep-target'",
	/* CPUS{}: whole, and cut short at every place at the end */
	"CPU == CPUS{0}", "CPU & CPUS{0-1}", "CPU != CPUS{1}", "cpu == CPUS{0,1}",
	"a == CPUS{1}", "a & CPUS{0-2}", "a != CPUS{1}", "a < CPUS{1}", "comm == CPUS{0}",
	"CPU == CPUS", "CPU == CPUS{", "CPU == CPUS{0", "CPU == CPUS{0-", "CPU == CPUS{0,",
	"a == CPUS", "a == CPUS{", "a == CPUS{1", "a & CPUS{0-1", "CPU == CPUS{}",
	"CPU == CPUS {0}", "CPU==CPUS{0}", "CPU == CPUS{1-0}", "CPU == CPUS{99999}",
	"CPU == CPUS{x}", "CPU == CPUS{0} && a == 1", "(CPU == CPUS{0}", "CPU == CPUS{0})",
	"CPU == CPUS{0}}", "a == 1 && CPU == CPUS", "a == 1 || a == CPUS{",
	"CPU == CPUS{0-1:1/2}", "CPU == CPUS{all}", "CPU == CPUS{N}",
	/* string operators on numbers, numbers on strings */
	"a ~ \"1\"", "a == \"1\"", "a ~ 1",
	/* malformed */
	"a", "a ==", "== 1", "a = 1", "a === 1", "a =! 1", "a <> 1", "a == 1 &&", "&& a == 1",
	"a == 1 ||", "a == 1 & b == 1", "a == 1 | b == 1", "(a == 1", "a == 1)", "((a == 1)",
	"()", "(", ")", "!", "!a", "a == 1 b == 2", "nosuch == 1", "a.nosuch == 1",
	"a == \"x", "comm == \"abc", "comm ~ abc", "comm == \"a\" \"b\"", "a == 1 !", "1 == a",
	"a == 1 && (b == 2 || (a == 3)", "a == 1 && nosuch == 2", "A == 1", "a == a",
	"a.function == 0x10", "a.hex == 1",
	/* more forms */
	"a==1&&b==1", "a == 1 &&& b == 1", "a == 1 |||| b == 1", "!(!(a == 1))", "! a == 1",
	"(a == 1)(b == 1)", "a == 1 0", "a & 1 == 1", "a == (1)", "(a) == 1", "a == 1 && !b == 3",
	"((((((((((((((((((((((((((((((((a == 1))))))))))))))))))))))))))))))))",
	"a == 1 || a == 2 || a == 3 || a == 4 || a == 5 || a == 6 || a == 7 || a == 100",
	"a == 1 && a == 1 && a == 1 && a == 1 && a == 1 && a == 1 && a == 1 && b == 3",
	"a == 123456789012345678901234567890", "a == 0x1234567890abcdef0", "b & -1", "b & 0x80",
	"comm ~ \"*\"", "comm ~ \"**\"", "comm ~ \"?\"", "comm ~ \"s*t\"",
	"comm ~ \"sweep-target*\"", "comm ~ \"[\"", "comm ~ \"[s]*\"", "comm ~ \"\\*\"",
	"comm == \"sweep-target\\\"", "comm == \"sweep target\"", "comm ~ \"sweep-?arget\"",
	"comm ~ \"*-*\"", "comm != \"\"", "comm == \"sweep-targetxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
	"COMM == \"sweep-target\" && a == 1", "comm ~ 'sweep*'", "comm ~ \"sweep*\" || a == 6",
	"!(comm ~ \"sweep*\")", "common_pid & 0", "common_pid != -1",
	"common_flags == 0 || common_flags != 0",
	"CPU >= 0 && cpu < 1000", "CPU == -1", "CPU == 0x0", "CPU == 1 || CPU == 0",
	"0", " 0", "0 ",
};

static const char *const triggers[] = {
	"traceoff", "traceon", "traceon:3", "traceoff:1", "traceon:0", "traceon:-1", "traceon:x",
	"traceon:", "traceoff if a == 1", "traceoff:2 if a == 1 && b == 2", "traceoff if",
	"traceoff if ", "traceoff iff a == 1", "traceoff  if a == 1", "traceoff if a ==",
	"traceoff if (a == 1", "traceoff if a == 1)", "traceoff if nosuch == 1",
	"traceoff if CPU == CPUS{", "traceoff:1 if comm ~ \"sweep*\"", "stacktrace",
	"stacktrace:2", "stacktrace if b > 0", "enable_event:tfsweep:ev_b",
	"disable_event:tfsweep:ev_b:1", "enable_event:tfsweep:ev_b if a == 1",
	"enable_event:tfsweep:nosuch", "enable_event:nosuch:ev_b", "enable_event:tfsweep",
	"enable_event", "enable_event:tfsweep:ev_b:x", "nosuchcmd", "!traceoff", "traceoff:1:2",
	"traceoff extra", " traceoff", "traceoff ", "TRACEOFF", "traceoff\ttraceon",
};

static const char *const set_events[] = {
	"tfsweep:ev_a", "tfsweep:*", "tfsweep", "*:ev_a", "ev_a", "!tfsweep:ev_a",
	"tfsweep:nosuch", "nosuch:*", ":ev_a", "tfsweep:", "tfsweep:ev_a:extra", "tfsweep:ev*",
	"tfsweep:ev_a\ntfsweep:ev_b", "!ev_a", "!", "  tfsweep:ev_b  ",
};

static const char *const sys_filters[] = {
	"a == 1", "c == 3", "a == 1 || c == 3", "nosuch == 1", "common_pid > 0", "a ==",
	"CPU == CPUS{0", " a == 1",
};

static const char *const enables[] = {
	"1", "0", "2", "x", " 1", "1 ", "01", "-1", "1\n1", "",
};

/* The records every accepted filter is tried on. */
static const long records[][2] = {
	{ 1, 1 }, { 1, 3 }, { 2, 3 }, { 3, 3 }, { -5, -5 }, { 100, 7 }, { 0, -1 }, { 6, 2 },
};

/* --- the steps --------------------------------------------------------------------------------- */

/* M mkdir, D rmdir, W append, T truncate, R read, F fire the records, P the records traced. */
struct step {
	char op;
	const char *path;
	char *text;
};

static struct step *steps;
static size_t nr_steps, max_steps;

static void step(char op, const char *path, const char *text)
{
	if (nr_steps == max_steps) {
		max_steps = max_steps ? 2 * max_steps : 1024;
		steps = realloc(steps, max_steps * sizeof(*steps));
		T_ASSERT(steps != NULL);
	}
	steps[nr_steps].op = op;
	steps[nr_steps].path = path;
	steps[nr_steps].text = text ? strdup(text) : NULL;
	nr_steps++;
}

static void make_steps(void)
{
	char buf[512];

	step('M', NULL, NULL);
	/* enabled once: enabling a uprobe event costs the kernel an RCU grace period */
	step('W', EA "enable", "1\n");
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		snprintf(buf, sizeof(buf), "%s\n", filters[i]); /* as echo writes it */
		step('T', EA "filter", buf);
		step('R', EA "filter", NULL);
		step('R', "error_log", NULL);
		step('T', "error_log", "");
		/* which records pass (after a refused filter: the old one, none here) */
		step('F', NULL, NULL);
		step('P', "trace", NULL);
		step('T', "trace", "");
		step('T', EA "filter", "0\n");
	}
	step('W', EA "enable", "0\n");
	for (size_t i = 0; i < sizeof(triggers) / sizeof(triggers[0]); i++) {
		snprintf(buf, sizeof(buf), "%s\n", triggers[i]);
		step('W', EA "trigger", buf);
		step('R', EA "trigger", NULL);
		step('R', "error_log", NULL);
		step('T', "error_log", "");
		step('T', EA "trigger", "");
		step('R', EA "trigger", NULL);
	}
	for (size_t i = 0; i < sizeof(set_events) / sizeof(set_events[0]); i++) {
		snprintf(buf, sizeof(buf), "%s\n", set_events[i]);
		step('W', "set_event", buf);
		step('R', "set_event", NULL);
		step('W', "set_event", "tfsweep:ev_b\n");
		step('R', "set_event", NULL);
		step('T', "set_event", "");
	}
	/* a subsystem filter: each event takes it or shows its error */
	for (size_t i = 0; i < sizeof(sys_filters) / sizeof(sys_filters[0]); i++) {
		snprintf(buf, sizeof(buf), "%s\n", sys_filters[i]);
		step('T', "events/tfsweep/filter", buf);
		step('R', "events/tfsweep/filter", NULL);
		step('R', EA "filter", NULL);
		step('R', "events/tfsweep/ev_b/filter", NULL);
		step('R', "error_log", NULL);
		step('T', "error_log", "");
		step('T', "events/tfsweep/filter", "0\n");
		step('R', EA "filter", NULL);
	}
	/* enable files, of the event and of its system */
	for (size_t i = 0; i < sizeof(enables) / sizeof(enables[0]); i++) {
		snprintf(buf, sizeof(buf), "%s\n", enables[i]);
		step('W', EA "enable", buf);
		step('R', EA "enable", NULL);
		step('R', "events/tfsweep/enable", NULL);
		step('W', "events/tfsweep/enable", buf);
		step('R', "events/tfsweep/enable", NULL);
		step('R', "events/tfsweep/ev_b/enable", NULL);
		step('T', "set_event", "");
	}
	step('D', NULL, NULL);
}

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
	snprintf(rbuf, sizeof(rbuf), "%s", kd_kernel_read(KI, path));
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

/* The records of trace, as "a=.. b=.." (the kernel's uprobe lines have "(0x...) " before). */
static void add_records(char *out, const char *t)
{
	for (const char *l = t; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) + 1 : strlen(l);
		const char *a = strstr(l, " a=");
		long va, vb;

		if (*l != '#' && a && a < l + len && sscanf(a, " a=%ld b=%ld", &va, &vb) == 2)
			kd_add(out, OUT_MAX, "| a=%ld b=%ld\n", va, vb);
		l += len;
	}
}

static void add_text(char *out, const char *path, const char *t)
{
	if (strstr(path, "trigger") && !strncmp(t, "# Available triggers:", 21)) {
		kd_add(out, OUT_MAX, "| (none)\n");
		return;
	}
	kd_add_text(out, OUT_MAX, t);
}

static void fire(void)
{
	for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++)
		sweep_a(records[i][0], records[i][1]);
}

static void run(const struct side *s, char *out)
{
	for (size_t i = 0; i < nr_steps; i++) {
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
		case 'F':
			fire();
			break;
		case 'P':
			kd_add(out, OUT_MAX, "P\n");
			add_records(out, s->read(st->path));
			break;
		case 'R':
			kd_add(out, OUT_MAX, "R %s\n", st->path);
			add_text(out, st->path, s->read(st->path));
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
		kd_uprobes_remove("tfsweep", 2, events);
		k_made_probes = false;
	}
}

/* The kernel's answers, or NULL with the reason in @why. */
static char *kernel_answers(char *why, size_t size)
{
	static const char *const args[2] = { "a=%di:s64 b=%si:s64", "c=%di:s64" };
	void *const fns[2] = { (void *)sweep_a, (void *)sweep_b };
	struct stat st;
	char *out;

	if (!kd_kernel_usable(why, size))
		return NULL;
	/*
	 * Another run of this test (another tree) owns tfsweep: leave it. What a
	 * run killed before its cleanup left (the probes without the instance, a
	 * minute old) is removed.
	 */
	if (!stat(KT "events/tfsweep", &st)) {
		if (!access(KT "instances/" INST, F_OK) || time(NULL) - st.st_ctime < 60) {
			snprintf(why, size, "the kernel's tfsweep events are in use");
			return NULL;
		}
		k_made_probes = true;
		k_cleanup();
	}
	atexit(k_cleanup);
	k_made_probes = true;
	if (kd_uprobes_add("tfsweep", 2, events, fns, args, why, size)) {
		k_cleanup();
		return NULL;
	}
	out = calloc(1, OUT_MAX);
	T_ASSERT(out != NULL);
	run(&kernel_side, out);
	k_cleanup();
	return out;
}

int main(void)
{
	char golden[4096], why[1024];
	char *ours = calloc(1, OUT_MAX), *kern;
	int fails = 0;

	T_ASSERT(ours != NULL);
	kd_data_path(golden, sizeof(golden), "tracefs/sweep-diff.txt");

	/* CPU 0 and a known name, for CPU, CPUS{} and comm */
	if (t_pin_to_cpu(0))
		t_skip("cannot run on CPU 0");
	T_ASSERT_OK(prctl(PR_SET_NAME, "sweep-target", 0, 0, 0));
	make_steps();
	sweep_a(1, 2); /* our events registered */
	sweep_b(3);
	run(&our_side, ours);

	kern = kernel_answers(why, sizeof(why));
	if (getenv("EVT_TRACEFS_SWEEP_DUMP")) {
		/* both transcripts, for diff(1) */
		char path[4200];
		FILE *f;

		snprintf(path, sizeof(path), "%s.evtrace", getenv("EVT_TRACEFS_SWEEP_DUMP"));
		f = fopen(path, "w");
		if (f) {
			fputs(ours, f);
			fclose(f);
		}
	}
	fails = kd_finish(ours, kern, why, golden, "EVT_TRACEFS_SWEEP_SAVE", OUT_MAX, true);
	free(ours);
	free(kern);
	for (size_t i = 0; i < nr_steps; i++)
		free(steps[i].text);
	free(steps);
	return fails ? T_FAIL : 0;
}
