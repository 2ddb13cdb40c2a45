// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-client-timeout: a server that never answers cannot hang the
 * evtrace command (issue 11, defect 6). With EVTRACE_CONTROL_TIMEOUT=1:
 *  - a server that accepts and never sends its hello: `evtrace list -p PID`
 *    and `evtrace cat -p PID trace` give up with a message naming the
 *    socket and the timeout;
 *  - a server that never accepts (its queue full): connect gives up the same
 *    way (ctl_connect_path() says -ETIMEDOUT).
 * Each command must end within 20 s (it is killed, and the test fails,
 * otherwise).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/ctl_client.h"
#include "cmd-test.h"

static char out[1 << 16], err[1 << 16];
static int lfd;

/* Accept everything, answer nothing. */
static void *mute_server(void *arg)
{
	(void)arg;
	for (;;)
		if (accept(lfd, NULL, NULL) < 0)
			return NULL;
}

static int listen_at(const char *path, int backlog)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	T_ASSERT(fd >= 0 && strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	unlink(path);
	T_ASSERT(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	T_ASSERT(listen(fd, backlog) == 0);
	return fd;
}

/* `evtrace ARGS`: its exit status, stdout in out, stderr in err; killed after 20 s. */
static int run(char *const argv[])
{
	double t0 = t_seconds_now();
	int st;

	alarm(20); /* a hang fails the test (SIGALRM) rather than the runner's limit */
	st = cmdt_capture(argv, out, sizeof(out), err, sizeof(err));
	alarm(0);
	printf("evtrace %s: exit %d after %.1f s\n  stdout: %s  stderr: %s", argv[1], st,
	       t_seconds_now() - t0, out, err);
	return st;
}

int main(void)
{
	char tmpl[] = "/tmp/evt-tmo-XXXXXX", dir[300], sock[400], pid[16];
	struct ctl_client *c;
	pthread_t t;
	int ret;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	T_ASSERT(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/sock", tmpl);
	T_ASSERT(mkdir(dir, 0700) == 0);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
	setenv("EVTRACE_CONTROL_TIMEOUT", "1", 1);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(sock, sizeof(sock), "%s/%d.sock", dir, (int)getpid());

	/* accepts, never answers */
	lfd = listen_at(sock, 16);
	T_ASSERT(pthread_create(&t, NULL, mute_server, NULL) == 0);
	{
		char *a[] = { "evtrace", "list", "-p", pid, NULL };

		T_ASSERT_EQ(run(a), 1);
		T_ASSERT(strstr(out, "no hello in 1 s") && strstr(out, sock));
	}
	{
		char *a[] = { "evtrace", "cat", "-p", pid, "trace", NULL };

		T_ASSERT_EQ(run(a), 1);
		T_ASSERT(strstr(err, "no hello in 1 s") && strstr(err, sock) && strstr(err, pid));
	}
	ret = ctl_connect_path(sock, &c);
	printf("ctl_connect_path: %s (%s)\n", strerror(-ret), ctl_last_why());
	T_ASSERT_EQ(ret, -ETIMEDOUT);
	shutdown(lfd, SHUT_RDWR);
	pthread_join(t, NULL);
	close(lfd);

	/* never accepts: the queue fills, connect waits for room */
	lfd = listen_at(sock, 0);
	for (int i = 0; i < 64; i++) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		memcpy(sa.sun_path, sock, strlen(sock) + 1);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(fd);
			break; /* full */
		}
	}
	ret = ctl_connect_path(sock, &c);
	printf("ctl_connect_path, queue full: %s (%s)\n", strerror(-ret), ctl_last_why());
	T_ASSERT_EQ(ret, -ETIMEDOUT);
	{
		char *a[] = { "evtrace", "list", "-p", pid, NULL };

		T_ASSERT_EQ(run(a), 1);
		T_ASSERT(strstr(out, "accepts nothing in 1 s"));
	}
	close(lfd);
	unlink(sock);
	rmdir(dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
