/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/tracefs-cat.h - `cat PATH` and `ls PATH` on an instance's tracing tree
 * (header-only: the tracefs and trigger tests and the tracefs fuzz target share it).
 */
#ifndef EVT_TESTS_TRACEFS_CAT_H
#define EVT_TESTS_TRACEFS_CAT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <evtrace/tracefs.h>

/*
 * The whole of @path in @in (NULL: the top instance), read as a non-blocking open
 * would, in a static buffer (NUL-terminated; "<error -N>" when it cannot be opened).
 */
static inline __attribute__((unused)) const char *t_tracefs_cat(struct evt_instance *in,
								const char *path)
{
	static char buf[1 << 20];
	struct evt_tracefs_file *f;
	size_t len = 0;
	ssize_t n;
	int ret;

	ret = evt_tracefs_open(in, path, EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK, &f);
	if (ret) {
		snprintf(buf, sizeof(buf), "<error %d>", ret);
		return buf;
	}
	while (len < sizeof(buf) - 1 &&
	       (n = evt_tracefs_file_read(f, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	evt_tracefs_close(f);
	buf[len] = '\0';
	return buf;
}

struct t_tracefs_listing {
	char names[4096];
};

static inline __attribute__((unused)) int t_tracefs_collect(void *arg, const char *name,
							    unsigned int mode)
{
	struct t_tracefs_listing *l = arg;

	if (strlen(l->names) + strlen(name) + 3 > sizeof(l->names))
		return -ENOSPC;
	strcat(l->names, name);
	strcat(l->names, (mode & 0040000) ? "/ " : " ");
	return 0;
}

/*
 * `ls PATH` in @in (NULL: the top instance): the names in listing order, each followed by
 * a space, a directory's by "/ " (a static buffer; "<error -N>" when it cannot be listed).
 */
static inline __attribute__((unused)) const char *t_tracefs_ls(struct evt_instance *in,
							       const char *path)
{
	static struct t_tracefs_listing l;
	int ret;

	l.names[0] = '\0';
	ret = evt_tracefs_readdir(in, path, t_tracefs_collect, &l);
	if (ret)
		snprintf(l.names, sizeof(l.names), "<error %d>", ret);
	return l.names;
}

#endif /* EVT_TESTS_TRACEFS_CAT_H */
