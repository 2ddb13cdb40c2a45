// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-net.c - `evtrace record -N HOST:PORT`: a recorded trace.dat sent to a
 * running `trace-cmd listen -p PORT`, in trace-cmd's network protocol, version 1
 * (tracecmd/trace-listen.c of trace-cmd 3.1 speaks it next to version 3; read
 * for facts, the code is ours):
 *
 *   listener -> "tracecmd"                       (8 bytes)
 *   client   -> "CPUS\0" "PAGESIZE\0"            (decimal text)
 *   client   -> "1\0" "4\0" "TCP\0"              (one option of 4 bytes: the
 *                                                 CPU data over TCP, not UDP)
 *   listener -> "PORT0,PORT1,...\0"              (a port per CPU, where a reader
 *                                                 of its own waits)
 *   client   -> a TCP connection to each CPU's port
 *   client   -> the metadata on the first connection (the trace.dat from its magic
 *               to the saved cmdlines)
 *   client   -> each CPU's pages on its connection; then all are closed, then the
 *               first: the listener writes the CPU count, its options and the
 *               flyrecord section with each CPU's pages, to trace.HOST:PORT.dat in
 *               its directory, and closes.
 *
 * The order matters, as trace-cmd's own client keeps it: the listener stops
 * reading the metadata at the first signal (a reader of a CPU that ended is a
 * SIGCHLD that interrupts its read), and stops the readers a second after that.
 * So the metadata goes first, and no CPU connection ends before all data is sent.
 *
 * Nothing the listener sends is trusted: the greeting is exactly 8 bytes, the
 * port list at most 8 bytes per CPU and must name exactly one port (1..65535)
 * per CPU. Every socket has a 10 s send and receive timeout and the connects one
 * of 5 s, so a listener that stops answering ends the send with -ETIMEDOUT; one
 * that goes away (EPIPE, ECONNRESET) gets a message saying which step and how far
 * it went. The local file is written before and kept whatever happens here.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "evtrace-cmd.h"
#include "evtrace-net.h"

#define NET_TIMEOUT_S	  10
#define NET_CONNECT_MS	  5000
#define NET_MAX_CPUS	  4096
#define NET_PORT_TEXT_MAX 8 /* bytes per CPU in the port list: "65535," */
#define NET_RETRIES	  100
#define NET_RETRY_US	  20000

struct net {
	const char *hostport;
	struct addrinfo *ai; /* the listener's address (its port set per connection) */
	int fd;		     /* the first connection */
};

static void net_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = NET_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Connect to the listener's address at @port; the fd or a negative errno. */
static int net_connect(struct net *n, unsigned int port)
{
	struct sockaddr_storage ss;
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, err = 0;

	memcpy(&ss, n->ai->ai_addr, n->ai->ai_addrlen);
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	fd = socket(n->ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, n->ai->ai_addrlen) && errno != EINPROGRESS) {
		err = -errno;
		close(fd);
		return err;
	}
	pfd.fd = fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, NET_CONNECT_MS) != 1) {
		close(fd);
		return -ETIMEDOUT;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		close(fd);
		return -(err ? err : EIO);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	net_timeouts(fd);
	return fd;
}

static int net_send(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Read exactly @len bytes. */
static int net_recv(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = recv(fd, p, len, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (!r)
			return -ECONNRESET;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* The NUL-terminated port list, at most @cap - 1 bytes; 0 or a negative errno. */
static int net_recv_ports(int fd, char *buf, size_t cap)
{
	for (size_t i = 0; i < cap; i++) {
		int ret = net_recv(fd, buf + i, 1);

		if (ret)
			return ret;
		if (!buf[i])
			return 0;
	}
	return -EMSGSIZE;
}

static int net_parse_ports(char *text, unsigned int *ports, int nr)
{
	char *s = text, *end;
	int i = 0;

	for (; i < nr; i++) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v == 0 || v > 65535 || (*end != ',' && *end))
			return -EPROTO;
		ports[i] = (unsigned int)v;
		s = end + (*end == ',');
		if (!*end)
			break;
	}
	return i == nr - 1 && !*end ? 0 : -EPROTO;
}

static int net_open(struct net *n)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	const char *colon = strrchr(n->hostport, ':');
	char host[256];
	int ret;

	if (!colon || colon == n->hostport || !colon[1] ||
	    (size_t)(colon - n->hostport) >= sizeof(host))
		return -EINVAL;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - n->hostport), n->hostport);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') { /* [v6 address] */
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	ret = getaddrinfo(host, colon + 1, &hints, &n->ai);
	if (ret)
		return ret == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
	return 0;
}

/* Copy @len bytes of @in from @off to socket @fd. */
static int net_copy(int in, uint64_t off, uint64_t len, int fd)
{
	static char buf[1 << 16];

	while (len) {
		size_t want = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		ssize_t r = pread(in, buf, want, (off_t)off);
		int ret;

		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		ret = net_send(fd, buf, (size_t)r);
		if (ret)
			return ret;
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

static int net_handshake(struct net *n, const struct cmd_net_file *f, unsigned int *ports)
{
	char greet[8], text[64], *list;
	size_t cap = (size_t)f->nr_cpus * NET_PORT_TEXT_MAX + 1;
	int ret, len;

	ret = net_recv(n->fd, greet, sizeof(greet));
	if (ret)
		return ret;
	if (memcmp(greet, "tracecmd", 8))
		return -EPROTO;
	len = snprintf(text, sizeof(text), "%d%c%u%c1%c4%cTCP%c", f->nr_cpus, 0, f->page_size,
		       0, 0, 0, 0);
	ret = net_send(n->fd, text, (size_t)len);
	if (ret)
		return ret;
	list = malloc(cap);
	if (!list)
		return -ENOMEM;
	ret = net_recv_ports(n->fd, list, cap);
	if (!ret)
		ret = net_parse_ports(list, ports, f->nr_cpus);
	free(list);
	return ret;
}

int cmd_net_send(const char *hostport, const struct cmd_net_file *f)
{
	struct net n = { .hostport = hostport, .fd = -1 };
	const char *step = "resolving the address";
	unsigned int *ports = NULL;
	uint64_t at = f->data_at;
	int in = -1, ret, cpu = -1, nfds = 0, *fds = NULL;
	char where[32] = "";

	if (f->nr_cpus <= 0 || f->nr_cpus > NET_MAX_CPUS)
		return -EINVAL;
	ret = net_open(&n);
	if (ret)
		goto out;
	step = "connecting";
	ret = n.fd = net_connect(&n, ntohs(((struct sockaddr_in *)n.ai->ai_addr)->sin_port));
	if (ret < 0)
		goto out;
	step = "the greeting and the port list";
	ports = calloc((size_t)f->nr_cpus, sizeof(*ports));
	ret = ports ? net_handshake(&n, f, ports) : -ENOMEM;
	if (ret)
		goto out;
	in = open(f->path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		ret = -errno;
		step = "reading the local file";
		goto out;
	}
	step = "connecting to a CPU's port";
	fds = malloc((size_t)f->nr_cpus * sizeof(*fds));
	if (!fds) {
		ret = -ENOMEM;
		goto out;
	}
	for (nfds = 0; nfds < f->nr_cpus; nfds++) {
		cpu = nfds;
		fds[nfds] = net_connect(&n, ports[cpu]);
		/*
		 * The listener's reader of a CPU calls listen() in a child it forked
		 * before sending the port: it may not have yet (at most 2 s more).
		 */
		for (int i = 0; fds[nfds] == -ECONNREFUSED && i < NET_RETRIES; i++) {
			usleep(NET_RETRY_US);
			fds[nfds] = net_connect(&n, ports[cpu]);
		}
		if (fds[nfds] < 0) {
			ret = fds[nfds];
			goto out;
		}
	}
	cpu = -1;
	step = "sending the metadata";
	ret = net_copy(in, 0, f->meta_len, n.fd);
	step = "sending a CPU's pages";
	for (cpu = 0; !ret && cpu < f->nr_cpus; cpu++) {
		ret = net_copy(in, at, f->cpu_bytes[cpu], fds[cpu]);
		at += f->cpu_bytes[cpu];
	}
	if (ret)
		goto out;
	cpu = -1;
	/* every CPU's data is sent: now the readers may see their ends, then the first's */
	for (; nfds > 0; nfds--)
		close(fds[nfds - 1]);
	if (shutdown(n.fd, SHUT_WR))
		ret = -errno;
	if (!ret) {
		/* the listener closes once it has written its file: wait for that (bounded) */
		char c;

		step = "waiting for the listener to write its file";
		ret = net_recv(n.fd, &c, 1);
		ret = ret == -ECONNRESET ? 0 : ret ? ret : -EPROTO;
	}
out:
	if (ret && cpu >= 0)
		snprintf(where, sizeof(where), " of CPU %d", cpu);
	if (ret)
		cmd_error("record: -N %s: %s%s: %s (the trace is in %s)", hostport, step, where,
			  ret == -EPROTO ? "the listener does not speak trace-cmd's protocol" :
			  ret == -EHOSTUNREACH ? "no such host" : strerror(-ret), f->path);
	if (in >= 0)
		close(in);
	while (nfds > 0)
		close(fds[--nfds]);
	free(fds);
	if (n.fd >= 0)
		close(n.fd);
	if (n.ai)
		freeaddrinfo(n.ai);
	free(ports);
	return ret;
}
