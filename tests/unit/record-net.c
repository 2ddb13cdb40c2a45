// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-net: `evtrace record -N 127.0.0.1:PORT` sends its trace to a running
 * `trace-cmd listen -p PORT` (trace-cmd's network protocol). Two recordings of
 * examples/record-demo at the same time (two hosts in unit/record-net-fleet):
 *
 * The first speaks version 3 to the listener, with --date: the listener's file
 * has our options, so `trace-cmd report` prints it exactly as the local copy
 * (wall-clock times). The second goes to a fake listener of version 1 only (it
 * closes on "-1V3", as trace-cmd 3.1's listener does on a version it does not
 * know, then takes version 1 on a new connection and keeps what it gets): record
 * falls back to version 1, and what arrived is the local file's bytes, the
 * metadata up to the CPU count, each CPU's pages. (Not trace-cmd's listener
 * behind a proxy: one that acknowledges the metadata before the listener has it
 * races the listener's readers, whose end stops its read of the metadata.)
 *
 * Then two listeners that go away (fakes): one that greets and closes, one of
 * version 3 that takes the settings, gives ports, reads the first bytes of the
 * metadata and dies. record exits 1 with a message naming -N and the local file,
 * which has the whole trace. Only 127.0.0.1. SKIP without trace-cmd or record-demo.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
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
#include "net-test.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif
#ifdef EVT_RECORD_DEMO
#define RECORD_DEMO EVT_RECORD_DEMO
#else
#define RECORD_DEMO "build/examples/record-demo"
#endif

static char tmpdir[] = "/tmp/evt-recnet-XXXXXX";
static char tool[4200], demo[4200];

/* trace-cmd listen on a free port of 127.0.0.1, writing into the scratch directory. */
static pid_t start_listener(unsigned int *port)
{
	*port = tnet_free_port();
	return tnet_trace_cmd_listen(*port, tmpdir);
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

/*
 * A listener of version 1 only: the first connection is greeted, "-1V3\0" read and
 * closed (what trace-cmd 3.1's listener does on a version it does not know); on
 * the second, version 1's settings (CPU count, page size, the TCP option) are
 * read, a port given per CPU (up to 8), and what comes is kept in tmpdir: the
 * metadata in v1-meta, each CPU's pages in v1-cpuN.
 */
static pid_t start_v1_listener(unsigned int *port)
{
	int lfd = tnet_listen_any(port);
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char v[16], list[80] = "", path[400];
		int c, fds[9], out[9], lfds[8], cpus;
		unsigned int ports[8];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		c = tnet_v1_accept(lfd, &cpus);
		tnet_read_string(c, v, sizeof(v)); /* the page size */
		tnet_read_string(c, v, sizeof(v));
		if (strcmp(v, "1"))
			_exit(5);
		tnet_read_string(c, v, sizeof(v));
		tnet_read_string(c, v, sizeof(v));
		if (strcmp(v, "TCP"))
			_exit(5);
		for (int i = 0; i < cpus; i++) {
			lfds[i] = tnet_listen_any(&ports[i]);
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u",
				 i ? "," : "", ports[i]);
		}
		if (write(c, list, strlen(list) + 1) != (ssize_t)strlen(list) + 1)
			_exit(2);
		fds[0] = c;
		for (int i = 0; i <= cpus; i++) {
			if (i)
				fds[i] = accept(lfds[i - 1], NULL, NULL);
			if (i)
				snprintf(path, sizeof(path), "%s/v1-cpu%d", tmpdir, i - 1);
			else
				snprintf(path, sizeof(path), "%s/v1-meta", tmpdir);
			out[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fds[i] < 0 || out[i] < 0)
				_exit(2);
		}
		if (tnet_take_all(fds, cpus + 1, out))
			_exit(7);
		_exit(0);
	}
	close(lfd);
	return pid;
}

/*
 * What the listener of version 1 got is the local file's: the metadata its first
 * bytes, up to the CPU count and the options (which version 1's listener writes
 * itself), the CPUs' pages, in order, its last bytes.
 */
static void check_v1(const char *local)
{
	T_ASSERT_EQ(t_sh("cd %s && m=$(stat -c %%s v1-meta) && test $m -gt 0 && "
		       "cmp -s -n $m v1-meta %s && "
		       "test \"$(tail -c +$((m + 5)) %s | head -c 9)\" = 'options  ' && "
		       "cat v1-cpu* > v1-data && d=$(stat -c %%s v1-data) && test $d -gt 0 && "
		       "tail -c $d %s | cmp -s - v1-data",
		       tmpdir, local, local, local),
		    0);
}

/*
 * A listener of version 3 that dies mid-stream: the settings taken, every CPU
 * given one port (whose connections are never accepted), the first 64 bytes of
 * the metadata read, then it exits (what it did not read: the peer gets a reset).
 */
static pid_t start_dying_v3(unsigned int *port)
{
	unsigned int dport;
	int lfd = tnet_listen_any(port), dfd = tnet_listen_any(&dport);
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		uint32_t hdr[3], cpus;
		char buf[8192], ports[16];
		int c, len, plen;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		c = accept(lfd, NULL, NULL);
		if (c < 0 || write(c, "tracecmd", 8) != 8)
			_exit(2);
		tnet_read_full(c, buf, 5);
		if (write(c, "V3", 3) != 3)
			_exit(2);
		tnet_read_full(c, buf, 8);
		if (write(c, "OK", 2) != 2)
			_exit(2);
		tnet_read_full(c, hdr, sizeof(hdr));
		if (ntohl(hdr[0]) < 16 || ntohl(hdr[0]) > sizeof(buf))
			_exit(5);
		tnet_read_full(c, buf, ntohl(hdr[0]) - 12);
		memcpy(&cpus, buf, 4); /* TINIT: the CPU count first */
		plen = snprintf(ports, sizeof(ports), "%u", dport) + 1;
		len = 16;
		for (uint32_t i = 0; i < ntohl(cpus) && len + plen < (int)sizeof(buf);
		     i++, len += plen)
			memcpy(buf + len, ports, (size_t)plen);
		hdr[0] = htonl((uint32_t)len);
		hdr[1] = htonl(2); /* RINIT */
		hdr[2] = htonl(4);
		memcpy(buf, hdr, 12);
		memcpy(buf + 12, &cpus, 4);
		if (write(c, buf, (size_t)len) != len)
			_exit(2);
		tnet_read_full(c, buf, 64);
		_exit(0);
	}
	close(lfd);
	close(dfd);
	return pid;
}

/* `evtrace record -N` to a listener that goes away: exit 1, the message, the file whole. */
static void check_gone(const char *name, unsigned int port)
{
	char local[300], cmd[16384];
	int st;

	snprintf(local, sizeof(local), "%s/%s.dat", tmpdir, name);
	snprintf(cmd, sizeof(cmd),
		 "%s record -q -N 127.0.0.1:%u -e 'recdemo:*' -o %s -- %s -t 2 -n 20 "
		 ">/dev/null 2>%s.err",
		 tool, port, local, demo, local);
	st = t_sh("%s", cmd);
	if (st != 1)
		t_sh("cat %s.err >&2", local);
	T_ASSERT_EQ(st, 1);
	/* said when it broke: while streaming (goes on into), or at the end (is in) */
	T_ASSERT_EQ(t_sh("grep -Eq -- '-N 127.0.0.1:%u: .*(goes on into %s, which will hold all "
			 "of it|the trace is in %s)' %s.err",
			 port, local, local, local),
		    0);
	T_ASSERT_EQ(count_records(local), 2L * 2 * 20);
}

/* The listener's file from 127.0.0.1 of @n records (it writes it after the connection ends). */
static char *wait_file(long n, const char *skip)
{
	static char name[4400];
	char cmd[8192];

	snprintf(cmd, sizeof(cmd),
		 "cd %s && for f in trace.*.dat; do [ \"$f\" = '%s' ] && continue; "
		 "[ \"$(trace-cmd report \"$f\" 2>/dev/null | grep -c req_)\" = %ld ] && "
		 "echo \"$f\" && break; done",
		 tmpdir, skip, n);
	for (int i = 0; i < 50; i++) {
		FILE *p = popen(cmd, "r");

		T_ASSERT(p);
		name[0] = 0;
		if (fgets(name, sizeof(name), p))
			name[strcspn(name, "\n")] = 0;
		pclose(p);
		if (name[0])
			return name;
		usleep(100000);
	}
	t_fail("the listener wrote no file of %ld records in %s", n, tmpdir);
}

int main(void)
{
	char local[300], first[4400], cmd[16384];
	unsigned int port, pport;
	pid_t lpid, proxy, rec[2];
	int st;

	t_abspath(tool, sizeof(tool), EVT_TOOL);
	t_abspath(demo, sizeof(demo), RECORD_DEMO);
	if (access(tool, X_OK) || access(demo, X_OK))
		t_skip("%s or %s is not built", tool, demo);
	if (t_sh("command -v trace-cmd >/dev/null 2>&1"))
		t_skip("trace-cmd is missing (the listener)");
	T_ASSERT(mkdtemp(tmpdir));
	signal(SIGPIPE, SIG_IGN);

	lpid = start_listener(&port);
	proxy = start_v1_listener(&pport);
	/*
	 * At the same time (the listener serves each connection in a child of its own):
	 * host 0, version 3, --date: the listener's file is the local copy to trace-cmd;
	 * host 1, to a listener of version 1 (a fake that keeps what it gets): the
	 * fallback, the local file's bytes over version 1.
	 */
	for (int h = 0; h < 2; h++) {
		rec[h] = fork();
		T_ASSERT(rec[h] >= 0);
		if (rec[h] == 0) {
			snprintf(cmd, sizeof(cmd),
				 "exec %s record -q --date -N 127.0.0.1:%u -e 'recdemo:*' -o "
				 "%s/host%d.dat -- %s -t 2 -n %d >/dev/null",
				 tool, h ? pport : port, tmpdir, h, demo, 10 + 10 * h);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
	}
	for (int h = 0; h < 2; h++) {
		T_ASSERT(waitpid(rec[h], &st, 0) == rec[h]);
		T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		snprintf(local, sizeof(local), "%s/host%d.dat", tmpdir, h);
		T_ASSERT_EQ(count_records(local), 2L * 2 * (10 + 10 * h));
	}
	T_ASSERT(waitpid(proxy, &st, 0) == proxy);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(first, sizeof(first), "%s", wait_file(2L * 2 * 10, ""));
	T_ASSERT_EQ(
		t_sh("cd %s && trace-cmd report '%s' 2>/dev/null | grep req_ > a.txt && "
		   "trace-cmd report host0.dat 2>/dev/null | grep req_ > b.txt && cmp -s a.txt b.txt"
		   " && trace-cmd dump --options -i '%s' 2>&1 | grep -q 'Option DATE'",
		   tmpdir, first, first),
		0);
	snprintf(local, sizeof(local), "%s/host1.dat", tmpdir);
	check_v1(local);
	T_ASSERT_EQ(t_sh("test $(ls %s/trace.*.dat | wc -l) = 1", tmpdir), 0);
	kill(lpid, SIGINT);
	waitpid(lpid, &st, 0);

	/* listeners that go away: after the greeting; of version 3, mid-stream */
	{
		int lfd = tnet_listen_any(&port), cfd;
		pid_t fake = fork();

		T_ASSERT(fake >= 0);
		if (fake == 0) {
			alarm(30);
			cfd = accept(lfd, NULL, NULL);
			if (cfd < 0 || write(cfd, "tracecmd", 8) != 8)
				_exit(2);
			_exit(0);
		}
		close(lfd);
		check_gone("gone-greeting", port);
		waitpid(fake, &st, 0);
	}
	proxy = start_dying_v3(&port);
	check_gone("gone-midstream", port);
	T_ASSERT(waitpid(proxy, &st, 0) == proxy);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	t_sh("rm -rf %s", tmpdir);
	return T_PASS;
}
