// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/relay-common.c - what the relay tests share (relay-common.h).
 */
#include "relay-common.h"

char t_dir[PATH_MAX];
struct t_chan_opts t_global_opts = { .global = 1 };
int rly_to_child[2], rly_to_parent[2];

void rly_rec_fill(void *buf, uint32_t seq, uint32_t len, uint32_t writer)
{
	struct rec r = { .magic = REC_MAGIC, .seq = seq, .len = len, .writer = writer };

	memcpy(buf, &r, sizeof(r));
	for (uint32_t i = sizeof(r); i < len; i++)
		((unsigned char *)buf)[i] = (unsigned char)(seq + i);
}

int rly_rec_check(const void *buf, size_t avail)
{
	struct rec r;

	if (avail < sizeof(r))
		return 0;
	r = rly_rec_head(buf);
	if (r.magic != REC_MAGIC || r.len < sizeof(r) || r.len > avail)
		return 0;
	for (uint32_t i = sizeof(r); i < r.len; i++)
		if (((const unsigned char *)buf)[i] != (unsigned char)(r.seq + i))
			return 0;
	return 1;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void t_dir_remove(void)
{
	if (t_dir[0])
		nftw(t_dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

const char *t_dir_make(void)
{
	snprintf(t_dir, sizeof(t_dir), "/tmp/evt-relay-test-XXXXXX");
	if (!mkdtemp(t_dir))
		t_fail("mkdtemp: %s", strerror(errno));
	atexit(t_dir_remove);
	return t_dir;
}

int t_create(const char *filename, const char *parent, int mode, struct evt_rchan_buf *buf,
	     int *is_global)
{
	struct t_chan_opts *o = buf->chan->private_data;

	if (o) {
		*is_global = o->global;
		o->created++;
	}
	return evt_relay_file_create(filename, parent, mode, buf, is_global);
}

int t_in_child(int (*fn)(void *), void *arg)
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

struct evt_rchan *t_open_global(const char *base, size_t subbuf_size, size_t n_subbufs)
{
	static struct evt_rchan_callbacks cb = { .create_buf_file = t_create,
						 .remove_buf_file = t_remove };
	struct evt_rchan *chan;

	T_ASSERT_OK(
		evt_relay_open(base, t_dir, subbuf_size, n_subbufs, &cb, &t_global_opts, &chan));
	return chan;
}

void t_write_recs(struct evt_rchan *chan, uint32_t first, uint32_t n, uint32_t len)
{
	char rec[4096];

	T_ASSERT(len <= sizeof(rec));
	for (uint32_t i = first; i < first + n; i++) {
		rly_rec_fill(rec, i, len, 0);
		T_ASSERT_OK(evt_relay_write(chan, rec, len));
	}
}

void rly_tell(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		t_fail("pipe");
}

void rly_await(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		t_fail("pipe");
}

pid_t t_fork_consumer(int (*fn)(void *))
{
	pid_t pid;

	if (pipe(rly_to_child) < 0 || pipe(rly_to_parent) < 0)
		t_fail("pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(fn(NULL));
	return pid;
}

void t_wait_consumer(pid_t pid)
{
	int status;

	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status));
	T_ASSERT_EQ(WEXITSTATUS(status), T_PASS);
}
