// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gtsc-fork: the seed's kprobes_gtsc example (shared/seeds/gtsc.txt) in
 * user space. The seed puts a kprobe on do_fork() whose handler writes
 * "[timestamp] pid" into a GTSC channel with gtsc_printf(); here the
 * probe is a pthread_atfork() prepare handler, which runs in the forking
 * process on every fork() it makes, and the channel lives in
 * <dir>/gtsc_example/do_fork/trace0 (one global buffer, 1024 x 8).
 *
 *   gtsc-fork [DIR] [NFORKS]     DIR: a scratch directory by default
 *
 * After NFORKS forks it stops the trace and does the seed's
 * "cat .../do_fork/trace0" from another process (the relay reader API),
 * prints what it read, checks every line is "[timestamp] pid" with this
 * process's pid and timestamps in order, and exits 0 if so.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

#define GTSC_PRINTF_TMPBUF_SIZE 256

static struct evt_trace_info *kprobes_trace;

/* The seed's gtsc_printf(): the buffer is on the stack (one per thread, no lock). */
static void gtsc_printf(struct evt_trace_info *trace, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
static void gtsc_printf(struct evt_trace_info *trace, const char *format, ...)
{
	char buf[GTSC_PRINTF_TMPBUF_SIZE];
	va_list args;
	char *record;
	int len, n;

	if (!trace || !evt_trace_running(trace))
		return;
	len = snprintf(buf, sizeof(buf), "[%llu] ", (unsigned long long)evt_trace_timestamp());
	va_start(args, format);
	n = vsnprintf(buf + len, sizeof(buf) - (size_t)len, format, args);
	va_end(args);
	if (n < 0)
		return;
	len += n;
	if (len > (int)sizeof(buf) - 1)
		len = (int)sizeof(buf) - 1;
	/* A global buffer serializes writers itself: no lock needed around the reserve. */
	record = evt_relay_reserve(trace->rchan, (size_t)len);
	if (record)
		memcpy(record, buf, (size_t)len);
}

/* The probe: runs in the parent before every fork(). */
static void handler_pre(void)
{
	gtsc_printf(kprobes_trace, "%d\n", (int)getpid());
}

/* "cat trace0" in another process: everything in the buffer to @out. */
static int cat_trace0(const char *path, int out)
{
	struct evt_relay_reader *r;
	char buf[4096];
	ssize_t n;
	int ret = evt_relay_reader_open(path, &r);

	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", path, evt_strerror(ret));
		return 1;
	}
	while ((n = evt_relay_reader_read(r, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	evt_relay_reader_close(r);
	return n < 0 && n != -EAGAIN;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/gtsc-fork-XXXXXX", root[PATH_MAX], path[PATH_MAX + 64], out[8192];
	int nforks = argc > 2 ? atoi(argv[2]) : 5, pfd[2], status, lines = 0, bad = 0;
	const char *dir = argc > 1 ? argv[1] : NULL;
	unsigned long long prev = 0;
	size_t got = 0;
	ssize_t n;
	pid_t pid;
	int ret;

	if (!dir) {
		dir = mkdtemp(tmpl);
		if (!dir)
			return 1;
	}
	snprintf(root, sizeof(root), "%s/gtsc_example", dir);
	ret = evt_trace_setup(root, "do_fork", 1024, 8, EVT_TRACE_GLOBAL_CHANNEL, &kprobes_trace);
	if (ret < 0) {
		fprintf(stderr, "evt_trace_setup: %s\n", evt_strerror(ret));
		return 1;
	}
	evt_trace_start(kprobes_trace);
	pthread_atfork(handler_pre, NULL, NULL); /* "register_kprobe(do_fork)" */

	for (int i = 0; i < nforks; i++) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	evt_trace_stop(kprobes_trace);

	/* $ cat <dir>/gtsc_example/do_fork/trace0 */
	snprintf(path, sizeof(path), "%s/do_fork/trace0", root);
	printf("$ cat %s\n", path);
	fflush(stdout);
	if (pipe(pfd) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		_exit(cat_trace0(path, pfd[1]));
	}
	close(pfd[1]);
	while (got < sizeof(out) - 1 && (n = read(pfd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	waitpid(pid, &status, 0);
	fputs(out, stdout);

	/* Check the "cat": one "[timestamp] pid" line per fork, in time order. */
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long ts;
		int p;

		if (sscanf(line, "[%llu] %d", &ts, &p) != 2 || p != (int)getpid() || ts < prev)
			bad++;
		prev = ts;
		lines++;
	}
	evt_trace_cleanup(kprobes_trace);
	if (argc <= 1)
		nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || lines != nforks || bad) {
		fprintf(stderr, "gtsc-fork: %d lines for %d forks, %d bad\n", lines, nforks, bad);
		return 1;
	}
	printf("gtsc-fork: %d forks traced\n", nforks);
	return 0;
}
