// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gtsc-preload: trace an unmodified program's fork() calls through the
 * LD_PRELOAD shim (examples/shim/gtsc-fork-shim.c), then "cat" its trace0.
 *
 *   GTSC_SHIM=.../libgtsc-fork-shim.so gtsc-preload [NFORKS]
 *
 * Runs `sh -c 'read go; (true); (true); ...'` with the shim preloaded and
 * GTSC_SHIM_DIR set to a scratch directory; once
 * .../gtsc_example/do_fork/trace0 exists it opens it as a consumer (so the
 * buffer outlives the traced shell), lets the shell go on, waits for it,
 * and prints what trace0 holds: one "[timestamp] pid" line per fork, with
 * the shell's pid. Exit 0 if that is what it got; 77 without GTSC_SHIM.
 */
#include <errno.h>
#include <signal.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int main(int argc, char **argv)
{
	const char *shim = getenv("GTSC_SHIM");
	int nforks = argc > 1 ? atoi(argv[1]) : 3, go[2], lines = 0, bad = 0, status, ret;
	char dir[] = "/tmp/gtsc-preload-XXXXXX", path[PATH_MAX], script[512], out[8192];
	struct evt_relay_reader *r = NULL;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (!shim || access(shim, R_OK) != 0) {
		fprintf(stderr, "gtsc-preload: set GTSC_SHIM to libgtsc-fork-shim.so\n");
		return 77;
	}
	if (!mkdtemp(dir) || pipe(go) < 0)
		return 1;
	snprintf(script, sizeof(script), "read go;");
	for (int i = 0; i < nforks; i++)
		strncat(script, " (true);", sizeof(script) - strlen(script) - 1);
	snprintf(path, sizeof(path), "%s/gtsc_example/do_fork/trace0", dir);

	pid = fork();
	if (pid == 0) {
		dup2(go[0], 0);
		close(go[1]);
		setenv("GTSC_SHIM_DIR", dir, 1);
		setenv("LD_PRELOAD", shim, 1);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	/* The shell sets the trace up when the shim loads; it then waits for us. */
	for (int tries = 0; (ret = evt_relay_reader_open(path, &r)) < 0 && tries < 5000; tries++)
		usleep(1000);
	if (ret < 0) {
		fprintf(stderr, "gtsc-preload: %s: %s\n", path, evt_strerror(ret));
		kill(pid, 9);
		return 1;
	}
	if (write(go[1], "go\n", 3) != 3)
		return 1;
	close(go[1]);
	waitpid(pid, &status, 0);

	/* $ cat .../do_fork/trace0 (the shell is gone; we still hold its buffer) */
	printf("$ cat %s\n", path);
	while (got < sizeof(out) - 1 &&
	       (n = evt_relay_reader_read(r, out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	fputs(out, stdout);
	evt_relay_reader_close(r);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long ts;
		int p;

		if (sscanf(line, "[%llu] %d", &ts, &p) != 2 || p != (int)pid)
			bad++;
		lines++;
	}
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || lines != nforks || bad) {
		fprintf(stderr, "gtsc-preload: %d lines for %d forks, %d bad\n", lines, nforks,
			bad);
		return 1;
	}
	printf("gtsc-preload: %d forks of sh (pid %d) traced\n", nforks, (int)pid);
	return 0;
}
