/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/sec-util.h - what the tests of the threat model share
 * (docs/control.md, "Threat model"): local users of their own (created with
 * useradd when absent; the tests run as root in CI, and skip otherwise),
 * running a function as one of them (setpriv --reuid --regid --clear-groups,
 * done in-process), and removing a tree without following its links.
 * Defined in sec-util.c of the test library; names sec_*.
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
struct sec_user sec_user(const char *name);

/* Become @u for good (no supplementary groups); exit 100 if that fails. */
static inline void sec_become(struct sec_user u)
{
	if (setgroups(0, NULL) || setresgid(u.gid, u.gid, u.gid) || setresuid(u.uid, u.uid, u.uid))
		_exit(100);
}

/* Run @fn(@arg) in a child that is @u; its exit status (or 128 + signal). */
int sec_run_as(struct sec_user u, int (*fn)(void *), void *arg);

int sec_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f);

/* rm -rf @path, never following a symbolic link. */
static inline void sec_rm_tree(const char *path)
{
	nftw(path, sec_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* EVT_TESTS_SEC_UTIL_H */
