// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs/tracefs.c - the tree's engine: paths, handles, reads and writes.
 *
 * The public evt_tracefs_* functions (evtrace/tracefs.h). Paths are resolved
 * name by name from the instance's root (tfs_resolve()); the files themselves
 * are in tfs_files.c. See tfs_internal.h for the locking.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "compat/atomic.h"
#include "core/detail.h"
#include "events/event_internal.h"
#include "tracefs/tfs_internal.h"

static pthread_mutex_t tfs_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Every open file, for rmdir's "is this instance in use" (under tfs_mutex). */
static struct evt_tracefs_file *open_files;
/* The files the layers above registered, per place, in name order (under tfs_mutex). */
static const struct tfs_ops *registered[TFS_AT_MAX][TFS_REGISTERED_MAX];
static unsigned int nr_registered[TFS_AT_MAX];

void tfs_lock(void)
{
	pthread_mutex_lock(&tfs_mutex);
	event_locks_held++; /* no start-up hold under it (event_internal.h) */
}

void tfs_unlock(void)
{
	event_locks_held--;
	pthread_mutex_unlock(&tfs_mutex);
}

bool tfs_inst_busy(const struct evt_instance *inst)
{
	for (struct evt_tracefs_file *f = open_files; f; f = f->next)
		if (f->node.inst == inst)
			return true;
	return false;
}

static bool is_dir(const struct tfs_node *n)
{
	return (n->ops->mode & 0170000u) == 0040000u;
}

int tfs_register_file(enum tfs_at at, const struct tfs_ops *ops)
{
	const struct tfs_ops **r;
	unsigned int n, i;
	int ret = 0;

	if (at <= TFS_AT_NONE || at >= TFS_AT_MAX || !ops || !ops->name)
		return -EINVAL;
	tfs_lock();
	r = registered[at];
	n = nr_registered[at];
	for (i = 0; i < n && strcmp(r[i]->name, ops->name) < 0; i++)
		;
	if (i < n && !strcmp(r[i]->name, ops->name)) {
		ret = r[i] == ops ? 0 : -EEXIST;
	} else if (n == TFS_REGISTERED_MAX) {
		ret = -ENOSPC;
	} else {
		memmove(&r[i + 1], &r[i], (n - i) * sizeof(*r));
		r[i] = ops;
		nr_registered[at] = n + 1;
	}
	tfs_unlock();
	return ret;
}

/*
 * The children of directory @dir in name order: its table's and the files registered at
 * its place, merged (both are in name order); NULL after the last. @i and @j are the
 * positions in each, 0 at the start.
 */
static const struct tfs_ops *next_child(const struct tfs_node *dir, unsigned int *i,
					unsigned int *j)
{
	const struct tfs_ops *const *c = dir->ops->children;
	const struct tfs_ops *a = c ? c[*i] : NULL, *b = NULL;
	unsigned int at = dir->ops->at;

	if (at > TFS_AT_NONE && at < TFS_AT_MAX && *j < nr_registered[at])
		b = registered[at][*j];
	if (a && (!b || strcmp(a->name, b->name) <= 0)) {
		++*i;
		return a;
	}
	if (b)
		++*j;
	return b;
}

/* The child @name of the directory @dir. */
static int lookup(const struct tfs_node *dir, const char *name, struct tfs_node *child)
{
	const struct tfs_ops *c;
	unsigned int i = 0, j = 0;

	if (!is_dir(dir))
		return -ENOTDIR;
	while ((c = next_child(dir, &i, &j))) {
		if (strcmp(c->name, name))
			continue;
		if (c->visible && !c->visible(dir))
			continue;
		*child = *dir;
		child->ops = c;
		return 0;
	}
	if (dir->ops->lookup)
		return dir->ops->lookup(dir, name, child);
	return -ENOENT;
}

const struct tfs_ops *tfs_test_root;
struct evt_instance *tfs_test_top;

static int root_node(struct evt_instance *inst, struct tfs_node *node)
{
	memset(node, 0, sizeof(*node));
	node->ops = tfs_test_root ? tfs_test_root : &tfs_root_ops;
	if (!inst)
		inst = tfs_test_root ? tfs_test_top : tfs_top_instance();
	node->inst = inst;
	node->event_id = -1;
	node->cpu = -1;
	return node->inst ? 0 : -ENODEV;
}

/*
 * Walk @path; with @last set, stop before the last name and copy it there
 * (mkdir/rmdir). Caller holds tfs_mutex.
 */
static int walk(struct evt_instance *inst, const char *path, struct tfs_node *node, char *last)
{
	char name[TFS_NAME_MAX + 1];
	const char *p = path, *end;
	struct tfs_node next;
	size_t n;
	int ret;

	if (!path)
		return -EINVAL;
	if (strnlen(path, TFS_PATH_MAX + 1) > TFS_PATH_MAX)
		return -ENAMETOOLONG;
	ret = root_node(inst, node);
	if (ret)
		return ret;
	if (last)
		last[0] = '\0';
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n > TFS_NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			return -EINVAL;
		if (last) {
			const char *q = p;

			while (*q == '/')
				q++;
			if (!*q) {
				memcpy(last, name, n + 1);
				break;
			}
		}
		ret = lookup(node, name, &next);
		if (ret)
			return ret;
		*node = next;
	}
	if (last && !last[0])
		return -EEXIST;		/* the root itself */
	return 0;
}

int tfs_resolve(struct evt_instance *inst, const char *path, struct tfs_node *node)
{
	return walk(inst, path, node, NULL);
}

int evt_tracefs_stat(struct evt_instance *inst, const char *path, unsigned int *mode)
{
	struct tfs_node node;
	int ret;

	tfs_lock();
	ret = tfs_resolve(inst, path, &node);
	tfs_unlock();
	if (!ret && mode)
		*mode = node.ops->mode;
	return ret;
}

int evt_tracefs_readdir(struct evt_instance *inst, const char *path, evt_tracefs_filldir_t fill,
			void *arg)
{
	const struct tfs_ops *c;
	unsigned int i = 0, j = 0;
	struct tfs_node node;
	int ret;

	if (!fill)
		return -EINVAL;
	tfs_lock();
	ret = tfs_resolve(inst, path, &node);
	if (ret)
		goto out;
	if (!is_dir(&node)) {
		ret = -ENOTDIR;
		goto out;
	}
	while ((c = next_child(&node, &i, &j))) {
		if (c->visible && !c->visible(&node))
			continue;
		ret = fill(arg, c->name, c->mode);
		if (ret)
			goto out;
	}
	if (node.ops->readdir)
		ret = node.ops->readdir(&node, fill, arg);
out:
	tfs_unlock();
	/* a filler's positive return stops the listing; it is not an error */
	return ret > 0 ? 0 : ret;
}

static int mk_or_rm(struct evt_instance *inst, const char *path, bool mk)
{
	char name[TFS_NAME_MAX + 1];
	struct tfs_node dir, child;
	int ret;

	tfs_lock();
	ret = walk(inst, path, &dir, name);
	if (ret)
		goto out;
	if (!is_dir(&dir)) {
		ret = -ENOTDIR;
		goto out;
	}
	if (mk) {
		ret = lookup(&dir, name, &child);
		if (!ret) {
			ret = -EEXIST;
			goto out;
		}
		ret = dir.ops->mkdir ? dir.ops->mkdir(&dir, name) : -EPERM;
	} else {
		ret = lookup(&dir, name, &child);
		if (ret)
			goto out;
		ret = dir.ops->rmdir ? dir.ops->rmdir(&dir, name) : -EPERM;
	}
out:
	tfs_unlock();
	return ret;
}

int evt_tracefs_mkdir(struct evt_instance *inst, const char *path)
{
	return mk_or_rm(inst, path, true);
}

int evt_tracefs_rmdir(struct evt_instance *inst, const char *path)
{
	return mk_or_rm(inst, path, false);
}

int evt_tracefs_open(struct evt_instance *inst, const char *path, unsigned int flags,
		     struct evt_tracefs_file **filep)
{
	struct evt_tracefs_file *f;
	const struct tfs_ops *ops;
	struct tfs_node node;
	int ret;

	if (!filep || !(flags & (EVT_TRACEFS_READ | EVT_TRACEFS_WRITE)) ||
	    (flags & ~(EVT_TRACEFS_READ | EVT_TRACEFS_WRITE | EVT_TRACEFS_TRUNC |
		       EVT_TRACEFS_APPEND | EVT_TRACEFS_NONBLOCK)))
		return -EINVAL;
	/* as open(2): O_TRUNC without write access truncates nothing */
	if (!(flags & EVT_TRACEFS_WRITE))
		flags &= ~EVT_TRACEFS_TRUNC;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	tfs_seq_init(&f->seq, TFS_SEQ_MAX);
	f->flags = flags;

	tfs_lock();
	ret = tfs_resolve(inst, path, &node);
	if (ret)
		goto err_unlock;
	ops = node.ops;
	if (is_dir(&node)) {
		ret = -EISDIR;
		goto err_unlock;
	}
	if (((flags & EVT_TRACEFS_WRITE) && (!ops->write || !(ops->mode & 0222))) ||
	    ((flags & EVT_TRACEFS_READ) && ((!ops->show && !ops->read) || !(ops->mode & 0444)))) {
		ret = -EACCES;
		goto err_unlock;
	}
	f->node = node;
	if (ops->open) {
		ret = ops->open(f);
		if (ret)
			goto err_unlock;
	}
	f->next = open_files;
	open_files = f;
	tfs_unlock();
	*filep = f;
	return 0;

err_unlock:
	tfs_unlock();
	free(f);
	return ret;
}

int evt_tracefs_close(struct evt_tracefs_file *f)
{
	struct evt_tracefs_file **pp;

	if (!f)
		return -EINVAL;
	tfs_lock();
	for (pp = &open_files; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	if (f->node.ops->release)
		f->node.ops->release(f);
	tfs_unlock();
	tfs_seq_free(&f->seq);
	free(f);
	return 0;
}

int evt_tracefs_file_interrupt(struct evt_tracefs_file *f)
{
	if (!f)
		return -EINVAL;
	/* relaxed: a flag the reader polls; it publishes no other data (see tfs_internal.h) */
	st_relaxed(&f->interrupt, 1);
	return 0;
}

bool tfs_interrupted(struct evt_tracefs_file *f)
{
	/* relaxed: see evt_tracefs_file_interrupt() */
	return ld_relaxed(&f->interrupt) && xchg_acq_rel(&f->interrupt, 0);
}

static ssize_t file_read(struct evt_tracefs_file *f, void *buf, size_t len, uint64_t off,
			 bool advance)
{
	ssize_t ret;
	size_t n;

	if (!f || (!buf && len))
		return -EINVAL;
	if (!(f->flags & EVT_TRACEFS_READ))
		return -EBADF;
	if (!len)
		return 0;
	if (f->node.ops->read) {
		/* streaming: the offset means nothing, as on a pipe */
		ret = f->node.ops->read(f, buf, len);
		if (ret > 0)
			f->pos += (uint64_t)ret;
		return ret;
	}
	if (!f->shown || (off == 0 && advance)) {
		/* the text is made at the first read and again at each read from 0 */
		tfs_seq_reset(&f->seq);
		tfs_lock();
		ret = f->node.ops->show(f, &f->seq);
		tfs_unlock();
		if (ret < 0 && ret != -EFBIG)
			return ret;
		f->shown = true;
	}
	if (off >= f->seq.len)
		return 0;
	n = f->seq.len - (size_t)off;
	if (n > len)
		n = len;
	memcpy(buf, f->seq.buf + off, n);
	if (advance)
		f->pos = off + n;
	return (ssize_t)n;
}

ssize_t evt_tracefs_file_read(struct evt_tracefs_file *f, void *buf, size_t len)
{
	return file_read(f, buf, len, f ? f->pos : 0, true);
}

ssize_t evt_tracefs_file_pread(struct evt_tracefs_file *f, void *buf, size_t len, uint64_t off)
{
	return file_read(f, buf, len, off, false);
}

ssize_t evt_tracefs_file_write(struct evt_tracefs_file *f, const void *buf, size_t len)
{
	size_t max;
	ssize_t ret;

	detail_clear();
	if (!f || (!buf && len))
		return -EINVAL;
	if (!(f->flags & EVT_TRACEFS_WRITE))
		return -EBADF;
	max = f->node.ops->max_write ? f->node.ops->max_write : TFS_WRITE_MAX;
	if (len > max)
		return -EINVAL;
	tfs_lock();
	ret = f->node.ops->write(f, buf, len);
	tfs_unlock();
	if (ret > 0)
		f->pos += (uint64_t)ret;
	return ret;
}

ssize_t evt_tracefs_read(struct evt_instance *inst, const char *path, void *buf, size_t len,
			 uint64_t offset)
{
	struct evt_tracefs_file *f;
	ssize_t ret;
	int r;

	r = evt_tracefs_open(inst, path, EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK, &f);
	if (r)
		return r;
	f->pos = offset;
	ret = file_read(f, buf, len, offset, false);
	evt_tracefs_close(f);
	return ret;
}

ssize_t evt_tracefs_write(struct evt_instance *inst, const char *path, const void *buf,
			  size_t len, unsigned int flags)
{
	struct evt_tracefs_file *f;
	ssize_t ret;
	int r;

	detail_clear();
	if (flags & ~(EVT_TRACEFS_TRUNC | EVT_TRACEFS_APPEND | EVT_TRACEFS_NONBLOCK))
		return -EINVAL;
	r = evt_tracefs_open(inst, path, EVT_TRACEFS_WRITE | flags, &f);
	if (r)
		return r;
	ret = len ? evt_tracefs_file_write(f, buf, len) : 0;
	evt_tracefs_close(f);
	return ret;
}
