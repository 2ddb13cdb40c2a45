// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rec-drain.c - the loop of `evtrace record` (evtrace-record.h): every
 * source's ring buffer drained page by page into the journal, sources set
 * up as their hold releases them, ended ones finished; the records and
 * losses counted for the live status line; the sleep between idle rounds.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <evtrace/ring_buffer.h>

#include "evtrace-cmd.h"
#include "evtrace-record.h"

/* Count a page's records and the losses it reports. */
static void page_account(struct rec *r, struct rec_src *s, const unsigned char *page)
{
	struct evt_rb_page_iter it;
	uint64_t commit;

	const struct evt_ring_buffer_event *ev;
	pid_t last = 0;

	if (evt_rb_page_iter_init(&it, page, r->page_size))
		return;
	while (evt_rb_page_iter_next(&it, &ev, NULL) > 0) {
		const unsigned char *data =
			evt_ring_buffer_event_data((struct evt_ring_buffer_event *)ev);
		int32_t tid;

		s->records++;
		r->records++;
		/* common_pid: bytes 4-7 of every event's common header */
		if (evt_ring_buffer_event_length(ev) < 8)
			continue;
		memcpy(&tid, data + 4, sizeof(tid));
		if (tid > 0 && tid != last)
			rec_name_tid(s, tid);
		last = tid;
	}
	memcpy(&commit, page + 8, sizeof(commit));
	if (commit & EVT_RB_PAGE_MISSED_STORED) {
		uint64_t len = commit & EVT_RB_PAGE_COMMIT_MASK, n;

		if (EVT_RB_PAGE_HDR_SIZE + len + 8 <= r->page_size) {
			memcpy(&n, page + EVT_RB_PAGE_HDR_SIZE + len, sizeof(n));
			s->missed += n;
		}
	} else if (commit & EVT_RB_PAGE_MISSED_EVENTS) {
		s->missed++;
	}
}

/*
 * Every page of @s that can be read now, of every CPU, into the journal.
 * A buffer that fails ends @s (rec_src_fault()).
 * Return: pages read, or -errno: the journal could not be written (r->j.err).
 */
long rec_drain(struct rec *r, struct rec_src *s)
{
	long pages = 0;

	if (r->j.err)
		return r->j.err;
	for (unsigned int cpu = 0; s->rb && cpu < s->bi.nr_cpus; cpu++) {
		/* at most a ring's worth per call, so that Ctrl-C is heard under a flood */
		uint64_t max = s->bi.size / r->page_size + 2;

		for (uint64_t i = 0; i < max; i++) {
			int ret = evt_ring_buffer_read_page(s->rb, (int)cpu, r->page, r->page_size);

			if (ret == -EAGAIN || ret == 0)
				break;
			if (ret < 0) {
				rec_src_fault(r, s, (int)cpu, ret);
				return pages;
			}
			if (rj_put_page(&r->j, s->idx, cpu, r->page, r->page_size))
				return r->j.err;
			if (r->net) /* -N: sent as it is journaled */
				rec_live_page(r, s, cpu, r->page);
			page_account(r, s, r->page);
			r->bytes += r->page_size;
			pages++;
		}
	}
	return pages;
}

uint64_t rec_losses(const struct rec *r)
{
	uint64_t n = 0;

	for (int i = 0; i < r->nsrc; i++) {
		const struct rec_src *s = r->src[i];

		if (s->missed)
			n += s->missed;
		else if (s->rb)
			n += evt_ring_buffer_dropped_events(s->rb) +
			     evt_ring_buffer_overruns(s->rb);
		else
			n += s->lost_at_end;
	}
	return n;
}

void rec_progress(struct rec *r, bool final)
{
	double now = status_now();
	char bytes[32];

	if (!r->status_on || (!final && now - r->last_status < 0.5))
		return;
	if (final)
		r->rate = now > r->start ? (double)r->records / (now - r->start) : 0;
	else if (now > r->last_status)
		r->rate = (double)(r->records - r->last_records) / (now - r->last_status);
	r->last_status = now;
	r->last_records = r->records;
	if (r->status_on == 2 && !final)
		return;
	if (r->bytes >= 1000000)
		snprintf(bytes, sizeof(bytes), "%.1f MB", (double)r->bytes / 1e6);
	else
		snprintf(bytes, sizeof(bytes), "%.1f kB", (double)r->bytes / 1e3);
	fprintf(stderr, "%srecord: %.0f events/s, %s, %llu events, %llu lost%s",
		r->status_on == 1 ? "\r" : "", r->rate, bytes, (unsigned long long)r->records,
		(unsigned long long)rec_losses(r),
		r->status_on == 1 ? (final ? "\033[K\n" : "\033[K") : "\n");
	fflush(stderr);
}

/*
 * Has the command ended? It is reaped only once its own buffer is drained:
 * until then its name can still be read from /proc (rec_name_tid()), which a
 * program that crashed at once needs.
 */
static bool child_ended(struct rec *r)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)r->child, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
	    si.si_pid != r->child)
		return false;
	for (int k = 0; k < r->nsrc; k++)
		if (r->src[k]->pid == r->child &&
		    (r->src[k]->state == SRC_ACTIVE || r->src[k]->state == SRC_WAIT))
			return false;
	if (waitpid(r->child, &r->child_status, 0) != r->child)
		r->child_status = -1;
	return true;
}

/* One round of a shared source: its fork() children's pages, until none maps the buffer. */
static int round_shared(struct rec *r, struct rec_src *s, bool stop, long *got)
{
	long n = rec_drain(r, s);

	if (n < 0)
		return -2; /* the journal failed: rec_end() says so */
	*got += n;
	if (stop || (status_now() - s->last_ping >= 0.05 &&
		     (s->last_ping = status_now(), rec_sharers(r, s) == 0)))
		return rec_src_unmap(r, s) ? -1 : 0;
	return 1;
}

/*
 * Is @s's process exiting (waiting for us in exit())? Asked every 20 ms: an
 * exiting process waits until we let go of its buffer. On @meta rounds its
 * names are fetched and journaled. Return: 1 it ends, 0 not, -2 the journal failed.
 */
static int ping_source(struct rec *r, struct rec_src *s, bool stop, bool meta)
{
	struct ctl_ping ping;
	int end = 0;

	if (!meta && !stop && status_now() - s->last_ping < 0.02)
		return 0;
	s->last_ping = status_now();
	if (s->c && ctl_ping(s->c, &ping) == 0) {
		if (ping.exiting) {
			end = 1; /* it waits for us in exit() */
		} else if (meta) {
			rec_fetch_cmdlines(s);
			/* the names of its fork() children while they live */
			if (r->tree)
				rec_sharers(r, s);
		}
		/* at most once a second: a kill loses a second of names */
		if (meta && s->meta_dirty && rec_put_meta(r, s))
			return -2;
	} else if (s->c) {
		/* gone: what is mapped is still ours to drain */
		ctl_close(s->c);
		s->c = NULL;
		end = 1;
	}
	return end;
}

/*
 * -N with a command: is @s, just set up, the process to stream? The command's own
 * process; another only while the command serves no socket (it does not link
 * libevtrace, or it ended): its socket is made by its library's constructor, before
 * anything it starts can make one, so a command that serves one is a source by then.
 */
static bool live_first(const struct rec *r, const struct rec_src *s)
{
	if (s->pid == r->child_pid)
		return true;
	for (int k = 0; k < r->nsrc; k++)
		if (r->src[k]->pid == r->child_pid && r->src[k]->state != SRC_DONE)
			return false;
	return true;
}

/*
 * One round of source @s: set up if its hold let it go, drained, ended if it
 * exits. @got counts the pages (and a set-up), @waiting is set while it is
 * held. Return: 1 it is live, 0 not (done, or dropped), -1 an error (said),
 * -2 the journal failed (rec_end() says so).
 */
static int round_one(struct rec *r, struct rec_src *s, bool stop, bool meta, long *got,
		     bool *waiting)
{
	bool end = stop || r->extract;
	int ping;
	long n;

	if (s->state == SRC_DONE)
		return 0;
	if (s->state == SRC_SHARED)
		return round_shared(r, s, stop, got);
	if (s->state == SRC_WAIT) {
		int w = rec_src_wait(r, s, stop);

		if (w < 0)
			return -1;
		if (w > 0) {
			*waiting = true;
			return 1;
		}
		if (s->state != SRC_ACTIVE)
			return 0;
		(*got)++; /* set up: round again at once */
		/* -N with a command: its process (or the first of its tree) streamed, from its first page */
		if (r->net && !r->live && !r->net_failed && live_first(r, s))
			rec_live_start(r, &s, 1);
	}
	n = rec_drain(r, s);
	if (n < 0)
		return -2;
	*got += n;
	if (s->state == SRC_DONE)
		return 0; /* its buffer failed (rec_src_fault()) */
	ping = ping_source(r, s, stop, meta);
	if (ping < 0)
		return ping;
	if (!end && !ping)
		return 1;
	if (rec_src_finish(r, s))
		return -1;
	return s->state == SRC_SHARED;
}

int rec_loop(struct rec *r)
{
	double last_meta = status_now();
	long idle_ms = 1, wait_ms = 1;

	for (;;) {
		bool stop = cmd_stop != 0, meta = false, waiting = false;
		long got = 0;
		int live = 0, nsrc = r->nsrc;

		if (r->tree)
			rec_discover(r, false);
		if (r->child && child_ended(r)) {
			/* the command is gone: what it started and did not see yet, now */
			r->child = 0;
			meta = true;
			if (r->tree)
				rec_discover(r, true);
		}
		if (status_now() - last_meta >= 1) {
			last_meta = status_now();
			meta = true;
		}
		if (r->nsrc != nsrc)
			wait_ms = 1; /* a new process: look at its hold soon */
		for (int k = 0; k < r->nsrc; k++) {
			int l = round_one(r, r->src[k], stop, meta, &got, &waiting);

			if (l == -2)
				return 0; /* the journal failed: rec_end() says so */
			if (l < 0)
				return -1;
			live += l;
		}
		rec_progress(r, false);
		rec_live_tick(r);
		/*
		 * The end: Ctrl-C; every process ended (-p); a command's tree: the
		 * command exited and every process of it we know of ended.
		 */
		if (stop || (live == 0 && (!r->tree || r->child == 0)) || r->extract)
			break;
		/*
		 * Nothing came: sleep, 1 ms after a busy round, twice as long after
		 * each idle one, up to REC_POLL_MS (4 ms while a process is to be
		 * set up: it waits for us). A buffer that fills in tens of
		 * milliseconds under a flood is read every millisecond or so. A
		 * new socket in the session directory wakes us at once.
		 */
		if (got == 0) {
			struct pollfd p = { .fd = r->ino_fd, .events = POLLIN };
			long ms = waiting && wait_ms < idle_ms ? wait_ms : idle_ms;

			poll(&p, r->ino_fd >= 0 ? 1 : 0, (int)ms);
			if (idle_ms < REC_POLL_MS)
				idle_ms *= 2;
			if (waiting && wait_ms < 4)
				wait_ms *= 2;
		} else {
			idle_ms = 1;
		}
	}
	return 0;
}
