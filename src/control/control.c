// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control.c - the control endpoint: the tracing file tree served over a
 * Unix stream socket to the evtrace command (docs/control.md).
 *
 * Actors:
 *  - the starting thread (evt_control_start(), or the library's init when
 *    EVTRACE_CONTROL=1) creates the socket and the accept thread;
 *  - the accept thread checks each peer's credentials (SO_PEERCRED) and
 *    starts a connection thread for it (at most CTL_MAX_CONNS at once);
 *  - a connection thread reads one request at a time, serves it through
 *    the public tracefs API (evt_tracefs_*) and writes the answer;
 *  - evt_control_stop() and exit() end it all;
 *  - with EVTRACE_CONTROL_HOLD=<our pid> or "all" (evtrace record), the program's
 *    first event parks its thread in ctl_hold_wait() until a connection
 *    thread serves RELEASE (or a timeout): the start-up hold, below.
 *
 * Apart from the start-up hold, the traced threads never see any of this:
 * everything here goes through the tracefs API, whose control side is
 * serialized by its own lock and never blocks writers. Every thread started here has all signals blocked.
 *
 * State: @ctl below, under @ctl.lock. A connection thread owns its socket;
 * the list of sockets (@ctl.conns) is there so that stop can shut them
 * down, which makes their blocked reads return.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/control.h>
#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/tracefs.h>

#include "compat/atomic.h"
#include "control/ctl_client.h"
#include "compat/secdir.h"
#include "control/ctl_internal.h"
#include "control/ctl_proto.h"
#include "events/event_internal.h"

#define CTL_MAX_CONNS	      16
#define CTL_EXIT_WAIT_DEFAULT 5 /* seconds exit() waits for a buffer's consumer */

struct ctl_conn {
	int fd;		   /* -1: free slot */
	bool holds_buffer; /* has the consumer role (GETBUF) */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* nr_conns or consumers changed */
	bool running;
	bool exiting; /* in exit(): PING says so */
	int listen_fd;
	int stop_fd; /* eventfd: readable once stopping */
	int dir_fd;  /* the socket directory, opened and checked once (compat/secdir.h) */
	char name[24];		 /* our socket's name in it */
	char comm[CTL_COMM_MAX]; /* the program's name as it started (no /proc: hello_fill()) */
	pthread_t acceptor;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct ctl_conn conns[CTL_MAX_CONNS];
	int nr_conns;			       /* connection threads alive */
	int consumers;			       /* connections holding a buffer */
	bool consumer_seen;		       /* a GETBUF succeeded since start */
	char consumer_inst[CTL_MAX_CONNS][64]; /* the instance each holder holds */
} ctl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.listen_fd = -1,
	.stop_fd = -1,
	.dir_fd = -1,
};

/*
 * Statistics (evt_control_stats()): relaxed counters; each is read alone,
 * nothing is ordered by them.
 */
static unsigned long stat_start_failures, stat_accept_errors, stat_refused;
static int stat_last_error;

static void ctl_exit_hook(void);

/* --- the start-up hold ------------------------------------------------------------------ */

#define CTL_HOLD_TIMEOUT_DEFAULT 10.0 /* seconds a parked program waits for RELEASE */

static int hold_go = 1;		      /* futex word: 0 while parked threads must wait */
static int hold_parked;		      /* threads in ctl_hold_wait() now */
static int hold_warned;		      /* the timeout message went out */
static struct timespec hold_deadline; /* CLOCK_MONOTONIC; written before arming */
static __thread bool ctl_own_thread;  /* the endpoint's threads never park */

static double env_seconds(const char *name, double def)
{
	const char *s = secure_getenv(name);
	char *end;
	double v;

	if (!s || !*s)
		return def;
	v = strtod(s, &end);
	if (*end || !(v >= 0) || v > 3600)
		return def;
	return v;
}

static void hold_wake(void)
{
	syscall(SYS_futex, &hold_go, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

/* End the hold (RELEASE, timeout, exit, fork child). Return: threads parked at the time. */
static int hold_release(void)
{
	/* Relaxed: writers only lose the fast-path test; hold_go is what they wait on. */
	st_relaxed(&event_hold_armed, 0);
	/* Release: what the releasing client set (filters, triggers) is visible to a
	 * thread that sees go (pairs with the acquire in ctl_hold_wait()). */
	st_release(&hold_go, 1);
	hold_wake();
	return ld_relaxed(&hold_parked);
}

/*
 * Arm the hold if EVTRACE_CONTROL_HOLD names us, or is "all" (evtrace record
 * of a command's whole tree: every program image that starts its endpoint
 * with it parks; only once per image).
 */
static void hold_arm_from_env(void)
{
	static int armed_once;
	const char *s = secure_getenv("EVTRACE_CONTROL_HOLD");
	bool all = s && !strcmp(s, "all");
	double t;

	if (!s || (!all && strtol(s, NULL, 10) != (long)getpid()))
		return;
	/* Once flag: orders nothing else (arming is published below). */
	if (xchg_acq_rel(&armed_once, 1))
		return;
	/*
	 * A program this one execs keeps our pid: it must not park again. With
	 * "all" it must (the recorder attaches each image), and so must the
	 * programs ours starts: the variable stays.
	 */
	if (!all)
		unsetenv("EVTRACE_CONTROL_HOLD");
	t = env_seconds("EVTRACE_CONTROL_HOLD_TIMEOUT", CTL_HOLD_TIMEOUT_DEFAULT);
	clock_gettime(CLOCK_MONOTONIC, &hold_deadline);
	hold_deadline.tv_sec += (time_t)t;
	hold_deadline.tv_nsec += (long)((t - (double)(time_t)t) * 1e9);
	if (hold_deadline.tv_nsec >= 1000000000L) {
		hold_deadline.tv_sec++;
		hold_deadline.tv_nsec -= 1000000000L;
	}
	st_relaxed(&hold_go, 0);
	event_set_hold_hook(ctl_hold_wait);
	/* Release: the deadline, hold_go and the hook are set before a writer sees armed. */
	st_release(&event_hold_armed, 1);
}

void ctl_hold_wait(void)
{
	int saved = errno;

	/* Acquire: pairs with the release in hold_arm_from_env() (the deadline). */
	if (ctl_own_thread || event_locks_held || !ld_acquire(&event_hold_armed))
		return;
	add_relaxed(&hold_parked, 1);
	/* Acquire: pairs with hold_release(); the settings are in place after it. */
	while (!ld_acquire(&hold_go)) {
		struct timespec now, left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = hold_deadline.tv_sec - now.tv_sec;
		left.tv_nsec = hold_deadline.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0) {
			/* Once flag: only one thread says it; orders nothing else. */
			if (!xchg_acq_rel(&hold_warned, 1)) {
				static const char msg[] =
					"evtrace: no recorder released the start-up hold "
					"(EVTRACE_CONTROL_HOLD): continuing\n";

				if (write(2, msg, sizeof(msg) - 1) < 0) {
					/* nothing to do: stderr is gone */
				}
			}
			hold_release();
			break;
		}
		syscall(SYS_futex, &hold_go, FUTEX_WAIT_PRIVATE, 0, &left, NULL, 0);
	}
	sub_relaxed(&hold_parked, 1);
	errno = saved;
}

/* CTL_OP_HOLD's answer. */
static int hold_state(void)
{
	if (ld_acquire(&hold_go) || ctl.exiting)
		return 0;
	return ld_relaxed(&hold_parked) > 0 ? 2 : 1;
}

/* --- socket I/O ------------------------------------------------------------------ */

/*
 * Wait until @fd is readable or the endpoint stops. Return: 1 readable (or
 * hung up: the read says which), 0 timeout, -ESHUTDOWN stopping.
 */
static int wait_readable(int fd, int stop_fd, int timeout_ms)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
			       { .fd = stop_fd, .events = POLLIN } };
	int n;

	do
		n = poll(p, stop_fd >= 0 ? 2 : 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (stop_fd >= 0 && p[1].revents)
		return -ESHUTDOWN;
	return n > 0;
}

/* All @len bytes or an error (-ECONNRESET at end of file). */
static int read_full(int fd, int stop_fd, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		int w = wait_readable(fd, stop_fd, -1);
		ssize_t n;

		if (w < 0)
			return w;
		n = recv(fd, p, len, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_full(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One response frame: header, then @len bytes; with @pass_fd >= 0, that descriptor. */
static int send_frame(int fd, unsigned int op, unsigned int flags, int status, const void *data,
		      size_t len, int pass_fd)
{
	struct ctl_resp_hdr h = {
		.magic = CTL_MAGIC,
		.op = (uint16_t)op,
		.flags = (uint16_t)flags,
		.status = status,
		.len = (uint32_t)len,
	};
	int ret;

	if (pass_fd >= 0) {
		char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
		struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = cbuf,
			.msg_controllen = sizeof(cbuf),
		};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
		ssize_t n;

		h.flags |= CTL_RF_FD;
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
		do
			n = sendmsg(fd, &msg, MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		/* The descriptor went with the first byte; the rest of the header follows. */
		ret = send_full(fd, (unsigned char *)&h + n, sizeof(h) - (size_t)n);
	} else {
		ret = send_full(fd, &h, sizeof(h));
	}
	if (!ret && len)
		ret = send_full(fd, data, len);
	return ret;
}

/* --- requests ----------------------------------------------------------------------- */

struct conn_ctx {
	int slot;
	int fd;
	int stop_fd;
	unsigned char *chunk; /* CTL_RESP_CHUNK bytes */
};

/* The instance prefix of @path ("instances/NAME/"), for its error_log. */
static void error_log_path(const char *path, char *out, size_t len)
{
	const char *p = path;
	size_t n = 0;

	while (*p == '/')
		p++;
	if (!strncmp(p, "instances/", 10)) {
		const char *slash = strchr(p + 10, '/');

		if (slash)
			n = (size_t)(slash + 1 - p);
	}
	if (n >= len - sizeof("error_log"))
		n = 0;
	memcpy(out, p, n);
	memcpy(out + n, "error_log", sizeof("error_log"));
}

/* Whole text of @path (at most @len - 1 bytes, NUL-terminated). Return: length or -errno. */
static ssize_t read_text(const char *path, char *buf, size_t len)
{
	struct evt_tracefs_file *f;
	size_t got = 0;
	ssize_t n = 0;
	int ret;

	ret = evt_tracefs_open(NULL, path, EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK, &f);
	if (ret)
		return ret;
	while (got < len - 1 && (n = evt_tracefs_file_read(f, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	evt_tracefs_close(f);
	buf[got] = '\0';
	return n < 0 && n != -EAGAIN ? n : (ssize_t)got;
}

static int do_write(struct conn_ctx *cx, const struct ctl_request *req)
{
	static const size_t logsize = 16384;
	char elp[CTL_PATH_MAX + 16], *before = malloc(logsize), *after = malloc(logsize);
	const char *text = "";
	unsigned int flags = 0;
	ssize_t ret;
	int sret;

	if (!before || !after) {
		free(before);
		free(after);
		return send_frame(cx->fd, req->op, 0, -ENOMEM, NULL, 0, -1);
	}
	before[0] = after[0] = '\0';
	error_log_path(req->path, elp, sizeof(elp));
	if (read_text(elp, before, logsize) < 0)
		before[0] = '\0';
	if (req->flags & CTL_WF_TRUNC)
		flags |= EVT_TRACEFS_TRUNC;
	if (req->flags & CTL_WF_APPEND)
		flags |= EVT_TRACEFS_APPEND;
	ret = evt_tracefs_write(NULL, req->path, req->data, req->data_len, flags);
	if (ret < 0) {
		/* The error's text: a new error_log entry, or the file's own display. */
		if (read_text(elp, after, logsize) > 0 && strcmp(before, after)) {
			char *last = after, *p = after;

			while ((p = strstr(p, "\n[")))
				last = ++p;
			text = last;
		} else {
			size_t pl = req->path_len;

			if (pl >= 6 && !strcmp(req->path + pl - 6, "filter") &&
			    read_text(req->path, after, logsize) > 0)
				text = after;
		}
	}
	sret = send_frame(cx->fd, req->op, 0,
			  (int)(ret < 0		? ret :
				ret > INT32_MAX ? INT32_MAX :
						  ret),
			  text, strlen(text), -1);
	free(before);
	free(after);
	return sret;
}

/*
 * During a stream: wait up to @timeout_ms for the client's STOP.
 * Return: 1 STOP came, 0 not yet, -errno (anything else: the connection ends).
 */
static int check_stop(struct conn_ctx *cx, int timeout_ms)
{
	struct ctl_req_hdr h;
	int ret = wait_readable(cx->fd, cx->stop_fd, timeout_ms);

	if (ret <= 0)
		return ret;
	ret = read_full(cx->fd, cx->stop_fd, &h, sizeof(h));
	if (ret)
		return ret;
	if (h.magic != CTL_MAGIC || h.op != CTL_OP_STOP || h.len)
		return -EPROTO;
	return 1;
}

/*
 * Is tracing off in the instance of the stream file @path ("trace_pipe",
 * "per_cpu/cpu0/trace_pipe_raw", "instances/NAME/...")? A blocking read of
 * trace_pipe gives end of file when it is and something was read (the
 * kernel's tracing_wait_pipe()); a stream reads without blocking, which
 * answers "nothing now" first, so do_read() asks here.
 */
static bool stream_tracing_off(const char *path)
{
	const char *end = NULL;
	char p[CTL_PATH_MAX + 16], v[4];
	ssize_t n;

	if (!strncmp(path, "instances/", 10))
		end = strchr(path + 10, '/');
	snprintf(p, sizeof(p), "%.*stracing_on", end ? (int)(end - path + 1) : 0, path);
	n = evt_tracefs_read(NULL, p, v, sizeof(v), 0);
	return n > 0 && v[0] == '0';
}

/*
 * READ (non-blocking, to the end of the file or @max bytes) and STREAM
 * (blocking, until the file ends, the client sends STOP or goes away).
 */
static int do_read(struct conn_ctx *cx, const struct ctl_request *req)
{
	bool stream = req->op == CTL_OP_STREAM;
	struct evt_tracefs_file *f;
	uint64_t total = 0, off = req->offset;
	int ret, status = 0;

	ret = evt_tracefs_open(NULL, req->path, EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK, &f);
	if (ret)
		return send_frame(cx->fd, req->op, 0, ret, NULL, 0, -1);
	for (;;) {
		size_t want = CTL_RESP_CHUNK;
		ssize_t n;

		if (!stream && req->max) {
			if (total >= req->max)
				break;
			if (req->max - total < want)
				want = (size_t)(req->max - total);
		}
		if (!stream && off)
			n = evt_tracefs_file_pread(f, cx->chunk, want, off);
		else
			n = evt_tracefs_file_read(f, cx->chunk, want);
		if (n > 0) {
			ret = send_frame(cx->fd, req->op, CTL_RF_MORE, 0, cx->chunk, (size_t)n, -1);
			if (ret)
				goto out;
			total += (uint64_t)n;
			if (off)
				off += (uint64_t)n;
			if (!stream)
				continue;
			/* A stream that never runs dry still hears STOP. */
			ret = check_stop(cx, 0);
			if (ret < 0)
				goto out;
			if (ret > 0)
				break;
			continue;
		}
		if (n == 0 || (n == -EAGAIN && !stream))
			break;
		if (n != -EAGAIN) {
			status = (int)n;
			break;
		}
		/* Stream, nothing now: the end if tracing is off and something went out */
		if (total && stream_tracing_off(req->path))
			break;
		/* else wait a little for records, or for the client */
		ret = check_stop(cx, 20);
		if (ret < 0)
			goto out;
		if (ret > 0)
			break;
	}
	ret = send_frame(cx->fd, req->op, 0,
			 status ? status : (int)(total > INT32_MAX ? INT32_MAX : total), NULL, 0,
			 -1);
out:
	evt_tracefs_close(f);
	return ret;
}

struct dir_fill {
	struct conn_ctx *cx;
	size_t len;
	int err;
};

static int fill_one(void *arg, const char *name, unsigned int mode)
{
	struct dir_fill *d = arg;
	size_t nl = strlen(name);
	uint16_t l16;

	if (nl > 255 || nl == 0)
		return 0;
	if (d->len + 6 + nl > CTL_RESP_CHUNK) {
		d->err = send_frame(d->cx->fd, CTL_OP_READDIR, CTL_RF_MORE, 0, d->cx->chunk, d->len,
				    -1);
		d->len = 0;
		if (d->err)
			return d->err;
	}
	l16 = (uint16_t)nl;
	memcpy(d->cx->chunk + d->len, &mode, 4);
	memcpy(d->cx->chunk + d->len + 4, &l16, 2);
	memcpy(d->cx->chunk + d->len + 6, name, nl);
	d->len += 6 + nl;
	return 0;
}

static int do_readdir(struct conn_ctx *cx, const struct ctl_request *req)
{
	struct dir_fill d = { .cx = cx };
	int ret = evt_tracefs_readdir(NULL, req->path, fill_one, &d);

	if (d.err)
		return d.err;
	return send_frame(cx->fd, req->op, 0, ret < 0 ? ret : 0, cx->chunk, ret < 0 ? 0 : d.len,
			  -1);
}

static int do_getbuf(struct conn_ctx *cx, const struct ctl_request *req)
{
	struct ctl_bufinfo info = { 0 };
	struct evt_instance *inst;
	struct evt_ring_buffer *rb;
	const char *clock;
	int fd, status = 0;

	if (req->path_len >= sizeof(ctl.consumer_inst[0]))
		return send_frame(cx->fd, req->op, 0, -ENAMETOOLONG, NULL, 0, -1);
	inst = req->path_len ? evt_instance_lookup(req->path) : evt_instance_top();
	rb = inst ? evt_instance_ring_buffer(inst) : NULL;
	if (!rb)
		return send_frame(cx->fd, req->op, 0, inst ? -ENOMEM : -ENOENT, NULL, 0, -1);
	fd = evt_ring_buffer_fd(rb);
	if (fd < 0)
		return send_frame(cx->fd, req->op, 0, fd, NULL, 0, -1);

	pthread_mutex_lock(&ctl.lock);
	if (ctl.conns[cx->slot].holds_buffer) {
		status = -EALREADY;
	} else {
		for (int i = 0; i < CTL_MAX_CONNS; i++)
			if (ctl.conns[i].fd >= 0 && ctl.conns[i].holds_buffer &&
			    !strcmp(ctl.consumer_inst[i], req->path))
				status = -EBUSY;
	}
	if (!status) {
		ctl.conns[cx->slot].holds_buffer = true;
		snprintf(ctl.consumer_inst[cx->slot], sizeof(ctl.consumer_inst[0]), "%s",
			 req->path);
		ctl.consumers++;
		ctl.consumer_seen = true;
		pthread_cond_broadcast(&ctl.cond);
	}
	pthread_mutex_unlock(&ctl.lock);
	if (status)
		return send_frame(cx->fd, req->op, 0, status, NULL, 0, -1);
	/* exit() must wait for this consumer before the program's destructors run */
	ctl_exit_hook();

	info.nr_cpus = (uint32_t)evt_ring_buffer_nr_cpus(rb);
	info.page_size = evt_ring_buffer_page_size(rb);
	info.size = evt_ring_buffer_size(rb, EVT_RB_ALL_CPUS);
	clock = evt_instance_clock(inst);
	snprintf(info.clock, sizeof(info.clock), "%s", clock ? clock : "local");
	return send_frame(cx->fd, req->op, 0, 0, &info, sizeof(info), fd);
}

static void release_buffer(int slot)
{
	pthread_mutex_lock(&ctl.lock);
	if (ctl.conns[slot].holds_buffer) {
		ctl.conns[slot].holds_buffer = false;
		ctl.consumer_inst[slot][0] = '\0';
		ctl.consumers--;
		pthread_cond_broadcast(&ctl.cond);
	}
	pthread_mutex_unlock(&ctl.lock);
}

static int do_request(struct conn_ctx *cx, const struct ctl_request *req)
{
	unsigned int mode = 0;
	int ret;

	switch (req->op) {
	case CTL_OP_READ:
	case CTL_OP_STREAM:
		return do_read(cx, req);
	case CTL_OP_WRITE:
		return do_write(cx, req);
	case CTL_OP_READDIR:
		return do_readdir(cx, req);
	case CTL_OP_STAT:
		ret = evt_tracefs_stat(NULL, req->path, &mode);
		return send_frame(cx->fd, req->op, 0, ret < 0 ? ret : 0, &mode,
				  ret < 0 ? 0 : sizeof(uint32_t), -1);
	case CTL_OP_MKDIR:
		return send_frame(cx->fd, req->op, 0, evt_tracefs_mkdir(NULL, req->path), NULL, 0,
				  -1);
	case CTL_OP_RMDIR:
		return send_frame(cx->fd, req->op, 0, evt_tracefs_rmdir(NULL, req->path), NULL, 0,
				  -1);
	case CTL_OP_GETBUF:
		return do_getbuf(cx, req);
	case CTL_OP_PUTBUF:
		release_buffer(cx->slot);
		return send_frame(cx->fd, req->op, 0, 0, NULL, 0, -1);
	case CTL_OP_PING: {
		struct ctl_ping ping = { 0 };

		pthread_mutex_lock(&ctl.lock);
		ping.exiting = ctl.exiting;
		ping.clients = (uint32_t)ctl.nr_conns;
		pthread_mutex_unlock(&ctl.lock);
		ping.events = (uint64_t)evt_event_count(NULL, NULL);
		ping.accept_errors = (uint32_t)ld_relaxed(&stat_accept_errors);
		ping.refused = (uint32_t)ld_relaxed(&stat_refused);
		ping.start_failures = (uint32_t)ld_relaxed(&stat_start_failures);
		ping.last_error = ld_relaxed(&stat_last_error);
		return send_frame(cx->fd, req->op, 0, 0, &ping, sizeof(ping), -1);
	}
	case CTL_OP_HOLD:
		pthread_mutex_lock(&ctl.lock);
		ret = hold_state();
		pthread_mutex_unlock(&ctl.lock);
		return send_frame(cx->fd, req->op, 0, ret, NULL, 0, -1);
	case CTL_OP_RELEASE:
		return send_frame(cx->fd, req->op, 0, hold_release(), NULL, 0, -1);
	case CTL_OP_STOP: /* no stream running: nothing to stop */
		return send_frame(cx->fd, req->op, 0, 0, NULL, 0, -1);
	default:
		return send_frame(cx->fd, req->op, 0, -EINVAL, NULL, 0, -1);
	}
}

/* The main thread's name now (it may have renamed itself) into @buf: 0, or -errno without /proc. */
static int read_comm(char *buf, size_t len)
{
	char p[64];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/comm", (int)getpid());
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * At start: the program's name, for a hello when /proc cannot be read. Not
 * the calling thread's name (the endpoint's own threads are "evtrace-ctl"):
 * the kernel's name of the program as it was exec'd, truncated as comm is.
 * Context: under ctl.lock.
 */
static void comm_at_start(void)
{
	if (read_comm(ctl.comm, sizeof(ctl.comm)) == 0 && ctl.comm[0])
		return;
	snprintf(ctl.comm, sizeof(ctl.comm), "%.15s", program_invocation_short_name);
}

static void hello_fill(struct ctl_hello *h)
{
	struct evt_instance *top = evt_instance_top();

	memset(h, 0, sizeof(*h));
	h->version = CTL_VERSION;
	h->pid = (uint32_t)getpid();
	h->uid = (uint32_t)geteuid();
	h->nr_cpus = top ? (uint32_t)evt_instance_nr_cpus(top) : 0;
	/* The main thread's name is the program's; this thread's is "evtrace-ctl". */
	if (read_comm(h->comm, sizeof(h->comm)) || !h->comm[0]) {
		pthread_mutex_lock(&ctl.lock);
		memcpy(h->comm, ctl.comm, sizeof(h->comm));
		pthread_mutex_unlock(&ctl.lock);
	}
	h->comm[sizeof(h->comm) - 1] = '\0';
}

static void *conn_main(void *arg)
{
	struct conn_ctx cx = *(struct conn_ctx *)arg;
	unsigned char *frame = NULL;
	struct ctl_hello hello;
	int ret;

	free(arg);
	ctl_own_thread = true;
	prctl(PR_SET_NAME, "evtrace-ctl", 0, 0, 0);
	cx.chunk = malloc(CTL_RESP_CHUNK);
	hello_fill(&hello);
	ret = cx.chunk ? send_frame(cx.fd, CTL_OP_HELLO, 0, 0, &hello, sizeof(hello), -1) : -ENOMEM;
	while (!ret) {
		struct ctl_request req;
		struct ctl_req_hdr h;
		unsigned char *nf;

		ret = read_full(cx.fd, cx.stop_fd, &h, sizeof(h));
		if (ret)
			break;
		if (h.magic != CTL_MAGIC || h.version != CTL_VERSION || h.len > CTL_REQ_MAX) {
			/* Cannot find the next frame: say why, then close. */
			send_frame(cx.fd, h.op, 0, h.len > CTL_REQ_MAX ? -EMSGSIZE : -EPROTO, NULL,
				   0, -1);
			break;
		}
		/* header + payload + one byte for the parser's NUL */
		nf = realloc(frame, sizeof(h) + h.len + 1);
		if (!nf) {
			send_frame(cx.fd, h.op, 0, -ENOMEM, NULL, 0, -1);
			break;
		}
		frame = nf;
		memcpy(frame, &h, sizeof(h));
		ret = read_full(cx.fd, cx.stop_fd, frame + sizeof(h), h.len);
		if (ret)
			break;
		ret = ctl_parse_request(frame, sizeof(h) + h.len, &req);
		if (ret) {
			ret = send_frame(cx.fd, h.op, 0, ret, NULL, 0, -1);
			continue;
		}
		ret = do_request(&cx, &req);
	}
	free(frame);
	free(cx.chunk);
	release_buffer(cx.slot);
	pthread_mutex_lock(&ctl.lock);
	close(cx.fd);
	ctl.conns[cx.slot].fd = -1;
	ctl.nr_conns--;
	pthread_cond_broadcast(&ctl.cond);
	pthread_mutex_unlock(&ctl.lock);
	return NULL;
}

/* Start @fn on a detached (or joinable) thread with every signal blocked. */
static int start_thread(pthread_t *tid, void *(*fn)(void *), void *arg, bool detached)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int ret;

	sigfillset(&all);
	pthread_attr_init(&attr);
	if (detached)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(tid ? tid : &t, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -ret;
}

/* Is the peer on @fd the owner or root? */
static bool peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || len != sizeof(cred))
		return false;
	return cred.uid == 0 || cred.uid == geteuid();
}

static void refuse(int fd, int status)
{
	struct timeval tv = { .tv_sec = 1 };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	send_frame(fd, CTL_OP_HELLO, 0, status, NULL, 0, -1);
	close(fd);
}

#define CTL_ACCEPT_BACKOFF_MS 100 /* wait after running out of descriptors or memory */

/*
 * accept() failed with @err. Out of descriptors or memory (EMFILE, ENFILE,
 * ENOBUFS, ENOMEM), the connection waits in the queue and the socket stays
 * readable: trying again at once would spin. Wait a little, as servers do,
 * listening only for stop. Say it once on stderr; count every one.
 * Return: -ESHUTDOWN when stopping, else 0.
 */
static int accept_backoff(int stop_fd, int err)
{
	static int warned;

	if (err == -EINTR || err == -EAGAIN || err == -ECONNABORTED)
		return 0;
	add_relaxed(&stat_accept_errors, 1);
	st_relaxed(&stat_last_error, err);
	if (err != -EMFILE && err != -ENFILE && err != -ENOBUFS && err != -ENOMEM)
		return 0;
	/* Once flag: orders nothing else. */
	if (!xchg_acq_rel(&warned, 1))
		fprintf(stderr,
			"evtrace: control endpoint of process %d: accept: %s: waiting %d ms "
			"between tries (counted in evtrace stat)\n",
			(int)getpid(), strerror(-err), CTL_ACCEPT_BACKOFF_MS);
	return wait_readable(stop_fd, -1, CTL_ACCEPT_BACKOFF_MS) > 0 ? -ESHUTDOWN : 0;
}

static void *accept_main(void *arg)
{
	int lfd, sfd;

	(void)arg;
	ctl_own_thread = true;
	prctl(PR_SET_NAME, "evtrace-ctl", 0, 0, 0);
	pthread_mutex_lock(&ctl.lock);
	lfd = ctl.listen_fd;
	sfd = ctl.stop_fd;
	pthread_mutex_unlock(&ctl.lock);
	for (;;) {
		struct conn_ctx *cx;
		int w = wait_readable(lfd, sfd, -1), fd, slot = -1;

		if (w < 0 && w != -EINTR)
			break;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (accept_backoff(sfd, -errno) == -ESHUTDOWN)
				break;
			continue;
		}
		if (!peer_allowed(fd)) {
			add_relaxed(&stat_refused, 1);
			refuse(fd, -EACCES);
			continue;
		}
		cx = malloc(sizeof(*cx));
		pthread_mutex_lock(&ctl.lock);
		for (int i = 0; i < CTL_MAX_CONNS && cx; i++)
			if (ctl.conns[i].fd < 0) {
				slot = i;
				break;
			}
		if (slot >= 0) {
			ctl.conns[slot].fd = fd;
			ctl.conns[slot].holds_buffer = false;
			ctl.nr_conns++;
			*cx = (struct conn_ctx){ .slot = slot, .fd = fd, .stop_fd = sfd };
			if (start_thread(NULL, conn_main, cx, true)) {
				ctl.conns[slot].fd = -1;
				ctl.nr_conns--;
				slot = -1;
			}
		}
		pthread_mutex_unlock(&ctl.lock);
		if (slot < 0) {
			free(cx);
			refuse(fd, -EBUSY);
		}
	}
	return NULL;
}

/* --- start, stop -------------------------------------------------------------------- */

/* Remove, through the directory's descriptor, the sockets of processes that are gone (and an old one of our pid). */
static void remove_stale(int dfd)
{
	struct dirent *de;
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (end == de->d_name || strcmp(end, ".sock") || pid <= 0)
			continue;
		if (pid != getpid() && (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		unlinkat(dfd, de->d_name, 0);
	}
	closedir(d);
}

/* Our socket's name gone from its directory. Context: under ctl.lock. */
static void unlink_socket(void)
{
	if (ctl.path[0] && ctl.dir_fd >= 0)
		unlinkat(ctl.dir_fd, ctl.name, 0);
	ctl.path[0] = '\0';
}

static double exit_wait_seconds(void)
{
	const char *s = secure_getenv("EVTRACE_CONTROL_EXIT_WAIT");
	char *end;
	double v;

	if (!s || !*s)
		return CTL_EXIT_WAIT_DEFAULT;
	v = strtod(s, &end);
	if (*end || v < 0 || v > 3600)
		return CTL_EXIT_WAIT_DEFAULT;
	return v;
}

/*
 * At exit: while a consumer holds a buffer, give it time to drain what is
 * left and fetch the names it needs (PING says "exiting"); then remove the
 * socket. With EVTRACE_CONTROL_AWAIT=<our pid> (evtrace record sets it for
 * the program it starts) a program that ends before its consumer came
 * waits for it to come, too. The connection threads are not joined: exit() ends them.
 *
 * When it runs matters: before the program's destructors, which unregister
 * its events (the consumer wants their formats). A handler registered in
 * libevtrace's constructor runs after them (the dynamic linker registers
 * its _dl_fini, which runs the destructors, after our constructor ran), so
 * the handler is registered again at later points (ctl_exit_hook()): the
 * latest registration runs first, the others find the work done.
 */
static void ctl_atexit(void)
{
	const char *aw = secure_getenv("EVTRACE_CONTROL_AWAIT");
	/* our pid: the children of the command evtrace started inherit it and do not wait */
	bool await = aw && strtol(aw, NULL, 10) == (long)getpid();
	struct timespec until;
	double wait;

	pthread_mutex_lock(&ctl.lock);
	if (!ctl.running || ctl.exiting) { /* registered more than once: the first run did it */
		pthread_mutex_unlock(&ctl.lock);
		return;
	}
	ctl.exiting = true;
	hold_release();
	wait = exit_wait_seconds();
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)wait;
	until.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (ctl.consumers > 0 || (await && !ctl.consumer_seen))
		if (pthread_cond_timedwait(&ctl.cond, &ctl.lock, &until) == ETIMEDOUT)
			break;
	unlink_socket();
	pthread_mutex_unlock(&ctl.lock);
}

/*
 * (Re-)register ctl_atexit(): at start, from the event layer's init (the
 * program's constructors, after the dynamic linker's exit handler), when a
 * client connects and when a consumer takes a buffer. At most a few times.
 * Context: any thread; not under ctl.lock.
 */
static void ctl_exit_hook(void)
{
	static int registered; /* under ctl.lock */
	bool reg = false;

	pthread_mutex_lock(&ctl.lock);
	if (registered < 8) {
		registered++;
		reg = true;
	}
	pthread_mutex_unlock(&ctl.lock);
	if (reg)
		atexit(ctl_atexit);
}

/* In a child of fork(): none of the threads came along; forget the endpoint. */
static void ctl_atfork_child(void)
{
	pthread_mutex_init(&ctl.lock, NULL);
	pthread_cond_init(&ctl.cond, NULL);
	if (ctl.listen_fd >= 0)
		close(ctl.listen_fd);
	if (ctl.stop_fd >= 0)
		close(ctl.stop_fd);
	if (ctl.dir_fd >= 0)
		close(ctl.dir_fd);
	ctl.dir_fd = -1;
	for (int i = 0; i < CTL_MAX_CONNS; i++)
		if (ctl.conns[i].fd >= 0) {
			close(ctl.conns[i].fd);
			ctl.conns[i].fd = -1;
		}
	ctl.listen_fd = ctl.stop_fd = -1;
	ctl.running = ctl.exiting = false;
	ctl.nr_conns = ctl.consumers = 0;
	/* no endpoint here to release a hold: the child never parks */
	st_relaxed(&event_hold_armed, 0);
	st_relaxed(&hold_go, 1);
	hold_parked = 0;
	ctl.path[0] = '\0';
}

static void ctl_atfork_prepare(void)
{
	pthread_mutex_lock(&ctl.lock);
}

static void ctl_atfork_parent(void)
{
	pthread_mutex_unlock(&ctl.lock);
}

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void install_hooks(void)
{
	for (int i = 0; i < CTL_MAX_CONNS; i++)
		ctl.conns[i].fd = -1;
	pthread_atfork(ctl_atfork_prepare, ctl_atfork_parent, ctl_atfork_child);
}

/*
 * Bind and listen on <socket dir>/<pid>.sock, the directory open at @dfd;
 * @path: its full name (sun_path). The socket must land in that directory
 * (checked through @dfd after bind: a path that resolved elsewhere fails).
 * Return: the listening socket or -errno, with the reason in @why.
 */
static int bind_socket(int dfd, const char *name, const char *path, char *why, size_t whylen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int lfd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		ret = -errno;
		snprintf(why, whylen, "socket: %s", strerror(-ret));
		return ret;
	}
	unlinkat(dfd, name, 0);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		snprintf(why, whylen, "%s: bind: %s", path, strerror(-ret));
		close(lfd);
		return ret;
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode) ||
	    fchmodat(dfd, name, 0600, 0) < 0 || listen(lfd, 16) < 0) {
		ret = errno ? -errno : -EPERM;
		snprintf(why, whylen, "%s: %s", path, strerror(-ret));
		unlinkat(dfd, name, 0);
		close(lfd);
		return ret;
	}
	return lfd;
}

static int control_start(unsigned int flags, char *why, size_t whylen)
{
	char dir[sizeof(ctl.path) - 16], path[sizeof(ctl.path)], name[sizeof(ctl.name)];
	int ret, lfd = -1, sfd = -1, dfd = -1;

	why[0] = '\0';
	if (flags)
		return -EINVAL;
	pthread_once(&hooks_once, install_hooks);
	ctl_exit_hook();
	pthread_mutex_lock(&ctl.lock);
	if (ctl.running) {
		pthread_mutex_unlock(&ctl.lock);
		return 0;
	}
	ret = ctl_socket_dir(dir, sizeof(dir));
	if (ret) {
		snprintf(why, whylen, "socket directory: %s", strerror(-ret));
		goto fail;
	}
	/* opened once, checked (ours, nobody else can write to it), never chmod'ed */
	dfd = secdir_make(dir, NULL, why, whylen);
	if (dfd < 0) {
		ret = dfd;
		goto fail;
	}
	remove_stale(dfd);
	snprintf(name, sizeof(name), "%d.sock", (int)getpid());
	if ((size_t)snprintf(path, sizeof(path), "%s/%.23s", dir, name) >= sizeof(path)) {
		ret = -ENAMETOOLONG;
		snprintf(why, whylen, "%s/%s: too long for a socket address", dir, name);
		goto fail;
	}
	sfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sfd < 0) {
		ret = -errno;
		snprintf(why, whylen, "eventfd: %s", strerror(-ret));
		goto fail;
	}
	lfd = bind_socket(dfd, name, path, why, whylen);
	if (lfd < 0) {
		ret = lfd;
		goto fail;
	}
	memcpy(ctl.path, path, sizeof(ctl.path));
	memcpy(ctl.name, name, sizeof(ctl.name));
	comm_at_start();
	ctl.dir_fd = dfd;
	ctl.listen_fd = lfd;
	ctl.stop_fd = sfd;
	ctl.exiting = false;
	ret = start_thread(&ctl.acceptor, accept_main, NULL, false);
	if (ret) {
		snprintf(why, whylen, "a thread: %s", strerror(-ret));
		unlink_socket();
		ctl.listen_fd = ctl.stop_fd = ctl.dir_fd = -1;
		goto fail;
	}
	ctl.running = true;
	pthread_mutex_unlock(&ctl.lock);
	return 0;
fail:
	add_relaxed(&stat_start_failures, 1);
	st_relaxed(&stat_last_error, ret);
	pthread_mutex_unlock(&ctl.lock);
	if (lfd >= 0)
		close(lfd);
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

static int control_stop(void)
{
	pthread_t acceptor;
	uint64_t one = 1;

	pthread_once(&hooks_once, install_hooks);
	pthread_mutex_lock(&ctl.lock);
	if (!ctl.running) {
		pthread_mutex_unlock(&ctl.lock);
		return -ENOENT;
	}
	if (ctl.acceptor == pthread_self()) {
		pthread_mutex_unlock(&ctl.lock);
		return -EDEADLK;
	}
	ctl.running = false;
	acceptor = ctl.acceptor;
	unlink_socket();
	/* The stop eventfd wakes every poll of the acceptor and the connections. */
	if (write(ctl.stop_fd, &one, sizeof(one)) < 0) {
		/* cannot fail on a fresh eventfd; shut the sockets down anyway */
	}
	for (int i = 0; i < CTL_MAX_CONNS; i++)
		if (ctl.conns[i].fd >= 0)
			shutdown(ctl.conns[i].fd, SHUT_RDWR);
	pthread_mutex_unlock(&ctl.lock);

	pthread_join(acceptor, NULL);
	pthread_mutex_lock(&ctl.lock);
	while (ctl.nr_conns > 0)
		pthread_cond_wait(&ctl.cond, &ctl.lock);
	close(ctl.listen_fd);
	close(ctl.stop_fd);
	close(ctl.dir_fd);
	ctl.listen_fd = ctl.stop_fd = ctl.dir_fd = -1;
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

/* The library's int functions never leave errno changed: the system calls above would. */
int evt_control_start(unsigned int flags)
{
	char why[SECDIR_WHY_MAX + 64];
	int saved = errno, ret = control_start(flags, why, sizeof(why));

	errno = saved;
	return ret;
}

int evt_control_stop(void)
{
	int saved = errno, ret = control_stop();

	errno = saved;
	return ret;
}

int evt_control_path(char *buf, size_t len)
{
	size_t n;
	int ret = 0;

	if (!buf || !len)
		return -EINVAL;
	pthread_mutex_lock(&ctl.lock);
	n = strlen(ctl.path);
	if (!ctl.running)
		ret = -ENOENT;
	else if (n >= len)
		ret = -ERANGE;
	else
		memcpy(buf, ctl.path, n + 1);
	pthread_mutex_unlock(&ctl.lock);
	return ret;
}

/* --- start from the environment ------------------------------------------------------ */

/*
 * Started by a program of a record's command tree (EVTRACE_CONTROL_HOLD=all)
 * after that record ended: the session directory the recorder made for it
 * is gone. Nobody will connect there or release a hold.
 */
static bool record_session_ended(void)
{
	const char *hold = secure_getenv("EVTRACE_CONTROL_HOLD");
	const char *dir = secure_getenv("EVTRACE_CONTROL_DIR");
	int saved_errno = errno;
	struct stat st;
	bool gone;

	if (!hold || strcmp(hold, "all") || !dir || !dir[0])
		return false;
	gone = stat(dir, &st) < 0 && errno == ENOENT;
	errno = saved_errno; /* the program's, before its main() */
	return gone;
}

void ctl_start_from_env(void)
{
	const char *s = secure_getenv("EVTRACE_CONTROL");
	char why[SECDIR_WHY_MAX + 64];
	int saved, ret;

	/* a record's session that ended: no endpoint, no hold (as if started alone) */
	if (!s || strcmp(s, "1") || record_session_ended())
		return;
	/*
	 * Armed before the socket listens: a recorder that connects the moment
	 * the socket appears (evtrace record watches the directory) must never
	 * be told "no hold" (HOLD 0) by a program that is about to park, or it
	 * would set up before the program's events are registered.
	 */
	hold_arm_from_env();
	saved = errno;
	ret = control_start(0, why, sizeof(why));
	if (ret) {
		static int warned;

		hold_release(); /* no endpoint: nobody could release it */
		/* Once flag: one message per program (counted every time); orders nothing. */
		if (!xchg_acq_rel(&warned, 1))
			fprintf(stderr,
				"evtrace: EVTRACE_CONTROL=1 but process %d serves no control socket: "
				"%s%s%s (evt_control_stats(3))\n",
				(int)getpid(), why, why[0] ? ": " : "", strerror(-ret));
	}
	errno = saved; /* the program's, before its main() */
}

int evt_control_stats(struct evt_control_stats *st)
{
	if (!st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->start_failures = ld_relaxed(&stat_start_failures);
	st->accept_errors = ld_relaxed(&stat_accept_errors);
	st->refused = ld_relaxed(&stat_refused);
	st->last_error = ld_relaxed(&stat_last_error);
	return 0;
}
