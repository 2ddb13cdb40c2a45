// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-start-fail: with EVTRACE_CONTROL=1, an endpoint that cannot start
 * says so, once, on stderr, and counts it (issue 11, defect 10); the
 * program runs on. This program runs itself with --child (the library's
 * constructor tries to start the endpoint) in each case:
 *  - EVTRACE_CONTROL_DIR names a directory others can write to: refused,
 *    the message names it, and it keeps its mode;
 *  - no descriptor left (RLIMIT_NOFILE 4: the loader needs one): the message says so;
 *  - the child starts the endpoint again by hand: counted twice, said once;
 *  - a full file system (as root: a tmpfs with no inode left): the message
 *    names ENOSPC;
 *  - a low RLIMIT_AS (the size the program has at main() plus 1 MiB: no
 *    room for the endpoint thread's stack): the message names ENOMEM or
 *    EAGAIN (not under sanitizers, whose shadow memory needs terabytes).
 * The child prints evt_control_stats(3) on stdout.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "helpers.h"

/* --vmsize: this program's VmSize at main(), in bytes, on stdout. */
static int vmsize_main(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	printf("%lu\n", kb * 1024);
	return 0;
}

static int child_main(void)
{
	struct evt_control_stats st;
	int ret = evt_control_start(0);

	evt_control_stats(&st);
	printf("start %d failures %lu last %d\n", ret, st.start_failures, st.last_error);
	return 0;
}

/*
 * Run ourselves with --child (--vmsize when @as is 1), with RLIMIT_NOFILE
 * @nofile and RLIMIT_AS @as when not 0; stdout into @out, stderr into @err.
 */
static void run_child_as(const char *self, int nofile, rlim_t as, char *out, size_t olen,
			 char *err, size_t elen)
{
	int o[2], e[2], st;
	pid_t pid;
	ssize_t n;

	T_ASSERT(pipe(o) == 0 && pipe(e) == 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		if (nofile) {
			struct rlimit rl = { nofile, nofile };

			setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (as > 1) {
			struct rlimit rl = { as, as };

			setrlimit(RLIMIT_AS, &rl);
		}
		execl(self, self, as == 1 ? "--vmsize" : "--child", (char *)NULL);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	n = read(o[0], out, olen - 1);
	out[n > 0 ? n : 0] = '\0';
	n = read(e[0], err, elen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(o[0]);
	close(e[0]);
	T_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	printf("child: %s  stderr: %s", out, err);
}

static void run_child(const char *self, int nofile, char *out, size_t olen, char *err, size_t elen)
{
	run_child_as(self, nofile, 0, out, olen, err, elen);
}

/* A tmpfs of our own on @dir with no inode left, or false (not root, no mount). */
static bool full_tmpfs(const char *dir)
{
	char name[400];
	int fd;

	if (geteuid() != 0 || mkdir(dir, 0700) ||
	    mount("evt-full", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=8,mode=0700"))
		return false;
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "%s/f%d", dir, i);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0) {
			T_ASSERT_EQ(errno, ENOSPC);
			return true;
		}
		close(fd);
	}
	t_fail("the tmpfs on %s never filled", dir);
	return false;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/evt-sfail-XXXXXX", open_dir[300], self[4096], out[4096], err[4096];
	struct stat st;
	ssize_t sl;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child_main();
	if (argc > 1 && !strcmp(argv[1], "--vmsize"))
		return vmsize_main();
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	T_ASSERT(sl > 0);
	self[sl] = '\0';
	T_ASSERT(mkdtemp(tmpl));
	setenv("EVTRACE_CONTROL", "1", 1);

	/* a directory others can write to */
	snprintf(open_dir, sizeof(open_dir), "%s/open", tmpl);
	T_ASSERT(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
	setenv("EVTRACE_CONTROL_DIR", open_dir, 1);
	run_child(self, 0, out, sizeof(out), err, sizeof(err));
	T_ASSERT_EQ(count(err, "serves no control socket"), 1);
	T_ASSERT(strstr(err, open_dir) && strstr(err, "others can write"));
	/* the constructor's try and the child's own: two failures, one message */
	T_ASSERT(strstr(out, "start -1 failures 2 last -1"));
	T_ASSERT(stat(open_dir, &st) == 0 && (st.st_mode & 07777) == 0777);

	/* no descriptor left */
	snprintf(open_dir, sizeof(open_dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", open_dir, 1);
	run_child(self, 4, out, sizeof(out), err, sizeof(err));
	T_ASSERT_EQ(count(err, "serves no control socket"), 1);
	T_ASSERT(strstr(err, strerror(EMFILE)));
	T_ASSERT(strstr(out, "failures 2 last -24"));

	rmdir(open_dir);

	/* a full file system: the socket's inode cannot be made */
	snprintf(open_dir, sizeof(open_dir), "%s/full", tmpl);
	if (full_tmpfs(open_dir)) {
		setenv("EVTRACE_CONTROL_DIR", open_dir, 1);
		run_child(self, 0, out, sizeof(out), err, sizeof(err));
		umount2(open_dir, MNT_DETACH);
		T_ASSERT_EQ(count(err, "serves no control socket"), 1);
		T_ASSERT(strstr(err, strerror(ENOSPC)));
		T_ASSERT(strstr(out, "last -28"));
	} else {
		printf("full tmpfs: skipped (needs root and a tmpfs mount)\n");
	}
	rmdir(open_dir);

#ifndef T_UNDER_SANITIZER
	/* a low RLIMIT_AS: no room for the endpoint's thread */
	{
		unsigned long long vm = 0;

		snprintf(open_dir, sizeof(open_dir), "%s/sock", tmpl);
		setenv("EVTRACE_CONTROL_DIR", open_dir, 1);
		unsetenv("EVTRACE_CONTROL");
		run_child_as(self, 0, 1, out, sizeof(out), err, sizeof(err));
		T_ASSERT(sscanf(out, "%llu", &vm) == 1 && vm > 0);
		setenv("EVTRACE_CONTROL", "1", 1);
		run_child_as(self, 0, (rlim_t)vm + (1 << 20), out, sizeof(out), err, sizeof(err));
		T_ASSERT_EQ(count(err, "serves no control socket"), 1);
		T_ASSERT(strstr(err, strerror(ENOMEM)) || strstr(err, strerror(EAGAIN)));
		T_ASSERT(strstr(out, "last -12") || strstr(out, "last -11"));
		rmdir(open_dir);
	}
#endif
	snprintf(open_dir, sizeof(open_dir), "%s/open", tmpl);
	rmdir(open_dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
