// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-net: `evtrace record -N 127.0.0.1:PORT` sends its trace to a running
 * `trace-cmd listen -p PORT` (trace-cmd's network protocol): two recordings of
 * examples/record-demo (two "hosts", one after the other) arrive as two files
 * in the listener's directory, `trace-cmd report` reads each with as many
 * records as `evtrace report` reads in the recorder's local copy (-o). Then a
 * listener that goes away mid-protocol (a fake one in this test: the greeting,
 * then it closes): record exits 1 with a message naming -N, and the local file
 * has the whole trace. Only 127.0.0.1. SKIP without trace-cmd or record-demo.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif
#ifdef EVT_RECORD_DEMO
#define RECORD_DEMO EVT_RECORD_DEMO
#else
#define RECORD_DEMO "build/examples/record-demo"
#endif

static char tmpdir[] = "/tmp/evt-recnet-XXXXXX";
static char top[4096], tool[4200], demo[4200];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void resolve(char *out, size_t cap, const char *rel)
{
	snprintf(out, cap, "%s%s%s", rel[0] == '/' ? "" : top, rel[0] == '/' ? "" : "/", rel);
}

/* A listening socket on 127.0.0.1 at a free port; its fd, the port in *@port. */
static int listen_any(unsigned int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	T_ASSERT(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	T_ASSERT_EQ(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	T_ASSERT_EQ(listen(fd, 4), 0);
	T_ASSERT_EQ(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Can we connect to 127.0.0.1:@port? */
static int can_connect(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static pid_t start_listener(unsigned int *port)
{
	char p[16];
	pid_t pid;
	int fd = listen_any(port); /* a free port: taken, then given to trace-cmd */

	close(fd);
	snprintf(p, sizeof(p), "%u", *port);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(nul, 1);
		dup2(nul, 2);
		execlp("trace-cmd", "trace-cmd", "listen", "-p", p, "-d", tmpdir, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 250 && !can_connect(*port); i++)
		usleep(20000);
	T_ASSERT(can_connect(*port));
	return pid;
}

/* The records `evtrace report` reads in @path. */
static long count_records(const char *path)
{
	char cmd[8192], buf[64];
	FILE *p;
	long n = -1;

	snprintf(cmd, sizeof(cmd), "%s report %s | grep -c req_", tool, path);
	p = popen(cmd, "r");
	T_ASSERT(p);
	if (fgets(buf, sizeof(buf), p))
		n = atol(buf);
	pclose(p);
	return n;
}

int main(void)
{
	char local[300], cmd[16384];
	unsigned int port;
	pid_t lpid;
	long n[2];
	int st;

	T_ASSERT(getcwd(top, sizeof(top)));
	resolve(tool, sizeof(tool), EVT_TOOL);
	resolve(demo, sizeof(demo), RECORD_DEMO);
	if (access(tool, X_OK) || access(demo, X_OK))
		t_skip("%s or %s is not built", tool, demo);
	if (sh("command -v trace-cmd >/dev/null 2>&1"))
		t_skip("trace-cmd is missing (the listener)");
	T_ASSERT(mkdtemp(tmpdir));

	lpid = start_listener(&port);
	for (int h = 0; h < 2; h++) {
		snprintf(local, sizeof(local), "%s/host%d.dat", tmpdir, h);
		T_ASSERT_EQ(sh("%s record -q -N 127.0.0.1:%u -e 'recdemo:*' -o %s -- %s -t 2 -n %d "
			       ">/dev/null",
			       tool, port, local, demo, 10 + 10 * h),
			    0);
		n[h] = count_records(local);
		T_ASSERT_EQ(n[h], 2L * 2 * (10 + 10 * h));
	}
	/* the listener's files: trace.localhost:PORT.dat, one per connection */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && test $(ls trace.*.dat | wc -l) = 2 && for f in trace.*.dat; do "
		 "trace-cmd report \"$f\" 2>/dev/null | grep -c req_; done | sort -n | "
		 "tr '\\n' ' ' | grep -qx '%ld %ld '",
		 tmpdir, n[0], n[1]);
	/* the listener writes its file after it closed the connection: allow it 5 s */
	for (int i = 0; i < 50 && sh("%s", cmd); i++)
		usleep(100000);
	T_ASSERT_EQ(sh("%s", cmd), 0);
	kill(lpid, SIGINT);
	waitpid(lpid, &st, 0);

	/* a listener that goes away: a socket that greets, then closes */
	{
		int lfd = listen_any(&port), cfd;
		pid_t rpid = fork();

		T_ASSERT(rpid >= 0);
		snprintf(local, sizeof(local), "%s/kept.dat", tmpdir);
		if (rpid == 0) {
			snprintf(cmd, sizeof(cmd),
				 "%s record -q -N 127.0.0.1:%u -e 'recdemo:*' -o %s -- %s -t 2 -n 20 "
				 ">/dev/null 2>%s.err",
				 tool, port, local, demo, local);
			close(lfd);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		cfd = accept(lfd, NULL, NULL);
		T_ASSERT(cfd >= 0);
		T_ASSERT_EQ(write(cfd, "tracecmd", 8), 8);
		close(cfd);
		close(lfd);
		T_ASSERT(waitpid(rpid, &st, 0) == rpid);
		T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
		T_ASSERT_EQ(sh("grep -q -- '-N 127.0.0.1:%u: .*the trace is in %s' %s.err", port,
			       local, local),
			    0);
		T_ASSERT_EQ(count_records(local), 2L * 2 * 20);
	}
	sh("rm -rf %s", tmpdir);
	return T_PASS;
}
