// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/cmd-record-util.c - what the tests of `evtrace record` and the control verbs
 * share (cmd-record-util.h); the traced program is in cmd-record-child.c.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "cmd-record-util.h"

void crt_begin(char *self, size_t len)
{
	ssize_t sl;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	sl = readlink("/proc/self/exe", self, len - 1);
	T_ASSERT(sl > 0);
	self[sl] = '\0';
}

void crt_private_dir(char *tmpdir, size_t len)
{
	char tmpl[] = "/tmp/evt-crec-XXXXXX", dir[300];

	if (!mkdtemp(tmpl))
		t_fail("mkdtemp");
	snprintf(tmpdir, len, "%s", tmpl);
	snprintf(dir, sizeof(dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
}

void crt_wait_held(pid_t pid)
{
	int ret = 0;

	for (int i = 0; i < 2000; i++) {
		struct ctl_client *c;
		int fd;

		T_ASSERT_OK(ctl_connect_pid(pid, &c));
		ret = ctl_get_buffer(c, NULL, &fd, NULL);
		if (ret == 0) {
			/*
			 * Give it back before closing: a close is released by the
			 * server's thread later, and the next probe would see our own
			 * EBUSY and take it for the record's.
			 */
			close(fd);
			T_ASSERT_OK(ctl_put_buffer(c));
		}
		ctl_close(c);
		if (ret == -EBUSY)
			return;
		usleep(5000);
	}
	t_fail("the record never took the buffer of %d", (int)pid);
}

int crt_tool(char *out, size_t cap, char *const argv[])
{
	char errbuf[8192];
	int st = cmdt_capture(argv, out, cap, errbuf, sizeof(errbuf));

	if (*errbuf)
		fprintf(stderr, "[evtrace %s stderr] %s", argv[1], errbuf);
	return st;
}

int crt_field(const struct evt_tracedat_event *ev, const char *name,
	      const struct evt_tracedat_record *rec, void *out, size_t size)
{
	for (unsigned int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name) && ev->fields[i].size == size &&
		    (size_t)ev->fields[i].offset + size <= rec->size) {
			memcpy(out, (const char *)rec->data + ev->fields[i].offset, size);
			return 0;
		}
	return -1;
}

int crt_read_file(const char *path, struct crt_count *cnt)
{
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	long long next[16];
	int ret;

	memset(cnt, 0, sizeof(*cnt));
	for (int i = 0; i < 16; i++) {
		cnt->in_order[i] = true;
		cnt->increasing[i] = true;
		next[i] = -1;	/* the first record of a worker may have any seq */
	}
	ret = evt_tracedat_open(path, &td);
	if (ret) {
		fprintf(stderr, "%s: %s\n", path, evt_error_detail());
		return ret;
	}
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		const struct evt_tracedat_event *ev = rec.event;
		int worker;

		cnt->total++;
		if (rec.missed && rec.missed != ~0ULL)
			cnt->missed += rec.missed;
		if (!ev || strcmp(ev->system, "ctltest"))
			continue;
		if (crt_field(ev, "worker", &rec, &worker, sizeof(worker)) || worker < 0 ||
		    worker >= 16)
			continue;
		if (!strcmp(ev->name, "ctl_tick")) {
			unsigned long long seq;

			if (crt_field(ev, "seq", &rec, &seq, sizeof(seq)))
				continue;
			if (next[worker] >= 0 && (long long)seq != next[worker])
				cnt->in_order[worker] = false;
			if (next[worker] >= 0 && (long long)seq < next[worker])
				cnt->increasing[worker] = false;
			if (next[worker] < 0)
				cnt->first[worker] = (long long)seq;
			next[worker] = (long long)seq + 1;
			cnt->ticks[worker]++;
		} else {
			cnt->msgs[worker]++;
		}
	}
	evt_tracedat_close(td);
	return ret;
}
