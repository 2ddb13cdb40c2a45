// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * session-dir.c - the session directory of `evtrace record -- CMD`
 * (session-dir.h). Every use after creation goes through descriptors: the
 * parent's (to create and remove the directory by name) and the
 * directory's own (to unlink its entries). A path is only given to others
 * (EVTRACE_CONTROL_DIR, socket addresses), never resolved again here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"
#include "session-dir.h"

/* A directory "@prefixXXXXXX" of our own in the directory open at @pfd. */
static int make_private(struct session_dir *sd, int pfd, const char *base, const char *prefix)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char why[CTL_DIR_WHY_MAX];
	int fd, ret;

	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[6];
		char name[sizeof(sd->name)];
		size_t pl = strlen(prefix);

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		memcpy(name, prefix, pl);
		for (size_t i = 0; i < sizeof(rnd); i++)
			name[pl + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		name[pl + sizeof(rnd)] = '\0';
		if (mkdirat(pfd, name, 0700) < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			unlinkat(pfd, name, AT_REMOVEDIR);
			return ret;
		}
		ret = ctl_dir_check_fd(fd, why, sizeof(why));
		if (ret) {
			cmd_error("record: the session directory %s/%s: %s", base, name, why);
			close(fd);
			return ret;
		}
		if ((size_t)snprintf(sd->path, sizeof(sd->path), "%s/%s", base, name) >=
		    sizeof(sd->path)) {
			close(fd);
			unlinkat(pfd, name, AT_REMOVEDIR);
			return -ENAMETOOLONG;
		}
		memcpy(sd->name, name, sizeof(name));
		sd->fd = fd;
		sd->parent_fd = pfd;
		return 0;
	}
	return -EEXIST;
}

int session_dir_create(struct session_dir *sd)
{
	char base[256], why[CTL_DIR_WHY_MAX];
	int pfd, ret;

	sd->path[0] = '\0';
	sd->fd = sd->parent_fd = -1;
	/* a socket path (DIR/record-XXXXXX/PID.sock) must fit in 108 bytes */
	if (!ctl_socket_dir(base, sizeof(base)) && strlen(base) + 15 < 80) {
		/* the usual socket directory: ours, nobody else can write to it */
		pfd = ctl_dir_make(base, why, sizeof(why));
		if (pfd >= 0) {
			ret = make_private(sd, pfd, base, "record-");
			if (!ret)
				return 0;
			close(pfd);
		} else if (pfd == -EPERM || pfd == -ELOOP) {
			fprintf(stderr,
				"evtrace: record: warning: socket directory refused: %s; "
				"the command's sockets go to /tmp/evtrace-record-*\n",
				why);
		}
	}
	pfd = ctl_dir_open_parent("/tmp", why, sizeof(why));
	if (pfd < 0) {
		if (why[0])
			cmd_error("record: %s", why);
		return pfd;
	}
	ret = make_private(sd, pfd, "/tmp", "evtrace-record-");
	if (ret)
		close(pfd);
	return ret;
}

void session_dir_remove(struct session_dir *sd)
{
	int ret;

	if (sd->fd < 0)
		return;
	ret = ctl_dir_remove_tree(sd->fd, sd->parent_fd, sd->name);
	if (ret && ret != -ENOENT)
		fprintf(stderr, "evtrace: record: warning: removing %s: %s\n", sd->path,
			ret == -ESTALE ? "it was replaced (left alone)" : strerror(-ret));
	close(sd->fd);
	close(sd->parent_fd);
	sd->fd = sd->parent_fd = -1;
	sd->path[0] = '\0';
}
