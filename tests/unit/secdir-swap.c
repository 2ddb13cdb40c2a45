// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * secdir-swap: a private directory is opened once and used through its
 * descriptor (compat/secdir.h), so swapping its name for a symbolic link
 * cannot redirect what is done to it:
 *  - secdir_remove_tree() of a directory whose name now is a link to a
 *    victim's directory removes the entries of the real one (through the
 *    descriptor), leaves the victim's files alone and says -ESTALE;
 *  - secdir_open() refuses a symbolic link (-ELOOP), a directory others
 *    can write to (-EPERM, mode left as it was), a directory in a parent
 *    others can write to without the sticky bit (-EPERM), a file (-ENOTDIR
 *    or -ELOOP);
 *  - secdir_make() creates a missing one 0700 and says so; an existing one
 *    is never chmod'ed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/secdir.h"
#include "helpers.h"
#include "sec-util.h"

static char base[] = "/tmp/evt-secdir-XXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", base, name);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	T_ASSERT(lstat(path, &st) == 0);
	return st.st_mode & 07777;
}

int main(void)
{
	char sess[300], moved[300], victim[300], file[300], why[SECDIR_WHY_MAX], p[300];
	bool created;
	int fd, pfd, ret;

	T_ASSERT(mkdtemp(base));

	/* the swap: our session directory's name becomes a link to the victim's */
	path_of(victim, sizeof(victim), "victim");
	T_ASSERT(mkdir(victim, 0700) == 0);
	path_of(file, sizeof(file), "victim/precious");
	T_ASSERT(close(open(file, O_WRONLY | O_CREAT, 0600)) == 0);
	path_of(sess, sizeof(sess), "session");
	fd = secdir_make(sess, &created, why, sizeof(why));
	T_ASSERT(fd >= 0 && created);
	T_ASSERT_EQ(mode_of(sess) & 077, 0);
	T_ASSERT(close(openat(fd, "123.sock", O_WRONLY | O_CREAT, 0600)) == 0);
	pfd = open(base, O_RDONLY | O_DIRECTORY);
	T_ASSERT(pfd >= 0);
	path_of(moved, sizeof(moved), "session.moved");
	T_ASSERT(rename(sess, moved) == 0);
	T_ASSERT(symlink(victim, sess) == 0);
	ret = secdir_remove_tree(fd, pfd, "session");
	printf("remove after the swap: %s\n", strerror(-ret));
	T_ASSERT_EQ(ret, -ESTALE);
	T_ASSERT(access(file, F_OK) == 0); /* the victim's file is there */
	path_of(p, sizeof(p), "session.moved/123.sock");
	T_ASSERT(access(p, F_OK) < 0 && errno == ENOENT); /* ours went, through the fd */
	close(fd);
	close(pfd);

	/* a symbolic link is refused */
	fd = secdir_open(sess, why, sizeof(why));
	printf("a link: %s (%s)\n", strerror(-fd), why);
	T_ASSERT_EQ(fd, -ELOOP);
	fd = secdir_make(sess, NULL, why, sizeof(why));
	T_ASSERT_EQ(fd, -ELOOP);

	/* a directory others can write to: refused, and its mode left alone */
	path_of(p, sizeof(p), "open");
	T_ASSERT(mkdir(p, 0700) == 0 && chmod(p, 0777) == 0);
	fd = secdir_make(p, NULL, why, sizeof(why));
	printf("mode 0777: %s (%s)\n", strerror(-fd), why);
	T_ASSERT_EQ(fd, -EPERM);
	T_ASSERT(strstr(why, "others can write"));
	T_ASSERT_EQ(mode_of(p), 0777);

	/* ours, 0755: used as it is */
	path_of(p, sizeof(p), "readable");
	T_ASSERT(mkdir(p, 0700) == 0 && chmod(p, 0755) == 0);
	fd = secdir_make(p, &created, why, sizeof(why));
	T_ASSERT(fd >= 0 && !created);
	close(fd);
	T_ASSERT_EQ(mode_of(p), 0755);

	/* in a parent others can write to: only with the sticky bit */
	path_of(p, sizeof(p), "shared");
	T_ASSERT(mkdir(p, 0700) == 0 && chmod(p, 0777) == 0);
	path_of(p, sizeof(p), "shared/mine");
	fd = secdir_make(p, NULL, why, sizeof(why));
	printf("parent 0777: %s (%s)\n", strerror(-fd), why);
	T_ASSERT_EQ(fd, -EPERM);
	path_of(p, sizeof(p), "shared");
	T_ASSERT(chmod(p, 01777) == 0);
	path_of(p, sizeof(p), "shared/mine");
	fd = secdir_make(p, &created, why, sizeof(why));
	T_ASSERT(fd >= 0 && created);
	close(fd);

	/* a file */
	path_of(p, sizeof(p), "victim/precious");
	fd = secdir_open(p, why, sizeof(why));
	T_ASSERT(fd == -ELOOP || fd == -ENOTDIR || fd == -EPERM);

	sec_rm_tree(base);
	printf("PASS\n");
	return 0;
}
