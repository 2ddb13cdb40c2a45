// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-kernel: our reader on a file the kernel made. Records sched
 * events in a tracefs instance of our own (instances/tracedat-<pid>),
 * `trace-cmd extract -B` then `trace-cmd convert` to version 6, and checks
 * that evt_tracedat_next() gives the records `trace-cmd report -t` prints:
 * the same count, and per line the same CPU, nanosecond time stamp, pid and
 * event name. Skips (77) without root, tracefs or trace-cmd. Leaves the
 * kernel's tracing state as found (the instance is removed).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

#include "helpers.h"

static char inst_dir[128];

static int put(const char *rel, const char *val)
{
	char path[256];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", inst_dir, rel);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fputs(val, f) < 0 ? -EIO : 0;
	if (fclose(f) != 0)
		ret = -EIO;
	return ret;
}

static void cleanup(void)
{
	if (inst_dir[0]) {
		put("events/enable", "0");
		rmdir(inst_dir);	/* trace-cmd extract -B may have removed it */
		inst_dir[0] = '\0';
	}
}

struct line {
	int cpu, pid;
	unsigned long long ts;
	char name[64];
};

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	return strcmp(x->name, y->name);
}

int main(void)
{
	char v7[128], v6[128], cmd[1024], buf[1024], name[64];
	struct line *tc = NULL, *ours = NULL;
	int ntc = 0, nours = 0, ret;
	struct evt_tracedat *td;
	struct evt_tracedat_record rec;
	FILE *f;

	if (geteuid() != 0)
		t_skip("needs root (tracefs)");
	if (access("/sys/kernel/tracing/instances", W_OK))
		t_skip("no writable tracefs at /sys/kernel/tracing");
	if (system("command -v trace-cmd >/dev/null 2>&1") != 0)
		t_skip("trace-cmd is not installed (Debian package trace-cmd)");
	snprintf(name, sizeof(name), "tracedat-%d", (int)getpid());
	snprintf(inst_dir, sizeof(inst_dir), "/sys/kernel/tracing/instances/%s", name);
	if (mkdir(inst_dir, 0755))
		t_skip("cannot create %s", inst_dir);
	atexit(cleanup);
	if (put("events/sched/sched_switch/enable", "1") ||
	    put("events/sched/sched_wakeup/enable", "1"))
		t_skip("cannot enable sched events in %s", inst_dir);
	usleep(100000);
	T_ASSERT_OK(put("tracing_on", "0"));
	snprintf(v7, sizeof(v7), "/tmp/evt-tracedat-kernel-%d.v7", (int)getpid());
	snprintf(v6, sizeof(v6), "/tmp/evt-tracedat-kernel-%d.dat", (int)getpid());
	/* trace-cmd's messages go to a file, shown if it fails */
	snprintf(cmd, sizeof(cmd),
		 "trace-cmd extract -B %s -o %s >%s.log 2>&1 && "
		 "trace-cmd convert --file-version 6 --compression none -i %s -o %s "
		 ">>%s.log 2>&1", name, v7, v6, v7, v6, v6);
	ret = system(cmd);
	cleanup();
	unlink(v7);
	snprintf(buf, sizeof(buf), "%s.log", v6);
	if (ret != 0) {
		snprintf(cmd, sizeof(cmd), "cat %s.log >&2", v6);
		if (system(cmd) != 0)
			fprintf(stderr, "(no trace-cmd output)\n");
		unlink(buf);
		t_fail("trace-cmd extract/convert failed (%d)", ret);
	}
	unlink(buf);

	/* trace-cmd's view: "[name: ]comm-pid [cpu] sec.nsec: event: ..." */
	snprintf(cmd, sizeof(cmd), "trace-cmd report -t %s 2>/dev/null", v6);
	f = popen(cmd, "r");
	T_ASSERT(f);
	while (fgets(buf, sizeof(buf), f)) {
		char *b = strrchr(buf, '['), *dash, *colon;
		struct line l = { 0 };
		unsigned long long s, ns;
		char *br = strstr(buf, "] ");

		if (!strncmp(buf, "cpus=", 5) || !b || !br)
			continue;
		/* the pid is before " [", the cpu inside: find the [NNN] that precedes the time */
		b = br;
		while (b > buf && *b != '[')
			b--;
		if (sscanf(b, "[%d] %llu.%9llu: %63[^:]:", &l.cpu, &s, &ns, l.name) != 4)
			continue;
		dash = b;
		while (dash > buf && dash[-1] == ' ')
			dash--;
		*dash = '\0';
		dash = strrchr(buf, '-');
		T_ASSERT(dash);
		l.pid = atoi(dash + 1);
		l.ts = s * 1000000000ull + ns;
		colon = l.name;
		(void)colon;
		tc = realloc(tc, (size_t)(ntc + 1) * sizeof(*tc));
		T_ASSERT(tc);
		tc[ntc++] = l;
	}
	T_ASSERT_EQ(pclose(f), 0);
	if (ntc == 0)
		t_skip("the kernel recorded no sched events");

	ret = evt_tracedat_open(v6, &td);
	if (ret)
		t_fail("open %s: %d %s", v6, ret, evt_error_detail());
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		struct line l = { 0 };
		const struct evt_field *pidf = NULL;

		T_ASSERT(rec.event);
		for (unsigned int i = 0; i < rec.event->nr_fields; i++)
			if (!strcmp(rec.event->fields[i].name, "common_pid"))
				pidf = &rec.event->fields[i];
		T_ASSERT(pidf && pidf->offset + 4u <= rec.size);
		memcpy(&l.pid, (const char *)rec.data + pidf->offset, 4);
		l.cpu = rec.cpu;
		l.ts = rec.ts;
		snprintf(l.name, sizeof(l.name), "%s", rec.event->name);
		ours = realloc(ours, (size_t)(nours + 1) * sizeof(*ours));
		T_ASSERT(ours);
		ours[nours++] = l;
	}
	if (ret < 0)
		t_fail("next: %s", evt_error_detail());
	T_ASSERT(!strcmp(evt_tracedat_clock(td), "local") || evt_tracedat_clock(td)[0]);
	evt_tracedat_close(td);
	unlink(v6);

	T_ASSERT_EQ(nours, ntc);
	qsort(tc, (size_t)ntc, sizeof(*tc), cmp_line);
	qsort(ours, (size_t)nours, sizeof(*ours), cmp_line);
	for (int i = 0; i < ntc; i++)
		if (tc[i].cpu != ours[i].cpu || tc[i].ts != ours[i].ts ||
		    tc[i].pid != ours[i].pid || strcmp(tc[i].name, ours[i].name))
			t_fail("record %d: trace-cmd cpu %d ts %llu pid %d %s, ours cpu %d ts %llu "
			       "pid %d %s", i, tc[i].cpu, tc[i].ts, tc[i].pid, tc[i].name,
			       ours[i].cpu, ours[i].ts, ours[i].pid, ours[i].name);
	printf("%d kernel records read as trace-cmd reads them\n", ntc);
	free(tc);
	free(ours);
	return T_PASS;
}
