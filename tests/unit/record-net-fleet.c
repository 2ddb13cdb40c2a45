// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-net-fleet: a fleet of three "machines" in network namespaces this test
 * makes (`ip netns`), wired by veth pairs with private addresses that exist only
 * inside them:
 *
 *   host A  10.231.1.2 ──veth── 10.231.1.1 ┐
 *                                          ├ collector: trace-cmd listen -p 4000
 *   host B  10.231.2.2 ──veth── 10.231.2.1 ┘
 *
 * Hosts A and B each run `evtrace record -N <collector>:4000` of examples/record-demo
 * at the same time (a different record count each). Both traces arrive whole at the
 * one listener, as two files named after the hosts (fleet-a, fleet-b: the
 * collector's /etc/netns/NS/hosts, as trace-cmd listen needs the peer's address to
 * resolve); `trace-cmd report`
 * reads each, with the count of events the host's program wrote (2 threads x 2
 * events x -n), the same as the host's local copy (-o).
 *
 * The namespaces are named after this process's pid (evtfleet<pid>{a,b,c}), so runs
 * at the same time do not meet; they are deleted at exit whatever happened (atexit:
 * T_ASSERT exits through it), and those of an earlier run that was killed (its pid
 * gone) are deleted first. SKIP (with the reason) where namespaces cannot be made:
 * not root, no `ip`, no CLONE_NEWNET (a container), or no veth.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
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

#define NS_PREFIX "evtfleet"
#define PORT	  4000

static char tmpdir[] = "/tmp/evt-fleet-XXXXXX";
static char tool[4200], demo[4200];
static char ns[3][32]; /* host A, host B, the collector */
static int ns_made;
static pid_t listener = -1;

/* atexit: the listener stopped, every namespace we made deleted, the files removed. */
static void cleanup(void)
{
	if (listener > 0) {
		kill(listener, SIGINT);
		for (int i = 0; i < 100 && waitpid(listener, NULL, WNOHANG) == 0; i++)
			usleep(20000);
		kill(listener, SIGKILL);
		waitpid(listener, NULL, 0);
		listener = -1;
	}
	for (int i = 0; i < ns_made; i++)
		t_sh("ip netns delete %s 2>/dev/null; rm -rf /etc/netns/%s", ns[i], ns[i]);
	ns_made = 0;
	if (tmpdir[strlen(tmpdir) - 1] != 'X')
		t_sh("rm -rf %s", tmpdir);
}

/* The namespaces of earlier runs whose process is gone (killed before its atexit). */
static void delete_stale(void)
{
	FILE *p = popen("ip netns list 2>/dev/null", "r");
	char line[256];

	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		char name[64];
		long pid;

		if (sscanf(line, "%63s", name) != 1 || strncmp(name, NS_PREFIX, 8))
			continue;
		pid = strtol(name + 8, NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH)
			t_sh("ip netns delete %s 2>/dev/null; rm -rf /etc/netns/%s", name, name);
	}
	pclose(p);
}

/*
 * The three namespaces and the two veth pairs; 0, or the reason they cannot be
 * made in @why (then the test skips).
 */
static int make_fleet(char *why, size_t len)
{
	static const char *const tag = "abc";

	for (int i = 0; i < 3; i++) {
		snprintf(ns[i], sizeof(ns[i]), NS_PREFIX "%d%c", (int)getpid(), tag[i]);
		if (t_sh("ip netns add %s 2>/dev/null", ns[i])) {
			snprintf(why, len, "`ip netns add` failed (no network namespaces here)");
			return -1;
		}
		ns_made++;
		if (t_sh("ip -n %s link set lo up", ns[i])) {
			snprintf(why, len, "cannot bring up lo in a namespace");
			return -1;
		}
	}
	/*
	 * The collector's names of the hosts (`ip netns exec` shows /etc/netns/NS/hosts
	 * as /etc/hosts): trace-cmd listen drops a connection whose address does not
	 * resolve, and there is no DNS in the namespace.
	 */
	T_ASSERT_EQ(t_sh("mkdir -p /etc/netns/%s && printf '10.231.1.2 fleet-a\n10.231.2.2 fleet-b\n'"
		       " > /etc/netns/%s/hosts",
		       ns[2], ns[2]),
		    0);
	for (int h = 0; h < 2; h++) {
		/* the veth ends are made in the hosts' namespaces: no name is seen outside */
		if (t_sh("ip -n %s link add eth0 type veth peer name h%c netns %s 2>/dev/null", ns[h],
		       tag[h], ns[2])) {
			snprintf(why, len, "cannot make a veth pair (no veth driver?)");
			return -1;
		}
		T_ASSERT_EQ(
			t_sh("ip -n %s addr add 10.231.%d.2/24 dev eth0 && ip -n %s link set eth0 up"
			   " && ip -n %s addr add 10.231.%d.1/24 dev h%c && ip -n %s link set h%c up",
			   ns[h], h + 1, ns[h], ns[2], h + 1, tag[h], ns[2], tag[h]),
			0);
	}
	return 0;
}

/* Can a process in namespace @name connect to @addr:@port? (a child joins it) */
static int ns_can_connect(const char *name, const char *addr, unsigned int port)
{
	char path[128];
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
		int nfd = open(path, O_RDONLY | O_CLOEXEC), fd;

		if (nfd < 0 || setns(nfd, CLONE_NEWNET))
			_exit(2);
		inet_pton(AF_INET, addr, &a.sin_addr);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		_exit(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : 1);
	}
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void start_listener(void)
{
	char port[16];

	snprintf(port, sizeof(port), "%d", PORT);
	listener = fork();
	T_ASSERT(listener >= 0);
	if (listener == 0) {
		int nul = open("/dev/null", O_WRONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(nul, 1);
		dup2(nul, 2);
		execlp("ip", "ip", "netns", "exec", ns[2], "trace-cmd", "listen", "-p", port, "-d",
		       tmpdir, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 250 && !ns_can_connect(ns[0], "10.231.1.1", PORT); i++)
		usleep(20000);
	T_ASSERT(ns_can_connect(ns[0], "10.231.1.1", PORT));
	T_ASSERT(ns_can_connect(ns[1], "10.231.2.1", PORT));
}

/* The req_ records @cmd (a reader of one file) prints; -1 if it failed. */
static long count(const char *cmd)
{
	char buf[64];
	FILE *p = popen(cmd, "r");
	long n = -1;

	T_ASSERT(p);
	if (fgets(buf, sizeof(buf), p))
		n = atol(buf);
	pclose(p);
	return n;
}

int main(void)
{
	static const int nreq[2] = { 15, 25 };
	char why[128], cmd[16384];
	pid_t rec[2];
	long n;
	int st;

	t_abspath(tool, sizeof(tool), EVT_TOOL);
	t_abspath(demo, sizeof(demo), RECORD_DEMO);
	if (access(tool, X_OK) || access(demo, X_OK))
		t_skip("%s or %s is not built", tool, demo);
	if (geteuid())
		t_skip("network namespaces need root");
	if (t_sh("command -v ip >/dev/null 2>&1"))
		t_skip("no `ip` (iproute2) to make network namespaces");
	if (t_sh("command -v trace-cmd >/dev/null 2>&1"))
		t_skip("trace-cmd is missing (the listener)");
	T_ASSERT(mkdtemp(tmpdir));
	atexit(cleanup);
	delete_stale();
	if (make_fleet(why, sizeof(why))) {
		cleanup();
		t_skip("%s", why);
	}
	start_listener();

	/* both hosts record and send at the same time */
	for (int h = 0; h < 2; h++) {
		rec[h] = fork();
		T_ASSERT(rec[h] >= 0);
		if (rec[h] == 0) {
			snprintf(
				cmd, sizeof(cmd),
				"exec ip netns exec %s %s record -q -N 10.231.%d.1:%d -e 'recdemo:*' "
				"-o %s/host%c.dat -- %s -t 2 -n %d >/dev/null 2>%s/host%c.err",
				ns[h], tool, h + 1, PORT, tmpdir, 'a' + h, demo, nreq[h], tmpdir,
				'a' + h);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
	}
	for (int h = 0; h < 2; h++) {
		T_ASSERT(waitpid(rec[h], &st, 0) == rec[h]);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			t_sh("cat %s/host%c.err >&2", tmpdir, 'a' + h);
			t_fail("host %c: evtrace record -N exited with %d", 'a' + h, st);
		}
	}
	for (int h = 0; h < 2; h++) {
		/* the host's local copy, then the listener's file named after the host */
		snprintf(cmd, sizeof(cmd), "%s report %s/host%c.dat | grep -c req_", tool, tmpdir,
			 'a' + h);
		T_ASSERT_EQ(count(cmd), 2L * 2 * nreq[h]);
		snprintf(cmd, sizeof(cmd),
			 "f=$(ls %s/trace.fleet-%c:*.dat 2>/dev/null) && test -n \"$f\" && "
			 "trace-cmd report \"$f\" 2>/dev/null | grep -c req_",
			 tmpdir, 'a' + h);
		/* the listener writes its file once the connection is closed: allow it 5 s */
		n = count(cmd);
		for (int i = 0; i < 50 && n != 2L * 2 * nreq[h]; i++) {
			usleep(100000);
			n = count(cmd);
		}
		T_ASSERT_EQ(n, 2L * 2 * nreq[h]);
	}
	T_ASSERT_EQ(t_sh("test $(ls %s/trace.*.dat | wc -l) = 2", tmpdir), 0);
	cleanup();
	T_ASSERT_EQ(t_sh("ip netns list | grep -q '^%s%d'", NS_PREFIX, (int)getpid()), 1);
	return T_PASS;
}
