// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-accept-backoff: the endpoint's accept thread does not spin when
 * the process has no descriptor left (issue 11, defect 6). With every
 * descriptor in use and a client waiting in the queue, accept() fails with
 * EMFILE again and again; the thread waits 100 ms between tries. Over
 * about a second it tries at most a few dozen times (spinning, it tried
 * hundreds of thousands of times), each failure is counted in
 * evt_control_stats(3), and a line on stderr says so once. Once
 * descriptors are free again, the waiting client is served.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "control/ctl_client.h"
#include "helpers.h"

int main(void)
{
	char tmpl[] = "/tmp/evt-emfile-XXXXXX", dir[300], path[300];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct evt_control_stats st;
	struct ctl_resp_hdr h;
	struct rlimit old, low;
	int fds[4096], nfds = 0, cfd;
	unsigned long errs;

	T_ASSERT(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
	T_ASSERT_OK(evt_control_start(0));
	T_ASSERT_OK(evt_control_path(path, sizeof(path)));
	memcpy(sa.sun_path, path, strlen(path) + 1);

	/* the client's socket first, then no descriptor left */
	cfd = socket(AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(cfd >= 0);
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &old) == 0);
	low = old;
	low.rlim_cur = 256;
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &low) == 0);
	while (nfds < 4096) {
		int fd = dup(0);

		if (fd < 0) {
			T_ASSERT_EQ(errno, EMFILE);
			break;
		}
		fds[nfds++] = fd;
	}
	T_ASSERT_OK(evt_control_stats(&st));
	errs = st.accept_errors;
	T_ASSERT(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	sleep(1);
	T_ASSERT_OK(evt_control_stats(&st));
	printf("accept errors in about 1 s: %lu (last: %s)\n", st.accept_errors - errs,
	       strerror(-st.last_error));
	T_ASSERT(st.accept_errors - errs >= 1);
	T_ASSERT(st.accept_errors - errs <= 40);
	T_ASSERT_EQ(st.last_error, -EMFILE);

	/* descriptors back: the client that waited gets its hello */
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &old) == 0);
	T_ASSERT(recv(cfd, &h, sizeof(h), MSG_WAITALL) == (ssize_t)sizeof(h));
	T_ASSERT_EQ(h.op, CTL_OP_HELLO);
	T_ASSERT_EQ(h.status, 0);
	close(cfd);
	T_ASSERT_OK(evt_control_stop());
	rmdir(dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
