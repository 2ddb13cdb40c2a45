// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-net.c - `evtrace record -N HOST:PORT`: a recorded trace.dat sent to a
 * running `trace-cmd listen -p PORT`, in trace-cmd's network protocol: version 3,
 * which trace-cmd 3.1's record speaks by default, or version 1 where the listener
 * does not know 3 (trace-cmd's own fallback). From tracecmd/trace-listen.c,
 * tracecmd/trace-record.c and lib/trace-cmd/trace-msg.c of trace-cmd 3.1, read for
 * facts; the code is ours.
 *
 *   listener -> "tracecmd"                       (8 bytes)
 *   client   -> "-1V3\0"                         (where v1 has the CPU count)
 *   listener -> "V3\0"                           (one of v1 only: "\0", or closes:
 *                                                 then v1 on a new connection)
 *   client   -> "766679\0\0"                     (the magic)
 *   listener -> "OK"
 *   version 3, messages of a header (be32 size, command, command size) and a body
 *   of at most 8 KiB in all:
 *   client   -> TINIT { cpus, page size, 1 option } "tcp\0"
 *   listener -> RINIT { cpus } "PORT0\0PORT1\0..."  (a port per CPU, where a reader
 *                                                 of its own waits)
 *   client   -> a TCP connection to each CPU's port
 *   client   -> SEND_DATA... FIN_DATA: the trace.dat from its magic to its CPU data
 *               (our CPU count and options: the DATE offset and clock arrive)
 *   client   -> each CPU's pages on its connection; then all are closed, then CLOSE
 *               on the first: the listener writes the flyrecord section with each
 *               CPU's pages to trace.HOST:PORT.dat in its directory, and closes.
 *   version 1, after the greeting:
 *   client   -> "CPUS\0" "PAGESIZE\0" "1\0" "4\0" "TCP\0"   (text; one option)
 *   listener -> "PORT0,PORT1,...\0"
 *   client   -> the connections, then the trace.dat from its magic to the saved
 *               cmdlines on the first one (raw), each CPU's pages on its own, all
 *               closed, the first last: the listener writes the CPU count, its
 *               options (its own clock, no DATE) and the flyrecord section.
 *
 * The order matters: the listener stops reading the metadata at the first signal
 * (a reader of a CPU that ended is a SIGCHLD that interrupts its wait for more),
 * and stops the readers a second after that (or sooner). So the metadata goes
 * first, no CPU connection ends before the metadata has arrived (net_drained())
 * and all the data is sent, and the end goes on the first connection only once
 * every reader has read its connection to the end (net_finish()). (trace-cmd's own client sends the metadata when it starts
 * recording, seconds before any end.)
 *
 * Nothing the listener sends is trusted: the greeting is exactly 8 bytes, the
 * port list at most 8 bytes per CPU (v1) or one message of at most 8 KiB (v3) and
 * must name exactly one port (1..65535) per CPU. Every socket has a 10 s send and
 * receive timeout and the connects one of 5 s, so a listener that stops answering
 * ends the send with -ETIMEDOUT; one that goes away (EPIPE, ECONNRESET) gets a
 * message saying which step and how far it went. The local file is written before and kept whatever happens here.
 *
 * Two ways in: cmd_net_send() sends a written trace.dat (a command whose own
 * process never wrote an event, at its end); cmd_net_start(), cmd_net_put() per
 * page, cmd_net_end() stream one while it is recorded (record-live.c: -p, or a
 * command's process). Both take the same steps. Streamed, the metadata's last
 * part (the thread names and what follows) is held until the end
 * (cmd_net_names()); version 3's listener, which gives up on the metadata 5 s
 * after the last message, gets the bytes before it one per message every 2 s
 * meanwhile (cmd_net_tick()), as an empty message would end the metadata.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/sockios.h>

#include "evtrace-cmd.h"
#include "evtrace-net.h"

#define NET_TIMEOUT_S	  10
#define NET_CONNECT_MS	  5000
#define NET_MAX_CPUS	  4096
#define NET_PORT_TEXT_MAX 8 /* bytes per CPU in the port list: "65535," */
#define NET_RETRIES	  100
#define NET_RETRY_US	  20000
#define NET_MAX_OPTIONS	  4096
/* version 3: a message is a header (size, command, command size; big-endian u32) and a body */
#define NET_V3_HDR	  12
#define NET_V3_MAX	  8192 /* a message's size, header included, as the listener caps it */
#define NET_MSG_CLOSE	  0
#define NET_MSG_TINIT	  1
#define NET_MSG_RINIT	  2
#define NET_MSG_SEND_DATA 3
#define NET_MSG_FIN_DATA  4
/*
 * Live, version 3: while the names are held, a byte of the metadata at least this often
 * (the listener gives up on the metadata 5 s after its last message).
 */
#define NET_KEEPALIVE_S	  2.0

struct cmd_net {
	const char *hostport;
	struct addrinfo *ai; /* the listener's address (its port set per connection) */
	int fd;		     /* the first connection */
	int proto;	     /* 3, or 1 when the listener does not speak 3 */
	unsigned int *ports;
	int *fds, nfds, nr_cpus; /* a connection per CPU */
	int err;		 /* the first error (-errno), sticky */
	const char *step;	 /* what it was doing */
	int cpu;		 /* the CPU whose connection failed, or -1 */
	uint64_t sent;		 /* bytes of pages sent (cmd_net_put()) */
	/*
	 * Live: the metadata's saved cmdlines and what follows are held until the names
	 * are final (cmd_net_names()). @fixed: the bytes before them, @fixed_sent of
	 * which went (version 1: all; version 3: a byte at a time, the keep-alive).
	 */
	bool held;
	unsigned char *fixed;
	size_t fixed_len, fixed_sent;
	double last_meta;
};

static void net_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = NET_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Connect to the listener's address at @port; the fd or a negative errno. */
static int net_connect(struct cmd_net *n, unsigned int port)
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

static int net_open(struct cmd_net *n)
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

/* The listener's first words: exactly "tracecmd". */
static int net_greeting(struct cmd_net *n)
{
	char greet[8];
	int ret = net_recv(n->fd, greet, sizeof(greet));

	return ret ? ret : memcmp(greet, "tracecmd", 8) ? -EPROTO : 0;
}

/*
 * Version 1's settings: the CPU count, the page size and one option (TCP) as
 * text; the port list comes back as "P0,P1,...\0".
 */
static int net_v1_settings(struct cmd_net *n, const struct cmd_net_file *f, unsigned int *ports)
{
	size_t cap = (size_t)f->nr_cpus * NET_PORT_TEXT_MAX + 1;
	char text[64], *list;
	int ret, len;

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
		ret = cmd_net_parse_ports(list, ports, f->nr_cpus);
	free(list);
	return ret;
}

/* A version 3 message of @cmd: its 12-byte header, then @len bytes of @body. */
static int net_v3_send(struct cmd_net *n, uint32_t cmd, uint32_t cmd_size, const void *body,
		       size_t len)
{
	uint32_t hdr[3] = { htonl((uint32_t)(NET_V3_HDR + len)), htonl(cmd), htonl(cmd_size) };
	int ret = net_send(n->fd, hdr, sizeof(hdr));

	return ret || !len ? ret : net_send(n->fd, body, len);
}

/*
 * Version 3's settings: a TINIT message (CPU count, page size, the option "tcp"),
 * answered by RINIT (the CPU count again, then a NUL-terminated decimal port per
 * CPU). Nothing in the answer is trusted: its size is capped as the listener caps
 * ours, the count must be ours, every port 1..65535.
 */
static int net_v3_settings(struct cmd_net *n, const struct cmd_net_file *f, unsigned int *ports)
{
	uint32_t tinit[4] = { htonl((uint32_t)f->nr_cpus), htonl(f->page_size), htonl(1) };
	uint32_t hdr[3], size, cmd_size;
	char *body;
	int ret;

	memcpy(&tinit[3], "tcp", 4);
	ret = net_v3_send(n, NET_MSG_TINIT, 12, tinit, sizeof(tinit));
	if (!ret)
		ret = net_recv(n->fd, hdr, sizeof(hdr));
	if (ret)
		return ret;
	size = ntohl(hdr[0]);
	cmd_size = ntohl(hdr[2]);
	if (ntohl(hdr[1]) != NET_MSG_RINIT || cmd_size != 4 || size > NET_V3_MAX ||
	    size < NET_V3_HDR + 4 + 2)
		return -EPROTO;
	body = malloc(size - NET_V3_HDR);
	if (!body)
		return -ENOMEM;
	ret = net_recv(n->fd, body, size - NET_V3_HDR);
	if (!ret)
		ret = cmd_net_parse_rinit(body, size - NET_V3_HDR, ports, f->nr_cpus);
	free(body);
	return ret;
}

/*
 * Which version the listener speaks, as trace-cmd's client asks it: "-1V3\0" where
 * the CPU count would be; a listener of version 3 answers "V3\0", we send the
 * magic, it answers "OK". One that does not know version 3 answers with an empty
 * port list ("\0") or closes: 1 (then a new connection speaks version 1).
 * Return: 3, 1, or a negative errno.
 */
static int net_v3_hello(struct cmd_net *n)
{
	static const char v3cpu[] = "-1V3", magic[] = "766679\0"; /* both with their NUL */
	char reply[3];
	int ret = net_send(n->fd, v3cpu, sizeof(v3cpu));

	if (!ret)
		ret = net_recv(n->fd, reply, 1);
	if (ret == -ECONNRESET || (!ret && reply[0] == '\0'))
		return 1;
	if (!ret)
		ret = net_recv(n->fd, reply + 1, 2);
	if (ret)
		return ret;
	if (memcmp(reply, "V3", 3))
		return -EPROTO;
	ret = net_send(n->fd, magic, sizeof(magic));
	if (!ret)
		ret = net_recv(n->fd, reply, 2);
	if (ret)
		return ret;
	return memcmp(reply, "OK", 2) ? -EPROTO : 3;
}

/* Connect, greet, agree on a version (3, else 1 on a new connection), get the ports. */
static int net_handshake(struct cmd_net *n, const struct cmd_net_file *f, unsigned int *ports,
			 const char **step)
{
	unsigned int port = ntohs(((struct sockaddr_in *)n->ai->ai_addr)->sin_port);
	int ret;

	for (n->proto = 3;; n->proto = 1) {
		*step = "connecting";
		ret = n->fd = net_connect(n, port);
		if (ret < 0)
			return ret;
		*step = "the greeting and the port list";
		ret = net_greeting(n);
		if (!ret && n->proto == 3)
			ret = net_v3_hello(n);
		if (ret < 0 || n->proto == 1 || ret == 3)
			break;
		close(n->fd); /* it speaks version 1 only: again, on a new connection */
	}
	if (ret < 0)
		return ret;
	return n->proto == 3 ? net_v3_settings(n, f, ports) : net_v1_settings(n, f, ports);
}

/*
 * Where the CPU data's section starts in @f (after the CPU count and the options):
 * version 3 sends everything before it, the listener writes only that section.
 */
static int net_find_flyrecord(int in, const struct cmd_net_file *f, uint64_t *at)
{
	uint64_t off = f->meta_len + 4;
	char word[10];
	uint16_t id;
	uint32_t size;

	if (pread(in, word, 10, (off_t)off) != 10)
		return -EIO;
	if (!memcmp(word, "options  ", 10)) {
		off += 10;
		for (int i = 0;; i++) {
			if (i == NET_MAX_OPTIONS || off > f->data_at ||
			    pread(in, &id, 2, (off_t)off) != 2)
				return -EIO;
			off += 2;
			if (!id)
				break;
			if (pread(in, &size, 4, (off_t)off) != 4)
				return -EIO;
			off += 4 + (uint64_t)size;
		}
		if (pread(in, word, 10, (off_t)off) != 10)
			return -EIO;
	}
	if (memcmp(word, "flyrecord", 10))
		return -EIO;
	*at = off;
	return 0;
}

/*
 * The metadata from @off on, on the first connection: version 1, the file up to the
 * saved cmdlines included, raw (the listener adds the CPU count and its own
 * options); version 3, the file up to its CPU data, ours options included (the DATE
 * offset, the clock), in SEND_DATA messages of at most 8 KiB, then FIN_DATA.
 */
static int net_send_meta(struct cmd_net *n, int in, const struct cmd_net_file *f, uint64_t off)
{
	static char buf[NET_V3_MAX - NET_V3_HDR];
	uint64_t len;
	int ret;

	if (n->proto == 1)
		return net_copy(in, off, f->meta_len - off, n->fd);
	ret = net_find_flyrecord(in, f, &len);
	while (!ret && off < len) {
		size_t want = len - off < sizeof(buf) ? (size_t)(len - off) : sizeof(buf);
		ssize_t r = pread(in, buf, want, (off_t)off);

		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		ret = net_v3_send(n, NET_MSG_SEND_DATA, 0, buf, (size_t)r);
		off += (uint64_t)r;
	}
	return ret ? ret : net_v3_send(n, NET_MSG_FIN_DATA, 0, NULL, 0);
}

/*
 * Wait until the listener's machine has acknowledged everything sent on @fd (our
 * send queue is empty), at most NET_TIMEOUT_S. The listener reads the metadata
 * while its readers of the CPUs run; the first reader that ends (its connection
 * closed) is a SIGCHLD, and a read of the metadata that was waiting for bytes
 * still on the way ends there (EINTR), with the metadata cut short. So no CPU
 * connection is closed before the metadata is there. Return: 0 or -ETIMEDOUT.
 */
static int net_drained(int fd)
{
	for (int i = 0; i < NET_TIMEOUT_S * 1000; i++) {
		int queued;

		if (ioctl(fd, SIOCOUTQ, &queued) || queued <= 0)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/*
 * Wait for the other end of @fd to close (0), bounded by the receive timeout. A
 * reset is a listener that went away with our data unread.
 */
static int net_wait_end(int fd)
{
	char c;

	for (;;) {
		ssize_t r = recv(fd, &c, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		return r ? -EPROTO : 0;
	}
}

/*
 * Every CPU's data is sent: the end of each CPU's connection, then the end on the
 * first. The listener's readers of the CPUs read until their connection ends and
 * exit; once the listener hears the end on the first connection it waits a second
 * (less: the SIGCHLD of a reader's exit cuts the sleep short) and stops the
 * readers that are left, whatever they have not read yet. So each CPU's end is a
 * shutdown of our side, and its reader's exit (its side closing: 0 here) is
 * waited for before the end goes on the first connection: every page has been
 * read by then. Then the listener closes the first once its file is written.
 */
static int net_finish(struct cmd_net *n, int *fds, int *nfds)
{
	int ret = 0;

	for (int i = 0; i < *nfds; i++)
		if (shutdown(fds[i], SHUT_WR))
			return -errno;
	for (int i = 0; !ret && i < *nfds; i++)
		ret = net_wait_end(fds[i]);
	if (ret)
		return ret;
	for (; *nfds > 0; (*nfds)--)
		close(fds[*nfds - 1]);
	if (n->proto == 3)
		ret = net_v3_send(n, NET_MSG_CLOSE, 0, NULL, 0);
	else
		ret = shutdown(n->fd, SHUT_WR) ? -errno : 0;
	return ret ? ret : net_wait_end(n->fd);
}

static double net_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Live: the metadata up to the saved cmdlines (@f->names_at), which do not change,
 * kept; the names and what follows held until they are final (cmd_net_names()).
 * Version 1's listener reads the metadata until the first connection ends: all the
 * fixed bytes go now. Version 3's gives up 5 s after the last SEND_DATA, and an
 * empty one ends the metadata: they go a byte at a time (cmd_net_tick()).
 */
static int net_hold_names(struct cmd_net *n, int in, const struct cmd_net_file *f)
{
	n->fixed = malloc(f->names_at);
	if (!n->fixed)
		return -ENOMEM;
	if (pread(in, n->fixed, f->names_at, 0) != (ssize_t)f->names_at)
		return -EIO;
	n->fixed_len = f->names_at;
	n->held = true;
	n->last_meta = net_now();
	n->fixed_sent = n->proto == 1 ? n->fixed_len : 1;
	if (n->proto == 1)
		return net_send(n->fd, n->fixed, n->fixed_len);
	return net_v3_send(n, NET_MSG_SEND_DATA, 0, n->fixed, 1);
}

int cmd_net_tick(struct cmd_net *n)
{
	if (!n || n->err || !n->held || n->proto != 3 || net_now() - n->last_meta < NET_KEEPALIVE_S)
		return n ? n->err : 0;
	if (n->fixed_sent == n->fixed_len)
		return 1;
	n->step = "sending the metadata";
	n->err = net_v3_send(n, NET_MSG_SEND_DATA, 0, n->fixed + n->fixed_sent, 1);
	if (!n->err) {
		n->fixed_sent++;
		n->last_meta = net_now();
		n->step = "sending a CPU's pages";
	}
	return n->err;
}

int cmd_net_names(struct cmd_net *n, int in, const struct cmd_net_file *f)
{
	unsigned char *now;
	int ret;

	if (n->err || !n->held)
		return n->err;
	n->step = "sending the metadata";
	/* the bytes before the names are those kept: the same formats, clock, page size */
	now = f->names_at == n->fixed_len ? malloc(n->fixed_len) : NULL;
	ret = now ? 0 : f->names_at == n->fixed_len ? -ENOMEM : -EINVAL;
	if (!ret && pread(in, now, n->fixed_len, 0) != (ssize_t)n->fixed_len)
		ret = -EIO;
	if (!ret && memcmp(now, n->fixed, n->fixed_len))
		ret = -EINVAL;
	free(now);
	/* the bytes kept back (version 3), in messages of at most 8 KiB */
	for (size_t off = n->fixed_sent, len; !ret && off < n->fixed_len; off += len) {
		len = n->fixed_len - off;
		if (len > NET_V3_MAX - NET_V3_HDR)
			len = NET_V3_MAX - NET_V3_HDR;
		ret = net_v3_send(n, NET_MSG_SEND_DATA, 0, n->fixed + off, len);
	}
	if (!ret)
		ret = net_send_meta(n, in, f, f->names_at);
	n->held = false;
	n->err = ret;
	if (!ret)
		n->step = "sending a CPU's pages";
	return ret;
}

/* A connection to each CPU's port; @nfds counts those made. */
static int net_connect_cpus(struct cmd_net *n, const unsigned int *ports, int nr, int *fds,
			    int *nfds)
{
	for (*nfds = 0; *nfds < nr; (*nfds)++) {
		int fd = net_connect(n, ports[*nfds]);

		/*
		 * The listener's reader of a CPU calls listen() in a child it forked
		 * before sending the port: it may not have yet (at most 2 s more).
		 */
		for (int i = 0; fd == -ECONNREFUSED && i < NET_RETRIES; i++) {
			usleep(NET_RETRY_US);
			fd = net_connect(n, ports[*nfds]);
		}
		if (fd < 0)
			return fd;
		fds[*nfds] = fd;
	}
	return 0;
}

/* Connect, agree, connect the CPUs, send the metadata of @in (a trace.dat's first bytes). */
static int net_begin(struct cmd_net *n, int in, const struct cmd_net_file *f)
{
	int ret;

	n->step = "resolving the address";
	if (f->nr_cpus <= 0 || f->nr_cpus > NET_MAX_CPUS)
		return -EINVAL;
	n->nr_cpus = f->nr_cpus;
	ret = net_open(n);
	if (ret)
		return ret;
	n->ports = calloc((size_t)f->nr_cpus, sizeof(*n->ports));
	n->fds = malloc((size_t)f->nr_cpus * sizeof(*n->fds));
	ret = n->ports && n->fds ? net_handshake(n, f, n->ports, &n->step) : -ENOMEM;
	if (ret)
		return ret;
	n->step = "connecting to a CPU's port";
	ret = net_connect_cpus(n, n->ports, f->nr_cpus, n->fds, &n->nfds);
	n->cpu = ret ? n->nfds : -1;
	if (ret)
		return ret;
	n->step = "sending the metadata";
	ret = f->names_at ? net_hold_names(n, in, f) : net_send_meta(n, in, f, 0);
	n->step = "sending a CPU's pages";
	return ret;
}

struct cmd_net *cmd_net_start(const char *hostport, int in, const struct cmd_net_file *f)
{
	struct cmd_net *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->hostport = hostport;
	n->fd = -1;
	n->cpu = -1;
	n->err = net_begin(n, in, f);
	return n;
}

int cmd_net_put(struct cmd_net *n, int cpu, const void *buf, size_t len)
{
	if (n->err)
		return n->err;
	if (cpu < 0 || cpu >= n->nfds)
		return n->err = -EINVAL;
	n->cpu = cpu;
	n->err = net_send(n->fds[cpu], buf, len);
	if (!n->err) {
		n->sent += len;
		n->cpu = -1;
	}
	return n->err;
}

int cmd_net_end(struct cmd_net *n)
{
	if (n->err)
		return n->err;
	if (n->held)
		return n->err = -EINVAL; /* cmd_net_names() first */
	n->step = "waiting for the listener to take the metadata";
	n->err = net_drained(n->fd);
	if (n->err)
		return n->err;
	n->step = "waiting for the listener to write its file";
	n->err = net_finish(n, n->fds, &n->nfds);
	return n->err;
}

int cmd_net_errno(const struct cmd_net *n)
{
	return n ? n->err : -ENOMEM;
}

uint64_t cmd_net_sent(const struct cmd_net *n)
{
	return n ? n->sent : 0;
}

void cmd_net_say(const struct cmd_net *n, const char *hostport, const char *then)
{
	char where[32] = "";
	int err = cmd_net_errno(n);

	if (n && err && n->cpu >= 0)
		snprintf(where, sizeof(where), " of CPU %d", n->cpu);
	cmd_error("record: -N %s: %s%s: %s%s (%s)", hostport, n ? n->step : "starting", where,
		  err == -EPIPE || err == -ECONNRESET ? "the listener went away: " : "",
		  err == -EPROTO ? "the listener does not speak trace-cmd's protocol" :
		  err == -EHOSTUNREACH ? "no such host" : strerror(-err), then);
}

void cmd_net_free(struct cmd_net *n)
{
	if (!n)
		return;
	while (n->nfds > 0)
		close(n->fds[--n->nfds]);
	free(n->fds);
	if (n->fd >= 0)
		close(n->fd);
	if (n->ai)
		freeaddrinfo(n->ai);
	free(n->fixed);
	free(n->ports);
	free(n);
}

int cmd_net_send(const char *hostport, const struct cmd_net_file *f)
{
	struct cmd_net *n = NULL;
	uint64_t at = f->data_at;
	char then[300];
	int in, ret;

	in = open(f->path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		ret = -errno;
		cmd_error("record: -N %s: reading %s: %s", hostport, f->path, strerror(-ret));
		return ret;
	}
	n = cmd_net_start(hostport, in, f);
	ret = cmd_net_errno(n);
	for (int cpu = 0; !ret && cpu < f->nr_cpus; cpu++) {
		n->cpu = cpu;
		ret = n->err = net_copy(in, at, f->cpu_bytes[cpu], n->fds[cpu]);
		at += f->cpu_bytes[cpu];
	}
	if (!ret) {
		n->cpu = -1;
		ret = cmd_net_end(n);
	}
	if (ret) {
		snprintf(then, sizeof(then), "the trace is in %s", f->path);
		cmd_net_say(n, hostport, then);
	}
	close(in);
	cmd_net_free(n);
	return ret;
}
