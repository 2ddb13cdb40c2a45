// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-peer-check: the client trusts no socket it finds (issue 11,
 * defect 2). A fake server of another user receives nothing:
 *  - a socket listened on by another user (SO_PEERCRED says its uid), even
 *    in a directory of ours: refused with -EPERM before a byte is sent,
 *    and ctl_last_why() names the uid;
 *  - a socket in a directory another user owns (a squat), or that others
 *    can write to: refused before connecting;
 *  - `evtrace write` to such a socket (a filter holding a password) sends
 *    nothing and says why; its exit status is 1.
 * Needs root (a user of its own); SKIP otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/ctl_client.h"
#include "cmd-test.h"
#include "sec-util.h"

/*
 * The fake server: listen on @lfd (bound by the parent) as user @u, accept
 * for a while, send a hello with escape sequences in the name, and report
 * every byte a client sent on @report.
 */
static pid_t fake_server(struct sec_user u, int lfd, int report)
{
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid)
		return pid;
	sec_become(u);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (listen(lfd, 8) < 0)
		_exit(2);
	for (;;) {
		struct ctl_resp_hdr h = { .magic = CTL_MAGIC, .op = CTL_OP_HELLO };
		struct ctl_hello hello = { .version = CTL_VERSION, .pid = 1 };
		char buf[4096];
		ssize_t n;
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			_exit(3);
		snprintf(hello.comm, sizeof(hello.comm), "\033]0;owned\007\033[2J");
		h.len = sizeof(hello);
		if (send(fd, &h, sizeof(h), MSG_NOSIGNAL) < 0 ||
		    send(fd, &hello, sizeof(hello), MSG_NOSIGNAL) < 0) {
			close(fd);
			continue;
		}
		while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
			if (write(report, buf, (size_t)n) < 0)
				_exit(4);
		close(fd);
	}
}

/* Bound, not listening: the server child listens as its user. */
static int bind_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	T_ASSERT(fd >= 0 && strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	unlink(path);
	T_ASSERT(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	T_ASSERT(chmod(path, 0666) == 0);
	return fd;
}

/* What the fake servers received so far (nothing, we hope). */
static size_t received(int fd)
{
	char buf[4096];
	size_t total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += (size_t)n;
	return total;
}

int main(void)
{
	char base[] = "/tmp/evt-peer-XXXXXX", ours[300], squat[300], sock[400], out[4096];
	struct ctl_client *c;
	struct sec_user au;
	int p[2], lfd, ret;
	pid_t srv, srv2;

	au = sec_user("evtsec-attacker");
	T_ASSERT(mkdtemp(base) && chmod(base, 0755) == 0);
	T_ASSERT(pipe2(p, O_CLOEXEC) == 0);
	T_ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);

	/* another user's server in a directory of ours: SO_PEERCRED refuses it */
	snprintf(ours, sizeof(ours), "%s/ours", base);
	T_ASSERT(mkdir(ours, 0700) == 0);
	snprintf(sock, sizeof(sock), "%s/%d.sock", ours, (int)getpid());
	lfd = bind_at(sock);
	srv = fake_server(au, lfd, p[1]);
	close(lfd);
	for (int i = 0; i < 1000; i++) { /* until it listens */
		ret = ctl_connect_path(sock, &c);
		if (ret != -ECONNREFUSED)
			break;
		usleep(2000);
	}
	printf("another user's server: %s (%s)\n", strerror(-ret), ctl_last_why());
	T_ASSERT_EQ(ret, -EPERM);
	T_ASSERT(strstr(ctl_last_why(), "uid"));

	/* evtrace write, to the same server through the socket directory */
	setenv("EVTRACE_CONTROL_DIR", ours, 1);
	setenv("EVTRACE_CONTROL_TIMEOUT", "5", 1);
	{
		char pid[16], *a[] = { "evtrace",
				       "write",
				       "-p",
				       pid,
				       "events/app/filter",
				       "password == \"hunter2\"",
				       NULL };
		int efd[2], fd;
		pid_t t;

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		T_ASSERT(pipe(efd) == 0);
		t = cmdt_run(a, &fd, efd[1]);
		close(efd[1]);
		cmdt_read_all(fd, out, sizeof(out));
		ret = cmdt_wait_status(t);
		cmdt_read_all(efd[0], out, sizeof(out));
		printf("evtrace write: exit %d: %s", ret, out);
		T_ASSERT_EQ(ret, 1);
		T_ASSERT(strstr(out, "refused"));
	}

	/* a squat: the directory is another user's (and open to all) */
	snprintf(squat, sizeof(squat), "%s/squat", base);
	T_ASSERT(mkdir(squat, 0777) == 0 && chmod(squat, 0777) == 0);
	T_ASSERT(chown(squat, au.uid, au.gid) == 0);
	snprintf(sock, sizeof(sock), "%s/%d.sock", squat, (int)getpid());
	lfd = bind_at(sock);
	T_ASSERT(lchown(sock, au.uid, au.gid) == 0);
	srv2 = fake_server(au, lfd, p[1]);
	close(lfd);
	usleep(100000);
	ret = ctl_connect_path(sock, &c);
	printf("a squatted directory: %s (%s)\n", strerror(-ret), ctl_last_why());
	T_ASSERT_EQ(ret, -EPERM);
	T_ASSERT(strstr(ctl_last_why(), "not by you"));

	/* ours, but open to others: refused too */
	T_ASSERT(chown(squat, 0, 0) == 0);
	ret = ctl_connect_path(sock, &c);
	printf("a directory others can write to: %s (%s)\n", strerror(-ret), ctl_last_why());
	T_ASSERT_EQ(ret, -EPERM);
	T_ASSERT(strstr(ctl_last_why(), "others can write"));

	usleep(100000);
	T_ASSERT_EQ(received(p[0]), 0); /* not a byte went to the fake servers */
	kill(srv, SIGKILL);
	kill(srv2, SIGKILL);
	waitpid(srv, NULL, 0);
	waitpid(srv2, NULL, 0);
	sec_rm_tree(base);
	printf("PASS\n");
	return 0;
}
