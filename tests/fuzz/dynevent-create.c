// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: command strings fed to the synthetic event parsers.
 *
 * The first byte picks the way in: 0 a write to `synthetic_events`, 1 to `dynamic_events`,
 * 2 the dynevent_cmd API (evt_dynevent_str_add() + evt_dynevent_create()), 3 the gen_cmd API
 * (the rest split at blanks into type/name pairs after the event's name). The rest is the
 * command (or the lines of a write). Nothing may crash or leak; the errnos are the kernel's;
 * every event created lists as "name\t<type> <field>; ..." and, fed back to
 * `synthetic_events` after `>` deleted them all, gives the same listing; each is enabled,
 * traced with all-zero values (NULL strings) through the hist hook and printed; at the end
 * `>` removes every one.
 *
 * Probe definitions (`p...`/`r...` lines) are blanked before ways 1 and 2: they would patch
 * this process's own code at whatever symbol the input names. fuzz/probe-parse covers their
 * grammar without installing them.
 *
 * Seeds (tests/fuzz/corpus/dynevent-create/): tests/data/synth/commands.txt's commands and
 * the gen_cmd examples of events.rst 7.1.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "synth/synth.h"
#include "tracefs-cat.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static int errno_ok(long ret)
{
	return ret >= 0 || ret == -EINVAL || ret == -EEXIST || ret == -ENOENT || ret == -E2BIG ||
	       ret == -EBUSY || ret == -EOPNOTSUPP;
}

static void gen_cmd(char *text)
{
	char buf[EVT_MAX_DYNEVENT_CMD_LEN];
	struct evt_dynevent_cmd cmd;
	char *save = NULL, *name, *type, *field;
	int ret;

	evt_synth_event_cmd_init(&cmd, buf, sizeof(buf));
	name = strtok_r(text, " \t", &save);
	if (!name)
		return;
	ret = evt_synth_event_gen_cmd_start(&cmd, name);
	while (!ret && (type = strtok_r(NULL, " \t", &save)) &&
	       (field = strtok_r(NULL, " \t", &save)))
		ret = evt_synth_event_add_field(&cmd, type, field);
	if (!ret)
		ret = evt_synth_event_gen_cmd_end(&cmd);
	check(errno_ok(ret));
}

static int trace_one(const char *line)
{
	uint64_t vals[EVT_SYNTH_FIELDS_MAX] = { 0 };
	const char *tab = strchr(line, '\t');
	struct synth_event *se;
	char name[256], path[400];

	check(tab && (size_t)(tab - line) < sizeof(name));
	memcpy(name, line, (size_t)(tab - line));
	name[tab - line] = '\0';
	se = synth_event_find(name);
	check(se != NULL);
	snprintf(path, sizeof(path), "events/synthetic/%s/enable", name);
	check(evt_tracefs_write(NULL, path, "1", 1, EVT_TRACEFS_TRUNC) == 1);
	check(synth_event_trace_vals(se, vals, se->n_fields) == 0);
	check(evt_tracefs_write(NULL, path, "0", 1, EVT_TRACEFS_TRUNC) == 1);
	synth_event_put(se);
	return 0;
}

/* Blank every line of @text that reads as a probe definition: blanks, p or r, digits, then
 * ':', a blank or the end of the line. */
static void drop_probe_lines(char *text)
{
	for (char *l = text; *l; l++) {
		char *p = l;

		while (*p != '\n' && isspace((unsigned char)*p))
			p++;
		if (*p == 'p' || *p == 'r') {
			p += 1 + strspn(p + 1, "0123456789");
			if (*p == ':' || isspace((unsigned char)*p) || !*p)
				for (p = l; *p && *p != '\n'; p++)
					*p = ' ';
		}
		l = strchrnul(l, '\n');
		if (!*l)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *listing, *again;
	size_t n, longest = 0;
	unsigned int way;
	long ret;

	if (size < 1)
		return 0;
	way = data[0] & 3;
	n = strnlen((const char *)data + 1, size - 1);
	text = malloc(n + 1);
	check(text != NULL);
	memcpy(text, data + 1, n);
	text[n] = '\0';
	if (way == 1 || way == 2)
		drop_probe_lines(text);
	switch (way) {
	case 0:
	case 1:
		ret = evt_tracefs_write(NULL, way ? "dynamic_events" : "synthetic_events", text, n,
					EVT_TRACEFS_APPEND);
		check(errno_ok(ret));
		check(ret < 0 || (size_t)ret == n);
		break;
	case 2: {
		char buf[EVT_MAX_DYNEVENT_CMD_LEN];
		struct evt_dynevent_cmd cmd;

		evt_dynevent_cmd_init(&cmd, buf, sizeof(buf), EVT_DYNEVENT_TYPE_RAW, NULL);
		ret = evt_dynevent_str_add(&cmd, text);
		if (!ret)
			ret = evt_dynevent_create(&cmd);
		check(errno_ok(ret));
		break;
	}
	default:
		gen_cmd(text);
		break;
	}
	free(text);

	/* what exists: its listing, a record of each, the same listing once made again */
	listing = strdup(t_tracefs_cat(NULL, "synthetic_events"));
	check(listing != NULL);
	for (char *l = listing, *e; *l; l = e + 1) {
		e = strchr(l, '\n');
		check(e != NULL);
		*e = '\0';
		trace_one(l);
		*e = '\n';
		if ((size_t)(e - l) > longest)
			longest = (size_t)(e - l);
	}
	t_tracefs_cat(NULL, "trace");
	check(evt_tracefs_write(NULL, "synthetic_events", "", 0, EVT_TRACEFS_TRUNC) == 0);
	check(t_tracefs_cat(NULL, "synthetic_events")[0] == '\0');
	/*
	 * (a line listed longer than a write's line limit cannot be fed back, nor one with a
	 * '#': a write strips it and what follows as a comment, as the kernel's
	 * trace_parse_run_command() does, while the API takes "long[#]" as a stacktrace type
	 * as the kernel's synth_field_is_stack() does)
	 */
	if (listing[0] && longest < 4000 && !strchr(listing, '#')) {
		ret = evt_tracefs_write(NULL, "synthetic_events", listing, strlen(listing),
					EVT_TRACEFS_APPEND);
		check(ret == (long)strlen(listing));
		again = strdup(t_tracefs_cat(NULL, "synthetic_events"));
		check(again != NULL && !strcmp(again, listing));
		free(again);
		check(evt_tracefs_write(NULL, "dynamic_events", "", 0, EVT_TRACEFS_TRUNC) == 0);
	}
	free(listing);
	check(evt_tracefs_write(NULL, "trace", "", 0, EVT_TRACEFS_TRUNC) == 0);
	return 0;
}
