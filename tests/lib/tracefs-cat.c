// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/tracefs-cat.c - cat, ls and echo on the tracing tree (tracefs-cat.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs-cat.h"

const char *t_tracefs_cat(struct evt_instance *in, const char *path)
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

struct listing {
	char names[4096];
};

static int collect(void *arg, const char *name, unsigned int mode)
{
	struct listing *l = arg;

	if (strlen(l->names) + strlen(name) + 3 > sizeof(l->names))
		return -ENOSPC;
	strcat(l->names, name);
	strcat(l->names, (mode & 0040000) ? "/ " : " ");
	return 0;
}

const char *t_tracefs_ls(struct evt_instance *in, const char *path)
{
	static struct listing l;
	int ret;

	l.names[0] = '\0';
	ret = evt_tracefs_readdir(in, path, collect, &l);
	if (ret)
		snprintf(l.names, sizeof(l.names), "<error %d>", ret);
	return l.names;
}

/* One open, then write(2) again after each short count, as the shell's echo. */
static ssize_t echo_sh(struct evt_instance *in, const char *path, const char *text, size_t len,
		       unsigned int flags)
{
	struct evt_tracefs_file *f;
	size_t done = 0;
	ssize_t n = 0;
	int ret;

	ret = evt_tracefs_open(in, path, EVT_TRACEFS_WRITE | flags, &f);
	if (ret)
		return ret;
	while (done < len) {
		n = evt_tracefs_file_write(f, text + done, len - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	evt_tracefs_close(f);
	return n < 0 ? n : (ssize_t)done;
}

ssize_t t_tracefs_echo(struct evt_instance *in, const char *path, const char *text,
		       unsigned int flags)
{
	unsigned int mode = flags & (EVT_TRACEFS_TRUNC | EVT_TRACEFS_APPEND);
	size_t len = strlen(text);
	char *buf = NULL;
	ssize_t ret;

	if (flags & T_ECHO_NL) {
		buf = malloc(len + 2);
		T_ASSERT(buf);
		memcpy(buf, text, len);
		buf[len++] = '\n';
		buf[len] = '\0';
		text = buf;
	}
	if (flags & T_ECHO_SH)
		ret = echo_sh(in, path, text, len, mode);
	else
		ret = evt_tracefs_write(in, path, text, len, mode);
	free(buf);
	return ret;
}

int t_count_overlapping(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}
