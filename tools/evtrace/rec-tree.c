// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rec-tree.c - `evtrace record -- CMD` (evtrace-record.h): the command
 * started in a session directory of its own (session-dir.c), which is
 * watched; every <pid>.sock that appears there is a process of the tree
 * and becomes a source, held at its first event until it is set up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evtrace-cmd.h"
#include "evtrace-record.h"

static bool sock_eq(const struct rec_sock *a, const struct rec_sock *b)
{
	return a->pid == b->pid && a->ino == b->ino && a->mtim.tv_sec == b->mtim.tv_sec &&
	       a->mtim.tv_nsec == b->mtim.tv_nsec;
}

static struct rec_seen *seen_find(struct rec *r, const struct rec_sock *id)
{
	for (int i = 0; i < r->nseen; i++)
		if (sock_eq(&r->seen[i].id, id))
			return &r->seen[i];
	return NULL;
}

/*
 * Try the socket @path of @pid (inode @ino): a new source (waiting for the
 * hold) when it answers; else remembered, to try again while its pid lives
 * (a socket is bound before it listens) or never again (a stale one).
 */
static void try_socket(struct rec *r, const struct rec_sock *id, const char *path)
{
	struct rec_seen *seen = seen_find(r, id);
	pid_t pid = id->pid;
	struct ctl_client *c = NULL;
	struct rec_src *s;
	int ret;

	if (r->nsrc >= REC_MAX_TREE) {
		cmd_error("record: more than %d processes: process %d is not recorded",
			  REC_MAX_TREE, (int)pid);
		ret = -ENOSPC;
	} else {
		ret = ctl_connect_path(path, &c);
	}
	/*
	 * The endpoint of a source we have already (the same socket seen under
	 * another identity)? Then that source's connection still answers; after
	 * an exec, the old image's is closed.
	 */
	for (int k = 0; !ret && k < r->nsrc; k++) {
		struct ctl_ping ping;

		s = r->src[k];
		if (s->pid == pid && s->state != SRC_DONE && s->c && ctl_ping(s->c, &ping) == 0) {
			ctl_close(c);
			ret = -EEXIST;
		}
	}
	if (!ret) {
		s = rec_src_new(r, pid);
		if (!s) {
			ctl_close(c);
			ret = -ENOMEM;
		} else {
			s->c = c;
			s->id = *id;
			s->state = SRC_WAIT;
			if (seen)
				seen->retry = false;
			return;
		}
	}
	if (!seen) {
		if (r->nseen == r->seencap) {
			int cap = r->seencap ? r->seencap * 2 : 16;
			struct rec_seen *ns = realloc(r->seen, (size_t)cap * sizeof(*ns));

			if (!ns)
				return; /* tried again at the next scan */
			r->seen = ns;
			r->seencap = cap;
		}
		seen = &r->seen[r->nseen++];
		seen->id = *id;
		seen->delay = 0.005;
	} else if (seen->delay < 1) {
		seen->delay *= 2;
	}
	seen->retry = (ret == -ECONNREFUSED || ret == -ENOENT || ret == -ECONNRESET) &&
		      !(kill(pid, 0) < 0 && errno == ESRCH);
	seen->next_try = status_now() + seen->delay;
}

/* Every <pid>.sock of the session directory that is neither a source nor known dead. */
static void scan(struct rec *r)
{
	struct dirent *de;
	int fd = dup(r->sess.fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	r->last_scan = status_now();
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		char path[400], *end;
		long pid = strtol(de->d_name, &end, 10);
		struct rec_seen *seen;
		struct rec_sock id;
		struct stat st;
		bool known = false;

		if (end == de->d_name || strcmp(end, ".sock") || pid <= 0 || pid > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->sess.path, de->d_name);
		/* through the directory's descriptor: the entry itself, not what it points to */
		if (fstatat(r->sess.fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISSOCK(st.st_mode))
			continue;
		id = (struct rec_sock){ .pid = (pid_t)pid, .ino = st.st_ino, .mtim = st.st_mtim };
		for (int k = 0; k < r->nsrc && !known; k++)
			known = sock_eq(&r->src[k]->id, &id);
		seen = seen_find(r, &id);
		if (known || (seen && (!seen->retry || status_now() < seen->next_try)))
			continue;
		try_socket(r, &id, path);
	}
	closedir(d);
}

/*
 * New sockets: scan when inotify says the directory changed, when a
 * socket refused us (it listens soon), and every second anyway (the
 * fallback: no inotify, an overflowed queue). @force: now.
 */
void rec_discover(struct rec *r, bool force)
{
	bool due = force || status_now() - r->last_scan >= 1;

	if (r->ino_fd >= 0) {
		char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

		while (read(r->ino_fd, buf, sizeof(buf)) > 0)
			due = true;
	}
	for (int i = 0; i < r->nseen && !due; i++)
		due = r->seen[i].retry && status_now() >= r->seen[i].next_try;
	if (due)
		scan(r);
}

static pid_t start_child(struct rec *r, char **argv)
{
	char events[8192] = "";
	size_t len = 0;
	pid_t pid;

	for (int i = 0; i < r->nev; i++) {
		int n = snprintf(events + len, sizeof(events) - len, "%s%s", len ? "," : "",
				 r->ev[i].spec);

		if (n < 0 || (size_t)n >= sizeof(events) - len)
			break;
		len += (size_t)n;
	}
	pid = fork();
	if (pid != 0)
		return pid;
	if (r->ino_fd >= 0)
		close(r->ino_fd);
	setrlimit(RLIMIT_NOFILE, &r->nofile);
	setenv("EVTRACE_CONTROL", "1", 1);
	/* every process of the tree serves its socket there, and only there */
	setenv("EVTRACE_CONTROL_DIR", r->sess.path, 1);
	{
		char me[24];

		/* only this process waits at exit for a consumer that has not come */
		snprintf(me, sizeof(me), "%d", (int)getpid());
		setenv("EVTRACE_CONTROL_AWAIT", me, 1);
	}
	/* every program of the tree: its first event waits until our settings are in */
	setenv("EVTRACE_CONTROL_HOLD", "all", 1);
	if (!secure_getenv("EVTRACE_CONTROL_EXIT_WAIT"))
		setenv("EVTRACE_CONTROL_EXIT_WAIT", "10", 1);
	setenv("EVTRACE_EVENTS", r->nev ? events : "*", 1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "evtrace: record: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* -- CMD: the session directory, watched; the command started. Return: 0, or -1 (said). */
int rec_start_tree(struct rec *r, char **argv)
{
	int err;

	r->tree = true;
	/* the journal is one descriptor; each process's buffer and socket are two more */
	if (getrlimit(RLIMIT_NOFILE, &r->nofile) == 0) {
		struct rlimit more = r->nofile;

		more.rlim_cur = more.rlim_max;
		setrlimit(RLIMIT_NOFILE, &more);
	}
	err = session_dir_create(&r->sess);
	if (err) {
		cmd_error("record: a socket directory for the command: %s", strerror(-err));
		return -1;
	}
	r->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	/* a wake-up hint only: what is found is checked through the directory's fd */
	if (r->ino_fd >= 0 &&
	    inotify_add_watch(r->ino_fd, r->sess.path,
			      IN_CREATE | IN_ATTRIB | IN_MOVED_TO | IN_DONT_FOLLOW) < 0) {
		close(r->ino_fd);
		r->ino_fd = -1; /* the rescan every second does it */
	}
	r->child = start_child(r, argv);
	if (r->child < 0) {
		cmd_error("record: fork: %s", strerror(errno));
		r->child = 0;
		return -1;
	}
	r->child_pid = r->child;
	return 0;
}
