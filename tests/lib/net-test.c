// SPDX-License-Identifier: LGPL-2.1-or-later
/* tests/lib/net-test.c - see net-test.h. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net-test.h"

static int bound_any(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	*a = (struct sockaddr_in){ .sin_family = AF_INET };
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    getsockname(fd, (struct sockaddr *)a, &len))
		_exit(2);
	return fd;
}

int tnet_listen_any(unsigned int *port)
{
	struct sockaddr_in a;
	int fd = bound_any(&a);

	if (listen(fd, 64))
		_exit(2);
	*port = ntohs(a.sin_port);
	return fd;
}

unsigned int tnet_free_port(void)
{
	struct sockaddr_in a;

	close(bound_any(&a));
	return ntohs(a.sin_port);
}

bool tnet_can_connect(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

void tnet_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = read(fd, p, len);

		if (r <= 0)
			_exit(3);
		p += r;
		len -= (size_t)r;
	}
}

void tnet_read_string(int fd, char *buf, size_t cap)
{
	for (size_t i = 0; i < cap; i++) {
		tnet_read_full(fd, buf + i, 1);
		if (!buf[i])
			return;
	}
	_exit(6);
}

pid_t tnet_trace_cmd_listen(unsigned int port, const char *dir)
{
	char p[16];
	pid_t pid;

	snprintf(p, sizeof(p), "%u", port);
	pid = fork();
	if (pid < 0)
		_exit(2);
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(nul, 1);
		dup2(nul, 2);
		execlp("trace-cmd", "trace-cmd", "listen", "-p", p, "-d", dir, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	for (int i = 0; i < 250 && !tnet_can_connect(port); i++)
		usleep(20000);
	if (!tnet_can_connect(port))
		_exit(2);
	return pid;
}

int tnet_v1_accept(int lfd, int *cpus)
{
	char v[16];
	int c;

	c = accept(lfd, NULL, NULL);
	if (c < 0 || write(c, "tracecmd", 8) != 8)
		_exit(2);
	tnet_read_full(c, v, 5);
	if (memcmp(v, "-1V3", 5))
		_exit(5);
	close(c);
	c = accept(lfd, NULL, NULL);
	if (c < 0 || write(c, "tracecmd", 8) != 8)
		_exit(2);
	tnet_read_string(c, v, sizeof(v));
	*cpus = atoi(v);
	if (*cpus < 1 || *cpus > 8)
		_exit(5);
	return c;
}

int tnet_take_all(int *fds, int n, int *out)
{
	struct pollfd p[9];
	char buf[65536];
	int open_fds = n;

	if (n > 9)
		_exit(4);
	for (int i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (open_fds && poll(p, (nfds_t)n, 15000) > 0) {
		for (int i = 0; i < n; i++) {
			ssize_t r;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r > 0 && write(out[i], buf, (size_t)r) != r)
				_exit(4);
			if (r <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open_fds--;
			}
		}
	}
	return open_fds;
}
