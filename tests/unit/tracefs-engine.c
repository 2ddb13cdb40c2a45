// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-engine: the tree's engine on a small fake tree of its own: path
 * forms, lookup in static tables and lookup functions, readdir, mkdir/rmdir,
 * open modes, show() text read at any offset, bounded writes, the number
 * parser the files use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "tracefs/tfs_internal.h"

static int fake_inst;		/* its address is the fake instance */
static int nr_dyn = 2;		/* dyn/d0 .. d<nr_dyn-1> */
static char stored[64];
static int released;

static int hello_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	(void)f;
	return tfs_seq_puts(s, "hello world\n");
}

static int big_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	(void)f;
	for (int i = 0; i < 1000; i++)
		tfs_seq_printf(s, "line %04d\n", i);
	return 0;
}

static int value_open(struct evt_tracefs_file *f)
{
	if (f->flags & EVT_TRACEFS_TRUNC)
		stored[0] = '\0';
	return 0;
}

static int value_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	(void)f;
	return tfs_seq_printf(s, "%s", stored);
}

static ssize_t value_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	size_t have = strlen(stored);

	(void)f;
	if (have + len >= sizeof(stored))
		return -ENOSPC;
	memcpy(stored + have, buf, len);
	stored[have + len] = '\0';
	return (ssize_t)len;
}

static void value_release(struct evt_tracefs_file *f)
{
	(void)f;
	released++;
}

static const struct tfs_ops hello = { .name = "hello", .mode = TFS_MODE_RO, .show = hello_show };
static const struct tfs_ops big = { .name = "big", .mode = TFS_MODE_RO, .show = big_show };
static const struct tfs_ops value = {
	.name = "value", .mode = TFS_MODE_RW, .open = value_open, .show = value_show,
	.write = value_write, .release = value_release, .max_write = 16,
};

static const struct tfs_ops *const leaf_children[] = { &hello, NULL };
static const struct tfs_ops leaf_dir = { .name = "?", .mode = TFS_MODE_DIR,
					 .children = leaf_children };

static int dyn_lookup(const struct tfs_node *dir, const char *name, struct tfs_node *child)
{
	int n;

	if (name[0] != 'd' || !name[1])
		return -ENOENT;
	n = atoi(name + 1);
	if (n < 0 || n >= nr_dyn)
		return -ENOENT;
	*child = *dir;
	child->ops = &leaf_dir;
	child->cpu = n;
	return 0;
}

static int dyn_readdir(const struct tfs_node *dir, tfs_fill_t fill, void *arg)
{
	char name[16];
	int ret;

	(void)dir;
	for (int i = 0; i < nr_dyn; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		ret = fill(arg, name, TFS_MODE_DIR);
		if (ret)
			return ret;
	}
	return 0;
}

static int dyn_mkdir(const struct tfs_node *dir, const char *name)
{
	(void)dir;
	if (strcmp(name, "new"))
		return -EINVAL;
	nr_dyn++;
	return 0;
}

static int dyn_rmdir(const struct tfs_node *dir, const char *name)
{
	(void)dir;
	(void)name;
	nr_dyn--;
	return 0;
}

static const struct tfs_ops dyn = { .name = "dyn", .mode = TFS_MODE_DIR, .lookup = dyn_lookup,
				    .readdir = dyn_readdir, .mkdir = dyn_mkdir,
				    .rmdir = dyn_rmdir };
static const struct tfs_ops *const root_children[] = { &hello, &big, &value, &dyn, NULL };
static const struct tfs_ops root = { .name = "", .mode = TFS_MODE_DIR, .children = root_children };

struct listing {
	char names[512];
};

static int collect(void *arg, const char *name, unsigned int mode)
{
	struct listing *l = arg;

	strcat(l->names, name);
	strcat(l->names, (mode & 0040000) ? "/ " : " ");
	return 0;
}

static int stop_after_one(void *arg, const char *name, unsigned int mode)
{
	collect(arg, name, mode);
	return 1;
}

int main(void)
{
	struct evt_tracefs_file *f;
	struct listing l = { 0 };
	unsigned int mode;
	char buf[16384];
	ssize_t n;

	tfs_test_root = &root;
	tfs_test_top = (struct evt_instance *)&fake_inst;

	/* paths: leading, trailing, doubled slashes; no "." or ".." */
	T_ASSERT_OK(evt_tracefs_stat(NULL, "hello", &mode));
	T_ASSERT_EQ(mode, TFS_MODE_RO);
	T_ASSERT_OK(evt_tracefs_stat(NULL, "//dyn//d1/hello", &mode));
	T_ASSERT_OK(evt_tracefs_stat(NULL, "/dyn/d1/", &mode));
	T_ASSERT_EQ(mode, TFS_MODE_DIR);
	T_ASSERT_OK(evt_tracefs_stat(NULL, "", &mode));
	T_ASSERT_EQ(mode, TFS_MODE_DIR);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "dyn/d2", &mode), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "dyn/../hello", &mode), -EINVAL);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "./hello", &mode), -EINVAL);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "hello/x", &mode), -ENOTDIR);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, NULL, &mode), -EINVAL);
	memset(buf, 'a', 300);
	buf[300] = '\0';
	T_ASSERT_EQ(evt_tracefs_stat(NULL, buf, &mode), -ENAMETOOLONG);
	memset(buf, '/', 5000);
	buf[5000] = '\0';
	T_ASSERT_EQ(evt_tracefs_stat(NULL, buf, &mode), -ENAMETOOLONG);

	/* readdir: the static table, then the lookup directory's own */
	T_ASSERT_OK(evt_tracefs_readdir(NULL, "/", collect, &l));
	T_ASSERT(!strcmp(l.names, "hello big value dyn/ "));
	l.names[0] = '\0';
	T_ASSERT_OK(evt_tracefs_readdir(NULL, "dyn", collect, &l));
	T_ASSERT(!strcmp(l.names, "d0/ d1/ "));
	l.names[0] = '\0';
	T_ASSERT_OK(evt_tracefs_readdir(NULL, "dyn", stop_after_one, &l));
	T_ASSERT(!strcmp(l.names, "d0/ "));
	T_ASSERT_EQ(evt_tracefs_readdir(NULL, "hello", collect, &l), -ENOTDIR);

	/* mkdir / rmdir: EEXIST, EPERM where the directory has none, ENOENT */
	T_ASSERT_OK(evt_tracefs_mkdir(NULL, "dyn/new"));
	T_ASSERT_OK(evt_tracefs_stat(NULL, "dyn/d2/hello", NULL));
	T_ASSERT_EQ(evt_tracefs_mkdir(NULL, "dyn/d0"), -EEXIST);
	T_ASSERT_EQ(evt_tracefs_mkdir(NULL, "dyn/bad"), -EINVAL);
	T_ASSERT_EQ(evt_tracefs_mkdir(NULL, "newdir"), -EPERM);
	T_ASSERT_EQ(evt_tracefs_mkdir(NULL, "/"), -EEXIST);
	T_ASSERT_EQ(evt_tracefs_mkdir(NULL, "nosuch/x"), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_rmdir(NULL, "dyn/d9"), -ENOENT);
	T_ASSERT_OK(evt_tracefs_rmdir(NULL, "dyn/d2/"));
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "dyn/d2", NULL), -ENOENT);

	/* one-shot reads at offsets */
	n = evt_tracefs_read(NULL, "hello", buf, sizeof(buf), 0);
	T_ASSERT_EQ(n, 12);
	T_ASSERT(!memcmp(buf, "hello world\n", 12));
	n = evt_tracefs_read(NULL, "hello", buf, 3, 6);
	T_ASSERT_EQ(n, 3);
	T_ASSERT(!memcmp(buf, "wor", 3));
	T_ASSERT_EQ(evt_tracefs_read(NULL, "hello", buf, sizeof(buf), 12), 0);
	T_ASSERT_EQ(evt_tracefs_read(NULL, "hello", buf, sizeof(buf), 1000), 0);
	T_ASSERT_EQ(evt_tracefs_read(NULL, "dyn", buf, sizeof(buf), 0), -EISDIR);
	T_ASSERT_EQ(evt_tracefs_read(NULL, "nosuch", buf, sizeof(buf), 0), -ENOENT);

	/* a handle reads on in small pieces */
	T_ASSERT_OK(evt_tracefs_open(NULL, "big", EVT_TRACEFS_READ, &f));
	{
		size_t total = 0;

		while ((n = evt_tracefs_file_read(f, buf + total, 7)) > 0)
			total += (size_t)n;
		T_ASSERT_EQ(n, 0);
		T_ASSERT_EQ(total, 10000);
		T_ASSERT(!memcmp(buf + 9990, "line 0999\n", 10));
	}
	T_ASSERT_EQ(evt_tracefs_file_pread(f, buf, 10, 10), 10);
	T_ASSERT(!memcmp(buf, "line 0001\n", 10));
	T_ASSERT_EQ(evt_tracefs_file_write(f, "x", 1), -EBADF);
	T_ASSERT_OK(evt_tracefs_close(f));

	/* open modes */
	T_ASSERT_EQ(evt_tracefs_open(NULL, "hello", EVT_TRACEFS_WRITE, &f), -EACCES);
	T_ASSERT_EQ(evt_tracefs_open(NULL, "hello", 0, &f), -EINVAL);
	T_ASSERT_EQ(evt_tracefs_open(NULL, "hello", EVT_TRACEFS_READ | (1u << 20), &f), -EINVAL);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "hello", "x", 1, EVT_TRACEFS_READ), -EINVAL);

	/* writes: append, truncate at open, bounded, the release hook */
	T_ASSERT_EQ(evt_tracefs_write(NULL, "value", "abc", 3, 0), 3);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "value", "def", 3, EVT_TRACEFS_APPEND), 3);
	n = evt_tracefs_read(NULL, "value", buf, sizeof(buf), 0);
	T_ASSERT_EQ(n, 6);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "value", "xy", 2, EVT_TRACEFS_TRUNC), 2);
	T_ASSERT_EQ(evt_tracefs_read(NULL, "value", buf, sizeof(buf), 0), 2);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "value", buf, 17, 0), -EINVAL);	/* > max_write */
	T_ASSERT_EQ(evt_tracefs_write(NULL, "value", "", 0, EVT_TRACEFS_TRUNC), 0);
	T_ASSERT_EQ(evt_tracefs_read(NULL, "value", buf, sizeof(buf), 0), 0);
	T_ASSERT(released >= 5);

	T_ASSERT_OK(evt_tracefs_open(NULL, "value", EVT_TRACEFS_READ | EVT_TRACEFS_WRITE, &f));
	T_ASSERT_EQ(evt_tracefs_file_write(f, "12", 2), 2);
	T_ASSERT_EQ(evt_tracefs_file_pread(f, buf, sizeof(buf), 0), 2);
	T_ASSERT(tfs_inst_busy((struct evt_instance *)&fake_inst));
	T_ASSERT_OK(evt_tracefs_close(f));
	T_ASSERT(!tfs_inst_busy((struct evt_instance *)&fake_inst));
	T_ASSERT_EQ(evt_tracefs_close(NULL), -EINVAL);

	/* the number parser of enable, tracing_on, buffer_size_kb */
	{
		unsigned long v;

		T_ASSERT_OK(tfs_parse_ulong("1\n", 2, &v));
		T_ASSERT_EQ(v, 1);
		T_ASSERT_OK(tfs_parse_ulong("0x10", 4, &v));
		T_ASSERT_EQ(v, 16);
		T_ASSERT_EQ(tfs_parse_ulong("\n", 1, &v), -EINVAL);
		T_ASSERT_EQ(tfs_parse_ulong("1 ", 2, &v), -EINVAL);
		T_ASSERT_EQ(tfs_parse_ulong("-1", 2, &v), -EINVAL);
		T_ASSERT_EQ(tfs_parse_ulong("x", 1, &v), -EINVAL);
		T_ASSERT_EQ(tfs_parse_ulong("99999999999999999999999", 23, &v), -ERANGE);
	}

	/* the seq bound */
	{
		struct tfs_seq s;

		tfs_seq_init(&s, 10);
		T_ASSERT_OK(tfs_seq_puts(&s, "0123456789"));
		T_ASSERT_EQ(tfs_seq_putc(&s, 'x'), -EFBIG);
		T_ASSERT(s.overflow);
		T_ASSERT_EQ(s.len, 10);
		tfs_seq_reset(&s);
		T_ASSERT_EQ(tfs_seq_printf(&s, "%300s", "y"), -EFBIG);
		T_ASSERT_OK(tfs_seq_printf(&s, "%5d", 42));
		T_ASSERT(!strcmp(s.buf, "   42"));
		tfs_seq_free(&s);
	}
	return T_PASS;
}
