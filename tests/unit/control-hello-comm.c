// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-hello-comm: the hello names the program, not the endpoint's own
 * thread, when /proc cannot be read (issue 11, defect 10). In a mount
 * namespace of its own, with an empty tmpfs over /proc, the program starts
 * its endpoint and a client connects: the name in the hello is the
 * program's ("control-hello-c", as the kernel truncates it), never
 * "evtrace-ctl". Needs root (a mount namespace); SKIP otherwise.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "control/ctl_client.h"
#include "helpers.h"

int main(void)
{
	char tmpl[] = "/tmp/evt-comm-XXXXXX", dir[300], path[300];
	struct ctl_client *c;

	if (geteuid() != 0)
		t_skip("needs root for a mount namespace");
	if (unshare(CLONE_NEWNS) < 0)
		t_skip("unshare(CLONE_NEWNS): %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("none", "/proc", "tmpfs", 0, "size=4k") < 0)
		t_skip("cannot hide /proc: %s", strerror(errno));
	T_ASSERT(access("/proc/self/comm", F_OK) < 0);
	T_ASSERT(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
	T_ASSERT_OK(evt_control_start(0));
	T_ASSERT_OK(evt_control_path(path, sizeof(path)));
	T_ASSERT_OK(ctl_connect_path(path, &c));
	printf("hello's name without /proc: '%s'\n", ctl_client_info(c)->comm);
	T_ASSERT(strcmp(ctl_client_info(c)->comm, "evtrace-ctl"));
	T_ASSERT(!strcmp(ctl_client_info(c)->comm, "control-hello-c"));
	ctl_close(c);
	T_ASSERT_OK(evt_control_stop());
	rmdir(dir);
	rmdir(tmpl);
	/* /proc back (our namespace only): LeakSanitizer reads it at exit */
	T_ASSERT(umount2("/proc", MNT_DETACH) == 0);
	printf("PASS\n");
	return 0;
}
