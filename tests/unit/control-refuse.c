// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-refuse: another user cannot use the endpoint. With the directory
 * 0700 the file system refuses it; with the directory and socket opened up
 * (as a careless admin might), the server still refuses it after
 * SO_PEERCRED: the hello says EACCES and nothing is served. Needs root
 * (to become nobody); SKIP otherwise. (Our own client refuses first: the
 * directory is not nobody's, see control-peer-check.)
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "control/ctl_client.h"
#include "helpers.h"

/* In a child that became @uid: connect; exit with the error's number. */
static int try_as(uid_t uid, gid_t gid, const char *path, int raw)
{
	pid_t pid = fork();
	int st;

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct ctl_client *c;
		int ret;

		if (setgid(gid) || setuid(uid))
			_exit(100);
		if (raw) {
			/* the connection itself goes through; the hello refuses */
			struct sockaddr_un sa = { .sun_family = AF_UNIX };
			struct ctl_resp_hdr h;
			int fd = socket(AF_UNIX, SOCK_STREAM, 0);

			if (strlen(path) >= sizeof(sa.sun_path))
				_exit(103);
			memcpy(sa.sun_path, path, strlen(path) + 1);
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
				_exit(101);
			if (recv(fd, &h, sizeof(h), MSG_WAITALL) != (ssize_t)sizeof(h) ||
			    h.op != CTL_OP_HELLO || h.len != 0)
				_exit(102);
			_exit(h.status < 0 ? -h.status : 0);
		}
		ret = ctl_connect_path(path, &c);
		if (ret == 0) {
			char *buf;

			/* served: show what it got */
			if (ctl_read(c, "available_events", &buf) >= 0)
				fprintf(stderr, "nobody read: %.60s\n", buf);
			_exit(0);
		}
		_exit(-ret);
	}
	T_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
	return WEXITSTATUS(st);
}

int main(void)
{
	char tmpl[] = "/tmp/evt-ctlr-XXXXXX", dir[256], path[256];
	struct ctl_client *c;
	struct passwd *pw;
	int ret;

	if (geteuid() != 0)
		t_skip("needs root to become another user");
	pw = getpwnam("nobody");
	if (!pw)
		t_skip("no user nobody");
	T_ASSERT(mkdtemp(tmpl));
	T_ASSERT(chmod(tmpl, 0755) == 0);
	snprintf(dir, sizeof(dir), "%s/evtrace", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
	T_ASSERT_OK(evt_control_start(0));
	T_ASSERT_OK(evt_control_path(path, sizeof(path)));

	/* the owner (root) is served */
	T_ASSERT_OK(ctl_connect_path(path, &c));
	ctl_close(c);

	/* nobody, through a 0700 directory: the file system says no */
	ret = try_as(pw->pw_uid, pw->pw_gid, path, 0);
	printf("nobody, directory 0700: %s\n", strerror(ret));
	T_ASSERT_EQ(ret, EACCES);

	/* nobody, with the directory and socket opened up: SO_PEERCRED says no */
	T_ASSERT(chmod(dir, 0777) == 0 && chmod(path, 0666) == 0);
	ret = try_as(pw->pw_uid, pw->pw_gid, path, 1);
	printf("nobody, socket 0666, raw hello: %d\n", ret);
	T_ASSERT_EQ(ret, EACCES);
	/* and our client, as nobody, refuses root's directory before connecting */
	ret = try_as(pw->pw_uid, pw->pw_gid, path, 0);
	printf("nobody, socket 0666, our client: %s\n", strerror(ret));
	T_ASSERT_EQ(ret, EPERM);

	T_ASSERT_OK(evt_control_stop());
	rmdir(dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
