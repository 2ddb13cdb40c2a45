// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record-faults: `evtrace record` keeps what it recorded when the run
 * goes wrong midway, says exactly what went wrong, and exits non-zero.
 *
 * - A corrupted shared buffer: the traced program writes 1000 events,
 *   then something scribbles its ring buffer's write positions (white-box:
 *   src/ringbuf/rb_internal.h), so reading fails with EBADMSG. The
 *   recorder names the process, the CPU and the corruption, lets the
 *   process go, writes the 1000 events as a trace.dat (evtrace report,
 *   trace-cmd report), and exits 1.
 * - ENOSPC (as root: a 256 KiB tmpfs mounted for the test; else SKIP of
 *   this part): the output's file system fills while a program writes
 *   40000 events. The recorder says the file system is full, keeps the
 *   journal (`evtrace report` reads it as it is: each worker's events in
 *   order from 0), and exits 1; once the tmpfs is made larger,
 *   `evtrace recover` makes it a trace.dat that trace-cmd reads alike.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/prctl.h>

#include <evtrace/control.h>
#include <evtrace/instance.h>

#include "control-tp.h"

#include "cmd-record-util.h"
#include "ringbuf/rb_internal.h"

static char out[1 << 24];
static char errbuf[1 << 16];

/* The traced program of the corruption case. */
static int corrupt_main(void)
{
	struct evt_ring_buffer *rb;
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	for (int i = 0; i < 1000; i++)
		trace_ctl_tick(0, (unsigned long long)i);
	nanosleep(&ts, NULL);	/* drained meanwhile */
	rb = evt_instance_ring_buffer(evt_instance_top());
	if (!rb)
		return 3;
	for (int c = 0; c < rb->nr_cpus; c++) {
		/* a write offset that is not 4-byte aligned: no valid buffer has one */
		uint64_t *pos = &rb->cpus[c].shm->w.hi;

		*pos |= 2;
	}
	nanosleep(&ts, NULL);
	return 0;
}

/* Run `evtrace ARGS`: its exit status; stderr in errbuf[]. */
static int tool(char *const argv[])
{
	int fd, e[2], st;
	pid_t pid;

	T_ASSERT_OK(pipe(e));
	pid = cmdt_run(argv, &fd, e[1]);
	close(e[1]);
	cmdt_read_all(fd, out, sizeof(out));
	cmdt_read_all(e[0], errbuf, sizeof(errbuf));
	st = cmdt_wait_status(pid);
	return st;
}

/* The ctl_tick lines of `evtrace report` in out[]: counts, each worker's seqs in order. */
static void report_ticks(struct crt_count *cnt)
{
	long long next[16];

	memset(cnt, 0, sizeof(*cnt));
	for (int i = 0; i < 16; i++) {
		cnt->in_order[i] = true;
		next[i] = -1;
	}
	for (const char *p = strstr(out, "ctl_tick: "); p; p = strstr(p + 1, "ctl_tick: ")) {
		int w;
		long long seq;

		if (sscanf(p, "ctl_tick: worker=%d seq=%lld", &w, &seq) != 2 || w < 0 || w >= 16)
			continue;
		if (next[w] >= 0 && seq != next[w])
			cnt->in_order[w] = false;
		if (next[w] < 0)
			cnt->first[w] = seq;
		next[w] = seq + 1;
		cnt->ticks[w]++;
	}
}

static long tc_ticks(const char *file)
{
	char cmd[600];
	long n = -1;
	FILE *p;

	if (system("command -v trace-cmd >/dev/null 2>&1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null | grep -c ctl_tick:", file);
	p = popen(cmd, "r");
	T_ASSERT(p && fscanf(p, "%ld", &n) == 1);
	pclose(p);
	return n;
}

static void corrupted(const char *self, const char *tmp)
{
	char file[300];
	struct crt_count cnt;
	char *rec[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick", "-o", file, "--",
			(char *)self, "--corrupt", NULL };
	int st;

	snprintf(file, sizeof(file), "%s/corrupt.dat", tmp);
	st = tool(rec);
	printf("corrupted buffer: exit %d: %s", st, errbuf);
	T_ASSERT_EQ(st, 1);
	T_ASSERT(strstr(errbuf, "Bad message") && strstr(errbuf, "corrupted"));
	T_ASSERT(strstr(errbuf, "1000 events drained before are kept"));
	T_ASSERT_OK(crt_read_file(file, &cnt));
	T_ASSERT_EQ(cnt.ticks[0], 1000);
	T_ASSERT(cnt.in_order[0]);
	{
		long n = tc_ticks(file);

		T_ASSERT(n < 0 || n == 1000);
	}
}

static void enospc(const char *self, const char *tmp)
{
	char dir[300], file[300];
	struct crt_count cnt;
	char *rec[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick", "-o", file, "--",
			(char *)self, "--child", "2", "20000", NULL };
	char *rep[] = { "evtrace", "report", file, NULL };
	char *rcv[] = { "evtrace", "recover", file, NULL };
	int st;

	snprintf(dir, sizeof(dir), "%s/full", tmp);
	snprintf(file, sizeof(file), "%s/full/rec.dat", tmp);
	T_ASSERT_OK(mkdir(dir, 0700));
	if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=256k,mode=0700") < 0) {
		printf("ENOSPC: SKIP (needs root to mount a small tmpfs: %s)\n", strerror(errno));
		rmdir(dir);
		return;
	}
	st = tool(rec);
	printf("ENOSPC: exit %d: %s", st, errbuf);
	T_ASSERT_EQ(st, 1);
	T_ASSERT(strstr(errbuf, "No space left on device") && strstr(errbuf, "file system is full"));
	T_ASSERT(strstr(errbuf, "evtrace recover"));
	/* as it is: the journal, read */
	T_ASSERT_EQ(tool(rep), 0);
	T_ASSERT(strstr(errbuf, "unfinished recording"));
	report_ticks(&cnt);
	printf("ENOSPC: %ld ticks kept (worker 0 %ld, worker 1 %ld)\n", cnt.ticks[0] + cnt.ticks[1],
	       cnt.ticks[0], cnt.ticks[1]);
	T_ASSERT(cnt.ticks[0] + cnt.ticks[1] > 1000);
	for (int w = 0; w < 2; w++)
		T_ASSERT(cnt.in_order[w] && (!cnt.ticks[w] || cnt.first[w] == 0));
	/* room again: recovered in place */
	T_ASSERT_OK(mount("tmpfs", dir, "tmpfs", MS_REMOUNT, "size=4m"));
	T_ASSERT_EQ(tool(rcv), 0);
	{
		struct crt_count c2;
		long n;

		T_ASSERT_OK(crt_read_file(file, &c2));
		T_ASSERT_EQ(c2.ticks[0] + c2.ticks[1], cnt.ticks[0] + cnt.ticks[1]);
		n = tc_ticks(file);
		printf("ENOSPC: recovered: %ld ticks; trace-cmd report: %ld\n",
		       c2.ticks[0] + c2.ticks[1], n);
		T_ASSERT(n < 0 || n == c2.ticks[0] + c2.ticks[1]);
	}
	T_ASSERT_OK(umount(dir));
	rmdir(dir);
}

int main(int argc, char **argv)
{
	char tmp[256], self[4096], cmd[600];

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--corrupt"))
		return corrupt_main();
	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	corrupted(self, tmp);
	enospc(self, tmp);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(cmd), 0);
	printf("PASS\n");
	return 0;
}
