// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctl_dir.c - the socket directories' rules for the client side
 * (ctl_client.h, "The directories of sockets"): compat/secdir.h's checks
 * behind the one header the tools include, so that the tools apply exactly
 * the rules of the server without naming the compat layer.
 */
#include <stdbool.h>
#include <stddef.h>

#include "compat/secdir.h"
#include "control/ctl_client.h"

_Static_assert(CTL_DIR_WHY_MAX >= SECDIR_WHY_MAX, "ctl_dir_* reasons are secdir_* reasons");

int ctl_dir_check_fd(int fd, char *why, size_t whylen)
{
	return secdir_check_fd(fd, why, whylen);
}

int ctl_dir_open(const char *path, char *why, size_t whylen)
{
	return secdir_open(path, why, whylen);
}

int ctl_dir_make(const char *path, char *why, size_t whylen)
{
	return secdir_make(path, NULL, why, whylen);
}

int ctl_dir_open_parent(const char *path, char *why, size_t whylen)
{
	return secdir_open_parent(path, why, whylen);
}

int ctl_dir_remove_tree(int dfd, int parent_fd, const char *name)
{
	return secdir_remove_tree(dfd, parent_fd, name);
}
