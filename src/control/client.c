// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client.c - the client side of the control socket (control/ctl_client.h),
 * for the evtrace command. Everything the server sends is checked: frame
 * magic, op, lengths (CTL_RESP_MAX), the descriptor count. Before anything is
 * sent, the server is checked too: its directory (compat/secdir.h: ours, nobody
 * else can write to it) and its identity (SO_PEERCRED: our effective uid).
 * Every wait for the server has a timeout (EVTRACE_CONTROL_TIMEOUT seconds,
 * default 30), but a stream's wait for its next chunk.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/ctl_client.h"
#include "compat/secdir.h"
#include "control/ctl_proto.h"

/* A whole file read through the socket is at most this big. */
#define CTL_CLIENT_READ_MAX (256u << 20)
#define CTL_CLIENT_TIMEOUT_DEFAULT 30 /* seconds without an answer before -ETIMEDOUT */

/*
 * Why the last connect or request of this thread was refused or failed ("" if
 * no reason). Per thread, but not in TLS: a 320-byte thread-local array would
 * take the library's static TLS past its budget and keep it from being
 * dlopen()ed (README, "Loading the library with dlopen()"; compile/tls-budget).
 * The buffer is allocated at a thread's first use, freed at its exit.
 */
#define LAST_WHY_SIZE (SECDIR_WHY_MAX + 128)

static pthread_key_t why_key;
static pthread_once_t why_once = PTHREAD_ONCE_INIT;
static bool why_key_ok;

static void why_key_init(void)
{
	why_key_ok = pthread_key_create(&why_key, free) == 0;
}

static char *why_buf(void)
{
	/* without memory: one shared buffer (a reason may be another thread's) */
	static char fallback[LAST_WHY_SIZE];
	char *b;

	pthread_once(&why_once, why_key_init);
	if (!why_key_ok)
		return fallback;
	b = pthread_getspecific(why_key);
	if (!b) {
		b = calloc(1, LAST_WHY_SIZE);
		if (!b || pthread_setspecific(why_key, b)) {
			free(b);
			return fallback;
		}
	}
	return b;
}

const char *ctl_last_why(void)
{
	return why_buf();
}

struct ctl_client {
	int fd;
	int timeout_ms; /* -1: none */
	bool broken; /* a transport or protocol error: only close remains */
	bool streaming;
	bool stream_done; /* the stream's last frame came */
	struct ctl_info info;
	unsigned char *pend; /* stream bytes received, not yet returned */
	size_t pend_len, pend_off;
	int stream_status;
};

/* Wait up to the client's timeout for @c to be readable: 0, or -ETIMEDOUT (the connection is broken). */
static int wait_answer(struct ctl_client *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int n;

	if (c->timeout_ms < 0)
		return 0;
	do
		n = poll(&p, 1, c->timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		return 0;
	if (n < 0)
		return -errno;
	c->broken = true;
	if (c->info.pid)
		snprintf(why_buf(), LAST_WHY_SIZE,
			 "process %d: no answer in %d s (EVTRACE_CONTROL_TIMEOUT)",
			 (int)c->info.pid, c->timeout_ms / 1000);
	else
		snprintf(why_buf(), LAST_WHY_SIZE,
			 "the server sent no hello in %d s (EVTRACE_CONTROL_TIMEOUT)",
			 c->timeout_ms / 1000);
	return -ETIMEDOUT;
}

/* @idle_ok: the first byte may take any time (a stream's next chunk). */
static int recv_full(struct ctl_client *c, void *buf, size_t len, int *fdp, bool idle_ok)
{
	unsigned char *p = buf;

	while (len) {
		char cbuf[CMSG_SPACE(sizeof(int) * 4)];
		struct iovec iov = { .iov_base = p, .iov_len = len };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (!idle_ok || p != buf) {
			int ret = wait_answer(c);

			if (ret)
				return ret;
		}

		if (fdp) {
			msg.msg_control = cbuf;
			msg.msg_controllen = sizeof(cbuf);
		}
		n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			c->broken = true;
			return -errno;
		}
		if (n == 0) {
			c->broken = true;
			return -ECONNRESET;
		}
		if (fdp) {
			for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm;
			     cm = CMSG_NXTHDR(&msg, cm)) {
				size_t nfd;

				if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
					continue;
				nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				for (size_t i = 0; i < nfd; i++) {
					int fd;

					memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
					if (*fdp < 0)
						*fdp = fd;
					else
						close(fd); /* more than we asked for */
				}
			}
			if (msg.msg_flags & MSG_CTRUNC) {
				c->broken = true;
				return -EPROTO;
			}
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_all(struct ctl_client *c, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			c->broken = true;
			/* SO_SNDTIMEO: the server reads nothing */
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				snprintf(why_buf(), LAST_WHY_SIZE,
					 "process %d: takes no request in %d s "
					 "(EVTRACE_CONTROL_TIMEOUT)",
					 (int)c->info.pid, c->timeout_ms / 1000);
				return -ETIMEDOUT;
			}
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One request: header, then the payload parts. */
static int send_req(struct ctl_client *c, unsigned int op, const void *a, size_t alen,
		    const void *b, size_t blen, const void *d, size_t dlen)
{
	struct ctl_req_hdr h = { .magic = CTL_MAGIC, .op = (uint16_t)op, .version = CTL_VERSION };
	int ret;

	if (c->broken)
		return -ECONNRESET;
	if (c->streaming)
		return -EBUSY;
	if (alen + blen + dlen > CTL_REQ_MAX)
		return -EMSGSIZE;
	h.len = (uint32_t)(alen + blen + dlen);
	ret = send_all(c, &h, sizeof(h));
	if (!ret && alen)
		ret = send_all(c, a, alen);
	if (!ret && blen)
		ret = send_all(c, b, blen);
	if (!ret && dlen)
		ret = send_all(c, d, dlen);
	return ret;
}

/*
 * One response frame of @op: its header into *@h, its payload (malloc'd,
 * NUL-terminated) into *@data. @fdp: where a passed descriptor goes.
 */
static int recv_frame_idle(struct ctl_client *c, unsigned int op, struct ctl_resp_hdr *h,
			   unsigned char **data, int *fdp, bool idle_ok)
{
	unsigned char *p;
	int ret;

	*data = NULL;
	ret = recv_full(c, h, sizeof(*h), fdp, idle_ok);
	if (ret)
		return ret;
	if (h->magic != CTL_MAGIC || h->op != op || h->len > CTL_RESP_MAX ||
	    ((h->flags & CTL_RF_MORE) && h->status < 0)) {
		c->broken = true;
		return -EPROTO;
	}
	p = malloc((size_t)h->len + 1);
	if (!p) {
		c->broken = true;
		return -ENOMEM;
	}
	ret = recv_full(c, p, h->len, NULL, false);
	if (ret) {
		free(p);
		return ret;
	}
	p[h->len] = '\0';
	*data = p;
	return 0;
}

static int recv_frame(struct ctl_client *c, unsigned int op, struct ctl_resp_hdr *h,
		      unsigned char **data, int *fdp)
{
	return recv_frame_idle(c, op, h, data, fdp, false);
}

/* --- connect ----------------------------------------------------------------------- */

/* EVTRACE_CONTROL_TIMEOUT in ms (default 10 s; 0: none, -1 returned). */
static int client_timeout_ms(void)
{
	const char *s = secure_getenv("EVTRACE_CONTROL_TIMEOUT");
	char *end;
	double v;

	if (!s || !*s)
		return CTL_CLIENT_TIMEOUT_DEFAULT * 1000;
	v = strtod(s, &end);
	if (*end || !(v >= 0) || v > 3600)
		return CTL_CLIENT_TIMEOUT_DEFAULT * 1000;
	return v == 0 ? -1 : v < 0.001 ? 1 : (int)(v * 1000);
}

/* The directory of socket @path is ours and nobody else can write to it (compat/secdir.h). */
static int check_socket_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *slash = strrchr(path, '/');
	size_t n;
	int fd;

	if (path[0] != '/' || !slash) {
		snprintf(why_buf(), LAST_WHY_SIZE, "%s: not an absolute path", path);
		return -EINVAL;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	memcpy(dir, path, n);
	dir[n] = '\0';
	fd = secdir_open(dir, why_buf(), LAST_WHY_SIZE);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* The peer on @fd is a process of our effective user (SO_PEERCRED). */
static int check_peer(int fd, const char *path)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (len != sizeof(cred) || cred.uid != geteuid()) {
		snprintf(why_buf(), LAST_WHY_SIZE,
			 "%s: served by process %d of uid %u, not by you: refused", path,
			 (int)cred.pid, (unsigned int)cred.uid);
		return -EPERM;
	}
	return 0;
}

/* socket(), connect() within the timeout, the server checked. */
static int connect_checked(struct ctl_client *c, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int ret;

	memcpy(sa.sun_path, path, strlen(path) + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	if (c->timeout_ms >= 0) {
		/* connect() waits for room in the server's queue, send() for room in its buffer */
		struct timeval tv = { .tv_sec = c->timeout_ms / 1000,
				      .tv_usec = (c->timeout_ms % 1000) * 1000 };

		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		if (ret == -EAGAIN || ret == -EWOULDBLOCK || ret == -EINPROGRESS) {
			snprintf(why_buf(), LAST_WHY_SIZE,
				 "%s: connect: the server accepts nothing in %d s "
				 "(EVTRACE_CONTROL_TIMEOUT)",
				 path, c->timeout_ms / 1000);
			ret = -ETIMEDOUT;
		}
		return ret;
	}
	return check_peer(c->fd, path);
}

int ctl_connect_path(const char *path, struct ctl_client **cp)
{
	struct ctl_resp_hdr h;
	struct ctl_hello hello;
	struct ctl_client *c;
	unsigned char *data;
	int ret;

	why_buf()[0] = '\0';
	if (!path || !cp)
		return -EINVAL;
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	ret = check_socket_dir(path);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = -1;
	c->timeout_ms = client_timeout_ms();
	ret = connect_checked(c, path);
	if (ret)
		goto fail;
	ret = recv_frame(c, CTL_OP_HELLO, &h, &data, NULL);
	if (ret)
		goto fail;
	if (h.status < 0 || h.len != sizeof(hello)) {
		ret = h.status < 0 ? h.status : -EPROTO;
		free(data);
		goto fail;
	}
	memcpy(&hello, data, sizeof(hello));
	free(data);
	if (hello.version != CTL_VERSION) {
		ret = -EPROTO;
		goto fail;
	}
	c->info.pid = (pid_t)hello.pid;
	c->info.uid = (uid_t)hello.uid;
	c->info.nr_cpus = hello.nr_cpus;
	memcpy(c->info.comm, hello.comm, sizeof(c->info.comm));
	c->info.comm[sizeof(c->info.comm) - 1] = '\0';
	*cp = c;
	return 0;
fail:
	if (ret == -ETIMEDOUT && !strstr(why_buf(), path)) {
		char w[LAST_WHY_SIZE];
		size_t pl = strlen(path);

		/* "PATH: why", cut to fit */
		memcpy(w, path, pl);
		memcpy(w + pl, ": ", 2);
		snprintf(w + pl + 2, sizeof(w) - pl - 2, "%.*s", (int)(sizeof(w) - pl - 3),
			 why_buf());
		memcpy(why_buf(), w, sizeof(w));
	}
	if (c->fd >= 0)
		close(c->fd);
	free(c);
	return ret;
}

int ctl_session_path(pid_t pid, char *buf, size_t len)
{
	char dir[256], sock[32];
	struct dirent *de;
	int ret = -ENOENT, dfd, fd;
	DIR *d;

	if (ctl_socket_dir(dir, sizeof(dir)))
		return -ENOENT;
	/* the socket directory, checked, then its record-* through it */
	dfd = secdir_open(dir, NULL, 0);
	if (dfd < 0)
		return -ENOENT;
	fd = dup(dfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		close(dfd);
		return -ENOENT;
	}
	snprintf(sock, sizeof(sock), "%d.sock", (int)pid);
	while (ret && (de = readdir(d))) {
		struct stat st;
		int n, sfd;

		if (strncmp(de->d_name, "record-", 7))
			continue;
		sfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd < 0)
			continue;
		n = snprintf(buf, len, "%s/%s/%s", dir, de->d_name, sock);
		if (n > 0 && (size_t)n < len && secdir_check_fd(sfd, NULL, 0) == 0 &&
		    fstatat(sfd, sock, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode))
			ret = 0;
		close(sfd);
	}
	closedir(d);
	close(dfd);
	return ret;
}

int ctl_connect_pid(pid_t pid, struct ctl_client **cp)
{
	char path[256];
	int ret = ctl_socket_path(pid, path, sizeof(path));

	if (ret)
		return ret;
	ret = ctl_connect_path(path, cp);
	/* a process of a command `evtrace record` runs: in the record's directory */
	if (ret == -ENOENT && !ctl_session_path(pid, path, sizeof(path)))
		ret = ctl_connect_path(path, cp);
	return ret;
}

void ctl_close(struct ctl_client *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c->pend);
	free(c);
}

const struct ctl_info *ctl_client_info(const struct ctl_client *c)
{
	return &c->info;
}

int ctl_client_fd(const struct ctl_client *c)
{
	return c->fd;
}

/* --- requests ------------------------------------------------------------------------ */

/*
 * Collect the frames of one answer: data of every frame appended to
 * *@bufp (if @bufp; else dropped), the last frame's status returned.
 */
static long long collect(struct ctl_client *c, unsigned int op, char **bufp, size_t *lenp, int *fdp)
{
	char *buf = NULL;
	size_t len = 0;

	for (;;) {
		struct ctl_resp_hdr h;
		unsigned char *data;
		int ret = recv_frame(c, op, &h, &data, fdp);

		if (ret) {
			free(buf);
			return ret;
		}
		if (bufp && h.len) {
			char *nb;

			if (len + h.len > CTL_CLIENT_READ_MAX ||
			    !(nb = realloc(buf, len + h.len + 1))) {
				free(data);
				free(buf);
				/* the rest of the answer is still coming: unusable */
				c->broken = true;
				return -EFBIG;
			}
			buf = nb;
			memcpy(buf + len, data, h.len);
			len += h.len;
			buf[len] = '\0';
		}
		free(data);
		if (!(h.flags & CTL_RF_MORE)) {
			if (bufp) {
				if (!buf)
					buf = calloc(1, 1);
				if (!buf)
					return -ENOMEM;
				*bufp = buf;
				if (lenp)
					*lenp = len;
			}
			return h.status;
		}
	}
}

ssize_t ctl_pread(struct ctl_client *c, const char *path, uint64_t offset, uint64_t max,
		  char **bufp)
{
	uint64_t hdr[2] = { offset, max };
	size_t len = 0;
	long long ret;
	char *buf = NULL;

	if (!c || !path || !bufp)
		return -EINVAL;
	ret = send_req(c, CTL_OP_READ, hdr, sizeof(hdr), path, strlen(path), NULL, 0);
	if (ret)
		return ret;
	ret = collect(c, CTL_OP_READ, &buf, &len, NULL);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*bufp = buf;
	return (ssize_t)len;
}

ssize_t ctl_read(struct ctl_client *c, const char *path, char **bufp)
{
	return ctl_pread(c, path, 0, 0, bufp);
}

ssize_t ctl_write(struct ctl_client *c, const char *path, const void *data, size_t len,
		  unsigned int flags, char *err, size_t errlen)
{
	uint32_t hdr[2];
	char *text = NULL;
	long long ret;

	if (err && errlen)
		err[0] = '\0';
	if (!c || !path || (!data && len) || (flags & ~CTL_WF_MASK))
		return -EINVAL;
	if (len > CTL_DATA_MAX || strlen(path) > CTL_PATH_MAX)
		return -EMSGSIZE;
	hdr[0] = flags;
	hdr[1] = (uint32_t)strlen(path);
	ret = send_req(c, CTL_OP_WRITE, hdr, sizeof(hdr), path, hdr[1], data, len);
	if (ret)
		return ret;
	ret = collect(c, CTL_OP_WRITE, &text, NULL, NULL);
	if (text && err && errlen)
		snprintf(err, errlen, "%s", text);
	free(text);
	return (ssize_t)ret;
}

static int simple(struct ctl_client *c, unsigned int op, const char *path, void *out, size_t outlen)
{
	size_t len = 0;
	long long ret;
	char *buf = NULL;

	if (!c || !path)
		return -EINVAL;
	ret = send_req(c, op, path, strlen(path), NULL, 0, NULL, 0);
	if (ret)
		return (int)ret;
	ret = collect(c, op, &buf, &len, NULL);
	if (ret >= 0 && out) {
		if (len != outlen)
			ret = -EPROTO;
		else
			memcpy(out, buf, outlen);
	}
	free(buf);
	return (int)ret;
}

int ctl_stat(struct ctl_client *c, const char *path, unsigned int *mode)
{
	uint32_t m = 0;
	int ret = simple(c, CTL_OP_STAT, path, &m, sizeof(m));

	if (!ret && mode)
		*mode = m;
	return ret;
}

int ctl_mkdir(struct ctl_client *c, const char *path)
{
	return simple(c, CTL_OP_MKDIR, path, NULL, 0);
}

int ctl_rmdir(struct ctl_client *c, const char *path)
{
	return simple(c, CTL_OP_RMDIR, path, NULL, 0);
}

int ctl_ping(struct ctl_client *c, struct ctl_ping *ping)
{
	struct ctl_ping p;
	size_t len = 0;
	long long ret;
	char *buf = NULL;

	if (!c)
		return -EINVAL;
	ret = send_req(c, CTL_OP_PING, NULL, 0, NULL, 0, NULL, 0);
	if (ret)
		return (int)ret;
	ret = collect(c, CTL_OP_PING, &buf, &len, NULL);
	if (ret >= 0 && len != sizeof(p))
		ret = -EPROTO;
	if (ret >= 0 && ping)
		memcpy(ping, buf, sizeof(p));
	free(buf);
	return ret < 0 ? (int)ret : 0;
}

/* A request without payload whose answer is its status. */
static int status_req(struct ctl_client *c, unsigned int op)
{
	size_t len = 0;
	long long ret;
	char *buf = NULL;

	if (!c)
		return -EINVAL;
	ret = send_req(c, op, NULL, 0, NULL, 0, NULL, 0);
	if (ret)
		return (int)ret;
	ret = collect(c, op, &buf, &len, NULL);
	free(buf);
	return ret < 0 ? (int)ret : ret > INT32_MAX ? INT32_MAX : (int)ret;
}

int ctl_hold_state(struct ctl_client *c)
{
	return status_req(c, CTL_OP_HOLD);
}

int ctl_release(struct ctl_client *c)
{
	return status_req(c, CTL_OP_RELEASE);
}

int ctl_readdir(struct ctl_client *c, const char *path, ctl_filldir_t fill, void *arg)
{
	size_t len = 0, pos = 0;
	long long ret;
	char *buf = NULL;

	if (!c || !path || !fill)
		return -EINVAL;
	ret = send_req(c, CTL_OP_READDIR, path, strlen(path), NULL, 0, NULL, 0);
	if (ret)
		return (int)ret;
	ret = collect(c, CTL_OP_READDIR, &buf, &len, NULL);
	while (ret >= 0 && pos < len) {
		uint32_t mode;
		uint16_t nl;
		char name[256];

		if (len - pos < 6) {
			ret = -EPROTO;
			break;
		}
		memcpy(&mode, buf + pos, 4);
		memcpy(&nl, buf + pos + 4, 2);
		if (nl == 0 || nl > 255 || nl > len - pos - 6) {
			ret = -EPROTO;
			break;
		}
		memcpy(name, buf + pos + 6, nl);
		name[nl] = '\0';
		pos += 6 + (size_t)nl;
		if (memchr(name, '\0', nl) || strchr(name, '/'))
			continue; /* not a name */
		ret = fill(arg, name, mode);
		if (ret)
			break;
	}
	free(buf);
	return (int)ret;
}

/* --- streams ------------------------------------------------------------------------- */

int ctl_stream_open(struct ctl_client *c, const char *path)
{
	uint32_t flags = 0;
	int ret;

	if (!c || !path)
		return -EINVAL;
	ret = send_req(c, CTL_OP_STREAM, &flags, sizeof(flags), path, strlen(path), NULL, 0);
	if (ret)
		return ret;
	c->streaming = true;
	c->stream_done = false;
	c->stream_status = 0;
	free(c->pend);
	c->pend = NULL;
	c->pend_len = c->pend_off = 0;
	return 0;
}

/* The next frame of the stream into c->pend (or the end); @idle_ok: wait for it without a timeout. */
static int stream_next(struct ctl_client *c, bool idle_ok)
{
	struct ctl_resp_hdr h;
	unsigned char *data;
	int ret = recv_frame_idle(c, CTL_OP_STREAM, &h, &data, NULL, idle_ok);

	if (ret)
		return ret;
	free(c->pend);
	c->pend = data;
	c->pend_len = h.len;
	c->pend_off = 0;
	if (!(h.flags & CTL_RF_MORE)) {
		c->stream_done = true;
		c->stream_status = h.status < 0 ? h.status : 0;
	}
	return 0;
}

ssize_t ctl_stream_read(struct ctl_client *c, void *buf, size_t len, int timeout_ms)
{
	if (!c || !buf || !c->streaming)
		return -EINVAL;
	while (c->pend_off >= c->pend_len) {
		int ret;

		if (c->stream_done) {
			c->streaming = false;
			return c->stream_status;
		}
		if (timeout_ms >= 0) {
			struct pollfd p = { .fd = c->fd, .events = POLLIN };
			int n = poll(&p, 1, timeout_ms);

			if (n < 0)
				return errno == EINTR ? -EINTR : -errno;
			if (n == 0)
				return -EAGAIN;
		}
		/* a stream may be silent as long as its file is (trace_pipe) */
		ret = stream_next(c, true);
		if (ret)
			return ret;
	}
	if (len > c->pend_len - c->pend_off)
		len = c->pend_len - c->pend_off;
	memcpy(buf, c->pend + c->pend_off, len);
	c->pend_off += len;
	return (ssize_t)len;
}

bool ctl_stream_pending(const struct ctl_client *c)
{
	return c && c->streaming && (c->pend_off < c->pend_len || c->stream_done);
}

int ctl_stream_stop(struct ctl_client *c)
{
	struct ctl_req_hdr h = { .magic = CTL_MAGIC, .op = CTL_OP_STOP, .version = CTL_VERSION };
	int ret;

	if (!c || !c->streaming)
		return -EINVAL;
	if (!c->stream_done) {
		ret = send_all(c, &h, sizeof(h));
		if (ret)
			return ret;
		while (!c->stream_done) {
			ret = stream_next(c, false);
			if (ret)
				return ret;
		}
	} else {
		/* The stream had ended already: the server answers this STOP on its own. */
		unsigned char *data;
		struct ctl_resp_hdr rh;

		c->streaming = false;
		ret = send_req(c, CTL_OP_STOP, NULL, 0, NULL, 0, NULL, 0);
		if (!ret)
			ret = recv_frame(c, CTL_OP_STOP, &rh, &data, NULL);
		if (!ret)
			free(data);
		return ret;
	}
	c->streaming = false;
	free(c->pend);
	c->pend = NULL;
	c->pend_len = c->pend_off = 0;
	return 0;
}

/* --- the ring buffer ------------------------------------------------------------------- */

int ctl_get_buffer(struct ctl_client *c, const char *instance, int *fd, struct ctl_bufinfo *info)
{
	struct ctl_resp_hdr h;
	struct ctl_bufinfo bi;
	unsigned char *data;
	int ret, got = -1;

	if (!c || !fd)
		return -EINVAL;
	if (!instance)
		instance = "";
	ret = send_req(c, CTL_OP_GETBUF, instance, strlen(instance), NULL, 0, NULL, 0);
	if (ret)
		return ret;
	ret = recv_frame(c, CTL_OP_GETBUF, &h, &data, &got);
	if (ret)
		goto out;
	if (h.flags & CTL_RF_MORE) {
		c->broken = true;
		ret = -EPROTO;
	} else if (h.status < 0) {
		ret = h.status;
	} else if (h.len != sizeof(bi) || got < 0) {
		ret = -EPROTO;
	} else {
		memcpy(&bi, data, sizeof(bi));
		bi.clock[sizeof(bi.clock) - 1] = '\0';
		if (info)
			*info = bi;
		*fd = got;
		got = -1;
	}
	free(data);
out:
	if (got >= 0)
		close(got);
	return ret;
}

int ctl_put_buffer(struct ctl_client *c)
{
	if (!c)
		return -EINVAL;
	return simple(c, CTL_OP_PUTBUF, "", NULL, 0);
}
