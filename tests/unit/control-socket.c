// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-socket: the control endpoint served in this process, used through
 * the client library: hello, read, write (with the error text of a rejected
 * filter), readdir, stat, a trace_pipe stream stopped by the client, the
 * ring buffer's memfd mapped and drained page by page, a second consumer
 * refused, a stale socket of a dead process removed at start, the socket
 * and directory modes, stop removing the socket.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/control.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/tracefs.h>

#define CREATE_TRACE_POINTS
#include "control-tp.h"

#include "control/ctl_client.h"
#include "helpers.h"

static int count_fill(void *arg, const char *name, unsigned int mode)
{
	if (!strcmp(name, "ctl_tick") && S_ISDIR(mode))
		(*(int *)arg)++;
	return 0;
}

/* A socket file named after a pid that is gone. */
static void make_stale(const char *dir, char *path, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pid_t pid = fork();
	int fd;

	T_ASSERT(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(path, len, "%s/%d.sock", dir, (int)pid);
	T_ASSERT(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(fd >= 0);
	T_ASSERT(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	close(fd);
	T_ASSERT(access(path, F_OK) == 0);
}

int main(void)
{
	char tmpl[] = "/tmp/evt-ctl-XXXXXX", dir[256], path[256], stale[300], err[4096], *buf;
	struct ctl_client *c, *c2;
	struct ctl_bufinfo bi;
	struct evt_ring_buffer *rb;
	struct stat st;
	unsigned int mode = 0;
	ssize_t n;
	int fd, ret, found = 0, records = 0;

	T_ASSERT(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/evtrace", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
	T_ASSERT(mkdir(dir, 0700) == 0);
	make_stale(dir, stale, sizeof(stale));

	T_ASSERT_EQ(evt_control_path(path, sizeof(path)), -ENOENT);
	errno = 1234;
	T_ASSERT_OK(evt_control_start(0));
	T_ASSERT_EQ(errno, 1234);	/* the directory existed (mkdir: EEXIST), errno kept */
	T_ASSERT_OK(evt_control_start(0)); /* idempotent */
	T_ASSERT_OK(evt_control_path(path, sizeof(path)));
	T_ASSERT(access(stale, F_OK) < 0); /* the dead pid's socket is gone */
	T_ASSERT(stat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600);
	T_ASSERT(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);

	T_ASSERT_OK(ctl_connect_pid(getpid(), &c));
	T_ASSERT_EQ(ctl_client_info(c)->pid, getpid());
	T_ASSERT(ctl_client_info(c)->nr_cpus > 0);
	/* not started with EVTRACE_CONTROL_HOLD: no hold pending, RELEASE is harmless */
	T_ASSERT_EQ(ctl_hold_state(c), 0);
	T_ASSERT_EQ(ctl_release(c), 0);
	T_ASSERT_EQ(ctl_hold_state(c), 0);

	/* read, write */
	n = ctl_read(c, "available_events", &buf);
	T_ASSERT(n > 0 && strstr(buf, "ctltest:ctl_tick\n"));
	free(buf);
	T_ASSERT_EQ(ctl_write(c, "set_event", "ctltest:*\n", 10, CTL_WF_TRUNC, err, sizeof(err)),
		    10);
	n = ctl_read(c, "set_event", &buf);
	T_ASSERT(n > 0 && strstr(buf, "ctltest:ctl_tick") && strstr(buf, "ctltest:ctl_msg"));
	free(buf);
	n = ctl_read(c, "no/such/file", &buf);
	T_ASSERT_EQ(n, -ENOENT);

	/* a rejected filter: the errno and the kernel's message */
	n = ctl_write(c, "events/ctltest/ctl_tick/filter", "worker >", 8, CTL_WF_TRUNC, err,
		      sizeof(err));
	T_ASSERT_EQ(n, -EINVAL);
	printf("error text: %s\n", err);
	T_ASSERT(strstr(err, "error") || strstr(err, "parse_error"));
	T_ASSERT_EQ(ctl_write(c, "events/ctltest/ctl_tick/filter", "0", 1, CTL_WF_TRUNC, err,
			      sizeof(err)),
		    1);

	/* a larger read (more than one chunk) at an offset */
	n = ctl_pread(c, "events/ctltest/ctl_tick/format", 6, 5, &buf);
	T_ASSERT_EQ(n, 5);
	T_ASSERT(!strcmp(buf, "ctl_t"));
	free(buf);

	/* readdir, stat */
	T_ASSERT_OK(ctl_readdir(c, "events/ctltest", count_fill, &found));
	T_ASSERT_EQ(found, 1);
	T_ASSERT_OK(ctl_stat(c, "events/ctltest/ctl_tick/enable", &mode));
	T_ASSERT(S_ISREG(mode));
	T_ASSERT_OK(ctl_stat(c, "events", &mode));
	T_ASSERT(S_ISDIR(mode));
	T_ASSERT_EQ(ctl_stat(c, "nope", &mode), -ENOENT);

	/* a stream of trace_pipe: records come, STOP ends it, the connection goes on */
	T_ASSERT_OK(ctl_stream_open(c, "trace_pipe"));
	for (int i = 0; i < 10; i++)
		trace_ctl_tick(1, (unsigned long long)i);
	{
		char sbuf[8192], acc[65536];
		size_t got = 0;

		while (!strstr(acc, "seq=9")) {
			n = ctl_stream_read(c, sbuf, sizeof(sbuf), 10000);
			T_ASSERT(n > 0);
			T_ASSERT(got + (size_t)n < sizeof(acc));
			memcpy(acc + got, sbuf, (size_t)n);
			got += (size_t)n;
			acc[got] = '\0';
		}
		T_ASSERT(strstr(acc, "ctl_tick: worker=1 seq=0"));
		T_ASSERT_EQ(ctl_read(c, "set_event", &buf), -EBUSY); /* stream running */
	}
	T_ASSERT_OK(ctl_stream_stop(c));
	n = ctl_read(c, "tracing_on", &buf);
	T_ASSERT(n > 0 && buf[0] == '1');
	free(buf);

	/*
	 * tracing off ends a stream that read something, as the kernel's trace_pipe gives end of
	 * file then; one that read nothing goes on waiting (`cat trace_pipe` before tracing on)
	 */
	T_ASSERT_OK(ctl_connect_pid(getpid(), &c2));
	T_ASSERT_OK(ctl_stream_open(c2, "trace_pipe"));
	trace_ctl_tick(1, 100);
	{
		char sbuf[8192];

		n = ctl_stream_read(c2, sbuf, sizeof(sbuf), 10000);
		T_ASSERT(n > 0);
		T_ASSERT_EQ(ctl_write(c, "tracing_on", "0", 1, 0, NULL, 0), 1);
		while ((n = ctl_stream_read(c2, sbuf, sizeof(sbuf), 10000)) > 0)
			;
		T_ASSERT_EQ(n, 0); /* the end, not a timeout; the connection serves again */
		T_ASSERT_OK(ctl_stream_open(c2, "trace_pipe")); /* nothing read yet: waits */
		T_ASSERT_EQ(ctl_stream_read(c2, sbuf, sizeof(sbuf), 300), -EAGAIN);
		T_ASSERT_OK(ctl_stream_stop(c2));
		T_ASSERT_EQ(ctl_write(c, "tracing_on", "1", 1, 0, NULL, 0), 1);
	}
	ctl_close(c2);
	c2 = NULL;

	/* the ring buffer: memfd, mapped, drained by pages */
	for (int i = 0; i < 100; i++)
		trace_ctl_msg(2, "hello from the traced process");
	T_ASSERT_OK(ctl_get_buffer(c, NULL, &fd, &bi));
	T_ASSERT(bi.nr_cpus > 0 && bi.page_size >= 256);
	T_ASSERT_OK(ctl_connect_pid(getpid(), &c2));
	{
		int fd2 = -1;

		T_ASSERT_EQ(ctl_get_buffer(c2, "", &fd2, NULL), -EBUSY); /* one consumer */
		T_ASSERT_EQ(ctl_get_buffer(c2, "nosuch", &fd2, NULL), -ENOENT);
	}
	T_ASSERT_OK(evt_ring_buffer_map(fd, &rb));
	{
		unsigned char *page = malloc(bi.page_size);

		T_ASSERT(page);
		for (unsigned int cpu = 0; cpu < bi.nr_cpus; cpu++) {
			while ((ret = evt_ring_buffer_read_page(rb, (int)cpu, page, bi.page_size)) >
			       0) {
				struct evt_rb_page_iter it;
				const struct evt_ring_buffer_event *ev;
				uint64_t ts;

				T_ASSERT_OK(evt_rb_page_iter_init(&it, page, bi.page_size));
				while (evt_rb_page_iter_next(&it, &ev, &ts) > 0)
					records++;
			}
		}
		free(page);
	}
	printf("records drained through the mapping: %d\n", records);
	T_ASSERT_EQ(records, 100);
	evt_ring_buffer_free(rb);
	close(fd);
	T_ASSERT_OK(ctl_put_buffer(c));
	fd = -1;
	T_ASSERT_OK(ctl_get_buffer(c2, "", &fd, NULL)); /* free again */
	close(fd);
	ctl_close(c2);

	/* bad requests do not hurt: a raw frame with a wild length is refused */
	{
		struct ctl_req_hdr h = { .magic = CTL_MAGIC,
					 .op = CTL_OP_READ,
					 .version = CTL_VERSION,
					 .len = 0xffffffffu };
		struct ctl_resp_hdr rh;
		int s = ctl_client_fd(c);

		T_ASSERT(send(s, &h, sizeof(h), 0) == (ssize_t)sizeof(h));
		T_ASSERT(recv(s, &rh, sizeof(rh), MSG_WAITALL) == (ssize_t)sizeof(rh));
		T_ASSERT_EQ(rh.status, -EMSGSIZE);
	}
	ctl_close(c);

	T_ASSERT_OK(evt_control_stop());
	T_ASSERT(access(path, F_OK) < 0);
	T_ASSERT_EQ(ctl_connect_pid(getpid(), &c), -ENOENT);
	T_ASSERT_EQ(evt_control_stop(), -ENOENT);
	rmdir(dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
