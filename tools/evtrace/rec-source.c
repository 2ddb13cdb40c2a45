// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rec-source.c - one traced process of `evtrace record` (evtrace-record.h),
 * a "source", through its states: SRC_WAIT (held at its first event), set
 * up (rec_src_attach(): events, buffer mapped), SRC_ACTIVE (drained), ended
 * (rec_src_finish()), SRC_SHARED while fork() children write into its
 * buffer, SRC_DONE (its buffer let go). A process that goes away before it
 * is set up, or cannot be recorded with the others, is dropped.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>

#include "evtrace-cmd.h"
#include "evtrace-record.h"
#include "evtrace-rectime.h"

/* @s's mapping and memfd let go (its losses kept in lost_at_end): the source is done. */
static void src_release(struct rec_src *s)
{
	if (s->rb) {
		s->lost_at_end =
			evt_ring_buffer_dropped_events(s->rb) + evt_ring_buffer_overruns(s->rb);
		evt_ring_buffer_free(s->rb);
		s->rb = NULL;
	}
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
	s->state = SRC_DONE;
}

/*
 * @s's buffer failed (@err: -EBADMSG, a page that fails the reader's
 * checks: something wrote into the shared memory): said, and the process
 * is let go; what was drained of it before stays in the file.
 */
void rec_src_fault(struct rec *r, struct rec_src *s, int cpu, int err)
{
	cmd_error("record: process %d: its ring buffer (CPU %d) cannot be read: %s%s; its "
		  "recording stops here, the %llu events drained before are kept",
		  (int)s->pid, cpu, strerror(-err),
		  err == -EBADMSG ? " (a corrupted page: something wrote into the shared buffer)" :
				    "",
		  (unsigned long long)s->records);
	r->fault = true;
	if (s->c) {
		ctl_put_buffer(s->c);
		ctl_close(s->c);
		s->c = NULL;
	}
	src_release(s);
}

struct rec_src *rec_src_new(struct rec *r, pid_t pid)
{
	struct rec_src *s;

	if (r->nsrc == r->srccap) {
		int cap = r->srccap ? r->srccap * 2 : 16;
		struct rec_src **ns = realloc(r->src, (size_t)cap * sizeof(*ns));

		if (!ns)
			return NULL;
		r->src = ns;
		r->srccap = cap;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = -1;
	s->pid = pid;
	s->idx = (unsigned int)r->nsrc;
	r->src[r->nsrc++] = s;
	return s;
}

/* Is the process behind @s gone (its connection closed)? */
static bool src_gone(struct rec_src *s)
{
	struct ctl_ping ping;

	return !s->c || ctl_ping(s->c, &ping) < 0;
}

int rec_src_attach(struct rec *r, struct rec_src *s)
{
	int ret = 0;

	/*
	 * Attached: start from an empty buffer, as trace-cmd record does (what
	 * was there belongs to no request of ours). A started command keeps
	 * what its events wrote before we connected.
	 */
	if (!r->tree && !r->extract)
		ctl_write(s->c, "trace", "", 0, CTL_WF_TRUNC, NULL, 0);
	if (!r->extract && rec_setup_events(r, s))
		return r->tree && src_gone(s) ? -2 : -1;
	/* another consumer that is about to let go (a previous record) gets 2 s */
	for (int i = 0; i < 100; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		ret = ctl_get_buffer(s->c, NULL, &s->fd, &s->bi);
		if (ret != -EBUSY || cmd_stop)
			break;
		nanosleep(&ts, NULL);
	}
	if (ret) {
		if (r->tree && (ret == -ECONNRESET || ret == -EPIPE))
			return -2;
		cmd_error("record: process %d: the ring buffer: %s%s%s",
			  (int)ctl_client_info(s->c)->pid, strerror(-ret),
			  ret == -EBUSY ? " (another consumer has it)" : "",
			  r->tree ? ": it is not recorded" : "");
		/* one process of a tree that another recorder has does not end the others' */
		return r->tree ? -2 : -1;
	}
	ret = evt_ring_buffer_map(s->fd, &s->rb);
	if (ret) {
		cmd_error("record: mapping the ring buffer of %d: %s", (int)s->pid, strerror(-ret));
		return -1;
	}
	{
		struct stat st;

		if (fstat(s->fd, &st) == 0) {
			s->mem_dev = st.st_dev;
			s->mem_ino = st.st_ino;
		}
	}
	if (!r->first) {
		r->page_size = s->bi.page_size;
		free(r->page);
		r->page = malloc(r->page_size ? r->page_size : 1);
		if (!r->page)
			return -1;
	}
	if (s->bi.page_size != r->page_size || s->bi.nr_cpus == 0) {
		cmd_error("record: process %d has pages of %u bytes, process %d of %u: one file "
			  "cannot hold both%s",
			  (int)s->pid, s->bi.page_size, r->first ? (int)r->first->pid : 0,
			  r->page_size, r->tree ? ": it is not recorded" : "");
		return r->tree ? -2 : -1;
	}
	if (r->first && strcmp(s->bi.clock, r->first->bi.clock))
		fprintf(stderr,
			"evtrace: record: warning: process %d uses clock %s, process %d %s:"
			" their time stamps do not compare\n",
			(int)s->pid, s->bi.clock, (int)r->first->pid, r->first->bi.clock);
	if (rec_fetch_meta(s))
		return r->tree && src_gone(s) ? -2 : -1;
	rec_add_names(s, s->pid);
	/* --date: the wall clock's offset read now, beside the process's own clock */
	if (r->date && cmd_date_option(s->bi.clock, s->date, sizeof(s->date))) {
		s->date[0] = '\0';
		if (!r->first)
			cmd_error("record: --date: the %s clock is not time: no DATE option",
				  s->bi.clock);
	}
	ret = rec_put_meta(r, s);
	if (ret) {
		cmd_error("record: writing %s: %s", r->output, strerror(-ret));
		return -1;
	}
	if (!r->first)
		r->first = s;
	s->attached = true;
	return 0;
}

/*
 * The end of one process: the last pages, the names once more, what we
 * set undone, the buffer given back (an exiting process goes on).
 */
int rec_src_finish(struct rec *r, struct rec_src *s)
{
	int shared;
	long got;

	/*
	 * A journal that cannot be written ends the record: rec_end() says so.
	 * extract: what was there when it began (a live writer never runs dry).
	 */
	while ((got = rec_drain(r, s)) > 0 && !r->extract)
		;
	/*
	 * Its fork() children (no exec) that write into this buffer, looked for
	 * while it still waits for us in exit(): one that waits for it to end
	 * cannot have ended yet (and its name is taken now).
	 */
	shared = r->tree && !cmd_stop ? rec_sharers(r, s) : 0;
	if (s->c) {
		rec_fetch_meta(s);
		if (s->meta_dirty)
			rec_put_meta(r, s);
		rec_undo(s);
		ctl_put_buffer(s->c);
		ctl_close(s->c);
		s->c = NULL;
	}
	/* go on draining it until none is left (a command's tree; not after Ctrl-C) */
	if (shared > 0) {
		s->state = SRC_SHARED;
		s->last_ping = status_now();
		return 0;
	}
	return rec_src_unmap(r, s);
}

/* The last pages of an ended source's buffer, then the buffer let go. */
int rec_src_unmap(struct rec *r, struct rec_src *s)
{
	long got;

	while ((got = rec_drain(r, s)) > 0 && !r->extract)
		;
	/*
	 * Its pages are in the journal: let the buffer go (a big tree's ended
	 * processes would otherwise keep all their buffers' memory alive).
	 */
	src_release(s);
	return 0;
}

/* A process left out (gone before it was set up, or not recordable with the others). */
static void src_drop(struct rec_src *s)
{
	if (s->c) {
		ctl_release(s->c); /* harmless when it is not held */
		ctl_close(s->c);   /* gives the buffer back if it had been taken */
		s->c = NULL;
	}
	if (s->rb) {
		evt_ring_buffer_free(s->rb);
		s->rb = NULL;
	}
	s->state = SRC_DONE;
}

void rec_src_free(struct rec_src *s)
{
	rec_undo(s);
	if (s->c)
		ctl_close(s->c);
	if (s->rb)
		evt_ring_buffer_free(s->rb);
	if (s->fd >= 0)
		close(s->fd);
	free(s->tids);
	rj_fmts_free(s->fmts, s->nfmts);
	free(s->cmdlines);
	free(s->names);
	free(s->shpids);
	free(s->clock_list);
	free(s);
}

/*
 * A source waiting for the hold: once its program is parked at its first
 * event (its constructors registered their events by then) or will not
 * park (it exits, the hold timed out, it was not held), set it up and
 * release it. Return: 1 still waiting, 0 set up or dropped, -1 an error.
 */
int rec_src_wait(struct rec *r, struct rec_src *s, bool stop)
{
	int h = stop ? -1 : ctl_hold_state(s->c), ret;

	if (h == 1)
		return 1;
	if (h < 0) { /* gone, or Ctrl-C before it was set up: nothing of it is recorded */
		src_drop(s);
		return 0;
	}
	ret = rec_src_attach(r, s);
	/* set up or not, it must not wait for the hold's timeout */
	if (s->c)
		ctl_release(s->c);
	if (ret == -2) {
		src_drop(s);
		return 0;
	}
	if (ret)
		return -1;
	s->state = SRC_ACTIVE;
	return 0;
}
