// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-ctf: `evtrace record --format=ctf -o DIR` writes a CTF trace directly.
 *
 * - record --date of examples/record-demo (2 threads x 20 requests x 2 events):
 *   DIR holds `metadata` and its streams and nothing else (the recording's file
 *   is gone); `babeltrace2 DIR` prints the 80 events (40 req_done; each worker's
 *   requests 0..19 once), on the wall clock (today's date, from the --date
 *   offset). The field-by-field comparison with `evtrace report` is
 *   unit/ctf-export's: the same writer.
 * - --format=ctf without -o, or an unknown format: usage error (2); a DIR that is
 *   not empty: error (1) before the command runs (it never starts).
 * - a recorder killed (SIGKILL) mid-recording leaves its journal in DIR as the
 *   hidden .evtrace-record.dat: `evtrace report` reads the events recorded so far,
 *   `evtrace recover` makes it a trace.dat that `evtrace export --format=ctf`
 *   turns into a CTF trace babeltrace2 reads.
 * - the x86-tsc clock (a process attached with -p, its trace_clock set first):
 *   record --date --format=ctf gives the CTF clock the TSC's frequency (not 1 GHz)
 *   and its offset from the epoch, so babeltrace2 prints today's date and the
 *   events span the time they took (under 3 s; at 1 GHz a 2 GHz TSC's second would
 *   look like two). `evtrace export --format=ctf` of an x86-tsc trace.dat warns that
 *   the frequency is not in the file, and writes the one --clock-freq gives.
 * SKIP without babeltrace2.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif
#ifdef EVT_RECORD_DEMO
#define RECORD_DEMO EVT_RECORD_DEMO
#else
#define RECORD_DEMO "build/examples/record-demo"
#endif

static char tmpdir[] = "/tmp/evt-recctf-XXXXXX";
static char tool[4200], demo[4200];

static long count(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The number the shell command prints; -1 if none. */
static long count(const char *fmt, ...)
{
	char cmd[16384], buf[64];
	va_list ap;
	FILE *p;
	long n = -1;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	T_ASSERT(p);
	if (fgets(buf, sizeof(buf), p))
		n = atol(buf);
	pclose(p);
	return n;
}

static void check_direct(void)
{
	char date[16];
	time_t now = time(NULL);

	T_ASSERT_EQ(t_sh("%s record -q --date --format=ctf -e 'recdemo:*' -o %s/ctf -- %s -t 2 -n 20 "
		       ">/dev/null",
		       tool, tmpdir, demo),
		    0);
	/* metadata and streams only: the recording's trace.dat went */
	T_ASSERT_EQ(t_sh("cd %s/ctf && test -f metadata && ls -A | grep -v '^metadata$' | "
		       "grep -qv '^stream_[0-9]*$'",
		       tmpdir),
		    1);
	/* on the wall clock: babeltrace2 prints today's date (UTC) */
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	T_ASSERT_EQ(t_sh("babeltrace2 --clock-gmt --clock-date %s/ctf > %s/ctf.txt", tmpdir, tmpdir),
		    0);
	T_ASSERT_EQ(count("grep -c 'recdemo:req_' %s/ctf.txt", tmpdir), 80L);
	T_ASSERT_EQ(count("grep -c 'recdemo:req_done' %s/ctf.txt", tmpdir), 40L);
	T_ASSERT_EQ(count("grep -c '^\\[%s' %s/ctf.txt", date, tmpdir), 80L);
	/* each worker's requests 0..19, once each, started and done */
	T_ASSERT_EQ(count("grep -o 'worker = [01], req = [0-9]*' %s/ctf.txt | sort -u | wc -l",
			  tmpdir),
		    40L);
}

static void check_refusals(void)
{
	T_ASSERT_EQ(t_sh("%s record -q --format=ctf -- %s -n 1 2>/dev/null", tool, demo), 2);
	T_ASSERT_EQ(t_sh("%s record -q --format=xml -o %s/x -- %s -n 1 2>/dev/null", tool, tmpdir,
		       demo),
		    2);
	T_ASSERT_EQ(t_sh("mkdir %s/full && touch %s/full/f", tmpdir, tmpdir), 0);
	T_ASSERT_EQ(t_sh("%s record -q --format=ctf -o %s/full -- touch %s/ran 2>%s/full.err", tool,
		       tmpdir, tmpdir, tmpdir),
		    1);
	T_ASSERT_EQ(t_sh("grep -q 'not empty' %s/full.err && test ! -e %s/ran", tmpdir, tmpdir), 0);
}

/* A recorder killed midway: its journal is in the directory, readable and recoverable. */
static void check_killed(void)
{
	char cmd[16384];
	pid_t pid;
	long n;

	snprintf(cmd, sizeof(cmd),
		 "exec %s record -q --format=ctf -e 'recdemo:*' -o %s/killed -- %s -t 2 -d 3 "
		 ">/dev/null 2>&1",
		 tool, tmpdir, demo);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	/* until it has drained something into the journal (the drain is every 50 ms) */
	for (int i = 0; i < 100; i++) {
		usleep(20000);
		if (!t_sh("test -s %s/killed/.evtrace-record.dat", tmpdir) &&
		    count("%s report %s/killed/.evtrace-record.dat 2>/dev/null | grep -c req_",
			  tool, tmpdir) > 0)
			break;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	kill(-pid, SIGKILL); /* record-demo too: its recorder is gone */
	n = count("%s report %s/killed/.evtrace-record.dat 2>/dev/null | grep -c req_", tool,
		  tmpdir);
	T_ASSERT(n > 0);
	T_ASSERT_EQ(t_sh("cd %s/killed && %s recover .evtrace-record.dat >/dev/null 2>&1 && "
		       "%s export --format=ctf -o ../killed-ctf .evtrace-record.dat",
		       tmpdir, tool, tool),
		    0);
	T_ASSERT(count("babeltrace2 %s/killed-ctf | grep -c 'recdemo:req_'", tmpdir) >= n);
}

/* record-demo with a control socket, its trace clock x86-tsc, until SIGINT; its pid. */
static pid_t start_tsc_demo(void)
{
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(nul, 1);
		setenv("EVTRACE_CONTROL", "1", 1);
		execl(demo, demo, "-t", "1", "-d", "0", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100; i++) {
		if (!t_sh("%s write -p %d trace_clock x86-tsc 2>/dev/null", tool, (int)pid))
			return pid;
		usleep(10000);
	}
	t_fail("cannot set record-demo's trace clock");
}

/*
 * record -p @pid with @opts to @out; the process is stopped (SIGINT: it ends its
 * loop and exits, which ends the record) 0.3 s later. On a failure, the
 * record's messages.
 */
static void record_tsc(const char *opts, const char *out, pid_t pid)
{
	char cmd[16384];
	pid_t rec;
	int st;

	snprintf(cmd, sizeof(cmd), "exec %s record -q %s -e 'recdemo:*' -o %s/%s -p %d 2>%s/%s.err",
		 tool, opts, tmpdir, out, (int)pid, tmpdir, out);
	rec = fork();
	T_ASSERT(rec >= 0);
	if (rec == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	usleep(300000);
	kill(pid, SIGINT);
	waitpid(pid, NULL, 0);
	T_ASSERT(waitpid(rec, &st, 0) == rec);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		t_sh("cat %s/%s.err >&2", tmpdir, out);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void check_tsc(void)
{
	char date[16];
	time_t now = time(NULL);
	long long freq;
	pid_t pid;

	pid = start_tsc_demo();
	record_tsc("--date --format=ctf", "tsc", pid);
	freq = count("sed -n 's/^\tfreq = \\([0-9]*\\);/\\1/p' %s/tsc/metadata", tmpdir);
	T_ASSERT(freq >= 10000000LL && freq <= 10000000000LL && freq != 1000000000LL);
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	T_ASSERT_EQ(t_sh("babeltrace2 --clock-gmt --clock-date %s/tsc > %s/tsc.txt", tmpdir, tmpdir),
		    0);
	T_ASSERT(count("grep -c 'recdemo:req_' %s/tsc.txt", tmpdir) > 0);
	T_ASSERT_EQ(count("grep -vc '^\\[%s' %s/tsc.txt", date, tmpdir), 0L);
	/* first to last event, in seconds, as babeltrace2 computes them from freq */
	T_ASSERT_EQ(
		count("babeltrace2 --clock-seconds %s/tsc | sed -n 's/^\\[\\([0-9.]*\\)\\].*/\\1/p'"
		      " | awk 'NR == 1 { f = $1 } { l = $1 } END { print (l - f < 3) ? 1 : 0 }'",
		      tmpdir),
		1L);

	pid = start_tsc_demo();
	record_tsc("", "tsc.dat", pid);
	T_ASSERT_EQ(t_sh("%s export --format=ctf -o %s/tsc-1g %s/tsc.dat 2>%s/tsc.err && "
		       "grep -q 'frequency is not in the file' %s/tsc.err",
		       tool, tmpdir, tmpdir, tmpdir, tmpdir),
		    0);
	T_ASSERT_EQ(t_sh("%s export --format=ctf --clock-freq %lld -o %s/tsc-f %s/tsc.dat && "
		       "grep -q '^\tfreq = %lld;' %s/tsc-f/metadata",
		       tool, freq, tmpdir, tmpdir, freq, tmpdir),
		    0);
}

int main(void)
{
	t_abspath(tool, sizeof(tool), EVT_TOOL);
	t_abspath(demo, sizeof(demo), RECORD_DEMO);
	if (access(tool, X_OK) || access(demo, X_OK))
		t_skip("%s or %s is not built", tool, demo);
	if (t_sh("command -v babeltrace2 >/dev/null 2>&1"))
		t_skip("babeltrace2 is missing (apt install babeltrace2)");
	T_ASSERT(mkdtemp(tmpdir));
	check_direct();
	check_refusals();
	check_killed();
#if defined(__x86_64__) || defined(__aarch64__)
	check_tsc();
#endif
	t_sh("rm -rf %s", tmpdir);
	return T_PASS;
}
