/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs/tfs_print.h - the files that read the ring buffer: trace,
 * trace_pipe, per_cpu/cpuN/{trace,trace_pipe,trace_pipe_raw,stats}, and the
 * saved command lines their lines name tasks with.
 */
#ifndef EVT_TRACEFS_TFS_PRINT_H
#define EVT_TRACEFS_TFS_PRINT_H

#include <stdint.h>

#include "tracefs/tfs_internal.h"

struct evt_instance;
struct error_log;

int tfs_trace_open(struct evt_tracefs_file *f);
ssize_t tfs_trace_read(struct evt_tracefs_file *f, char *buf, size_t len);
void tfs_trace_release(struct evt_tracefs_file *f);

int tfs_snapshot_open(struct evt_tracefs_file *f);
ssize_t tfs_snapshot_write(struct evt_tracefs_file *f, const char *buf, size_t len);

int tfs_pipe_open(struct evt_tracefs_file *f);
ssize_t tfs_pipe_read(struct evt_tracefs_file *f, char *buf, size_t len);
void tfs_pipe_release(struct evt_tracefs_file *f);

int tfs_raw_open(struct evt_tracefs_file *f);
ssize_t tfs_raw_read(struct evt_tracefs_file *f, char *buf, size_t len);
void tfs_raw_release(struct evt_tracefs_file *f);

int tfs_stats_show(struct evt_tracefs_file *f, struct tfs_seq *s);

/* The comm of thread @tid (cached; "<...>" when unknown), into @comm[16]. */
void tfs_cmdline_get(int tid, char comm[16]);
void tfs_cmdline_save(int tid, const char *comm);
/* the calling thread's */
void tfs_cmdline_save_self(void);
int tfs_cmdline_show(struct tfs_seq *s);

/* The kernel's trace header ("# tracer: nop" ... the column ruler). */
int tfs_trace_header(struct evt_instance *inst, struct tfs_seq *s);
/*
 * One record as a line of `trace`: "<comm>-<pid> [cpu] flags ts: name: body\n".
 * @ts is in the buffer's clock.
 */
int tfs_format_record(struct evt_instance *inst, int cpu, uint64_t ts, const void *rec,
		      size_t len, struct tfs_seq *s);

#endif /* EVT_TRACEFS_TFS_PRINT_H */
