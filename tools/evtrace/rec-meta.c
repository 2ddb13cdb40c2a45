// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rec-meta.c - what the trace.dat needs from one traced process of `evtrace
 * record` (evtrace-record.h), fetched while it lives: the format of every
 * event, the saved cmdlines and the clock list through its control socket;
 * the names of its threads and of its fork() children that share its
 * buffer from /proc; all of it journaled (rec_put_meta()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "evtrace-cmd.h"
#include "evtrace-record.h"

static int fmt_cmp(const void *a, const void *b)
{
	const struct rj_fmt *x = a, *y = b;
	int d = strcmp(x->system, y->system);

	return d ? d : strcmp(x->name, y->name);
}

/*
 * Every event's format, the saved cmdlines and the clock list, from the
 * process (kept only when all of it came: a process that went away
 * midway leaves the previous fetch in place).
 */
int rec_fetch_meta(struct rec_src *s)
{
	struct cmd_names sys = { 0 };
	struct rj_fmt *fmts = NULL;
	size_t nfmts = 0, cap = 0;
	char *cmdlines = NULL, *clocks = NULL;
	ssize_t n;
	int ret;

	if (!s->c)
		return -ENOTCONN;
	ret = ctl_readdir(s->c, "events", cmd_names_add_dir, &sys);
	for (int i = 0; !ret && i < sys.n; i++) {
		struct cmd_names ev = { 0 };
		char dir[300];

		snprintf(dir, sizeof(dir), "events/%s", sys.v[i]);
		ret = ctl_readdir(s->c, dir, cmd_names_add_dir, &ev);
		for (int j = 0; !ret && j < ev.n; j++) {
			char path[600], *text = NULL;

			snprintf(path, sizeof(path), "%s/%s/format", dir, ev.v[j]);
			n = ctl_read(s->c, path, &text);
			if (n == -ENOENT || n == -ENODEV) { /* gone meanwhile */
				free(text);
				continue;
			}
			if (n < 0) {
				ret = (int)n;
				break;
			}
			if (nfmts == cap) {
				struct rj_fmt *nf =
					realloc(fmts, (cap ? cap * 2 : 32) * sizeof(*nf));

				if (!nf) {
					free(text);
					ret = -ENOMEM;
					break;
				}
				fmts = nf;
				cap = cap ? cap * 2 : 32;
			}
			fmts[nfmts].system = strdup(sys.v[i]);
			fmts[nfmts].name = strdup(ev.v[j]);
			fmts[nfmts].text = text;
			fmts[nfmts].len = (size_t)n;
			nfmts++;
			if (!fmts[nfmts - 1].system || !fmts[nfmts - 1].name)
				ret = -ENOMEM;
		}
		cmd_names_free(&ev);
	}
	cmd_names_free(&sys);
	if (!ret) {
		n = ctl_read(s->c, "saved_cmdlines", &cmdlines);
		if (n < 0)
			ret = (int)n;
	}
	if (!ret) {
		n = ctl_read(s->c, "trace_clock", &clocks);
		if (n < 0)
			ret = (int)n;
	}
	if (ret) {
		rj_fmts_free(fmts, nfmts);
		free(cmdlines);
		free(clocks);
		return ret;
	}
	if (nfmts)
		qsort(fmts, nfmts, sizeof(*fmts), fmt_cmp);
	rj_fmts_free(s->fmts, s->nfmts);
	free(s->cmdlines);
	free(s->clock_list);
	s->fmts = fmts;
	s->nfmts = nfmts;
	s->cmdlines = cmdlines;
	s->clock_list = clocks;
	s->meta_dirty = true;
	return 0;
}

/* Only the thread names: they change while the program runs. */
void rec_fetch_cmdlines(struct rec_src *s)
{
	char *text = NULL;

	if (s->c && ctl_read(s->c, "saved_cmdlines", &text) >= 0) {
		if (!s->cmdlines || strcmp(s->cmdlines, text))
			s->meta_dirty = true;
		free(s->cmdlines);
		s->cmdlines = text;
	} else {
		free(text);
	}
}

/* Journal @s's metadata (at its set-up, and when its names changed). */
int rec_put_meta(struct rec *r, struct rec_src *s)
{
	struct rj_meta m = {
		.pid = s->pid,
		.nr_cpus = s->bi.nr_cpus,
		.page_size = s->bi.page_size,
		.clock = s->bi.clock,
		.clock_list = s->clock_list,
		.cmdlines = s->cmdlines,
		.names = s->names,
		.date = s->date[0] ? s->date : NULL,
		.fmts = s->fmts,
		.nfmts = s->nfmts,
	};
	int ret = r->j.size ? 0 : rj_start(&r->j, r->j.fd);

	if (!ret)
		ret = rj_put_meta(&r->j, s->idx, &m);

	if (!ret)
		s->meta_dirty = false;
	return ret;
}

/*
 * The name of thread @tid of @s, from /proc while it lives (a program that
 * crashes or exits early cannot be asked for its saved_cmdlines later).
 * Each thread is looked for once.
 */
void rec_name_tid(struct rec_src *s, pid_t tid)
{
	char path[64], comm[64] = "", *nn;
	int lo = 0, hi = s->ntids, fd;
	size_t len;
	ssize_t n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (s->tids[mid] == tid)
			return;
		if (s->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->ntids == s->tidcap) {
		int cap = s->tidcap ? s->tidcap * 2 : 64;
		pid_t *nt;

		if (cap > 1 << 20)
			return; /* a million threads: the rest keep the names the process saved */
		nt = realloc(s->tids, (size_t)cap * sizeof(*nt));
		if (!nt)
			return;
		s->tids = nt;
		s->tidcap = cap;
	}
	memmove(s->tids + lo + 1, s->tids + lo, (size_t)(s->ntids - lo) * sizeof(*s->tids));
	s->tids[lo] = tid;
	s->ntids++;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	if (!comm[0])
		return;
	len = s->names ? strlen(s->names) : 0;
	nn = realloc(s->names, len + 16 + strlen(comm) + 2);
	if (!nn)
		return;
	s->names = nn;
	sprintf(s->names + len, "%d %s\n", (int)tid, comm);
	s->meta_dirty = true;
}

/* "tid comm" of every thread of process @pid, in @s->names if not there yet. */
void rec_add_names(struct rec_src *s, pid_t pid)
{
	struct dirent *de;
	char path[300];
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);
		char comm[64] = "", key[32], nkey[34], *nn;
		size_t len = s->names ? strlen(s->names) : 0;
		FILE *f;

		if (tid <= 0)
			continue;
		snprintf(key, sizeof(key), "%ld ", tid);
		snprintf(nkey, sizeof(nkey), "\n%s", key);
		if (s->names && (!strncmp(s->names, key, strlen(key)) || strstr(s->names, nkey)))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm", (int)pid, tid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		if (!comm[0])
			continue;
		nn = realloc(s->names, len + strlen(key) + strlen(comm) + 2);
		if (!nn)
			break;
		s->names = nn;
		sprintf(s->names + len, "%s%s\n", key, comm);
		s->meta_dirty = true;
	}
	closedir(d);
}

/* A process and its parent, of /proc. */
struct rec_proc {
	pid_t pid, ppid;
};

static int proc_cmp(const void *a, const void *b)
{
	const struct rec_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every process and its parent (/proc/PID/stat), sorted by pid; malloc'd. */
static int proc_table(struct rec_proc **tp)
{
	struct rec_proc *t = NULL;
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *d = opendir("/proc");

	*tp = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long pid = strtol(de->d_name, NULL, 10), ppid;
		char path[64], buf[512], *rp;
		ssize_t len;
		int fd;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "pid (comm) S ppid ...": the comm may hold anything, the last ')' ends it */
		rp = strrchr(buf, ')');
		if (!rp || sscanf(rp + 1, " %*c %ld", &ppid) != 1)
			continue;
		if (n == cap) {
			struct rec_proc *nt =
				realloc(t, (size_t)(cap ? cap * 2 : 256) * sizeof(*nt));

			if (!nt)
				break;
			t = nt;
			cap = cap ? cap * 2 : 256;
		}
		t[n].pid = (pid_t)pid;
		t[n].ppid = (pid_t)ppid;
		n++;
	}
	closedir(d);
	if (n)
		qsort(t, (size_t)n, sizeof(*t), proc_cmp);
	*tp = t;
	return n;
}

/* Is @pid @s's process or one that was found sharing its buffer? */
static bool share_root(const struct rec_src *s, pid_t pid)
{
	if (pid == s->pid)
		return true;
	for (int i = 0; i < s->nshpids; i++)
		if (s->shpids[i] == pid)
			return true;
	return false;
}

/* Does process @pid map @s's memfd (/proc/PID/maps)? */
static bool maps_buffer(const struct rec_src *s, pid_t pid)
{
	char path[64], line[600];
	bool maps = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!maps && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long ino;

		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %lu", &maj, &min, &ino) == 3 &&
		    ino == (unsigned long)s->mem_ino && maj == major(s->mem_dev) &&
		    min == minor(s->mem_dev))
			maps = true;
	}
	fclose(f);
	return maps;
}

/*
 * The processes other than @s's own that map its buffer (its memfd, by the
 * device and inode /proc/PID/maps shows): fork() children of it that did
 * not exec, which write into it. Their threads' names are added to
 * @s->names (its saved_cmdlines has only its own). Return: how many.
 */
int rec_sharers(struct rec *r, struct rec_src *s)
{
	struct rec_proc *t;
	int n = 0, np;

	(void)r;
	if (!s->mem_ino)
		return 0;
	/*
	 * Only the descendants of the process, or of one found sharing before
	 * (its parent may have ended since: it was reparented), are looked at:
	 * not every process's maps.
	 */
	np = proc_table(&t);
	for (int i = 0; i < np; i++) {
		struct rec_proc key = { .ppid = 0 }, *p = &t[i];
		bool below = false;

		if (p->pid == s->pid || p->pid == getpid())
			continue;
		for (int depth = 0; depth < 64 && p && p->ppid > 1 && !below; depth++) {
			below = share_root(s, p->ppid);
			key.pid = p->ppid;
			p = bsearch(&key, t, (size_t)np, sizeof(*t), proc_cmp);
		}
		if (!below && !share_root(s, t[i].pid))
			continue;
		if (!maps_buffer(s, t[i].pid))
			continue;
		n++;
		rec_add_names(s, t[i].pid);
		if (!share_root(s, t[i].pid)) {
			pid_t *ns = realloc(s->shpids, (size_t)(s->nshpids + 1) * sizeof(*ns));

			if (ns) {
				s->shpids = ns;
				s->shpids[s->nshpids++] = t[i].pid;
			}
		}
	}
	free(t);
	return n;
}
