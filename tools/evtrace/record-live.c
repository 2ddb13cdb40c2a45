// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-live.c - `evtrace record -N HOST:PORT -p PID... | -- CMD`: the trace
 * sent to `trace-cmd listen` while it is recorded (docs/fleet.md, "When").
 *
 * The processes streamed are fixed and set up before anything is sent: with
 * -p all of them; with a command its own process once it is set up (held at
 * its first event, its constructors' events registered by then; or the first
 * of its tree set up when the command serves no socket: rec-drain.c,
 * live_first()), and only it: another process of the tree would bring CPUs and
 * pages the listener cannot place in time order on its connections, so their
 * pages stay in the local file (counted and said at the end). Their CPU counts add up to
 * the file's (process k's CPU c is CPU base_k + c, as in the local file) and
 * their events now make the file's event table
 * (evt_tracedat_live_begin(): the same merge as the local file's). So the
 * listener gets the CPU count and the formats first, as its protocol wants,
 * then each page on its CPU's connection as rec_drain() journals it:
 * ids mapped to the table, and a record of an event a process registered
 * later (not in the table the listener has) made a discarded entry and
 * counted, so that nothing sent is decoded as another event. The thread names
 * close the metadata and are held until the end (cmd_net_names(): the header made
 * again with the formats of the start and the final names), so that threads named
 * while streaming are named at the listener too. The local file
 * (the journal, as always) keeps everything: a listener that goes away costs
 * the stream, never a record. Memory: one page.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "evtrace-net.h"
#include "evtrace-record.h"

struct rec_live {
	struct evt_tracedat_live *table;
	struct cmd_net *net;
	struct rec_src **src; /* the processes of the table, in its order */
	int nsrc;
	/* each one's formats as the table has them: the header is made again with newer names */
	struct evt_tracedat_format **fmts;
	size_t *nfmts;
	bool tree; /* a command's: its other processes are not streamed */
	unsigned int cpus;
	unsigned char *page;
	uint64_t pages, dropped; /* sent; records discarded */
	bool failed;
	bool named; /* the names and the rest of the metadata sent (live_names()) */
};

static int no_page(void *ctx, unsigned int src, unsigned int cpu, uint64_t idx, void *buf)
{
	(void)ctx, (void)src, (void)cpu, (void)idx, (void)buf;
	return -EINVAL;
}

/* @l's copy of each process's formats now (the table's), for live_header(). */
static int live_keep_formats(struct rec_live *l)
{
	l->fmts = calloc((size_t)l->nsrc, sizeof(*l->fmts));
	l->nfmts = calloc((size_t)l->nsrc, sizeof(*l->nfmts));
	if (!l->fmts || !l->nfmts)
		return -ENOMEM;
	for (int k = 0; k < l->nsrc; k++) {
		const struct rec_src *s = l->src[k];

		if (s->bi.nr_cpus > REC_MAX_CPUS_LIVE)
			return -E2BIG;
		l->fmts[k] = calloc(s->nfmts ? s->nfmts : 1, sizeof(**l->fmts));
		if (!l->fmts[k])
			return -ENOMEM;
		l->nfmts[k] = s->nfmts;
		for (size_t i = 0; i < s->nfmts; i++) {
			char *sys = strdup(s->fmts[i].system), *name = strdup(s->fmts[i].name);
			char *text = malloc(s->fmts[i].len + 1);

			l->fmts[k][i] = (struct evt_tracedat_format){ sys, name, text,
								     s->fmts[i].len };
			if (!sys || !name || !text)
				return -ENOMEM;
			memcpy(text, s->fmts[i].text, s->fmts[i].len + 1);
		}
	}
	return 0;
}

static void live_free_formats(struct rec_live *l)
{
	for (int k = 0; l->fmts && k < l->nsrc; k++) {
		for (size_t i = 0; l->fmts[k] && i < l->nfmts[k]; i++) {
			free((char *)l->fmts[k][i].system);
			free((char *)l->fmts[k][i].name);
			free((char *)l->fmts[k][i].text);
		}
		free(l->fmts[k]);
	}
	free(l->fmts);
	free(l->nfmts);
}

/*
 * The header of the file of @l's processes: the formats kept at the start, the names
 * as they are now; into a memfd. @table: the event table is made too (the start).
 */
static int live_header(struct rec *r, struct rec_live *l, bool table, int *fdp,
		       struct cmd_net_file *nf)
{
	struct evt_tracedat_source *srcs = calloc((size_t)l->nsrc, sizeof(*srcs));
	struct evt_tracedat_live *t = NULL;
	uint64_t *zero = calloc(REC_MAX_CPUS_LIVE, sizeof(*zero));
	struct evt_tracedat_merge m = {
		.page_size = r->page_size, .clock = r->first->bi.clock,
		.clock_list = r->first->clock_list,
		.date = r->first->date[0] ? r->first->date : NULL,
		.read_page = no_page, .sources = srcs, .nr_sources = (unsigned int)l->nsrc,
	};
	struct evt_tracedat_merge_stats st;
	unsigned char *hdr = NULL;
	size_t hlen = 0;
	int ret = srcs && zero ? 0 : -ENOMEM;

	*fdp = -1;
	for (int k = 0; !ret && k < l->nsrc; k++) {
		struct rec_src *s = l->src[k];

		srcs[k] = (struct evt_tracedat_source){ .nr_cpus = s->bi.nr_cpus, .nr_pages = zero,
							.formats = l->fmts[k],
							.nr_formats = l->nfmts[k],
							.cmdlines = s->cmdlines, .names = s->names };
	}
	if (!ret)
		ret = evt_tracedat_live_begin(&m, &t, &hdr, &hlen, &st);
	if (!ret && table)
		l->table = t;
	else
		evt_tracedat_live_free(t);
	if (!ret) {
		*fdp = memfd_create("evtrace-live", MFD_CLOEXEC);
		ret = *fdp < 0 ? -errno : write(*fdp, hdr, hlen) == (ssize_t)hlen ? 0 : -EIO;
	}
	if (!ret) {
		*nf = (struct cmd_net_file){ .path = r->output, .meta_len = st.meta_len,
					     .data_at = st.data_at, .nr_cpus = (int)st.nr_cpus,
					     .page_size = r->page_size, .names_at = st.names_at };
		l->cpus = st.nr_cpus;
	}
	free(srcs);
	free(zero);
	free(hdr);
	return ret;
}

/* The stream failed (@l->net's error): said once, the recording goes on locally. */
static void live_fail(struct rec *r, struct rec_live *l)
{
	char then[400];

	l->failed = true;
	r->net_failed = true;
	snprintf(then, sizeof(then), "%llu pages (%llu bytes) had been sent, as much as the "
		 "listener kept of them is its; the recording goes on into %s, which will hold "
		 "all of it",
		 (unsigned long long)l->pages, (unsigned long long)cmd_net_sent(l->net),
		 r->output);
	cmd_net_say(l->net, r->net, then);
}

/* @s's index in @l's table, or l->nsrc (not in it). */
static int live_index(const struct rec_live *l, const struct rec_src *s)
{
	int k;

	for (k = 0; k < l->nsrc && l->src[k] != s; k++)
		;
	return k;
}

int rec_live_start(struct rec *r, struct rec_src **src, int nsrc)
{
	struct rec_live *l = r->first ? calloc(1, sizeof(*l)) : NULL;
	struct cmd_net_file nf;
	char then[300];
	int fd = -1, ret;

	if (!l) {
		cmd_error("record: -N %s: %s", r->net, strerror(ENOMEM));
		r->net_failed = true;
		return -ENOMEM;
	}
	r->live = l;
	l->nsrc = nsrc;
	l->tree = r->tree;
	l->src = calloc((size_t)nsrc, sizeof(*l->src));
	l->page = malloc(r->page_size);
	ret = l->src && l->page ? 0 : -ENOMEM;
	for (int k = 0; !ret && k < nsrc; k++)
		l->src[k] = src[k];
	if (!ret)
		ret = live_keep_formats(l);
	if (!ret)
		ret = live_header(r, l, true, &fd, &nf);
	if (ret) {
		cmd_error("record: -N %s: making the metadata: %s", r->net, strerror(-ret));
	} else {
		l->net = cmd_net_start(r->net, fd, &nf);
		ret = cmd_net_errno(l->net);
		if (ret) {
			snprintf(then, sizeof(then), "nothing was sent; the recording goes on into "
				 "%s, which will hold all of it", r->output);
			cmd_net_say(l->net, r->net, then);
		}
	}
	if (fd >= 0)
		close(fd);
	if (ret) {
		l->failed = true;
		r->net_failed = true;
	} else if (!r->quiet && l->tree) {
		fprintf(stderr, "evtrace: record: -N %s: live: %u CPUs of process %d (the "
			"command's; other processes of its tree stay in %s)\n",
			r->net, l->cpus, (int)l->src[0]->pid, r->output);
	} else if (!r->quiet) {
		fprintf(stderr, "evtrace: record: -N %s: live: %u CPUs of %d process%s\n",
			r->net, l->cpus, l->nsrc, l->nsrc > 1 ? "es" : "");
	}
	return ret;
}

void rec_live_page(struct rec *r, struct rec_src *s, unsigned int cpu, const unsigned char *page)
{
	struct rec_live *l = r->live;
	int k, fcpu;

	if (!l) {
		r->net_unsent++; /* a command's: another process, before its own was set up */
		return;
	}
	if (l->failed)
		return;
	k = live_index(l, s);
	fcpu = evt_tracedat_live_cpu(l->table, (unsigned int)k, cpu);
	if (fcpu < 0) {
		r->net_unsent++; /* another process of a command's tree (never with -p) */
		return;
	}
	memcpy(l->page, page, r->page_size);
	evt_tracedat_live_page(l->table, (unsigned int)k, l->page, r->page_size, &l->dropped);
	if (!cmd_net_put(l->net, fcpu, l->page, r->page_size)) {
		l->pages++;
		rec_live_tick(r); /* a long drain: the held metadata's keep-alive */
		return;
	}
	live_fail(r, l);
}

/*
 * The names as they are now, and the rest of the metadata after them, to the
 * listener: once, at the end (or when the keep-alive's bytes are all gone).
 */
static void live_names(struct rec *r, struct rec_live *l)
{
	struct cmd_net_file nf;
	int fd, ret;

	if (l->failed || l->named)
		return;
	l->named = true;
	ret = live_header(r, l, false, &fd, &nf);
	if (!ret)
		ret = cmd_net_names(l->net, fd, &nf);
	if (fd >= 0)
		close(fd);
	if (ret)
		live_fail(r, l);
}

void rec_live_tick(struct rec *r)
{
	struct rec_live *l = r->live;
	int ret;

	if (!l || l->failed || l->named)
		return;
	ret = cmd_net_tick(l->net);
	if (ret > 0)
		live_names(r, l); /* hours: the names known now go */
	else if (ret < 0)
		live_fail(r, l);
}

void rec_live_names(struct rec *r)
{
	if (r->live)
		live_names(r, r->live);
}

int rec_live_end(struct rec *r)
{
	struct rec_live *l = r->live;
	char then[300];
	int ret = 0;

	if (!l)
		return 0;
	live_names(r, l);
	if (!l->failed) {
		ret = cmd_net_end(l->net);
		if (ret) {
			snprintf(then, sizeof(then), "all %llu pages were sent; the trace is in %s",
				 (unsigned long long)l->pages, r->output);
			cmd_net_say(l->net, r->net, then);
			r->net_failed = true;
		}
	}
	if (!r->quiet && !l->failed && !ret)
		fprintf(stderr, "evtrace: record: -N %s: %llu pages sent live\n", r->net,
			(unsigned long long)l->pages);
	if (r->net_unsent) {
		int others = 0;

		for (int k = 0; k < r->nsrc; k++)
			others += r->src[k]->attached && live_index(l, r->src[k]) == l->nsrc;
		fprintf(stderr,
			"evtrace: record: -N %s: %llu pages of %d other process%s of the command's "
			"tree were not sent (the listener's CPUs are process %d's); %s has them\n",
			r->net, (unsigned long long)r->net_unsent, others, others == 1 ? "" : "es",
			(int)l->src[0]->pid, r->output);
	}
	if (l->dropped)
		fprintf(stderr,
			"evtrace: record: -N %s: %llu events of events registered after the start "
			"were not sent (the listener has not their formats); %s has them\n",
			r->net, (unsigned long long)l->dropped, r->output);
	return ret;
}

void rec_live_free(struct rec *r)
{
	struct rec_live *l = r->live;

	if (!l)
		return;
	cmd_net_free(l->net);
	evt_tracedat_live_free(l->table);
	live_free_formats(l);
	free(l->src);
	free(l->page);
	free(l);
	r->live = NULL;
}
