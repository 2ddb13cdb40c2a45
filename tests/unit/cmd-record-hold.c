// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record-hold: `evtrace record -e ... -f ... -T ... -- CMD` sets its
 * filter and trigger before the command's first event: the command (this
 * binary with --child) fires a tick the filter rejects from a constructor
 * (seq 998) and as the first thing main() does (seq 999), then seq 0..9.
 * The file must hold exactly seq 0..9 (no rejected record), and the
 * trigger (stacktrace if seq >= 998) must have fired for both early
 * events: two ftrace:kernel_stack records. Then the same with a
 * trace_marker write first, through the tracefs API (under its lock, which
 * the recorder needs to set things up: it must not park there, the tick
 * after it does).
 * Also: a program started with EVTRACE_CONTROL_HOLD and no recorder goes
 * on after EVTRACE_CONTROL_HOLD_TIMEOUT, saying so once on stderr; one
 * started with EVTRACE_CONTROL_HOLD=all after its record ended (its session
 * directory gone) is not held and does not make the directory again.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/wait.h>

#include <evtrace/control.h>
#include <evtrace/tracefs.h>

#define CREATE_TRACE_POINTS
#include "control-tp.h"

#include "cmd-record-util.h"

/* After the registration constructors above (same object: definition order). */
static void __attribute__((constructor)) early_tick(void)
{
	if (getenv("HOLD_TEST_CHILD"))
		trace_ctl_tick(0, 998);
}

static int child_main(bool marker)
{
	/* under the tracefs lock, which the recorder needs: must not park there */
	if (marker && evt_tracefs_write(NULL, "trace_marker", "first", 5, 0) != 5)
		return 3;
	trace_ctl_tick(0, 999);
	for (unsigned long long i = 0; i < 10; i++)
		trace_ctl_tick(0, i);
	return 0;
}

static char out[1 << 20];

/*
 * Record the child (@marker: it writes trace_marker first) with a filter
 * that rejects seq >= 100 and a trigger on seq >= 998: seq 0..9 only, and
 * @stacks stack traces.
 */
static void record_and_check(const char *self, const char *file, bool marker, long stacks_want)
{
	char *a[] = { "evtrace",
		      "record",
		      "-q",
		      "-e",
		      "ctltest:ctl_tick",
		      "-f",
		      "seq < 100",
		      "-T",
		      "stacktrace if seq >= 998",
		      "-o",
		      (char *)file,
		      "--",
		      (char *)self,
		      "--child",
		      marker ? "marker" : NULL,
		      NULL };
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	long ticks = 0, stacks = 0, bad = 0, prints = 0;
	int ret;

	T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
	T_ASSERT_OK(evt_tracedat_open(file, &td));
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		const struct evt_tracedat_event *ev = rec.event;
		unsigned long long seq;

		if (!ev)
			continue;
		if (!strcmp(ev->name, "kernel_stack")) {
			stacks++;
		} else if (!strcmp(ev->name, "print")) {
			prints++;
		} else if (!strcmp(ev->name, "ctl_tick")) {
			T_ASSERT_OK(crt_field(ev, "seq", &rec, &seq, sizeof(seq)));
			if (seq != (unsigned long long)ticks)
				bad++;
			ticks++;
		}
	}
	evt_tracedat_close(td);
	T_ASSERT_EQ(ret, 0);
	printf("%s: ticks %ld (out of order or rejected: %ld), stacks %ld, markers %ld\n",
	       marker ? "marker first" : "constructor and main", ticks, bad, stacks, prints);
	T_ASSERT_EQ(ticks, 10);
	T_ASSERT_EQ(bad, 0);
	T_ASSERT_EQ(stacks, stacks_want);
	T_ASSERT_EQ(prints, marker ? 1 : 0);
}

/*
 * The child held with nobody to release it: with @gone_dir NULL, held by pid, it goes on
 * after the (short) timeout and says so once; with @gone_dir (a session directory that does
 * not exist: the record that made it ended), held by "all", it is not held at all.
 */
static void unreleased(const char *self, const char *gone_dir)
{
	int efd[2], st;
	char *msg;
	pid_t pid;

	T_ASSERT_OK(pipe(efd));
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char me[24];

		snprintf(me, sizeof(me), "%d", (int)getpid());
		setenv("EVTRACE_CONTROL", "1", 1);
		setenv("EVTRACE_CONTROL_HOLD", gone_dir ? "all" : me, 1);
		if (gone_dir)
			setenv("EVTRACE_CONTROL_DIR", gone_dir, 1);
		setenv("EVTRACE_CONTROL_HOLD_TIMEOUT", "0.2", 1);
		/* the hold is at the first event that writes: one must be on */
		setenv("EVTRACE_EVENTS", "ctltest:*", 1);
		dup2(efd[1], 2);
		close(efd[0]);
		execl(self, self, "--child", (char *)NULL);
		_exit(127);
	}
	close(efd[1]);
	out[cmdt_read_all(efd[0], out, sizeof(out) - 1)] = '\0';
	close(efd[0]);
	T_ASSERT_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	printf("unreleased child (%s) said: %s\n", gone_dir ? "session gone" : "by pid", out);
	msg = strstr(out, "start-up hold");
	if (gone_dir) {
		T_ASSERT(msg == NULL);
		T_ASSERT(access(gone_dir, F_OK) != 0); /* not made again either */
		return;
	}
	T_ASSERT(msg != NULL);
	T_ASSERT(strstr(msg + 1, "start-up hold") == NULL);
}

int main(int argc, char **argv)
{
	char tmp[256], file[300], self[4096];

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child_main(argc > 2 && !strcmp(argv[2], "marker"));
	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(file, sizeof(file), "%s/hold.dat", tmp);
	/* the constructor's tick, then main()'s; then a trace_marker write before both */
	setenv("HOLD_TEST_CHILD", "1", 1);
	record_and_check(self, file, false, 2);
	unsetenv("HOLD_TEST_CHILD");
	record_and_check(self, file, true, 1);

	/* held, and nobody releases: the program goes on after the (short) timeout */
	unreleased(self, NULL);
	/* "all" with the record's session directory gone (the record ended): no hold at all */
	{
		char gone[300];

		snprintf(gone, sizeof(gone), "%s/record-ended", tmp);
		unreleased(self, gone);
	}

	unlink(file);
	snprintf(file, sizeof(file), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(file), 0);
	printf("PASS\n");
	return 0;
}
