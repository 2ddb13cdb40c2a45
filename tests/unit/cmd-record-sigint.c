// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-record-sigint: `evtrace record -- CMD` of a program that runs until
 * stopped, with stderr on a terminal: the live line shows events/s, bytes
 * and losses, rewritten in place; SIGINT to the command stops it cleanly
 * (exit 0), stops the program, and leaves a complete file: every worker's
 * sequence from 0 with no gap (when nothing was lost), readable by
 * evtrace report and trace-cmd report.
 */
#include <errno.h>
#include <pty.h>
#include <stdbool.h>
#include <sys/prctl.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"

static char out[1 << 22];

int main(int argc, char **argv)
{
	char tmp[256], file[300], self[4096], buf[65536], cmd[600];
	struct crt_count cnt;
	int master, slave, ofd;
	pid_t rec;

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	crt_begin(self, sizeof(self));
	if (openpty(&master, &slave, NULL, NULL, NULL))
		t_skip("no pty: %s", strerror(errno));
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(file, sizeof(file), "%s/sigint.dat", tmp);

	rec = cmdt_run((char *[]){ "evtrace", "record", "-e", "ctltest:ctl_tick", "-o", file, "--",
				   self, "--child", "2", "-1", NULL },
		       &ofd, slave);
	close(slave);
	/* the live line, twice (it is rewritten), then Ctrl-C */
	cmdt_read_until(master, buf, sizeof(buf), "events/s");
	cmdt_read_until(master, buf, sizeof(buf), "events/s");
	T_ASSERT(strchr(buf, '\r') && strstr(buf, "record: ") && strstr(buf, " lost"));
	T_ASSERT(kill(rec, SIGINT) == 0);
	T_ASSERT_EQ(cmdt_wait_status(rec), 0);
	close(ofd);
	close(master);

	T_ASSERT_OK(crt_read_file(file, &cnt));
	printf("SIGINT: %ld records, ticks %ld %ld (first %lld %lld), missed %llu\n", cnt.total,
	       cnt.ticks[0], cnt.ticks[1], cnt.first[0], cnt.first[1], cnt.missed);
	for (int i = 0; i < 2; i++) {
		T_ASSERT(cnt.ticks[i] > 0);
		if (cnt.missed == 0) {
			T_ASSERT_EQ(cnt.first[i], 0);
			T_ASSERT(cnt.in_order[i]);
		}
	}
	{
		char *a[] = { "evtrace", "report", file, NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
		T_ASSERT(strstr(out, "ctl_tick: worker=0 seq=0"));
	}
	if (system("command -v trace-cmd >/dev/null 2>&1") == 0) {
		FILE *p;
		long n = 0;

		snprintf(cmd, sizeof(cmd),
			 "trace-cmd report %s 2>/dev/null | grep -c ctl_tick:", file);
		p = popen(cmd, "r");
		T_ASSERT(p && fscanf(p, "%ld", &n) == 1);
		pclose(p);
		printf("trace-cmd report: %ld ctl_tick records\n", n);
		T_ASSERT_EQ(n, cnt.ticks[0] + cnt.ticks[1]);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(cmd), 0);
	printf("PASS\n");
	return 0;
}
