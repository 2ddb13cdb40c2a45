/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/tracefs.h - the tracing file tree, served by the library.
 *
 * Every instance has a tree of virtual files laid out like
 * /sys/kernel/tracing: available_events, set_event, events/<system>/
 * <event>/{enable,filter,format,id,trigger}, trace, trace_pipe, per_cpu/
 * cpuN/..., buffer_size_kb, trace_clock, error_log, instances/<name>/...
 * (docs/tracefs.md lists every file). Reading a file gives what the
 * kernel's file gives; writing it does what writing the kernel's does.
 * This API is the tree's first client; the control socket, the evtrace
 * command and the FUSE mount expose the same tree through it.
 *
 * Paths are relative to the instance given ("set_event",
 * "events/sched/enable", "/instances/foo/trace"); a leading or doubled
 * '/' is ignored, "." and ".." are not accepted. A NULL instance is the
 * top-level instance.
 *
 * Synchronization: every function may be called from any thread, at the
 * same time as the program's events fire; control writes are serialized
 * among themselves. A file handle belongs to one thread at a time, except
 * for evt_tracefs_file_interrupt(), which any thread may call on it while
 * it is open. None of these functions may be called from a signal handler.
 *
 * Errors: negative errno values, those a read(2) or write(2) on the
 * kernel's file gives (-EINVAL for a malformed write, -ENOENT for a
 * path that is not in the tree, ...); errno is never touched.
 */
#ifndef EVTRACE_TRACEFS_H
#define EVTRACE_TRACEFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <evtrace/error.h>	/* evt_error_detail() */

#ifdef __cplusplus
extern "C" {
#endif

struct evt_instance;
struct evt_tracefs_file;

/* evt_tracefs_open() and evt_tracefs_write() flags, after open(2)'s */
#define EVT_TRACEFS_READ	(1u << 0)	/* O_RDONLY / O_RDWR */
#define EVT_TRACEFS_WRITE	(1u << 1)	/* O_WRONLY / O_RDWR */
#define EVT_TRACEFS_TRUNC	(1u << 2)	/* O_TRUNC: the shell's '>' */
#define EVT_TRACEFS_APPEND	(1u << 3)	/* O_APPEND: the shell's '>>' */
#define EVT_TRACEFS_NONBLOCK	(1u << 4)	/* O_NONBLOCK: trace_pipe gives -EAGAIN */

/* evt_tracefs_stat() modes: the S_IFDIR / S_IFREG bits and permissions of stat(2). */
int evt_tracefs_stat(struct evt_instance *inst, const char *path, unsigned int *mode);

typedef int (*evt_tracefs_filldir_t)(void *arg, const char *name, unsigned int mode);
int evt_tracefs_readdir(struct evt_instance *inst, const char *path,
			evt_tracefs_filldir_t fill, void *arg);
int evt_tracefs_mkdir(struct evt_instance *inst, const char *path);
int evt_tracefs_rmdir(struct evt_instance *inst, const char *path);

int evt_tracefs_open(struct evt_instance *inst, const char *path, unsigned int flags,
		     struct evt_tracefs_file **filep);
ssize_t evt_tracefs_file_read(struct evt_tracefs_file *file, void *buf, size_t len);
ssize_t evt_tracefs_file_pread(struct evt_tracefs_file *file, void *buf, size_t len,
			       uint64_t offset);
ssize_t evt_tracefs_file_write(struct evt_tracefs_file *file, const void *buf, size_t len);
int evt_tracefs_close(struct evt_tracefs_file *file);
/* Make a read of @file that waits (now or next) return -EINTR; any thread may call it. */
int evt_tracefs_file_interrupt(struct evt_tracefs_file *file);

ssize_t evt_tracefs_read(struct evt_instance *inst, const char *path, void *buf, size_t len,
			 uint64_t offset);
ssize_t evt_tracefs_write(struct evt_instance *inst, const char *path, const void *buf,
			  size_t len, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_TRACEFS_H */
