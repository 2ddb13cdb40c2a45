// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rec-setup.c - the settings `evtrace record` makes in one traced process
 * (evtrace-record.h): its -e events resolved against available_events and
 * enabled, the -f filters and -T triggers written; for an attached process
 * (-p), each change noted and undone at the end (rec_undo()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evtrace-cmd.h"
#include "evtrace-record.h"

/* The event files (events/SYS/NAME) that @spec names, from available_events. */
static int resolve(const char *avail, const char *spec, struct cmd_names *out)
{
	char sys[256], name[256];
	const char *colon = strchr(spec, ':');
	char *copy = strdup(avail);
	int found = 0;

	if (!copy)
		return -ENOMEM;
	if (colon) {
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
		snprintf(name, sizeof(name), "%s", colon[1] ? colon + 1 : "*");
	} else {
		snprintf(sys, sizeof(sys), "%s", spec);
		snprintf(name, sizeof(name), "%s", spec);
	}
	for (char *l = strtok(copy, "\n"); l; l = strtok(NULL, "\n")) {
		char *c = strchr(l, ':');
		bool match;

		if (!c)
			continue;
		*c = '\0';
		if (colon)
			match = (!strcmp(sys, "*") || !strcmp(sys, l)) &&
				(!strcmp(name, "*") || !strcmp(name, c + 1));
		else
			match = !strcmp(spec, "all") || !strcmp(spec, l) || !strcmp(spec, c + 1);
		if (match) {
			char path[600];

			snprintf(path, sizeof(path), "events/%s/%s", l, c + 1);
			if (cmd_names_push(out, path))
				break;
			found++;
		}
	}
	free(copy);
	return found;
}

static void add_undo(struct rec_src *s, const char *path, const char *data)
{
	char **np = realloc(s->undo_path, (size_t)(s->nundo + 1) * sizeof(*np));
	char **nd;

	if (!np)
		return;
	s->undo_path = np;
	nd = realloc(s->undo_data, (size_t)(s->nundo + 1) * sizeof(*nd));
	if (!nd)
		return;
	s->undo_data = nd;
	s->undo_path[s->nundo] = strdup(path);
	s->undo_data[s->nundo] = strdup(data);
	if (!s->undo_path[s->nundo] || !s->undo_data[s->nundo]) {
		free(s->undo_path[s->nundo]);
		free(s->undo_data[s->nundo]);
		return;
	}
	s->nundo++;
}

static int put(struct rec_src *s, const char *path, const char *data, unsigned int flags)
{
	char err[4096];
	ssize_t n = ctl_write(s->c, path, data, strlen(data), flags, err, sizeof(err));

	if (n < 0) {
		cmd_ctl_error("record: write", path, (int)n, err);
		return -1;
	}
	return 0;
}

/* Events on, filters and triggers set; what attaching changed is noted to undo. */
int rec_setup_events(struct rec *r, struct rec_src *s)
{
	bool attached = !r->tree;
	char *avail = NULL;
	int ret = 0;

	if (ctl_read(s->c, "available_events", &avail) < 0) {
		cmd_error("record: cannot read available_events");
		free(avail);
		return -1;
	}
	if (r->nev == 0) {
		ret = put(s, "events/enable", "1", CTL_WF_TRUNC);
		if (!ret && attached)
			add_undo(s, "events/enable", "0");
	}
	for (int i = 0; !ret && i < r->nev; i++) {
		struct cmd_names files = { 0 };
		int n = resolve(avail, r->ev[i].spec, &files);

		if (n > 0)
			r->matched[i]++;
		if (n <= 0) {
			/*
			 * With CMD, it may register later (EVTRACE_EVENTS enables it
			 * then), or be another program's of the tree: said at the end
			 * if no process had it (rec_unmatched()).
			 */
			if (attached) {
				cmd_error("record: no event matches '%s' in process %d",
					  r->ev[i].spec, (int)ctl_client_info(s->c)->pid);
				ret = -1;
			}
			cmd_names_free(&files);
			continue;
		}
		for (int j = 0; !ret && j < files.n; j++) {
			char path[700];

			if (r->ev[i].filter) {
				snprintf(path, sizeof(path), "%s/filter", files.v[j]);
				ret = put(s, path, r->ev[i].filter, CTL_WF_TRUNC);
				if (!ret && attached)
					add_undo(s, path, "0");
			}
			for (int t = 0; !ret && t < r->ev[i].ntrig; t++) {
				char undo[4200];

				snprintf(path, sizeof(path), "%s/trigger", files.v[j]);
				ret = put(s, path, r->ev[i].trigger[t], CTL_WF_APPEND);
				snprintf(undo, sizeof(undo), "!%s", r->ev[i].trigger[t]);
				if (!ret && attached)
					add_undo(s, path, undo);
			}
			snprintf(path, sizeof(path), "%s/enable", files.v[j]);
			if (!ret)
				ret = put(s, path, "1", CTL_WF_TRUNC);
			if (!ret && attached)
				add_undo(s, path, "0");
		}
		cmd_names_free(&files);
	}
	free(avail);
	return ret;
}

/* Undo what setup changed (if the process is still there); free the list. */
void rec_undo(struct rec_src *s)
{
	for (int i = s->nundo; i-- > 0;) {
		if (s->c)
			ctl_write(s->c, s->undo_path[i], s->undo_data[i], strlen(s->undo_data[i]),
				  strstr(s->undo_path[i], "/trigger") ? CTL_WF_APPEND :
									CTL_WF_TRUNC,
				  NULL, 0);
		free(s->undo_path[i]);
		free(s->undo_data[i]);
	}
	free(s->undo_path);
	free(s->undo_data);
	s->undo_path = s->undo_data = NULL;
	s->nundo = 0;
}
