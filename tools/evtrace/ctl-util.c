// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctl-util.c - what the verbs that talk to a traced process share: -p,
 * finding the processes that serve a control socket, connecting with a
 * message that says what went wrong.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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

/* Add @pid to the list (once). */
static void pids_add(pid_t pid, pid_t **pids, int *n, int *cap)
{
	for (int i = 0; i < *n; i++)
		if ((*pids)[i] == pid)
			return;
	if (*n == *cap) {
		pid_t *np = realloc(*pids, (size_t)(*cap ? *cap * 2 : 16) * sizeof(*np));

		if (!np)
			return;
		*pids = np;
		*cap = *cap ? *cap * 2 : 16;
	}
	(*pids)[(*n)++] = pid;
}

/*
 * The live pids of the <pid>.sock files of the directory open at @dfd (checked:
 * ours, nobody else can write to it); with @sessions, of its record-* too.
 * Takes @dfd (closed here).
 */
static void scan_dir(int dfd, bool sessions, pid_t **pids, int *n, int *cap)
{
	struct dirent *de;
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		struct stat st;

		if (sessions && !strncmp(de->d_name, "record-", 7)) {
			/* the processes of a command `evtrace record` runs (docs/control.md) */
			int sfd = openat(dfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sfd >= 0 && ctl_dir_check_fd(sfd, NULL, 0) == 0)
				scan_dir(sfd, false, pids, n, cap);
			else if (sfd >= 0)
				close(sfd);
			continue;
		}
		if (end == de->d_name || strcmp(end, ".sock") || pid <= 0 || pid > INT32_MAX)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			continue; /* stale: the next endpoint to start removes it */
		pids_add((pid_t)pid, pids, n, cap);
	}
	closedir(d);
	close(dfd);
}

int cmd_ctl_pids(pid_t **pidsp)
{
	char dir[256], why[CTL_DIR_WHY_MAX];
	pid_t *pids = NULL;
	int n = 0, cap = 0, dfd;

	*pidsp = NULL;
	if (ctl_socket_dir(dir, sizeof(dir)))
		return 0;
	dfd = ctl_dir_open(dir, why, sizeof(why));
	if (dfd < 0) {
		/* missing: nothing runs; anything else is worth a word */
		if (dfd != -ENOENT)
			cmd_error("socket directory refused: %s", why[0] ? why : strerror(-dfd));
		return 0;
	}
	scan_dir(dfd, true, &pids, &n, &cap);
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
		const char *why = ctl_last_why();

		ctl_socket_path(pid, path, sizeof(path));
		if (why[0])
			cmd_error("process %d: %s", (int)pid, why);
		else if (ret == -ENOENT || ret == -ECONNREFUSED)
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
	char esc[1024];

	cmd_error("%s %s: %s", what, cmd_escape(path, esc, sizeof(esc)),
		  err == -ETIMEDOUT && ctl_last_why()[0] ? ctl_last_why() : strerror(-err));
	/* the process's text: its control characters escaped, its lines kept */
	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1),
			 l);
		fprintf(stderr, "%s\n", cmd_escape(line, esc, sizeof(esc)));
		l += n;
		if (*l == '\n')
			l++;
	}
}

const char *cmd_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return "";
	for (; s && *s && o + 5 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch >= 0x7f || ch == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
		else
			buf[o++] = (char)ch;
	}
	buf[o] = '\0';
	return buf;
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
