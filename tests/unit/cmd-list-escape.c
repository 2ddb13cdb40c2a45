// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-list-escape: names that come from another process reach the terminal
 * with their control characters escaped (issue 11, defect 2). A traced
 * program renames itself to a string of terminal escape sequences; `evtrace
 * list` and `evtrace stat` show it as \x1b... and print no control byte but
 * their own newlines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <evtrace/control.h>

#include "cmd-test.h"

static char out[1 << 16];

/* No byte below 0x20 but '\n' (and the table's spaces), none at 0x7f or above. */
static int clean(const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch < 0x20 && ch != '\n') || ch >= 0x7f)
			return 0;
	}
	return 1;
}

int main(void)
{
	char tmpl[] = "/tmp/evt-esc-XXXXXX", dir[300], pid[16];

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	T_ASSERT(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
	/* the main thread's name: what the hello reports */
	T_ASSERT(prctl(PR_SET_NAME, "\033]0;x\007\033[2J", 0, 0, 0) == 0);
	T_ASSERT_OK(evt_control_start(0));
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	{
		char *a[] = { "evtrace", "list", "-p", pid, NULL };

		T_ASSERT_EQ(cmdt_simple(a, out, sizeof(out)), 0);
		printf("evtrace list:\n%s", out);
		T_ASSERT(clean(out));
		T_ASSERT(strstr(out, "\\x1b]0;x\\x07\\x1b[2J"));
	}
	{
		char *a[] = { "evtrace", "stat", "-p", pid, NULL };

		T_ASSERT_EQ(cmdt_simple(a, out, sizeof(out)), 0);
		T_ASSERT(clean(out));
		T_ASSERT(strstr(out, "\\x1b]0;x"));
	}
	T_ASSERT_OK(evt_control_stop());
	rmdir(dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
