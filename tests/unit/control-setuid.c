// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-setuid: a setuid program ignores the EVTRACE_* variables (issue
 * 11, defect 4; secure_getenv(3), docs/control.md "Threat model"). As root,
 * a copy of this program owned by nobody is run twice with
 * EVTRACE_CONTROL=1 and EVTRACE_CONTROL_DIR=D, D a directory of nobody's:
 *  - as nobody (no setuid: real = effective uid): the endpoint starts and
 *    its socket appears in D; this shows that the variables work and that
 *    the second run could fail;
 *  - setuid nobody, run by root (AT_SECURE): neither variable is read, so
 *    no endpoint starts, D stays empty, nothing is counted as a failure.
 * Skipped (77) when not root, without the user nobody, on a nosuid file
 * system, and under sanitizers (their runtimes read the environment of a
 * setuid program in ways of their own).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "helpers.h"

/* Entries in @dir, other than . and .. (-1: unreadable). */
static int entries(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

/* The copy, run: wait up to 2 s for the socket, print what was found and counted. */
static int child_main(const char *dir)
{
	struct evt_control_stats st;
	int n = 0;

	for (int i = 0; i < 200 && n <= 0; i++, usleep(10000))
		n = entries(dir);
	evt_control_stats(&st);
	printf("uid %d euid %d entries %d failures %lu\n", (int)getuid(), (int)geteuid(), n,
	       st.start_failures);
	return 0;
}

/* Run @prog --child @dir, as @uid when @drop; its stdout into @out. Return its exit status. */
static int run(const char *prog, const char *dir, bool drop, const struct passwd *pw, char *out,
	       size_t len)
{
	int p[2], st;
	ssize_t n;
	pid_t pid;

	T_ASSERT(pipe(p) == 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (drop && (setgroups(0, NULL) || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
			     setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid)))
			_exit(126);
		execl(prog, prog, "--child", dir, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(p[0]);
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	printf("%s run: %s", drop ? "plain" : "setuid", out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The "entries N failures F" of a child's line: N, and F in @failures. */
static int found(const char *out, unsigned long *failures)
{
	const char *s = strstr(out, "entries ");
	int n = -2;

	T_ASSERT(s && sscanf(s, "entries %d failures %lu", &n, failures) == 2);
	return n;
}

/* Copy the file @from to @to, mode 0755. */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), o;
	ssize_t n;

	T_ASSERT(in >= 0);
	o = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	T_ASSERT(o >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		T_ASSERT(write(o, buf, (size_t)n) == n);
	T_ASSERT(n == 0);
	close(in);
	close(o);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/evt-setuid-XXXXXX", prog[300], dir[300], dir2[300], out[512];
	const struct passwd *pw;
	unsigned long failures;
	struct statvfs vfs;
	int rc;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return child_main(argv[2]);
#ifdef T_UNDER_SANITIZER
	printf("SKIP: under a sanitizer\n");
	return 77;
#endif
	pw = getpwnam("nobody");
	if (geteuid() != 0 || !pw || pw->pw_uid == 0) {
		printf("SKIP: needs root and the user nobody\n");
		return 77;
	}
	T_ASSERT(mkdtemp(tmpl));
	T_ASSERT(statvfs(tmpl, &vfs) == 0);
	if (vfs.f_flag & ST_NOSUID) {
		rmdir(tmpl);
		printf("SKIP: %s is on a nosuid file system\n", tmpl);
		return 77;
	}
	T_ASSERT(chmod(tmpl, 0755) == 0); /* nobody opens it: the parent of its directory */
	snprintf(prog, sizeof(prog), "%s/prog", tmpl);
	snprintf(dir, sizeof(dir), "%s/dir", tmpl);
	snprintf(dir2, sizeof(dir2), "%s/dir2", tmpl);
	copy_file("/proc/self/exe", prog);
	T_ASSERT(chown(prog, pw->pw_uid, pw->pw_gid) == 0);
	T_ASSERT(mkdir(dir, 0700) == 0 && chown(dir, pw->pw_uid, pw->pw_gid) == 0);
	T_ASSERT(mkdir(dir2, 0700) == 0 && chown(dir2, pw->pw_uid, pw->pw_gid) == 0);
	setenv("EVTRACE_CONTROL", "1", 1);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);

	/* as nobody: the variables are read, the socket is made in @dir */
	rc = run(prog, dir, true, pw, out, sizeof(out));
	if (rc == 126 || rc == 127) {
		printf("SKIP: could not run the copy as nobody (%d)\n", rc);
		rc = 77;
		goto out;
	}
	T_ASSERT_EQ(rc, 0);
	T_ASSERT(found(out, &failures) > 0);
	T_ASSERT_EQ(failures, 0);

	/* setuid nobody, run by root, on a fresh directory: the variables are not read */
	T_ASSERT(chmod(prog, 04755) == 0);
	setenv("EVTRACE_CONTROL_DIR", dir2, 1);
	T_ASSERT_EQ(run(prog, dir2, false, pw, out, sizeof(out)), 0);
	if (!strstr(out, " euid ") || strstr(out, "euid 0 ")) {
		printf("SKIP: the setuid bit was not honoured\n");
		rc = 77;
		goto out;
	}
	T_ASSERT(!strncmp(out, "uid 0 ", 6));
	T_ASSERT_EQ(found(out, &failures), 0);
	T_ASSERT_EQ(failures, 0);
	printf("PASS\n");
	rc = 0;
out:
	snprintf(out, sizeof(out), "rm -rf %s", tmpl);
	T_ASSERT_EQ(system(out), 0);
	return rc;
}
