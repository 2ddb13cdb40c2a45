/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/tracepipe-util.h - what the tracepipe tests share: a
 * scratch directory, a reader process on the FIFO that copies the
 * stream to a file, and a walk over a stream file with the library's
 * parser. Defined in tracepipe-util.c of the test library.
 */
#ifndef EVT_TESTS_TRACEPIPE_UTIL_H
#define EVT_TESTS_TRACEPIPE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <evtrace/tracepipe.h>

#include "helpers.h"

/* The scratch directory of tpt_mkdir(). */
extern char tpt_dir[64];

void tpt_cleanup_dir(void);

/* A fresh directory under /tmp, removed at exit. */
const char *tpt_mkdir(void);

struct tpt_reader {
	pid_t pid;
	int ctl; /* write 'g' (start reading), 'd' (drain what is there, then exit) */
};

enum {
	TPT_READ = 0,
	TPT_SPLICE = 1,
	TPT_WAIT = 2
};

/*
 * A child that opens @fifo for reading and copies the stream to @out:
 * with read()+write() or splice() (TPT_SPLICE); with TPT_WAIT it holds
 * the FIFO open without reading until it gets 'g'. On 'd' it reads
 * what is left in the pipe without blocking and exits 0.
 */
struct tpt_reader tpt_reader_start(const char *fifo, const char *out, int how);

static inline void tpt_reader_send(struct tpt_reader *r, char c)
{
	if (write(r->ctl, &c, 1) != 1)
		t_fail("reader ctl: %s", strerror(errno));
}

/* Tell the reader to drain and exit; wait for it; its exit status must be 0. */
void tpt_reader_finish(struct tpt_reader *r);

/* Wait (no time limit but ctest's) until the flusher has attached the reader. */
static inline void tpt_wait_attached(struct evt_tracepipe_channel *chan)
{
	while (evt_tracepipe_readers(chan) != 1)
		usleep(1000);
}

/* The whole file @path in memory (*len bytes). */
unsigned char *tpt_slurp(const char *path, size_t *len);

/*
 * Walk a stream: every page must parse, every record too. @fn gets each
 * record (and its page); returns the number of pages.
 */
size_t tpt_walk(const unsigned char *buf, size_t len,
			      void (*fn)(const struct evt_tracepipe_page *,
					 const struct evt_tracepipe_record *, void *),
			      void *arg);

/* The number in @chan's <name>.missed file. */
unsigned long long tpt_missed_file(struct evt_tracepipe_channel *chan);

#endif /* EVT_TESTS_TRACEPIPE_UTIL_H */
