// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-diff: the same trigger chains on the kernel and on evtrace, with
 * the same field values; which events land in the buffer (and where the
 * stacktrace records fall) and the `trigger` files' text read back must be
 * the same.
 *
 * The kernel side (root, tracefs and uprobes): uprobe events snapdiff/ev_a
 * (a, b), ev_b (c), ev_c (d) on this program's own functions diff_a/b/c, in an
 * instance of our own (instances/snap-diff); every uprobe and the instance are
 * removed at the end (and at exit on a failure). Its answers are kept in
 * tests/data/trigger/kernel-diff.txt (EVT_TRIGGER_DIFF_SAVE=1 rewrites it), so
 * without root evtrace is compared with the saved answers (the kernel part
 * then says SKIP on stderr and the test still runs).
 *
 * Our side: events of the same shapes (trigger-diff-tp.h), fired by the same
 * functions, in the top instance.
 *
 * Normalized text, per scenario: "## name", one line per record ("ev_a a=3
 * b=3", "<stack trace>"), then "# ev_x" and the non-'#' lines of its trigger file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdiff.h"
#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "trigger-diff-tp.h"

#define KT KD_TRACING
#define KI "instances/snap-diff/"
#define OUT_MAX (64 << 10)

/* --- the probed functions: the uprobes fire on their entry, our events inside ---------------- */

__attribute__((noinline, used)) void diff_a(long a, long b);
__attribute__((noinline, used)) void diff_b(long c);
__attribute__((noinline, used)) void diff_c(long d);

__attribute__((noinline, used)) void diff_a(long a, long b)
{
	trace_ev_a(a, b);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void diff_b(long c)
{
	trace_ev_b(c);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void diff_c(long d)
{
	trace_ev_c(d);
	__asm__ volatile("" ::: "memory");
}

static void sequence(void)
{
	for (long i = 1; i <= 20; i++) {
		diff_a(i, i % 4);
		diff_b(i);
		diff_c(20 - i);
	}
}

/* --- the scenarios ----------------------------------------------------------------------------- */

static const char *const events[3] = { "ev_a", "ev_b", "ev_c" };

struct scenario {
	const char *name;
	bool enable[3];
	const char *trig[3][3]; /* per event, written in this order */
	const char *filter[3];	/* the events' own filters (NULL: none) */
};

static const struct scenario scenarios[] = {
	{ "onoff", { true, true, false },
	  { { "traceoff:2 if b == 3" }, { "traceon if c > 10" }, { NULL } }, { NULL } },
	{ "stack", { true, false, false },
	  { { "stacktrace:2 if a >= 4" }, { "stacktrace if c == 15" }, { NULL } }, { NULL } },
	{ "enable", { true, false, true },
	  { { "enable_event:snapdiff:ev_b:1 if a == 5" }, { NULL },
	    { "disable_event:snapdiff:ev_b:2 if d < 8" } }, { NULL } },
	{ "mixed", { false, true, false },
	  { { "traceoff:1 if a == 9", "enable_event:snapdiff:ev_c if b == 0" },
	    { "traceon" },
	    { "traceon:1 if d == 6" } }, { NULL } },
	{ "counts", { true, true, true },
	  { { "disable_event:snapdiff:ev_c:3 if b == 1", "traceoff:1 if a > 17" },
	    { "stacktrace:1 if c == 2", "enable_event:snapdiff:ev_c:2 if c > 10 && c < 14" },
	    { NULL } }, { NULL } },
	/* post triggers (traceoff, stacktrace) run after their event is committed;
	 * traceon, not post, runs before: its event lands only when it was
	 * reserved in the buffer before (unfiltered) or buffered (a filtered event) */
	{ "post-off", { true, true, false },
	  { { "traceoff" }, { "traceon:1 if c == 4" }, { NULL } }, { NULL } },
	{ "post-stack", { false, true, false },
	  { { NULL }, { "stacktrace:2" }, { NULL } }, { NULL } },
	{ "buffered", { true, true, true },
	  { { "traceoff if a == 2 || a == 8" }, { "traceon if c == 5" }, { "traceon if d == 10" } },
	  { NULL, "c < 100", NULL } },
	/* an event's soft-disable bit is read after its triggers ran: on itself,
	 * enable_event records the event that fired it, disable_event drops it */
	{ "self", { false, true, true },
	  { { "enable_event:snapdiff:ev_a:1 if a == 3" },
	    { "disable_event:snapdiff:ev_b if c == 5" },
	    { "disable_event:snapdiff:ev_c:1" } }, { NULL } },
};

/* --- one side: how to write and read its files -------------------------------------------------- */

struct side {
	int (*write)(const char *path, const char *text, bool trunc);
	const char *(*read)(const char *path);
};

static int k_write(const char *path, const char *text, bool trunc)
{
	ssize_t n = kd_kernel_write(KI, path, text, trunc ? O_TRUNC : 0);

	return n < 0 ? (int)n : 0;
}

static const char *k_read(const char *path)
{
	return kd_kernel_read(KI, path);
}

static int e_write(const char *path, const char *text, bool trunc)
{
	ssize_t n = evt_tracefs_write(NULL, path, text, strlen(text), trunc ? GT : GGT);

	return n < 0 ? (int)n : 0;
}

static const char *e_read(const char *path)
{
	return cat(path);
}

static const struct side kernel_side = { k_write, k_read };
static const struct side our_side = { e_write, e_read };

static void add(char *out, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(out);

	snprintf(out + n, OUT_MAX - n, fmt, a, b);
}

/* One line of `trace` as "name args" ("(0x...) " of a uprobe dropped), "<stack trace>", or nothing. */
static void norm_line(const char *l, size_t len, char *out)
{
	char line[512], *p, *name;

	if (len >= sizeof(line) || *l == '#' || !strncmp(l, " => ", 4))
		return;
	memcpy(line, l, len);
	line[len] = '\0';
	p = strchr(line, ']');
	p = p ? strstr(p, ": ") : NULL;
	if (!p)
		return;
	p += 2;
	if (!strncmp(p, "<stack trace>", 13)) {
		add(out, "%s%s\n", "<stack trace>", "");
		return;
	}
	name = p;
	p = strstr(p, ": ");
	if (!p)
		return;
	*p = '\0';
	p += 2;
	if (!strncmp(p, "(0x", 3) && strstr(p, ") "))
		p = strstr(p, ") ") + 2;
	add(out, "%s %s\n", name, p);
}

static void run(const struct side *s, const struct scenario *sc, char *out)
{
	char path[256], cmd[256];
	const char *t;

	add(out, "## %s%s\n", sc->name, "");
	T_ASSERT_OK(s->write("tracing_on", "1\n", true));
	T_ASSERT_OK(s->write("trace", "", true));
	for (int e = 0; e < 3; e++) {
		snprintf(path, sizeof(path), "events/snapdiff/%s/filter", events[e]);
		if (sc->filter[e])
			T_ASSERT_OK(s->write(path, sc->filter[e], true));
		snprintf(path, sizeof(path), "events/snapdiff/%s/trigger", events[e]);
		for (int i = 0; i < 3 && sc->trig[e][i]; i++) {
			snprintf(cmd, sizeof(cmd), "%s\n", sc->trig[e][i]);
			if (s->write(path, cmd, false))
				t_fail("%s: '%s' refused", sc->name, sc->trig[e][i]);
		}
		snprintf(path, sizeof(path), "events/snapdiff/%s/enable", events[e]);
		if (sc->enable[e])
			T_ASSERT_OK(s->write(path, "1\n", true));
	}
	sequence();
	T_ASSERT_OK(s->write("tracing_on", "0\n", true));
	t = s->read("trace");
	for (const char *l = t; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		norm_line(l, len, out);
		l += len + (e ? 1 : 0);
	}
	/* the trigger files, then take every trigger away ("!" and the command) */
	for (int e = 0; e < 3; e++) {
		char text[4096], *save = NULL;

		snprintf(path, sizeof(path), "events/snapdiff/%s/trigger", events[e]);
		add(out, "# %s%s\n", events[e], "");
		snprintf(text, sizeof(text), "%s", s->read(path));
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *c;

			if (*l == '#')
				continue;
			add(out, "%s%s\n", l, "");
			c = strstr(l, ":count=");
			if (!c)
				c = strstr(l, ":unlimited");
			if (c)
				*c = '\0';
			snprintf(cmd, sizeof(cmd), "!%s\n", l);
			T_ASSERT_OK(s->write(path, cmd, false));
		}
	}
	for (int e = 0; e < 3; e++) {
		snprintf(path, sizeof(path), "events/snapdiff/%s/enable", events[e]);
		T_ASSERT_OK(s->write(path, "0\n", true));
		snprintf(path, sizeof(path), "events/snapdiff/%s/filter", events[e]);
		T_ASSERT_OK(s->write(path, "0\n", true));
	}
	T_ASSERT_OK(s->write("tracing_on", "1\n", true));
}

/* --- the kernel's uprobes and instance ---------------------------------------------------------- */

static bool k_made_instance, k_made_probes;

static void k_cleanup(void)
{
	char path[256];

	if (k_made_instance) {
		for (int e = 0; e < 3; e++) {
			snprintf(path, sizeof(path), "events/snapdiff/%s/enable", events[e]);
			k_write(path, "0\n", true);
		}
		rmdir(KT "instances/snap-diff");
		k_made_instance = false;
	}
	if (k_made_probes) {
		kd_uprobes_remove("snapdiff", 3, events);
		k_made_probes = false;
	}
}

/* The kernel's answers, or NULL with the reason in @why. */
static char *kernel_answers(char *why, size_t size)
{
	static const char *const args[3] = { "a=%di:s64 b=%si:s64", "c=%di:s64", "d=%di:s64" };
	void *const fns[3] = { (void *)diff_a, (void *)diff_b, (void *)diff_c };
	char *out;

	if (!kd_kernel_usable(why, size))
		return NULL;
	atexit(k_cleanup);
	k_made_probes = true;
	kd_uprobes_remove("snapdiff", 3, events); /* a run killed before its cleanup */
	rmdir(KT "instances/snap-diff");
	if (kd_uprobes_add("snapdiff", 3, events, fns, args, why, size)) {
		k_cleanup();
		return NULL;
	}
	if (mkdir(KT "instances/snap-diff", 0755)) {
		snprintf(why, size, "mkdir instances/snap-diff: %s", strerror(errno));
		k_cleanup();
		return NULL;
	}
	k_made_instance = true;
	out = calloc(1, OUT_MAX);
	T_ASSERT(out != NULL);
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run(&kernel_side, &scenarios[i], out);
	k_cleanup();
	return out;
}

int main(void)
{
	char golden[4096], why[1024];
	char *ours = calloc(1, OUT_MAX), *kern;

	T_ASSERT(ours != NULL);
	kd_data_path(golden, sizeof(golden), "trigger/kernel-diff.txt");

	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run(&our_side, &scenarios[i], ours);

	kern = kernel_answers(why, sizeof(why));
	kd_finish(ours, kern, why, golden, "EVT_TRIGGER_DIFF_SAVE", OUT_MAX, false);
	free(ours);
	free(kern);
	return 0;
}
