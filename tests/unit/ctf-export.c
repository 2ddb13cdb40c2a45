// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctf-export: `evtrace export --format=ctf -o DIR FILE.dat` writes a CTF 1.8
 * trace that babeltrace2 reads with every event and every field value that
 * `evtrace report -R` shows from the trace.dat (tests/unit/ctf-bt2.py compares
 * them CPU by CPU with the bt2 bindings), and the `babeltrace2 DIR` command
 * prints one line per event. Four traces: the tracedat-tp.h events of four
 * threads (integers of each size and sign, char arrays, __data_loc strings,
 * int arrays, dynamic arrays), an overwritten buffer whose lost events come
 * out as discarded-events messages (babeltrace2 prints its warning), and the
 * example programs: events-demo's own trace.dat and record-demo recorded by
 * `evtrace record`. Also: a directory that is not empty is refused.
 * SKIP without babeltrace2 or python3-bt2.
 */
#include <sys/wait.h>

#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include "tracedat-util.h"

#ifndef EVT_TOOL
#define EVT_TOOL "build/tools/evtrace"
#endif
#ifdef EVT_EVENTS_DEMO
#define EVENTS_DEMO EVT_EVENTS_DEMO
#else
#define EVENTS_DEMO "build/examples/events-demo"
#endif
#ifdef EVT_RECORD_DEMO
#define RECORD_DEMO EVT_RECORD_DEMO
#else
#define RECORD_DEMO "build/examples/record-demo"
#endif

static char tmpdir[] = "/tmp/evt-ctf-XXXXXX";
static const char *python = "python3"; /* one that has the bt2 module */

/* Export @dat as CTF, compare with report -R, count babeltrace2's lines. */
static void check_trace(const char *dat, const char *name, int min_discarded)
{
	const char *slash = strrchr(__FILE__, '/');
	static char line[1 << 16]; /* whole lines: a long one must not count twice */
	long events = 0, bt = 0;
	int ret;
	FILE *f;

	T_ASSERT_EQ(t_sh("%s export --format=ctf -o %s/%s %s", EVT_TOOL, tmpdir, name, dat), 0);
	T_ASSERT_EQ(t_sh("%s report -R %s > %s/%s.txt", EVT_TOOL, dat, tmpdir, name), 0);
	ret = t_sh("%s %.*sctf-bt2.py %s/%s %s/%s.txt %d", python, slash ? (int)(slash - __FILE__ + 1) : 0,
		 __FILE__, tmpdir, name, tmpdir, name, min_discarded);
	if (ret == 77)
		t_skip("python3-bt2 is missing");
	T_ASSERT_EQ(ret, 0);
	T_ASSERT_EQ(t_sh("babeltrace2 %s/%s > %s/%s.bt 2>&1", tmpdir, name, tmpdir, name), 0);
	snprintf(line, sizeof(line), "%s/%s.txt", tmpdir, name);
	f = fopen(line, "r");
	T_ASSERT(f);
	while (fgets(line, sizeof(line), f))
		events += strncmp(line, "CPU:", 4) != 0;
	fclose(f);
	snprintf(line, sizeof(line), "%s/%s.bt", tmpdir, name);
	f = fopen(line, "r");
	T_ASSERT(f);
	while (fgets(line, sizeof(line), f))
		bt += line[0] == '[';
	fclose(f);
	printf("%s: %ld events, babeltrace2 printed %ld\n", name, events, bt);
	T_ASSERT(events > 0);
	T_ASSERT_EQ(bt, events);
	if (min_discarded)
		T_ASSERT_EQ(t_sh("grep -q 'discarded' %s/%s.bt", tmpdir, name), 0);
}

static void lost_trace(void)
{
	struct evt_instance *inst = NULL;
	char name[64];
	char *path;

	snprintf(name, sizeof(name), "ctf-lost-%d", (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT_OK(evt_instance_resize_kb(inst, -1, 8));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", "td_ints", true) == 1);
	t_pin_to_cpu(0);
	for (int i = 0; i < 5000; i++)
		trace_td_ints(0, i);
	t_unpin();
	path = td_write_tmp(inst, "ctf-lost");
	check_trace(path, "lost", 1);
	unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));
}

int main(void)
{
	struct evt_instance *inst;
	char *path;
	char dat[300];

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	if (t_sh("command -v babeltrace2 >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1"))
		t_skip("babeltrace2 or python3 is missing (the test oracles)");
	/* Debian's python3-bt2 is for Debian's python3, which may not be first in PATH */
	if (!t_sh("/usr/bin/python3 -c 'import bt2' 2>/dev/null"))
		python = "/usr/bin/python3";
	T_ASSERT(mkdtemp(tmpdir));

	inst = td_record("ctf", NULL);
	path = td_write_tmp(inst, "ctf");
	check_trace(path, "fields", 0);
	/* a directory with something in it is refused, and left as it was */
	T_ASSERT(t_sh("%s export --format=ctf -o %s/fields %s 2>/dev/null", EVT_TOOL, tmpdir,
		    path) == 1);
	T_ASSERT_EQ(t_sh("test -s %s/fields/metadata", tmpdir), 0);
	unlink(path);
	free(path);
	T_ASSERT_OK(evt_instance_destroy(inst));

	lost_trace();

	if (!access(EVENTS_DEMO, X_OK)) {
		snprintf(dat, sizeof(dat), "%s/events-demo.dat", tmpdir);
		T_ASSERT_EQ(t_sh("%s %s > /dev/null", EVENTS_DEMO, dat), 0);
		check_trace(dat, "events-demo", 0);
	}
	if (!access(RECORD_DEMO, X_OK)) {
		snprintf(dat, sizeof(dat), "%s/record-demo.dat", tmpdir);
		T_ASSERT_EQ(t_sh("%s record -q -e 'recdemo:*' -o %s -- %s -t 2 -n 20 > /dev/null",
			       EVT_TOOL, dat, RECORD_DEMO),
			    0);
		check_trace(dat, "record-demo", 0);
	}
	t_sh("rm -rf %s", tmpdir);
	return T_PASS;
}
