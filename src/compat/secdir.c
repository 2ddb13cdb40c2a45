// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * secdir.c - private directories (the control sockets'), opened once with
 * O_NOFOLLOW | O_DIRECTORY and checked for owner and mode (compat/secdir.h,
 * docs/control.md "Threat model").
 *
 * Why: a directory another user can write to (or own) lets that user swap
 * its entries, or the directory itself, for symbolic links between our
 * check and our use. Checking the descriptor we then use (fstat) and working
 * relative to it (openat, unlinkat) leaves no such window; checking that the
 * parent cannot be written to by others (or is sticky, as /tmp is) keeps the
 * name itself ours.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/secdir.h"

static void __attribute__((format(printf, 3, 4)))
say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* The checks of secdir_check_fd() on @st, the reason naming @path. */
static int check_stat(const struct stat *st, const char *path, char *why, size_t whylen)
{
	if (!S_ISDIR(st->st_mode)) {
		say(why, whylen, "%s: not a directory", path);
		return -ENOTDIR;
	}
	if (st->st_uid != geteuid()) {
		say(why, whylen, "%s: owned by uid %lu, not by you", path,
		    (unsigned long)st->st_uid);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		say(why, whylen, "%s: others can write to it (mode %04lo)", path,
		    (unsigned long)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int secdir_check_fd(int fd, char *why, size_t whylen)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return check_stat(&st, "directory", why, whylen);
}

/*
 * The parent at @pfd may hold our directory only if nobody else can rename
 * it away: owned by root or us, and writable by nobody else unless sticky.
 */
static int check_parent(int pfd, const char *path, char *why, size_t whylen)
{
	struct stat st;

	if (fstat(pfd, &st) < 0)
		return -errno;
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		say(why, whylen, "%s: its parent is owned by uid %lu", path,
		    (unsigned long)st.st_uid);
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		say(why, whylen, "%s: others can write to its parent (mode %04lo, not sticky)",
		    path, (unsigned long)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int secdir_open_parent(const char *path, char *why, size_t whylen)
{
	int fd, ret;

	if (why && whylen)
		why[0] = '\0';
	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = check_parent(fd, path, why, whylen);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* Open the parent of @path (checked) into *@pfd; *@last: its last component. */
static int open_parent(const char *path, int *pfd, const char **last, char *why, size_t whylen)
{
	char parent[4096];
	const char *slash = strrchr(path, '/');
	size_t n;
	int fd, ret;

	if (!slash || path[0] != '/' || !slash[1] || !strcmp(slash + 1, ".") ||
	    !strcmp(slash + 1, "..")) {
		say(why, whylen, "%s: not an absolute path to a directory", path);
		return -EINVAL;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, n);
	parent[n] = '\0';
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = check_parent(fd, path, why, whylen);
	if (ret) {
		close(fd);
		return ret;
	}
	*pfd = fd;
	*last = slash + 1;
	return 0;
}

static int open_checked(const char *path, bool make, bool *created, char *why, size_t whylen)
{
	const char *last;
	struct stat st;
	int pfd, fd, ret;

	if (created)
		*created = false;
	ret = open_parent(path, &pfd, &last, why, whylen);
	if (ret)
		return ret;
	if (make) {
		if (mkdirat(pfd, last, 0700) == 0) {
			if (created)
				*created = true;
		} else if (errno != EEXIST) {
			ret = -errno;
			say(why, whylen, "%s: cannot create it: %s", path, strerror(-ret));
			close(pfd);
			return ret;
		}
	}
	fd = openat(pfd, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(pfd);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP || ret == -ENOTDIR)
			say(why, whylen, "%s: a symbolic link or not a directory", path);
		return ret == -ENOTDIR ? -ELOOP : ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = check_stat(&st, path, why, whylen);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int secdir_open(const char *path, char *why, size_t whylen)
{
	if (why && whylen)
		why[0] = '\0';
	if (!path)
		return -EINVAL;
	return open_checked(path, false, NULL, why, whylen);
}

int secdir_make(const char *path, bool *created, char *why, size_t whylen)
{
	if (why && whylen)
		why[0] = '\0';
	if (!path)
		return -EINVAL;
	return open_checked(path, true, created, why, whylen);
}

int secdir_remove_tree(int dfd, int parent_fd, const char *name)
{
	struct stat mine, now;
	struct dirent *de;
	int dup_fd = dup(dfd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;

	if (d) {
		rewinddir(d);
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			/* through the descriptor: the entries of this directory, nothing else */
			unlinkat(dfd, de->d_name, 0);
		}
		closedir(d);
	} else if (dup_fd >= 0) {
		close(dup_fd);
	}
	if (fstat(dfd, &mine) < 0)
		return -errno;
	/* the name must still be this directory: a replacement is not ours to remove */
	if (fstatat(parent_fd, name, &now, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (now.st_dev != mine.st_dev || now.st_ino != mine.st_ino)
		return -ESTALE;
	if (unlinkat(parent_fd, name, AT_REMOVEDIR) < 0)
		return -errno;
	return 0;
}
