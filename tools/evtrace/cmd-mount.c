// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-mount.c - `evtrace mount [-p PID] DIR`: a traced process's tracing
 * tree as a FUSE file system on DIR, so that the kernel's gestures work
 * literally (`echo 'app:*' > DIR/set_event`, `cat DIR/trace_pipe`).
 * evtrace-mount(1), docs/mount.md.
 *
 * The file system holds no tracing logic: every operation is one request
 * of the control client (control/ctl_client.h) on a path of the tree.
 *
 *   getattr/readdir   STAT / READDIR
 *   open + read       a snapshot of the file (READ) taken at the first read at
 *                     offset 0, served by offset; trace_pipe and trace_pipe_raw
 *                     are streams (STREAM on a connection of their own),
 *                     blocking until records come
 *   write             one WRITE per write(2) call, so that its errno comes back
 *                     from write(2) (the shell's "write error: Invalid argument");
 *                     the first write of a file opened with O_TRUNC carries
 *                     CTL_WF_TRUNC, O_APPEND writes CTL_WF_APPEND; a file opened
 *                     with O_TRUNC and closed without a write is sent an empty
 *                     TRUNC write at flush (`> trace` empties the buffer)
 *   mkdir/rmdir       MKDIR / RMDIR (instances/NAME)
 *   poll              a stream is readable when a read would not wait (bytes
 *                     kept, bytes or the end on its connection); otherwise a
 *                     waiter thread (one per file at most) polls the
 *                     connection and notifies the kernel. Other files are
 *                     always ready, as tracefs's.
 *
 * Threads: libfuse's multi-threaded loop. Requests that are not streams
 * take a connection from a small pool (mount.lock) and give it back; a
 * stream has its own connection for as long as the file is open. A
 * watcher thread holds one more connection and waits for it to close:
 * when the process exits, the loop is told to stop and the file system is
 * unmounted; requests in between get ENODEV.
 */
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h> /* the tools use C11 atomics; compat/atomic.h is the library's */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

#define MOUNT_POOL_MAX		8	/* idle connections kept */
#define MOUNT_MAX_THREADS	12	/* the server serves 16 connections: leave some to others */
#define MOUNT_POLL_MS		200	/* a blocked stream read checks for interrupts this often */

static struct {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	struct timespec when;		/* the mount time: every file's times */
	bool verbose;
	atomic_int gone;		/* the process went away */
	struct fuse *fuse;
	pthread_mutex_t lock;		/* protects idle[], nr_idle, files */
	struct ctl_client *idle[MOUNT_POOL_MAX];
	int nr_idle;
	struct mount_file *files;	/* open files: freed at the end if never released */
} mount_state = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* One open file. A handle is used by one request at a time (f->lock). */
struct mount_file {
	struct mount_file *next, *prev;	/* mount_state.files, under mount_state.lock */
	pthread_mutex_t lock;
	int flags;			/* open(2)'s */
	bool stream;			/* trace_pipe, trace_pipe_raw */
	bool written;			/* a write (or the empty TRUNC write) went out */
	bool have_snap;
	bool started, ended;		/* the stream */
	char *snap;			/* the snapshot read serves */
	size_t snap_len;
	struct ctl_client *sc;		/* the stream's connection */
	pthread_mutex_t poll_lock;	/* protects pw (polls do not take lock: a read may hold it) */
	struct poll_waiter *pw;		/* poll(2)'s, once a poll had to wait */
	char path[];
};

/*
 * A stream's poll waiter, shared by the file and its thread (refs: one each,
 * freed by the last). The thread polls a dup() of the connection's socket,
 * so a release that closes the connection meanwhile cannot hand it a reused
 * descriptor.
 */
struct poll_waiter {
	pthread_mutex_t lock;		/* protects everything below */
	struct fuse_pollhandle *ph;	/* the kernel's latest poll, to notify */
	int fd;				/* the dup */
	int refs;
	bool running;			/* the thread is polling */
	bool closed;			/* the file was released */
};

/* The tree's path of a FUSE path: "/" is "", "/set_event" is "set_event". */
static const char *tree_path(const char *path)
{
	while (*path == '/')
		path++;
	return path;
}

static bool is_gone(void)
{
	/* Relaxed: a flag; requests that race with it fail on their connection anyway. */
	return atomic_load_explicit(&mount_state.gone, memory_order_relaxed);
}

/* The connection broke (the process went away or the protocol failed): do not reuse it. */
static bool conn_broken(long long err)
{
	return err == -ECONNRESET || err == -EPIPE || err == -ENOTCONN || err == -EPROTO ||
	       err == -EBADMSG || err == -EIO || err == -ENOMEM;
}

/* What the file system answers for @err: a lost process is ENODEV. */
static int fs_err(long long err)
{
	if (err == -ECONNRESET || err == -EPIPE || err == -ENOTCONN || err == -ECONNREFUSED ||
	    (err == -ENOENT && is_gone()))
		return -ENODEV;
	return (int)err;
}

static int conn_new(struct ctl_client **cp)
{
	int ret;

	if (is_gone())
		return -ENODEV;
	ret = ctl_connect_pid(mount_state.pid, cp);
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		return -ENODEV;	/* the socket is gone with its process */
	return ret;
}

static int conn_get(struct ctl_client **cp)
{
	pthread_mutex_lock(&mount_state.lock);
	if (mount_state.nr_idle) {
		*cp = mount_state.idle[--mount_state.nr_idle];
		pthread_mutex_unlock(&mount_state.lock);
		return 0;
	}
	pthread_mutex_unlock(&mount_state.lock);
	return conn_new(cp);
}

/* Give @c back after a request that returned @ret. */
static void conn_put(struct ctl_client *c, long long ret)
{
	if (!conn_broken(ret) && !is_gone()) {
		pthread_mutex_lock(&mount_state.lock);
		if (mount_state.nr_idle < MOUNT_POOL_MAX) {
			mount_state.idle[mount_state.nr_idle++] = c;
			c = NULL;
		}
		pthread_mutex_unlock(&mount_state.lock);
	}
	if (c)
		ctl_close(c);
}

/*
 * At the end (no request runs any more): the pool, and the files still open
 * when the session ended (their release never comes).
 */
static void conn_drain_pool(void)
{
	pthread_mutex_lock(&mount_state.lock);
	while (mount_state.nr_idle)
		ctl_close(mount_state.idle[--mount_state.nr_idle]);
	pthread_mutex_unlock(&mount_state.lock);
}

static void file_free(struct mount_file *f);

static void files_free_all(void)
{
	while (mount_state.files) {
		struct mount_file *f = mount_state.files;

		mount_state.files = f->next;
		file_free(f);
	}
}

/* --- the operations ------------------------------------------------------------------------ */

static void *mnt_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* O_TRUNC reaches open() instead of a truncate before it: '>' is a flag of the write. */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	cfg->direct_io = 1;		/* sizes are 0: every read comes to us */
	cfg->kernel_cache = 0;
	cfg->entry_timeout = 1.0;
	cfg->attr_timeout = 1.0;
	cfg->negative_timeout = 0;	/* an instance or event may appear at any time */
	cfg->use_ino = 0;
	return NULL;
}

static void fill_stat(struct stat *st, unsigned int mode)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = mode;
	st->st_nlink = S_ISDIR(mode) ? 2 : 1;
	st->st_uid = mount_state.uid;
	st->st_gid = mount_state.gid;
	st->st_blksize = 4096;
	st->st_atim = st->st_mtim = st->st_ctim = mount_state.when;
}

/*
 * Every request comes from the user who mounted (or root): with -o allow_other
 * the kernel passes other users' requests on too, and this file system has
 * no permissions of its own (default_permissions is not set), so each one
 * is checked here. Others get EACCES: the tracing tree is the owner's
 * (docs/mount.md, "Threat model").
 */
static bool caller_allowed(void)
{
	const struct fuse_context *cx = fuse_get_context();

	return cx && (cx->uid == mount_state.uid || cx->uid == 0);
}

static int mnt_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct ctl_client *c;
	unsigned int mode;
	int ret;

	if (!caller_allowed())
		return -EACCES;

	(void)fi;
	ret = conn_get(&c);
	if (ret)
		return ret;
	ret = ctl_stat(c, tree_path(path), &mode);
	conn_put(c, ret);
	if (ret)
		return fs_err(ret);
	fill_stat(st, mode);
	return 0;
}

struct dir_fill {
	void *buf;
	fuse_fill_dir_t filler;
};

static int dir_one(void *arg, const char *name, unsigned int mode)
{
	struct dir_fill *d = arg;
	struct stat st;

	fill_stat(&st, mode);
	return d->filler(d->buf, name, &st, 0, 0) ? 1 : 0;
}

static int mnt_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct dir_fill d = { buf, filler };
	struct ctl_client *c;
	int ret;

	if (!caller_allowed())
		return -EACCES;

	(void)off;
	(void)fi;
	(void)flags;
	ret = conn_get(&c);
	if (ret)
		return ret;
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	ret = ctl_readdir(c, tree_path(path), dir_one, &d);
	conn_put(c, ret < 0 ? ret : 0);
	return ret < 0 ? fs_err(ret) : 0;
}

/* Files that wait for records, as the kernel's do: read through a stream. */
static bool is_stream(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "trace_pipe") || !strcmp(base, "trace_pipe_raw");
}

static int mnt_open(const char *path, struct fuse_file_info *fi)
{
	const char *tp = tree_path(path);
	struct mount_file *f;
	int ret;

	if (!caller_allowed())
		return -EACCES;

	f = calloc(1, sizeof(*f) + strlen(tp) + 1);
	if (!f)
		return -ENOMEM;
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->poll_lock, NULL);
	strcpy(f->path, tp);
	f->flags = fi->flags;
	f->stream = is_stream(tp) && (fi->flags & O_ACCMODE) != O_WRONLY;
	if (f->stream) {
		/* Its own connection: a stream holds it (the records flow when read). */
		ret = conn_new(&f->sc);
		if (ret) {
			pthread_mutex_destroy(&f->lock);
			pthread_mutex_destroy(&f->poll_lock);
			free(f);
			return ret;
		}
		fi->nonseekable = 1;
	}
	fi->direct_io = 1;
	fi->fh = (uint64_t)(uintptr_t)f;
	pthread_mutex_lock(&mount_state.lock);
	f->next = mount_state.files;
	if (f->next)
		f->next->prev = f;
	mount_state.files = f;
	pthread_mutex_unlock(&mount_state.lock);
	return 0;
}

static void poll_waiter_put(struct poll_waiter *pw)
{
	bool last;

	pthread_mutex_lock(&pw->lock);
	last = --pw->refs == 0;
	pthread_mutex_unlock(&pw->lock);
	if (!last)
		return;
	if (pw->ph)
		fuse_pollhandle_destroy(pw->ph);
	close(pw->fd);
	pthread_mutex_destroy(&pw->lock);
	free(pw);
}

static void file_free(struct mount_file *f)
{
	if (f->pw) {
		pthread_mutex_lock(&f->pw->lock);
		f->pw->closed = true;
		pthread_mutex_unlock(&f->pw->lock);
		poll_waiter_put(f->pw);
	}
	if (f->sc)
		ctl_close(f->sc);	/* ends the stream on the server's side too */
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->poll_lock);
	free(f->snap);
	free(f);
}

static int mnt_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	if (!caller_allowed())
		return -EACCES;

	(void)path;
	(void)mode;
	(void)fi;
	return -EACCES;		/* tracefs has no file one could create */
}

/* A stream read: block (in slices, to hear an interrupt or the end) until bytes come. */
static int stream_read(struct mount_file *f, char *buf, size_t size)
{
	bool nonblock = f->flags & O_NONBLOCK;
	struct fuse_session *se = fuse_get_session(mount_state.fuse);
	ssize_t n;
	int ret;

	if (f->ended)
		return 0;
	if (!f->started) {
		ret = ctl_stream_open(f->sc, f->path);
		if (ret)
			return fs_err(ret);
		f->started = true;
	}
	for (;;) {
		/* Non-blocking: give the server one poll period (20 ms) to send what it has. */
		n = ctl_stream_read(f->sc, buf, size, nonblock ? 50 : MOUNT_POLL_MS);
		if (n > 0)
			return (int)n;
		if (n == 0) {
			f->ended = true;
			return 0;
		}
		if (n != -EAGAIN && n != -EINTR)
			return fs_err(n);
		if (nonblock)
			return -EAGAIN;
		if (fuse_interrupted())
			return -EINTR;
		if (is_gone() || fuse_session_exited(se))
			return -ENODEV;
	}
}

/* The waiter: poll the connection until it has bytes (or the file or mount goes), notify. */
static void *poll_waiter_run(void *arg)
{
	struct poll_waiter *pw = arg;
	struct fuse_session *se = fuse_get_session(mount_state.fuse);
	struct fuse_pollhandle *ph;

	for (;;) {
		struct pollfd p = { .fd = pw->fd, .events = POLLIN };
		bool closed;

		if (poll(&p, 1, MOUNT_POLL_MS) != 0) /* bytes, the end, an error: look */
			break;
		pthread_mutex_lock(&pw->lock);
		closed = pw->closed;
		pthread_mutex_unlock(&pw->lock);
		if (closed || is_gone() || fuse_session_exited(se))
			break;
	}
	pthread_mutex_lock(&pw->lock);
	ph = pw->ph;
	pw->ph = NULL;
	pw->running = false;
	pthread_mutex_unlock(&pw->lock);
	if (ph) {
		fuse_notify_poll(ph);	/* the kernel polls again: mnt_poll() says readable */
		fuse_pollhandle_destroy(ph);
	}
	poll_waiter_put(pw);
	return NULL;
}

/*
 * Keep @ph to be notified when @f's connection has bytes; start the waiter if
 * needed. f->poll_lock held. (f->sc's descriptor is fixed while the file is open.)
 */
static int poll_wait(struct mount_file *f, struct fuse_pollhandle *ph)
{
	struct poll_waiter *pw = f->pw;
	pthread_attr_t attr;
	pthread_t th;
	int ret = 0;

	if (!pw) {
		pw = calloc(1, sizeof(*pw));
		if (!pw)
			return -ENOMEM;
		pw->fd = fcntl(ctl_client_fd(f->sc), F_DUPFD_CLOEXEC, 0);
		if (pw->fd < 0) {
			ret = -errno;
			free(pw);
			return ret;
		}
		pthread_mutex_init(&pw->lock, NULL);
		pw->refs = 1;
		f->pw = pw;
	}
	pthread_mutex_lock(&pw->lock);
	if (pw->ph)
		fuse_pollhandle_destroy(pw->ph); /* an older poll: this one replaces it */
	pw->ph = ph;
	if (!pw->running) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pw->running = true;
		pw->refs++;
		ret = -pthread_create(&th, &attr, poll_waiter_run, pw);
		pthread_attr_destroy(&attr);
		if (ret) {
			pw->running = false;
			pw->refs--;
			pw->ph = NULL; /* the caller destroys it */
		}
	}
	pthread_mutex_unlock(&pw->lock);
	return ret;
}

/*
 * poll(2). A stream is readable when a read would not wait; the stream starts
 * here if no read started it. A stream file busy with a read (another thread
 * blocked in it) is not readable for this poll: the waiter tells when bytes
 * come. Other files are always readable and writable, as tracefs's.
 */
static int mnt_poll(const char *path, struct fuse_file_info *fi, struct fuse_pollhandle *ph,
		    unsigned int *reventsp)
{
	struct mount_file *f = (struct mount_file *)(uintptr_t)fi->fh;
	struct pollfd p;
	int ret = 0;

	if (!caller_allowed())
		return -EACCES;

	(void)path;
	if (!f->stream) {
		*reventsp = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
		goto out;
	}
	*reventsp = 0;
	if (pthread_mutex_trylock(&f->lock) == 0) {
		if (f->ended) {
			*reventsp = POLLIN | POLLRDNORM; /* a read returns the end */
		} else if (!f->started) {
			ret = ctl_stream_open(f->sc, f->path);
			if (ret)
				ret = fs_err(ret);
			else
				f->started = true;
		}
		if (!ret && !*reventsp) {
			p = (struct pollfd){ .fd = ctl_client_fd(f->sc), .events = POLLIN };
			if (ctl_stream_pending(f->sc) || poll(&p, 1, 0) > 0)
				*reventsp = POLLIN | POLLRDNORM;
		}
		pthread_mutex_unlock(&f->lock);
	} /* else a read holds the file (it consumes what comes): not readable for this poll */
	if (!ret && !*reventsp && ph) {
		pthread_mutex_lock(&f->poll_lock);
		ret = poll_wait(f, ph);
		pthread_mutex_unlock(&f->poll_lock);
		if (!ret)
			ph = NULL; /* the waiter's now */
	}
out:
	if (ph)
		fuse_pollhandle_destroy(ph);
	return ret;
}

static int mnt_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct mount_file *f = (struct mount_file *)(uintptr_t)fi->fh;
	int ret = 0;

	if (!caller_allowed())
		return -EACCES;

	(void)path;
	pthread_mutex_lock(&f->lock);
	if (f->stream) {
		ret = stream_read(f, buf, size);
		goto out;
	}
	/* A whole-file snapshot at offset 0 (again after a seek back), as seq_file does. */
	if (!f->have_snap || off == 0) {
		struct ctl_client *c;
		char *data = NULL;
		ssize_t n;

		ret = conn_get(&c);
		if (ret)
			goto out;
		n = ctl_read(c, f->path, &data);
		conn_put(c, n);
		if (n < 0) {
			ret = fs_err(n);
			goto out;
		}
		free(f->snap);
		f->snap = data;
		f->snap_len = (size_t)n;
		f->have_snap = true;
	}
	if (off < 0 || (uint64_t)off >= f->snap_len) {
		ret = 0;
		goto out;
	}
	if (size > f->snap_len - (size_t)off)
		size = f->snap_len - (size_t)off;
	memcpy(buf, f->snap + off, size);
	ret = (int)size;
out:
	pthread_mutex_unlock(&f->lock);
	return ret;
}

/* One WRITE; on failure, the process's error text goes to stderr with -v. */
static ssize_t send_write(struct mount_file *f, const char *data, size_t len, unsigned int flags)
{
	struct ctl_client *c;
	char err[4096];
	ssize_t n;
	int ret;

	ret = conn_get(&c);
	if (ret)
		return ret;
	n = ctl_write(c, f->path, data, len, flags, err, sizeof(err));
	conn_put(c, n);
	if (n < 0 && mount_state.verbose)
		cmd_ctl_error("write", f->path, (int)n, err);
	return n < 0 ? fs_err(n) : n;
}

static int mnt_write(const char *path, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct mount_file *f = (struct mount_file *)(uintptr_t)fi->fh;
	unsigned int flags = 0;
	ssize_t n;

	if (!caller_allowed())
		return -EACCES;

	(void)path;
	(void)off;
	if (size > CTL_DATA_MAX)
		size = CTL_DATA_MAX;	/* the rest comes in the next write(2) */
	pthread_mutex_lock(&f->lock);
	if (f->flags & O_APPEND)
		flags = CTL_WF_APPEND;
	else if ((f->flags & O_TRUNC) && !f->written)
		flags = CTL_WF_TRUNC;
	n = send_write(f, buf, size, flags);
	f->written = true;
	f->have_snap = false;	/* a read after the write sees what it did */
	pthread_mutex_unlock(&f->lock);
	return (int)n;
}

/* A file opened with '>' and closed unwritten is still truncated (`> trace`). */
static int mnt_flush(const char *path, struct fuse_file_info *fi)
{
	struct mount_file *f = (struct mount_file *)(uintptr_t)fi->fh;
	ssize_t n = 0;

	(void)path;
	pthread_mutex_lock(&f->lock);
	if ((f->flags & O_TRUNC) && (f->flags & O_ACCMODE) != O_RDONLY && !f->written) {
		f->written = true;
		n = send_write(f, "", 0, CTL_WF_TRUNC);
	}
	pthread_mutex_unlock(&f->lock);
	return n < 0 ? (int)n : 0;
}

static int mnt_release(const char *path, struct fuse_file_info *fi)
{
	struct mount_file *f = (struct mount_file *)(uintptr_t)fi->fh;

	(void)path;
	pthread_mutex_lock(&mount_state.lock);
	if (f->prev)
		f->prev->next = f->next;
	else
		mount_state.files = f->next;
	if (f->next)
		f->next->prev = f->prev;
	pthread_mutex_unlock(&mount_state.lock);
	/*
	 * A reader killed in a blocked read: the kernel sends the release while
	 * our read still runs (it sees the interrupt within MOUNT_POLL_MS). Wait
	 * for it; nothing else can come on this handle after its release.
	 */
	pthread_mutex_lock(&f->lock);
	pthread_mutex_unlock(&f->lock);
	file_free(f);
	return 0;
}

static int mnt_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct mount_file f0 = { .flags = O_WRONLY };
	struct mount_file *f = fi ? (struct mount_file *)(uintptr_t)fi->fh : NULL;
	const char *tp = tree_path(path);
	struct mount_file *tf;
	ssize_t n;

	if (!caller_allowed())
		return -EACCES;

	if (size != 0)
		return -EINVAL;
	if (f) {
		pthread_mutex_lock(&f->lock);
		n = send_write(f, "", 0, CTL_WF_TRUNC);
		f->written = true;
		pthread_mutex_unlock(&f->lock);
		return n < 0 ? (int)n : 0;
	}
	/* truncate(2) by path: a handle just for the path. */
	tf = malloc(sizeof(*tf) + strlen(tp) + 1);
	if (!tf)
		return -ENOMEM;
	*tf = f0;
	strcpy(tf->path, tp);
	n = send_write(tf, "", 0, CTL_WF_TRUNC);
	free(tf);
	return n < 0 ? (int)n : 0;
}

static int mnt_mkdir(const char *path, mode_t mode)
{
	struct ctl_client *c;
	int ret;

	if (!caller_allowed())
		return -EACCES;

	(void)mode;
	ret = conn_get(&c);
	if (ret)
		return ret;
	ret = ctl_mkdir(c, tree_path(path));
	conn_put(c, ret);
	return ret ? fs_err(ret) : 0;
}

static int mnt_rmdir(const char *path)
{
	struct ctl_client *c;
	int ret;

	if (!caller_allowed())
		return -EACCES;

	ret = conn_get(&c);
	if (ret)
		return ret;
	ret = ctl_rmdir(c, tree_path(path));
	conn_put(c, ret);
	return ret ? fs_err(ret) : 0;
}

static int mnt_unlink(const char *path)
{
	if (!caller_allowed())
		return -EACCES;

	(void)path;
	return -EPERM;		/* as tracefs */
}

static const struct fuse_operations mount_ops = {
	.init = mnt_init,
	.getattr = mnt_getattr,
	.readdir = mnt_readdir,
	.open = mnt_open,
	.create = mnt_create,
	.read = mnt_read,
	.write = mnt_write,
	.flush = mnt_flush,
	.release = mnt_release,
	.poll = mnt_poll,
	.truncate = mnt_truncate,
	.mkdir = mnt_mkdir,
	.rmdir = mnt_rmdir,
	.unlink = mnt_unlink,
};

/* --- the watcher: unmount when the process goes ------------------------------------------- */

struct watcher {
	struct ctl_client *c;
	int stopfd;			/* eventfd: the command is done, stop watching */
	pthread_t main_thread;
};

static void *watch_main(void *arg)
{
	struct watcher *w = arg;
	struct pollfd p[2] = {
		{ .fd = ctl_client_fd(w->c), .events = POLLIN | POLLRDHUP },
		{ .fd = w->stopfd, .events = POLLIN },
	};

	for (;;) {
		int n = poll(p, 2, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[1].revents)
			return NULL;
		if (p[0].revents)
			break;
	}
	/*
	 * The server never speaks unasked: the socket became readable because
	 * the process closed it. Relaxed: requests only read it as a hint.
	 */
	atomic_store_explicit(&mount_state.gone, 1, memory_order_relaxed);
	fuse_session_exit(fuse_get_session(mount_state.fuse));
	/* Wake the loop's main thread (it waits in sem_wait; libfuse's SIGTERM handler runs). */
	pthread_kill(w->main_thread, SIGTERM);
	return NULL;
}

/* --- the command ----------------------------------------------------------------------------- */

static void mount_usage(FILE *f)
{
	fprintf(f,
		"usage: evtrace mount [-p PID] [-d] [-v] [-o OPTS] DIR\n"
		"Show a traced process's tracing tree under DIR (FUSE), as /sys/kernel/tracing:\n"
		"`echo 'app:*' > DIR/set_event`, `cat DIR/trace_pipe`. Runs until SIGINT/SIGTERM,\n"
		"`fusermount3 -u DIR`, or the process's exit, then unmounts.\n"
		"  -p, --pid PID      the process (default: the only one traced)\n"
		"  -d, --daemon       go to the background once mounted\n"
		"  -f, --foreground   stay in the foreground (the default)\n"
		"  -v, --verbose      print each rejected write and its error text on stderr\n"
		"  -o OPTS            FUSE mount options (mount.fuse3(8)); with allow_other, root\n"
		"                     may use the tree too: other users' requests get EACCES\n"
		"      --debug        libfuse's debug output\n");
}

int cmd_mount(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "debug", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char fsopts[512], *mopts = NULL, esc[CTL_COMM_MAX * 4 + 8];
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct watcher w = { .stopfd = -1 };
	bool daemon = false, debug = false;
	const struct ctl_info *info;
	struct fuse_loop_config *lc;
	struct fuse_session *se;
	pthread_t wt;
	sigset_t all, old;
	const char *dir;
	int opt, ret = 1;
	pid_t pid = 0;

	while ((opt = getopt_long(argc, argv, "+p:dfvo:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (cmd_parse_pid(optarg, &pid))
				return 2;
			break;
		case 'd':
			daemon = true;
			break;
		case 'f':
			daemon = false;
			break;
		case 'v':
			mount_state.verbose = true;
			break;
		case 'o':
			mopts = optarg;
			break;
		case 'D':
			debug = true;
			break;
		case 'h':
			mount_usage(stdout);
			return 0;
		default:
			mount_usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 1) {
		mount_usage(stderr);
		return 2;
	}
	dir = argv[optind];

	w.c = cmd_ctl_connect(pid);
	if (!w.c)
		return 1;
	info = ctl_client_info(w.c);
	mount_state.pid = info->pid;
	mount_state.uid = getuid();
	mount_state.gid = getgid();
	clock_gettime(CLOCK_REALTIME, &mount_state.when);

	snprintf(fsopts, sizeof(fsopts), "fsname=evtrace:%d,subtype=evtrace%s%s", (int)info->pid,
		 mopts ? "," : "", mopts ? mopts : "");
	if (fuse_opt_add_arg(&args, "evtrace-mount") || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, fsopts) || (debug && fuse_opt_add_arg(&args, "-d"))) {
		fuse_opt_free_args(&args);
		cmd_error("out of memory");
		goto out_close;
	}
	mount_state.fuse = fuse_new(&args, &mount_ops, sizeof(mount_ops), NULL);
	fuse_opt_free_args(&args);	/* what fuse_new() added to them */
	if (!mount_state.fuse) {
		cmd_error("mount %s: bad FUSE options (-o %s)", dir, mopts ? mopts : "");
		goto out_close;
	}
	if (fuse_mount(mount_state.fuse, dir)) {
		cmd_error("cannot mount on %s (is /dev/fuse there, fusermount3 installed, DIR a "
			  "directory?)",
			  dir);
		goto out_destroy;
	}
	se = fuse_get_session(mount_state.fuse);
	if (fuse_set_signal_handlers(se)) {
		cmd_error("cannot catch signals");
		goto out_unmount;
	}
	fprintf(stderr, "evtrace: %s (pid %d) mounted on %s\n",
		cmd_escape(info->comm, esc, sizeof(esc)), (int)info->pid, dir);
	if (daemon && fuse_daemonize(0)) {
		cmd_error("cannot go to the background");
		goto out_signals;
	}

	/* The watcher, with every signal blocked: SIGTERM is for the loop's thread. */
	w.main_thread = pthread_self();
	w.stopfd = eventfd(0, EFD_CLOEXEC);
	if (w.stopfd < 0) {
		cmd_error("eventfd: %s", strerror(errno));
		goto out_signals;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&wt, NULL, watch_main, &w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		cmd_error("pthread_create: %s", strerror(ret));
		ret = 1;
		goto out_signals;
	}

	lc = fuse_loop_cfg_create();
	if (lc)
		fuse_loop_cfg_set_max_threads(lc, MOUNT_MAX_THREADS);
	/* > 0: the signal that stopped it (ours too, when the process went): a clean stop. */
	ret = fuse_loop_mt(mount_state.fuse, lc);
	if (ret < 0)
		cmd_error("the FUSE loop failed: %s", strerror(-ret));
	ret = ret < 0 ? 1 : 0;
	if (lc)
		fuse_loop_cfg_destroy(lc);

	if (eventfd_write(w.stopfd, 1) == 0)
		pthread_join(wt, NULL);
	/* Relaxed: the watcher that stores it was joined above (the join orders it). */
	if (atomic_load_explicit(&mount_state.gone, memory_order_relaxed) && !daemon)
		fprintf(stderr, "evtrace: process %d exited; %s unmounted\n", (int)info->pid, dir);
out_signals:
	fuse_remove_signal_handlers(se);
out_unmount:
	fuse_unmount(mount_state.fuse);
out_destroy:
	fuse_destroy(mount_state.fuse);
out_close:
	if (w.stopfd >= 0)
		close(w.stopfd);
	files_free_all();
	conn_drain_pool();
	ctl_close(w.c);
	return ret;
}
