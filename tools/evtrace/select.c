// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * select.c - the record selection of `evtrace report` and `evtrace export`
 * (tools/include/evtrace-select.h).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "evtrace-select.h"

void cmd_select_init(struct cmd_select *s)
{
	memset(s, 0, sizeof(*s));
	s->last = ~0ULL;
}

static int sel_events(struct cmd_select *s, char *list)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		char *colon = strchr(tok, ':');

		if (s->nev == CMD_SELECT_MAX)
			return -1;
		if (colon) {
			*colon = '\0';
			s->ev_sys[s->nev] = tok;
			s->ev_name[s->nev] = *(colon + 1) ? colon + 1 : (char *)"*";
		} else {
			s->ev_sys[s->nev] = (char *)"*";
			s->ev_name[s->nev] = tok;
		}
		s->nev++;
	}
	return 0;
}

static int sel_cpus(struct cmd_select *s, char *list)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		char *end;
		long c = strtol(tok, &end, 10);

		if (end == tok || *end || c < 0 || c >= (long)sizeof(s->cpus))
			return -1;
		s->cpus[c] = 1;
	}
	s->cpu_sel = true;
	return 0;
}

static int sel_num(const char *arg, unsigned long long *v)
{
	char *end;

	*v = strtoull(arg, &end, 0);
	if (end == arg || *end) {
		cmd_error("bad number '%s'", arg);
		return -1;
	}
	return 0;
}

int cmd_select_option(struct cmd_select *s, int c, char *arg)
{
	switch (c) {
	case 'c':
		if (sel_cpus(s, arg)) {
			cmd_error("bad CPU list '%s'", arg);
			return -1;
		}
		return 0;
	case 'e':
		if (sel_events(s, arg)) {
			cmd_error("too many events (at most %d)", CMD_SELECT_MAX);
			return -1;
		}
		return 0;
	case 'F':
	case 'f':
		s->filter = arg;
		return 0;
	case 'A':
		return sel_num(arg, &s->first);
	case 'L':
		return sel_num(arg, &s->last);
	default:
		return 1;
	}
}

int cmd_select_check(struct cmd_select *s, struct evt_tracedat *td)
{
	char err[256] = "no event has these fields";

	if (!s->filter)
		return 0;
	for (int i = 0; i < evt_tracedat_nr_events(td); i++) {
		struct evt_tracedat_filter *f = NULL;
		int ret = evt_tracedat_filter_compile(evt_tracedat_event(td, i), s->filter, &f);

		evt_tracedat_filter_free(f);
		if (!ret)
			return 0;
		if (evt_error_detail()[0])
			snprintf(err, sizeof(err), "%s", evt_error_detail());
	}
	cmd_error("filter '%s': %s", s->filter, err);
	return -1;
}

/* Does @rec pass -F? The filter is compiled for each event at its first record. */
static bool sel_filter(struct cmd_select *s, const struct evt_tracedat_record *rec)
{
	unsigned int id = rec->event->id & 0xffff;

	if (!s->fstate[id]) {
		int ret = evt_tracedat_filter_compile(rec->event, s->filter, &s->fprog[id]);

		s->fstate[id] = ret ? 2 : 1;
	}
	return s->fstate[id] == 1 && evt_tracedat_filter_match(s->fprog[id], rec);
}

bool cmd_select_wanted(struct cmd_select *s, const struct evt_tracedat_record *rec)
{
	if (s->cpu_sel && (rec->cpu >= (int)sizeof(s->cpus) || !s->cpus[rec->cpu]))
		return false;
	if (rec->ts < s->first || rec->ts > s->last)
		return false;
	if (s->filter && (!rec->event || !sel_filter(s, rec)))
		return false;
	if (!s->nev)
		return true;
	if (!rec->event)
		return false;
	for (int i = 0; i < s->nev; i++)
		if (!fnmatch(s->ev_sys[i], rec->event->system, 0) &&
		    !fnmatch(s->ev_name[i], rec->event->name, 0))
			return true;
	return false;
}

void cmd_select_release(struct cmd_select *s)
{
	for (unsigned int i = 0; i < 65536; i++) {
		evt_tracedat_filter_free(s->fprog[i]);
		s->fprog[i] = NULL;
	}
}
