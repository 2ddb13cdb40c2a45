/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat/secdir.h - private directories in places others may reach (the
 * control sockets' directory, relay and tracepipe files), opened once and
 * checked (docs/control.md, "Threat model").
 *
 * A socket directory (and a record's session directory in it) is used only
 * when it is a real directory (not a symbolic link), owned by the effective
 * user, and nobody else can write to it. It is opened once with
 * O_NOFOLLOW | O_DIRECTORY; what is created or removed in it afterwards goes
 * through that descriptor (openat, unlinkat, mkdirat), never through a path
 * resolved again. Its parent must not let others replace it: a parent that
 * others can write to needs the sticky bit (/tmp). Nothing here changes the
 * mode of a directory it did not create.
 *
 * Used by the control endpoint and its client, relay, tracepipe and the
 * evtrace command. Internal (secdir_ prefix), not exported; knows nothing
 * of tracing.
 */
#ifndef EVT_COMPAT_SECDIR_H
#define EVT_COMPAT_SECDIR_H

#include <stdbool.h>
#include <stddef.h>

/* Longest text secdir_open() and secdir_make() leave in @why. */
#define SECDIR_WHY_MAX 192

/**
 * secdir_check_fd() - is the directory open at @fd safe to hold sockets?
 * @fd:     a descriptor of a directory.
 * @why:    if not NULL, @whylen bytes for the reason of a refusal.
 * @whylen: size of @why.
 *
 * Context: any thread; one fstat().
 * Return: 0: owned by the effective user, nobody else can write to it;
 * -ENOTDIR: not a directory; -EPERM: another user's, or writable by group or others.
 */
int secdir_check_fd(int fd, char *why, size_t whylen);

/**
 * secdir_open() - open the directory @path once and check it.
 * @path:   absolute path; its last component must not be a symbolic link.
 * @why:    as for secdir_check_fd() (the reason names @path).
 * @whylen: size of @why.
 *
 * Context: any thread.
 * Return: a descriptor (O_CLOEXEC) or -errno: -ENOENT missing, -ELOOP a
 * symbolic link, -EPERM refused (see secdir_check_fd(); also a parent that
 * others can write to without the sticky bit).
 */
int secdir_open(const char *path, char *why, size_t whylen);

/**
 * secdir_make() - as secdir_open(), creating the directory (mode 0700)
 * first when it is missing. An existing directory is used as it is, never
 * chmod'ed: one that others can write to is refused.
 * @created: if not NULL, set to whether this call created the directory.
 *
 * Context: any thread.
 * Return: a descriptor or -errno, as secdir_open().
 */
int secdir_make(const char *path, bool *created, char *why, size_t whylen);

/**
 * secdir_open_parent() - open a directory to create a private directory in.
 * @path: a directory owned by root or the effective user, that others cannot
 *        write to unless it has the sticky bit (/tmp).
 *
 * Context: any thread.
 * Return: a descriptor or -errno (-EPERM: refused, the reason in @why).
 */
int secdir_open_parent(const char *path, char *why, size_t whylen);

/**
 * secdir_remove_tree() - unlink every entry (not directories) of the
 * directory open at @dfd, then the directory @name of @parent_fd if it
 * still is that same directory.
 * @dfd:       the directory, as opened (its entries are unlinked through it).
 * @parent_fd: the directory that holds it.
 * @name:      its name in @parent_fd.
 *
 * A name that was replaced (by a symbolic link, another directory) is left
 * alone: nothing outside @dfd is ever touched.
 * Context: any thread.
 * Return: 0 or the -errno of the final rmdir.
 */
int secdir_remove_tree(int dfd, int parent_fd, const char *name);

#endif /* EVT_COMPAT_SECDIR_H */
