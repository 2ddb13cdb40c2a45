/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/sec-util.h - what the tests of the threat model share
 * (docs/control.md, "Threat model"): local users of their own (created with
 * useradd when absent; the tests run as root in CI, and skip otherwise),
 * running a function as one of them (setpriv --reuid --regid --clear-groups,
 * done in-process), and removing a tree without following its links.
 * Header-only (each test is one program); names sec_*.
 */
#ifndef EVT_TESTS_SEC_UTIL_H
#define EVT_TESTS_SEC_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

struct sec_user {
	uid_t uid;
	gid_t gid;
};

/* The system user @name, created if absent; SKIP when not root or useradd fails. */
static inline struct sec_user sec_user(const char *name)
{
	struct passwd *pw = getpwnam(name);

	if (geteuid() != 0)
		t_skip("needs root to create and become another user");
	if (!pw) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			int nul = open("/dev/null", O_WRONLY);

			dup2(nul, 1);
			dup2(nul, 2);
			execlp("useradd", "useradd", "--system", "--no-create-home", "--shell",
			       "/usr/sbin/nologin", name, (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		/* a test running at the same time may have made it: look again either way */
		pw = getpwnam(name);
	}
	if (!pw)
		t_skip("cannot create the user %s (useradd)", name);
	return (struct sec_user){ pw->pw_uid, pw->pw_gid };
}

/* Become @u for good (no supplementary groups); exit 100 if that fails. */
static inline void sec_become(struct sec_user u)
{
	if (setgroups(0, NULL) || setresgid(u.gid, u.gid, u.gid) || setresuid(u.uid, u.uid, u.uid))
		_exit(100);
}

/* Run @fn(@arg) in a child that is @u; its exit status (or 128 + signal). */
static inline int sec_run_as(struct sec_user u, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		sec_become(u);
		_exit(fn(arg));
	}
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline int sec_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* rm -rf @path, never following a symbolic link. */
static inline void sec_rm_tree(const char *path)
{
	nftw(path, sec_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* EVT_TESTS_SEC_UTIL_H */
