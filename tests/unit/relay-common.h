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

/*
 * The test channel most tests use: one global buffer, the file callbacks above.
 * t_global_opts.created counts the buffers made.
 */
static struct t_chan_opts t_global_opts __attribute__((unused)) = { .global = 1 };

static inline struct evt_rchan *t_open_global(const char *base, size_t subbuf_size,
					      size_t n_subbufs)
{
	static struct evt_rchan_callbacks cb = { .create_buf_file = t_create,
						 .remove_buf_file = t_remove };
	struct evt_rchan *chan;

	T_ASSERT_OK(
		evt_relay_open(base, t_dir, subbuf_size, n_subbufs, &cb, &t_global_opts, &chan));
	return chan;
}

/* Write records @first..@first + @n - 1 of @len bytes; each must be taken. */
static inline void t_write_recs(struct evt_rchan *chan, uint32_t first, uint32_t n, uint32_t len)
{
	char rec[4096];

	T_ASSERT(len <= sizeof(rec));
	for (uint32_t i = first; i < first + n; i++) {
		rec_fill(rec, i, len, 0);
		T_ASSERT_OK(evt_relay_write(chan, rec, len));
	}
}

/*
 * A consumer process that takes turns with the test through two pipes:
 * t_fork_consumer() starts @fn(NULL) in a child; each side tell()s the other
 * (to_child[1], to_parent[1]) and await()s its turn (to_child[0],
 * to_parent[0]); t_wait_consumer() wants the child to exit with T_PASS.
 */
static int to_child[2] __attribute__((unused)), to_parent[2] __attribute__((unused));

static inline void tell(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		t_fail("pipe");
}

static inline void await(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		t_fail("pipe");
}

static inline pid_t t_fork_consumer(int (*fn)(void *))
{
	pid_t pid;

	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		t_fail("pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(fn(NULL));
	return pid;
}

static inline void t_wait_consumer(pid_t pid)
{
	int status;

	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status));
	T_ASSERT_EQ(WEXITSTATUS(status), T_PASS);
}

#endif /* EVT_TESTS_RELAY_COMMON_H */
