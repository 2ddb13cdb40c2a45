/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/relay-common.h - what the relay tests share (relay-common.c): a scratch host
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

void rly_rec_fill(void *buf, uint32_t seq, uint32_t len, uint32_t writer);

/* The header of the record at @buf, which may be unaligned. */
static inline struct rec rly_rec_head(const void *buf)
{
	struct rec r;

	memcpy(&r, buf, sizeof(r));
	return r;
}

static inline uint32_t rly_rec_seq(const void *buf)
{
	return rly_rec_head(buf).seq;
}

/* 1 if the record at @buf (at most @avail bytes) is whole and right. */
int rly_rec_check(const void *buf, size_t avail);

/* The scratch host directory of t_dir_make(). */
extern char t_dir[PATH_MAX];

/* Remove t_dir and what is in it. */
void t_dir_remove(void);

/* A fresh directory under /tmp (t_dir), removed at exit. */
const char *t_dir_make(void);

/* private_data of the test channels: ask for a global buffer or not. */
struct t_chan_opts {
	int global;
	int created;
};

int t_create(const char *filename, const char *parent, int mode, struct evt_rchan_buf *buf,
	     int *is_global);

static inline int t_remove(const char *path)
{
	return evt_relay_file_remove(path);
}

/* Run @fn(arg) in a child process; return its exit status (or T_FAIL). */
int t_in_child(int (*fn)(void *), void *arg);

static inline void t_path(char *dst, size_t len, const char *name)
{
	if ((size_t)snprintf(dst, len, "%s/%s", t_dir, name) >= len)
		t_fail("path too long");
}

/*
 * The test channel most tests use: one global buffer, the file callbacks above.
 * t_global_opts.created counts the buffers made.
 */
extern struct t_chan_opts t_global_opts;

struct evt_rchan *t_open_global(const char *base, size_t subbuf_size, size_t n_subbufs);

/* Write records @first..@first + @n - 1 of @len bytes; each must be taken. */
void t_write_recs(struct evt_rchan *chan, uint32_t first, uint32_t n, uint32_t len);

/*
 * A consumer process that takes turns with the test through two pipes:
 * t_fork_consumer() starts @fn(NULL) in a child; each side rly_tell()s the other
 * (rly_to_child[1], rly_to_parent[1]) and rly_await()s its turn (rly_to_child[0],
 * rly_to_parent[0]); t_wait_consumer() wants the child to exit with T_PASS.
 */
extern int rly_to_child[2], rly_to_parent[2];

void rly_tell(int fd);

void rly_await(int fd);

pid_t t_fork_consumer(int (*fn)(void *));

void t_wait_consumer(pid_t pid);

#endif /* EVT_TESTS_RELAY_COMMON_H */
