// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/sec-util.c - shared helpers of the tests that include sec-util.h
 */
#include "sec-util.h"

struct sec_user sec_user(const char *name)
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

int sec_run_as(struct sec_user u, int (*fn)(void *), void *arg)
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

int sec_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}
