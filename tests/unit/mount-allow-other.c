// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mount-allow-other: `evtrace mount -o allow_other` does not open the
 * tracing tree to other users (issue 11, defect 3). The file system checks
 * the caller of every request (fuse_get_context()): another user may not
 * open to read or write (tracing_on) or mkdir (instances/NAME); each gets
 * EACCES and nothing changes. The user who mounted (here root) still can.
 * Needs root, /dev/fuse and evtrace built with libfuse3; SKIP otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/control.h>
#include <evtrace/tracefs.h>

#include "cmd-test.h"
#include "sec-util.h"

static char mnt[300];
static pid_t mount_pid;

static void cleanup(void)
{
	if (mount_pid > 0) {
		kill(mount_pid, SIGTERM);
		waitpid(mount_pid, NULL, 0);
		umount2(mnt, MNT_DETACH);
	}
}

/* As the other user: every gesture refused. Exit status: 0, or the step that got through. */
static int intruder(void *arg)
{
	char p[400];
	int fd;

	(void)arg;
	/* (a stat may be answered from the kernel's attribute cache: not a request) */
	snprintf(p, sizeof(p), "%s/tracing_on", mnt);
	fd = open(p, O_WRONLY | O_TRUNC);
	if (fd >= 0) {
		if (write(fd, "0\n", 2) == 2)
			return 11;
		return 12;
	}
	if (errno != EACCES)
		return 13;
	fd = open(p, O_RDONLY);
	if (fd >= 0 || errno != EACCES)
		return 14;
	snprintf(p, sizeof(p), "%s/instances/intruder", mnt);
	if (mkdir(p, 0755) == 0 || errno != EACCES)
		return 15;
	return 0;
}

int main(void)
{
	char tmpl[] = "/tmp/evt-mao-XXXXXX", dir[300], p[400], pidarg[16], buf[8];
	struct sec_user au;
	struct stat st;
	int ret;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	au = sec_user("evtsec-attacker");
	if (access("/dev/fuse", R_OK | W_OK))
		t_skip("no usable /dev/fuse (%s)", strerror(errno));
	T_ASSERT(mkdtemp(tmpl) && chmod(tmpl, 0755) == 0);
	snprintf(dir, sizeof(dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmpl);
	T_ASSERT(mkdir(mnt, 0755) == 0);
	T_ASSERT_OK(evt_control_start(0));
	atexit(cleanup);

	snprintf(pidarg, sizeof(pidarg), "%d", (int)getpid());
	mount_pid = fork();
	T_ASSERT(mount_pid >= 0);
	if (mount_pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(nul, 1);
		execl(EVT_TOOL, EVT_TOOL, "mount", "-o", "allow_other", "-p", pidarg, mnt,
		      (char *)NULL);
		_exit(127);
	}
	snprintf(p, sizeof(p), "%s/tracing_on", mnt);
	for (int i = 0; i < 2000 && stat(p, &st); i++) {
		if (waitpid(mount_pid, &ret, WNOHANG) == mount_pid) {
			mount_pid = 0;
			t_skip("evtrace mount could not mount (no FUSE, or built without it)");
		}
		usleep(5000);
	}
	T_ASSERT(stat(p, &st) == 0);

	ret = sec_run_as(au, intruder, NULL);
	printf("another user, allow_other: %s (step %d)\n", ret ? "got through" : "refused", ret);
	T_ASSERT_EQ(ret, 0);
	/* nothing changed: tracing is on, no instance */
	T_ASSERT(evt_tracefs_read(NULL, "tracing_on", buf, sizeof(buf), 0) > 0 && buf[0] == '1');
	snprintf(p, sizeof(p), "%s/instances/intruder", mnt);
	T_ASSERT(access(p, F_OK) < 0);
	/* the owner may */
	snprintf(p, sizeof(p), "%s/tracing_on", mnt);
	T_ASSERT(access(p, R_OK) == 0);

	cleanup();
	mount_pid = 0;
	T_ASSERT_OK(evt_control_stop());
	rmdir(mnt);
	rmdir(dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
