// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * relay/gtsc.c - Generic Trace Setup and Control (shared/seeds/gtsc.txt):
 * a relay channel in <root>/<name>/ with its control files.
 *
 * The control files are small text files. Another process reads them and
 * writes state ("start"/"stop") and rewind (anything). The traced process
 * has no thread of its own to watch them: it holds an inotify descriptor
 * on the directory (non-blocking) and looks at it at control points -
 * every 64th evt_trace_running() of a thread, and every evt_trace_start()
 * and evt_trace_stop() - where it also rewrites dropped when the count
 * changed. A file the traced process rewrites is written under a temporary
 * name and renamed, so a reader never sees it half-written.
 *
 * IN_CLOSE_WRITE only says that someone closed a file it had open for
 * writing, not that it wrote: a consumer opening a control file read-write
 * (or `: > rewind`) must not move the trace. So the event only makes the
 * process look at the content: state acts only when it holds a state other
 * than the one the process last wrote or applied (state_shown); rewind acts
 * only when it is not empty, and is emptied again after the rewind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <evtrace/clock.h>
#include <evtrace/gtsc.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "relay/relay_internal.h"

struct gtsc {
	struct evt_trace_info pub;
	char dir[PATH_MAX];
	char root[PATH_MAX];
	int made_root;
	int state;		/* enum evt_trace_state */
	int ino;		/* inotify descriptor, or -1 */
	int busy;		/* a control point is running (trylock) */
	uint64_t dropped_shown; /* the value in the dropped file */
	int state_shown; /* the state the state file is known to hold, or -1 */
};

static __thread unsigned int gtsc_calls;

static int write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	size_t len = strlen(text);
	int fd, ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		ret = -EIO;
	fchmod(fd, mode);
	close(fd);
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

static const char *state_name(int state)
{
	switch (state) {
	case EVT_TRACE_RUNNING:
		return "start\n";
	case EVT_TRACE_STOPPED:
		return "stop\n";
	default:
		return "setup\n";
	}
}

static void refresh_dropped(struct gtsc *t)
{
	uint64_t d = relay_chan_dropped(t->pub.rchan);
	char text[32];

	if (d == t->dropped_shown)
		return;
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)d);
	if (write_file(t->dir, "dropped", text, 0644) == 0)
		t->dropped_shown = d;
}

/* Read a control file's content (at most @len - 1 bytes). Return its length, or -1. */
static ssize_t read_ctl(const struct gtsc *t, const char *name, char *text, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", t->dir, name) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	text[n] = '\0';
	return n;
}

/* Write the state file; state_shown follows it (-1 if the write failed: the next content acts). */
static int write_state(struct gtsc *t, int state)
{
	int ret = write_file(t->dir, "state", state_name(state), 0644);

	/* Relaxed: an int compared at control points; racing start/stop calls race anyway. */
	st_relaxed(&t->state_shown, ret ? -1 : state);
	return ret;
}

/* Apply what another process wrote to state: only a state the file did not already hold. */
static void read_state(struct gtsc *t)
{
	char text[32];
	int want;

	if (read_ctl(t, "state", text, sizeof(text)) <= 0)
		return; /* opened for writing and closed, or truncated: nothing written */
	text[strcspn(text, " \t\r\n")] = '\0';
	if (!strcmp(text, "start") || !strcmp(text, "1"))
		want = EVT_TRACE_RUNNING;
	else if (!strcmp(text, "stop") || !strcmp(text, "0"))
		want = EVT_TRACE_STOPPED;
	else if (!strcmp(text, "setup"))
		want = EVT_TRACE_SETUP;
	else
		return;
	if (want == ld_relaxed(&t->state_shown))
		return; /* the content we wrote or applied last: no one wrote since */
	st_relaxed(&t->state_shown, want);
	if (want == EVT_TRACE_RUNNING)
		st_relaxed(&t->state, EVT_TRACE_RUNNING);
	else if (want == EVT_TRACE_STOPPED && ld_relaxed(&t->state) == EVT_TRACE_RUNNING)
		st_relaxed(&t->state, EVT_TRACE_STOPPED);
}

/* Rewind if another process wrote something to rewind, then empty it for the next request. */
static void read_rewind(struct gtsc *t)
{
	char text[8];

	if (read_ctl(t, "rewind", text, sizeof(text)) <= 0)
		return;
	relay_chan_rewind(t->pub.rchan);
	write_file(t->dir, "rewind", "", 0644);
}

/* A control point: at most one thread at a time, the others go on. */
static void gtsc_control(struct gtsc *t)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int zero = 0;

	/* A fork() child: the inotify queue and the files are the parent's. */
	if (unlikely(relay_chan_forked(t->pub.rchan)))
		return;
	/* Acquire/release: one control point at a time sees the last one's work. */
	if (!cas_acq_rel(&t->busy, &zero, 1))
		return;
	for (int rounds = 0; t->ino >= 0 && rounds < 16; rounds++) {
		ssize_t n = read(t->ino, ev, sizeof(ev));

		if (n <= 0)
			break;
		for (char *p = ev; p + sizeof(struct inotify_event) <= ev + n;) {
			struct inotify_event *e = (struct inotify_event *)p;

			if (e->len && !strcmp(e->name, "state"))
				read_state(t);
			else if (e->len && !strcmp(e->name, "rewind"))
				read_rewind(t);
			p += sizeof(*e) + e->len;
		}
	}
	refresh_dropped(t);
	st_release(&t->busy, 0);
}

static int gtsc_subbuf_start(struct evt_rchan_buf *buf, void *subbuf, void *prev_subbuf,
			     size_t prev_padding)
{
	struct gtsc *t = buf->chan->private_data;

	(void)subbuf;
	(void)prev_subbuf;
	(void)prev_padding;
	if (t->pub.flags & EVT_TRACE_FLIGHT_CHANNEL)
		return 1;
	/* No-overwrite: the relay buffer counts each refused record (dropped). */
	return !evt_relay_buf_full(buf);
}

static int gtsc_create(const char *filename, const char *parent, int mode,
		       struct evt_rchan_buf *buf, int *is_global)
{
	struct gtsc *t = buf->chan->private_data;

	*is_global = !!(t->pub.flags & EVT_TRACE_GLOBAL_CHANNEL);
	return evt_relay_file_create(filename, parent, mode, buf, is_global);
}

static int gtsc_remove(const char *path)
{
	return evt_relay_file_remove(path);
}

static const struct evt_rchan_callbacks gtsc_callbacks = {
	.subbuf_start = gtsc_subbuf_start,
	.create_buf_file = gtsc_create,
	.remove_buf_file = gtsc_remove,
};

static const char *const gtsc_files[] = { "state", "dropped", "rewind", "nr_sub", "sub_size" };

static void remove_files(struct gtsc *t)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(gtsc_files) / sizeof(gtsc_files[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", t->dir, gtsc_files[i]) <
		    (int)sizeof(path))
			unlink(path);
	}
	rmdir(t->dir);
	if (t->made_root)
		rmdir(t->root);
}

int evt_trace_setup(const char *root, const char *name, size_t subbuf_size, size_t n_subbufs,
		    unsigned int flags, struct evt_trace_info **tracep)
{
	char def[PATH_MAX], text[32];
	struct gtsc *t;
	int ret;

	if (!name || !*name || strchr(name, '/') || !tracep ||
	    (flags & ~(EVT_TRACE_FLIGHT_CHANNEL | EVT_TRACE_GLOBAL_CHANNEL)))
		return -EINVAL;
	if (root && strstr(root, ".."))
		return -EINVAL;
	evt_clock_init();
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ino = -1;
	t->pub.flags = flags;
	/* An absolute root is used as is; a name (or NULL) goes under the default directory. */
	if (root && root[0] == '/') {
		ret = snprintf(t->root, sizeof(t->root), "%s", root) >= (int)sizeof(t->root) ?
			      -ENAMETOOLONG :
			      0;
	} else {
		ret = evt_relay_default_dir(def, sizeof(def));
		if (!ret && snprintf(t->root, sizeof(t->root), "%s%s%s", def, root ? "/" : "",
				     root ? root : "") >= (int)sizeof(t->root))
			ret = -ENAMETOOLONG;
	}
	if (ret)
		goto err_free;
	if (mkdir(t->root, 0700) == 0)
		t->made_root = 1;
	else if (errno != EEXIST) {
		ret = -errno;
		goto err_free;
	}
	if (snprintf(t->dir, sizeof(t->dir), "%s/%s", t->root, name) >= (int)sizeof(t->dir)) {
		ret = -ENAMETOOLONG;
		goto err_root;
	}
	if (mkdir(t->dir, 0700) < 0 && errno != EEXIST) {
		ret = -errno;
		goto err_root;
	}
	ret = evt_relay_open("trace", t->dir, subbuf_size, n_subbufs, &gtsc_callbacks, t,
			     &t->pub.rchan);
	if (ret < 0)
		goto err_dir;
	ret = write_state(t, EVT_TRACE_SETUP);
	if (!ret)
		ret = write_file(t->dir, "dropped", "0\n", 0644);
	if (!ret)
		ret = write_file(t->dir, "rewind", "", 0644);
	snprintf(text, sizeof(text), "%zu\n", n_subbufs);
	if (!ret)
		ret = write_file(t->dir, "nr_sub", text, 0444);
	snprintf(text, sizeof(text), "%zu\n", subbuf_size);
	if (!ret)
		ret = write_file(t->dir, "sub_size", text, 0444);
	if (ret)
		goto err_chan;
	t->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (t->ino < 0 || inotify_add_watch(t->ino, t->dir, IN_CLOSE_WRITE) < 0) {
		ret = -errno;
		goto err_chan;
	}
	*tracep = &t->pub;
	return 0;
err_chan:
	if (t->ino >= 0)
		close(t->ino);
	evt_relay_close(t->pub.rchan);
err_dir:
	remove_files(t);
	free(t);
	return ret;
err_root:
	if (t->made_root)
		rmdir(t->root);
err_free:
	free(t);
	return ret;
}

int evt_trace_start(struct evt_trace_info *trace)
{
	struct gtsc *t = (struct gtsc *)trace;

	if (!t)
		return -EINVAL;
	if (relay_chan_forked(t->pub.rchan))
		return -ECHILD;
	gtsc_control(t);
	st_relaxed(&t->state, EVT_TRACE_RUNNING);
	return write_state(t, EVT_TRACE_RUNNING);
}

int evt_trace_stop(struct evt_trace_info *trace)
{
	struct gtsc *t = (struct gtsc *)trace;

	if (!t)
		return -EINVAL;
	if (relay_chan_forked(t->pub.rchan))
		return -ECHILD;
	gtsc_control(t);
	if (ld_relaxed(&t->state) != EVT_TRACE_RUNNING)
		return -EINVAL;
	st_relaxed(&t->state, EVT_TRACE_STOPPED);
	/* What was written is finished, so a consumer sees all of it as whole sub-buffers. */
	evt_relay_flush(t->pub.rchan);
	refresh_dropped(t);
	return write_state(t, EVT_TRACE_STOPPED);
}

bool evt_trace_running(struct evt_trace_info *trace)
{
	struct gtsc *t = (struct gtsc *)trace;

	if (unlikely(!t))
		return false;
	if (unlikely((++gtsc_calls & 63) == 0))
		gtsc_control(t);
	return ld_relaxed(&t->state) == EVT_TRACE_RUNNING;
}

uint64_t evt_trace_timestamp(void)
{
	return evt_clock_read(EVT_CLOCK_LOCAL);
}

uint64_t evt_trace_dropped(struct evt_trace_info *trace)
{
	return trace ? relay_chan_dropped(trace->rchan) : 0;
}

void evt_trace_cleanup(struct evt_trace_info *trace)
{
	struct gtsc *t = (struct gtsc *)trace;
	int forked;

	if (!t)
		return;
	if (t->ino >= 0)
		close(t->ino);
	forked = relay_chan_forked(t->pub.rchan);
	evt_relay_close(t->pub.rchan);
	if (!forked) /* in a fork() child the directory is the parent's */
		remove_files(t);
	free(t);
}
