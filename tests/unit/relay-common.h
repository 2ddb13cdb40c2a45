/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/relay-common.h - what the relay tests share: a scratch host
 * directory, the file callbacks, a consumer in a child process, records
 * with sequence numbers.
 */
#ifndef EVT_TESTS_RELAY_COMMON_H
#define EVT_TESTS_RELAY_COMMON_H

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/relay.h>

#include "helpers.h"

#define REC_MAGIC 0x52454c59u /* "RELY" */

/* A test record: magic, sequence number, length, then filler bytes derived from seq. */
struct rec {
	uint32_t magic;
	uint32_t seq;
	uint32_t len;
	uint32_t writer;
};

static inline void rec_fill(void *buf, uint32_t seq, uint32_t len, uint32_t writer)
{
	struct rec r = { .magic = REC_MAGIC, .seq = seq, .len = len, .writer = writer };

	memcpy(buf, &r, sizeof(r));
	for (uint32_t i = sizeof(r); i < len; i++)
		((unsigned char *)buf)[i] = (unsigned char)(seq + i);
}

/* The header of the record at @buf, which may be unaligned. */
static inline struct rec rec_head(const void *buf)
{
	struct rec r;

	memcpy(&r, buf, sizeof(r));
	return r;
}

static inline uint32_t rec_seq(const void *buf)
{
	return rec_head(buf).seq;
}

/* 1 if the record at @buf (at most @avail bytes) is whole and right. */
static inline int rec_check(const void *buf, size_t avail)
{
	struct rec r;

	if (avail < sizeof(r))
		return 0;
	r = rec_head(buf);
	if (r.magic != REC_MAGIC || r.len < sizeof(r) || r.len > avail)
		return 0;
	for (uint32_t i = sizeof(r); i < r.len; i++)
		if (((const unsigned char *)buf)[i] != (unsigned char)(r.seq + i))
			return 0;
	return 1;
}

static char t_dir[PATH_MAX];

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static inline void t_dir_remove(void)
{
	if (t_dir[0])
		nftw(t_dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static inline const char *t_dir_make(void)
{
	snprintf(t_dir, sizeof(t_dir), "/tmp/evt-relay-test-XXXXXX");
	if (!mkdtemp(t_dir))
		t_fail("mkdtemp: %s", strerror(errno));
	atexit(t_dir_remove);
	return t_dir;
}

/* private_data of the test channels: ask for a global buffer or not. */
struct t_chan_opts {
	int global;
	int created;
};

static inline int t_create(const char *filename, const char *parent, int mode,
			   struct evt_rchan_buf *buf, int *is_global)
{
	struct t_chan_opts *o = buf->chan->private_data;

	if (o) {
		*is_global = o->global;
		o->created++;
	}
	return evt_relay_file_create(filename, parent, mode, buf, is_global);
}

static inline int t_remove(const char *path)
{
	return evt_relay_file_remove(path);
}

/* Run @fn(arg) in a child process; return its exit status (or T_FAIL). */
static inline int t_in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) < 0)
		t_fail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status))
		return T_FAIL;
	return WEXITSTATUS(status);
}

static inline void t_path(char *dst, size_t len, const char *name)
{
	if ((size_t)snprintf(dst, len, "%s/%s", t_dir, name) >= len)
		t_fail("path too long");
}

#endif /* EVT_TESTS_RELAY_COMMON_H */
