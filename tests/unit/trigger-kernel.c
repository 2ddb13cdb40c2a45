// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger-kernel: the commands of tests/data/trigger/cmds.txt replayed on our
 * cgroup:cgroup_remount (trigger-kernel-tp.h), against what the kernel
 * answered to each (tests/data/trigger/kernel-cgroup_remount.txt, made by
 * kernel-ask-cgroup.sh): the same errno, and then the same trigger lines
 * (the "# Available triggers" header aside: the kernel also lists stacktrace).
 */
#include <stdio.h>
#include <stdlib.h>

#include "trigger-util.h"

#define CREATE_TRACE_POINTS
#include "trigger-kernel-tp.h"

#define RM "events/cgroup/cgroup_remount/trigger"

/* the file without its '#' lines */
static const char *lines(void)
{
	static char out[4096];
	const char *s = cat(RM);
	size_t n = 0;

	for (const char *l = s; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) + 1 : strlen(l);

		if (*l != '#' && n + len < sizeof(out)) {
			memcpy(out + n, l, len);
			n += len;
		}
		l += len;
	}
	out[n] = '\0';
	return out;
}

static void check_one(const char *cmd, const char *err, const char *want)
{
	char buf[600];
	ssize_t ret;
	const char *got;

	snprintf(buf, sizeof(buf), "%s\n", cmd);
	ret = echo(buf, RM);
	got = ret == (ssize_t)strlen(buf) ? "0" : ret == -EEXIST ? "EEXIST" :
	      ret == -EINVAL ? "EINVAL" : "other";
	if (strcmp(got, err))
		t_fail("'%s': %s, the kernel %s", cmd, got, err);
	T_ASSERT_STR(lines(), want);
}

int main(void)
{
	char path[4096], line[600], cmd[600] = "", err[32] = "", want[4096] = "";
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s", __FILE__);
	*strrchr(path, '/') = '\0';
	strcat(path, "/../data/trigger/kernel-cgroup_remount.txt");
	f = fopen(path, "r");
	T_ASSERT(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "> ", 2)) {
			if (*cmd)
				check_one(cmd, err, want), n++;
			snprintf(cmd, sizeof(cmd), "%s", line + 2);
			cmd[strcspn(cmd, "\n")] = '\0';
			want[0] = '\0';
		} else if (!strncmp(line, "= ", 2)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(err, sizeof(err), "%.16s", line + 2);
		} else {
			strncat(want, line, sizeof(want) - strlen(want) - 1);
		}
	}
	if (*cmd)
		check_one(cmd, err, want), n++;
	fclose(f);
	T_ASSERT(n >= 20);
	T_ASSERT_STR(cat(RM), NONE);
	return 0;
}
