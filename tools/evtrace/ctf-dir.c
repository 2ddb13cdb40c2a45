// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctf-dir.c - write a CTF trace directory from a trace.dat (evtrace-ctf.h): make
 * or check the directory, open its files by fd under it, hand the converter
 * (src/output/ctf_write.c) a sink that appends to them.
 *
 * The directory: made 0755 when missing; when it exists it must be a directory
 * of ours (not a symlink) and empty, so that no stream of an older trace stays
 * next to the new metadata. Files are created with openat(O_EXCL | O_NOFOLLOW).
 * `record --format=ctf` keeps its recording in the directory, as a hidden file
 * (which babeltrace2 does not read as a stream): cmd_ctf_prepare_dir() makes or
 * checks the directory first, and the export accepts that one file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <evtrace/export.h>
#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "evtrace-ctf.h"

#define CTF_DIR_MAX_CPUS 4096

struct ctf_dir {
	int dirfd;
	int meta;
	int *fds; /* per CPU, -1: not opened yet */
	int nr_fds;
	const char *path;
};

/*
 * Open @path as an empty directory of ours (but for a file named @keep, when not
 * NULL), making it when missing; the fd or -1 (said).
 */
static int ctf_dir_open(const char *path, const char *keep)
{
	struct dirent *de;
	struct stat st;
	int fd, dup_fd;
	DIR *d;

	if (mkdir(path, 0755) && errno != EEXIST) {
		cmd_error("%s: %s", path, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		cmd_error("%s: %s", path, errno == ELOOP || errno == ENOTDIR ?
			  "not a directory" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || st.st_uid != geteuid()) {
		cmd_error("%s: not a directory of this user", path);
		close(fd);
		return -1;
	}
	dup_fd = dup(fd);
	d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		cmd_error("%s: %s", path, strerror(errno));
		if (dup_fd >= 0)
			close(dup_fd);
		close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (!keep || strcmp(de->d_name, keep))) {
			cmd_error("%s: not empty (a CTF trace takes a directory of its own)", path);
			closedir(d);
			close(fd);
			return -1;
		}
	}
	closedir(d);
	return fd;
}

static int ctf_dir_file(struct ctf_dir *cd, const char *name)
{
	int fd = openat(cd->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0644);

	return fd < 0 ? -errno : fd;
}

static int ctf_dir_write(void *ctx, int file, const void *buf, size_t len)
{
	struct ctf_dir *cd = ctx;
	int *fdp;

	if (file == EVT_CTF_FILE_METADATA) {
		fdp = &cd->meta;
	} else {
		if (file < 0 || file >= CTF_DIR_MAX_CPUS)
			return -ERANGE;
		if (file >= cd->nr_fds) {
			int *n = realloc(cd->fds, (size_t)(file + 1) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			for (int i = cd->nr_fds; i <= file; i++)
				n[i] = -1;
			cd->fds = n;
			cd->nr_fds = file + 1;
		}
		fdp = &cd->fds[file];
	}
	if (*fdp < 0) {
		char name[32];

		if (file == EVT_CTF_FILE_METADATA)
			snprintf(name, sizeof(name), "metadata");
		else
			snprintf(name, sizeof(name), "stream_%d", file);
		*fdp = ctf_dir_file(cd, name);
		if (*fdp < 0)
			return *fdp;
	}
	return cmd_write_all(*fdp, buf, len) ? -errno : 0;
}

/* Close every file; -errno of the first close that failed, else @ret. */
static int ctf_dir_close(struct ctf_dir *cd, int ret)
{
	if (cd->meta >= 0 && close(cd->meta) && !ret)
		ret = -errno;
	for (int i = 0; i < cd->nr_fds; i++)
		if (cd->fds[i] >= 0 && close(cd->fds[i]) && !ret)
			ret = -errno;
	free(cd->fds);
	close(cd->dirfd);
	return ret;
}

int cmd_ctf_write_dir(struct evt_tracedat *td, const struct cmd_ctf_args *a)
{
	struct ctf_dir cd = { .meta = -1, .path = a->dir };
	struct evt_ctf_sink sink = { ctf_dir_write, &cd };
	struct evt_ctf_opts o = { 0 };
	struct evt_ctf_stats st;
	char host[256];
	int ret;

	cd.dirfd = ctf_dir_open(a->dir, a->keep);
	if (cd.dirfd < 0)
		return 1;
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = 0;
		o.hostname = host;
	}
	if (getrandom(o.uuid, sizeof(o.uuid), 0) != (ssize_t)sizeof(o.uuid)) {
		for (size_t i = 0; i < sizeof(o.uuid); i++) /* any distinct value will do */
			o.uuid[i] = (unsigned char)(getpid() >> (i % 4 * 8) ^ i);
	}
	o.uuid[6] = (o.uuid[6] & 0x0f) | 0x40; /* version 4 (random) */
	o.uuid[8] = (o.uuid[8] & 0x3f) | 0x80;
	o.source = a->source;
	o.want = a->want;
	o.want_ctx = a->want_ctx;
	o.has_epoch = a->has_epoch;
	o.epoch_offset_ns = a->epoch_offset_ns;
	o.freq = a->freq;
	if (!o.freq && !strcmp(evt_tracedat_clock(td), "x86-tsc"))
		cmd_error("%s: warning: the x86-tsc clock's frequency is not in the file: written "
			  "as 1 GHz (give it with --clock-freq HZ)", a->dir);
	ret = ctf_dir_close(&cd, evt_tracedat_export_ctf(td, &o, &sink, &st));
	if (ret == -EBADMSG) {
		cmd_error("%s: %s (the CTF trace holds the %llu events before it)",
			  a->source ? a->source : "input", evt_error_detail(), st.records);
		return 1;
	}
	if (ret) {
		cmd_error("%s: %s (the CTF trace is incomplete)", a->dir, strerror(-ret));
		return 1;
	}
	if (st.clamped)
		cmd_error("%s: %llu time stamps went backwards on their CPU and were raised",
			  a->dir, st.clamped);
	return 0;
}

int cmd_ctf_prepare_dir(const char *dir)
{
	int fd = ctf_dir_open(dir, NULL);

	if (fd < 0)
		return 1;
	close(fd);
	return 0;
}
