// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * status.c - the live line the draining commands show on stderr, and the
 * SIGINT/SIGTERM handling they share.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "evtrace-cmd.h"

volatile int cmd_stop;

static void on_stop(int sig)
{
	(void)sig;
	cmd_stop = 1;
}

/* SIGINT and SIGTERM set cmd_stop; blocking calls return EINTR (no SA_RESTART). */
void cmd_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

double status_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void status_init(struct cmd_status *st, const char *name, int force)
{
	memset(st, 0, sizeof(*st));
	st->name = name;
	st->on = force ? 2 : isatty(STDERR_FILENO);
	st->records_known = 1;
	st->start = st->last = status_now();
}

static void human(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB" };
	int i = 0;

	while (v >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, unit[i]);
}

/*
 * Redraw the line if half a second has passed (or @final). On a terminal
 * the line is rewritten in place (\r, erase to the end); forced without a
 * terminal, only the final line is printed.
 */
void status_update(struct cmd_status *st, int final)
{
	double now = status_now();
	char rate[32], total[32], recs[32];

	if (!st->on || (!final && now - st->last < 0.5))
		return;
	if (now > st->last)
		st->rate = (double)(st->bytes - st->last_bytes) / (now - st->last);
	if (final && now > st->start)
		st->rate = (double)st->bytes / (now - st->start);
	st->last = now;
	st->last_bytes = st->bytes;
	if (st->on == 2 && !final)
		return;
	human(rate, sizeof(rate), st->rate);
	human(total, sizeof(total), (double)st->bytes);
	if (st->records_known)
		snprintf(recs, sizeof(recs), "%llu", (unsigned long long)st->records);
	else
		snprintf(recs, sizeof(recs), "-");
	fprintf(stderr, "%s%s: %s/s, %s, %s records, %llu missed%s", st->on == 1 ? "\r" : "",
		st->name, rate, total, recs, (unsigned long long)st->missed,
		st->on == 1 ? (final ? "\033[K\n" : "\033[K") : "\n");
	fflush(stderr);
}
