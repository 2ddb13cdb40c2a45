// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctl-util.c - what the verbs that talk to a traced process share: -p,
 * finding the processes that serve a control socket, connecting with a
 * message that says what went wrong.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

int cmd_parse_pid(const char *arg, pid_t *pid)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v <= 0 || v > 0x3fffffff) {
		cmd_error("-p: a process id, not '%s'", arg);
		return -1;
	}
	*pid = (pid_t)v;
	return 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The live pids of the <pid>.sock files of @dir; with @sessions, of its record-* too. */
static void scan_dir(const char *dir, bool sessions, pid_t **pids, int *n, int *cap)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (sessions && !strncmp(de->d_name, "record-", 7)) {
			/* the processes of a command `evtrace record` runs (docs/control.md) */
			char sub[600];

			snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
			scan_dir(sub, false, pids, n, cap);
			continue;
		}
		if (end == de->d_name || strcmp(end, ".sock") || pid <= 0)
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			continue; /* stale: the next endpoint to start removes it */
		for (int i = 0; i < *n; i++)
			if ((*pids)[i] == (pid_t)pid)
				pid = 0;
		if (!pid)
			continue;
		if (*n == *cap) {
			pid_t *np = realloc(*pids, (size_t)(*cap ? *cap * 2 : 16) * sizeof(*np));

			if (!np)
				break;
			*pids = np;
			*cap = *cap ? *cap * 2 : 16;
		}
		(*pids)[(*n)++] = (pid_t)pid;
	}
	closedir(d);
}

int cmd_ctl_pids(pid_t **pidsp)
{
	char dir[256];
	pid_t *pids = NULL;
	int n = 0, cap = 0;

	*pidsp = NULL;
	if (ctl_socket_dir(dir, sizeof(dir)))
		return 0;
	scan_dir(dir, true, &pids, &n, &cap);
	if (n)
		qsort(pids, (size_t)n, sizeof(*pids), pid_cmp);
	*pidsp = pids;
	return n;
}

struct ctl_client *cmd_ctl_connect(pid_t pid)
{
	struct ctl_client *c;
	char path[256];
	int ret;

	if (pid <= 0) {
		pid_t *pids;
		int n = cmd_ctl_pids(&pids);

		if (n != 1) {
			free(pids);
			if (n == 0)
				cmd_error("no traced process (run it with EVTRACE_CONTROL=1, "
					  "or under evtrace record)");
			else
				cmd_error(
					"%d traced processes: say which with -p PID (evtrace list)",
					n);
			return NULL;
		}
		pid = pids[0];
		free(pids);
	}
	ret = ctl_connect_pid(pid, &c);
	if (ret) {
		ctl_socket_path(pid, path, sizeof(path));
		if (ret == -ENOENT || ret == -ECONNREFUSED)
			cmd_error("process %d serves no control socket (%s: %s)", (int)pid, path,
				  strerror(-ret));
		else
			cmd_error("process %d: %s: %s", (int)pid, path, strerror(-ret));
		return NULL;
	}
	return c;
}

void cmd_ctl_error(const char *what, const char *path, int err, const char *text)
{
	cmd_error("%s %s: %s", what, path, strerror(-err));
	if (text && *text)
		fprintf(stderr, "%s%s", text, text[strlen(text) - 1] == '\n' ? "" : "\n");
}

int cmd_names_push(struct cmd_names *l, const char *name)
{
	char **nv = realloc(l->v, (size_t)(l->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	l->v = nv;
	l->v[l->n] = strdup(name);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

int cmd_names_add_dir(void *arg, const char *name, unsigned int mode)
{
	return S_ISDIR(mode) ? cmd_names_push(arg, name) : 0;
}

void cmd_names_free(struct cmd_names *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
