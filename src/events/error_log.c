// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events/error_log.c - an instance's error_log (see error_log.h).
 *
 * After the kernel's kernel/trace/trace.c (tracing_log_err(),
 * tracing_err_log_seq_show()): a ring of ERROR_LOG_MAX entries, each shown as
 * "[sec.usec] loc: error: msg\n  Command: cmd\n" and a caret line indented by
 * the width of "  Command: " plus the error's position.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/clock.h>

#include "core/detail.h"
#include "events/error_log.h"

#define CMD_PREFIX "  Command: "

struct error_log_entry {
	uint64_t ts;		/* EVT_CLOCK_LOCAL, ns */
	unsigned int pos;
	char *loc;
	char *msg;
	char *cmd;
};

struct error_log {
	pthread_mutex_t lock;
	unsigned int first;	/* index of the oldest entry in @ent */
	unsigned int count;
	struct error_log_entry ent[ERROR_LOG_MAX];
};

int error_log_alloc(struct error_log **logp)
{
	struct error_log *log = calloc(1, sizeof(*log));

	if (!log)
		return -ENOMEM;
	pthread_mutex_init(&log->lock, NULL);
	*logp = log;
	return 0;
}

static void entry_free(struct error_log_entry *e)
{
	free(e->loc);
	free(e->msg);
	free(e->cmd);
	memset(e, 0, sizeof(*e));
}

void error_log_clear(struct error_log *log)
{
	pthread_mutex_lock(&log->lock);
	for (unsigned int i = 0; i < ERROR_LOG_MAX; i++)
		entry_free(&log->ent[i]);
	log->first = 0;
	log->count = 0;
	pthread_mutex_unlock(&log->lock);
}

void error_log_free(struct error_log *log)
{
	if (!log)
		return;
	error_log_clear(log);
	pthread_mutex_destroy(&log->lock);
	free(log);
}

int error_log_add(struct error_log *log, const char *loc, const char *msg, const char *cmd,
		  unsigned int pos)
{
	struct error_log_entry e = { 0 }, *slot;
	size_t cmd_len;

	if (!cmd)
		cmd = "";
	cmd_len = strnlen(cmd, ERROR_LOG_CMD_MAX);
	e.loc = strdup(loc ? loc : "");
	e.msg = strdup(msg ? msg : "");
	e.cmd = strndup(cmd, cmd_len);
	if (!e.loc || !e.msg || !e.cmd) {
		entry_free(&e);
		return -ENOMEM;
	}
	/*
	 * The kernel stores the position as given: an event filter's parse_pred()
	 * error past the end of the text is two past it ("CPU == CPUS": the '{'
	 * looked for after the NUL), while the filter file clamps its own caret
	 * (append_filter_err()). Bounded here only against nonsense.
	 */
	e.pos = pos > cmd_len + 2 ? (unsigned int)cmd_len + 2 : pos;
	/* the same words for the C caller: evt_error_detail(), one line */
	detail_set("%s: error: %s (command \"%s\", at %u)", e.loc, e.msg, e.cmd, e.pos);
	e.ts = evt_clock_to_ns(EVT_CLOCK_LOCAL, evt_clock_read(EVT_CLOCK_LOCAL));

	pthread_mutex_lock(&log->lock);
	if (log->count == ERROR_LOG_MAX) {
		slot = &log->ent[log->first];
		entry_free(slot);
		log->first = (log->first + 1) % ERROR_LOG_MAX;
	} else {
		slot = &log->ent[(log->first + log->count) % ERROR_LOG_MAX];
		log->count++;
	}
	*slot = e;
	pthread_mutex_unlock(&log->lock);
	return 0;
}

unsigned int error_log_count(struct error_log *log)
{
	unsigned int n;

	pthread_mutex_lock(&log->lock);
	n = log->count;
	pthread_mutex_unlock(&log->lock);
	return n;
}

struct out {
	char *buf;
	size_t len;
	size_t n;	/* bytes the whole text takes so far */
};

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	size_t room = o->n < o->len ? o->len - o->n : 0;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(room ? o->buf + o->n : NULL, room, fmt, ap);
	va_end(ap);
	if (r > 0)
		o->n += (size_t)r;
}

size_t error_log_format(struct error_log *log, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };

	if (len)
		buf[0] = '\0';
	pthread_mutex_lock(&log->lock);
	for (unsigned int i = 0; i < log->count; i++) {
		const struct error_log_entry *e = &log->ent[(log->first + i) % ERROR_LOG_MAX];

		out_printf(&o, "[%5llu.%06u] %s: error: %s\n" CMD_PREFIX "%s\n%*s^\n",
			   (unsigned long long)(e->ts / 1000000000),
			   (unsigned int)(e->ts % 1000000000 / 1000), e->loc, e->msg, e->cmd,
			   (int)(sizeof(CMD_PREFIX) - 1 + e->pos), "");
	}
	pthread_mutex_unlock(&log->lock);
	return o.n;
}
