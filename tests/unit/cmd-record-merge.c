// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record-merge: `evtrace record -p A -p B` of two different running
 * programs (this binary's ctltest events, examples/record-demo's recdemo
 * events; both number their events from the same first id) into one file:
 * both processes' records are there, merged by time stamp (non-decreasing
 * through the file), each record with its own process's event (B's ids
 * were renumbered in the file and its pages rewritten), each sequence
 * without a gap; trace-cmd report reads the same counts.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"

#ifndef EVT_RECORD_DEMO
#define EVT_RECORD_DEMO "build/examples/record-demo"
#endif

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setenv("EVTRACE_CONTROL", "1", 1);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static void wait_socket(pid_t pid)
{
	struct ctl_client *c = NULL;

	for (int i = 0; i < 2000 && ctl_connect_pid(pid, &c); i++)
		usleep(5000);
	T_ASSERT(c);
	ctl_close(c);
}

int main(int argc, char **argv)
{
	char tmp[256], file[300], self[4096], pa[16], pb[16], cmd[600];
	long long na = 0, nb = 0, nstart = 0, ndone = 0;
	long long next_req[64];
	bool gap = false, mixed = false, backwards = false;
	unsigned long long last_ts = 0, missed = 0;
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	pid_t a, b, rec_pid;
	int ret;

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	crt_begin(self, sizeof(self));
	if (access(EVT_RECORD_DEMO, X_OK))
		t_skip("%s is not built", EVT_RECORD_DEMO);
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(file, sizeof(file), "%s/merge.dat", tmp);

	a = spawn((char *[]){ self, "--child", "2", "-1", NULL });
	b = spawn((char *[]){ EVT_RECORD_DEMO, "-t", "2", "-d", "0", NULL });
	wait_socket(a);
	wait_socket(b);
	snprintf(pa, sizeof(pa), "%d", (int)a);
	snprintf(pb, sizeof(pb), "%d", (int)b);

	rec_pid = fork();
	T_ASSERT(rec_pid >= 0);
	if (rec_pid == 0) {
		execl(EVT_TOOL, "evtrace", "record", "-q", "-p", pa, "-p", pb, "-o", file,
		      (char *)NULL);
		_exit(127);
	}
	crt_wait_held(a);
	crt_wait_held(b);
	usleep(300 * 1000);
	T_ASSERT(kill(rec_pid, SIGINT) == 0);
	T_ASSERT_EQ(cmdt_wait_status(rec_pid), 0);

	for (int i = 0; i < 64; i++)
		next_req[i] = -1;
	T_ASSERT_OK(evt_tracedat_open(file, &td));
	printf("file: %d CPUs, %d events\n", evt_tracedat_nr_cpus(td), evt_tracedat_nr_events(td));
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		const struct evt_tracedat_event *ev = rec.event;
		int pid = 0;

		if (rec.missed && rec.missed != ~0ULL)
			missed += rec.missed;
		if (rec.ts < last_ts)
			backwards = true;
		last_ts = rec.ts;
		if (!ev || crt_field(ev, "common_pid", &rec, &pid, sizeof(pid)))
			continue;
		if (!strcmp(ev->system, "ctltest")) {
			na++;
			if (crt_field(ev, "common_tgid", &rec, &pid, sizeof(pid)) == 0 && pid != a)
				mixed = true;
		} else if (!strcmp(ev->system, "recdemo")) {
			int worker;
			unsigned long long req;

			nb++;
			if (crt_field(ev, "common_tgid", &rec, &pid, sizeof(pid)) == 0 && pid != b)
				mixed = true;
			if (!strcmp(ev->name, "req_start") &&
			    !crt_field(ev, "worker", &rec, &worker, sizeof(worker)) &&
			    !crt_field(ev, "req", &rec, &req, sizeof(req)) && worker >= 0 &&
			    worker < 64) {
				if (next_req[worker] >= 0 && (long long)req != next_req[worker])
					gap = true;
				next_req[worker] = (long long)req + 1;
				nstart++;
			} else if (!strcmp(ev->name, "req_done")) {
				ndone++;
			}
		}
	}
	evt_tracedat_close(td);
	printf("ctltest records (pid %d): %lld; recdemo records (pid %d): %lld (%lld starts, %lld "
	       "done); missed %llu; %s, %s, %s\n",
	       (int)a, na, (int)b, nb, nstart, ndone, missed,
	       backwards ? "TIME GOES BACK" : "time ordered",
	       mixed ? "EVENTS OF THE WRONG PROCESS" : "events with their process",
	       gap ? "GAP" : "no gap");
	T_ASSERT_EQ(ret, 0);
	T_ASSERT(na > 0 && nb > 0);
	T_ASSERT(!backwards);
	T_ASSERT(!mixed);
	if (!missed)
		T_ASSERT(!gap);

	if (system("command -v trace-cmd >/dev/null 2>&1") == 0) {
		FILE *p;
		long n = 0;

		snprintf(cmd, sizeof(cmd),
			 "trace-cmd report %s 2>/dev/null | grep -c 'req_start:.*path=/'", file);
		p = popen(cmd, "r");
		T_ASSERT(p && fscanf(p, "%ld", &n) == 1);
		pclose(p);
		printf("trace-cmd report: %ld req_start records\n", n);
		T_ASSERT_EQ(n, nstart);
	}
	kill(a, SIGTERM);
	kill(b, SIGTERM);
	T_ASSERT_EQ(cmdt_wait_status(a), 0);
	T_ASSERT_EQ(cmdt_wait_status(b), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(cmd), 0);
	printf("PASS\n");
	return 0;
}
