// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: a command written to an event's `trigger` file
 * (trigger_apply()), the text read back, the event fired, then every
 * trigger removed again with '!' and the name the text shows.
 *
 * The input is the command (bytes up to the first NUL). Nothing may crash
 * or leak; the errno is one the kernel gives; what is read back is one line
 * per trigger, each starting with a command's name; after the removals the
 * file shows the list of commands again (nothing left behind).
 *
 * Seeds (tests/fuzz/corpus/trigger-parse/): the commands of
 * tests/data/trigger/kernel-ask.sh, on this target's events.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "trigger/trigger.h"

#define CREATE_TRACE_POINTS
#include "unit/tracefs-events-tp.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static unsigned int tick_id(void)
{
	struct evt_event *ev;
	unsigned int id;

	events_init();
	event_lock();
	ev = event_find_locked("tfs_test", "tfs_tick");
	id = ev ? ev->id : 0;
	event_unlock();
	return id;
}

/*
 * Remove the trigger a line of the file shows: "!" and the line without its count. A hist
 * line is not always a command that parses again: as the kernel's expr_field_str(), an
 * operand of a key expression shows its bucket modifier without its size ("keys=2-n.buckets"
 * for "keys=2-n.bucket=46"), which a command must have. Such a trigger is removed with the
 * command that made it, @orig, as a kernel user would.
 */
static void remove_line(struct evt_instance *inst, unsigned int id, const char *line, size_t n,
			const char *orig)
{
	struct filter_error err;
	char *cmd = malloc(n + 2);
	bool has_err;
	char *colon;

	/* a filter may be as long as the write was (up to a page): no fixed buffer */
	check(cmd != NULL);
	cmd[0] = '!';
	memcpy(cmd + 1, line, n);
	cmd[n + 1] = '\0';
	if (!strncmp(line, "hist:", 5)) {
		/* hist: the line is the command, filter included, then " [active]" */
		colon = strrchr(cmd, ' ');
		check(colon != NULL);
		*colon = '\0';
		if (trigger_apply(inst, id, cmd, &err, &has_err, NULL)) {
			check(strstr(cmd, ".buckets") != NULL);
			free(cmd);
			orig += strspn(orig, " \t"); /* the blanks a command may start with */
			cmd = malloc(strlen(orig) + 2);
			check(cmd != NULL);
			cmd[0] = '!';
			strcpy(cmd + 1, orig);
			check(trigger_apply(inst, id, cmd, &err, &has_err, NULL) == 0);
		}
		free(cmd);
		return;
	}
	colon = strrchr(cmd, ' ');
	if (colon && strstr(cmd, " if "))
		*strstr(cmd, " if ") = '\0';
	colon = strrchr(cmd, ':');
	check(colon != NULL);
	*colon = '\0';
	check(trigger_apply(inst, id, cmd, &err, &has_err, NULL) == 0);
	free(cmd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evt_instance *inst = evt_instance_top();
	static unsigned int id;
	size_t n = strnlen((const char *)data, size);
	struct filter_error err;
	bool has_err;
	char *cmd, *text;
	int ret;

	if (!id)
		id = tick_id();
	check(id != 0);
	cmd = malloc(n + 1);
	check(cmd != NULL);
	memcpy(cmd, data, n);
	cmd[n] = '\0';
	/*
	 * The read-back below is split into lines: a newline inside a filter is
	 * shown as written (as the kernel does), so it is made a blank here.
	 */
	for (size_t i = 0; i < n; i++)
		if (cmd[i] == '\n')
			cmd[i] = ' ';
	ret = trigger_apply(inst, id, cmd, &err, &has_err, NULL);
	/* a filter's error comes back with the compiler's errno, as the kernel's
	 * create_event_filter() gives it (-EPERM, -ENOENT for unbalanced parentheses) */
	check(ret == 0 || ret == -EINVAL || ret == -EEXIST || ret == -ENOMEM || ret == -ENOENT ||
	      ret == -EDOM || ret == -EPERM || ret == -ERANGE || (has_err && ret < 0 && ret > -4096));
	check(!has_err || ret < 0);

	trace_tfs_tick(1);
	trace_tfs_tick(6);
	trace_tfs_req(1, "x");
	trace_tfs_misc(2);

	check(trigger_show_text(inst, id, &text) == 0);
	if (text[0] != '#') {
		for (char *l = text, *e; *l; l = e + 1) {
			e = strchr(l, '\n');
			check(e != NULL);
			check(!strncmp(l, "traceon:", 8) || !strncmp(l, "traceoff:", 9) ||
			      !strncmp(l, "stacktrace:", 11) || !strncmp(l, "snapshot:", 9) ||
			      !strncmp(l, "enable_event:", 13) ||
			      !strncmp(l, "disable_event:", 14) ||
			      !strncmp(l, "enable_hist:", 12) || !strncmp(l, "disable_hist:", 13) ||
			      !strncmp(l, "hist:", 5));
			remove_line(inst, id, l, (size_t)(e - l), cmd);
		}
		free(text);
		check(trigger_show_text(inst, id, &text) == 0);
	}
	check(text[0] == '#');
	free(text);
	free(cmd);
	evt_instance_tracing_on(inst, true);
	evt_instance_event_enable(inst, NULL, NULL, false);
	return 0;
}
