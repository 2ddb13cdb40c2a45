// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: a hist trigger command (hist/hist_parse.c's parser), applied to an
 * event with numeric and string fields, the events fired, the `hist` text
 * read, then every trigger removed again through the line the `trigger`
 * file shows.
 *
 * Input: the first byte picks the event (kmalloc, netif_receive_skb,
 * process_fork, sched_switch of unit/hist-tp.h); the rest up to a NUL is written after
 * "hist:" (or as is when it starts with '!'). Nothing may crash or leak;
 * the errno is one the kernel gives; a logged error has its caret inside
 * the command; the `hist` text has one "# event histogram" table per hist
 * trigger, each ending in the Totals; after the removals nothing is left.
 * Set up once for the inter-event syntax: on sched_waking the histogram
 * WAKING (variables ts0 and the string wc), and the synthetic event fz_lat;
 * after the removals sched_waking has WAKING alone again (the field variable
 * histograms a command made there went with it).
 *
 * Seeds: tests/fuzz/corpus/hist-parse/ (histogram.rst's commands).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "hist/hist.h"
#include "synth/synth.h"
#include "trigger/trigger.h"

#define WAKING \
	"hist:keys=pid:vals=hitcount:ts0=ts,wc=common_comm:sort=hitcount:size=2048 [active]\n"

#define CREATE_TRACE_POINTS
#include "unit/hist-tp.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static unsigned int event_id(const char *name)
{
	struct evt_event *ev;
	unsigned int id;

	events_init();
	event_lock();
	ev = event_find_locked("hist_test", name);
	id = ev ? ev->id : 0;
	event_unlock();
	return id;
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void apply(struct evt_instance *inst, unsigned int id, const char *cmd, int *ret)
{
	struct trigger_error terr = { .n = 0 };
	struct filter_error ferr;
	bool has_ferr;

	*ret = trigger_apply(inst, id, cmd, &ferr, &has_ferr, &terr);
	check(terr.n <= TRIGGER_ERRS_MAX);
	for (unsigned int i = 0; i < terr.n; i++) {
		/*
		 * An error, or a command that went through after logging that a
		 * param is no field of this event (it is then looked for in the
		 * onmatch() event), as the kernel's action_create() logs it.
		 */
		check(*ret < 0 || !strcmp(terr.e[i].msg, "Couldn't find field") ||
		      !strcmp(terr.e[i].msg, "Couldn't parse field variable"));
		check(terr.e[i].pos <= strlen(terr.e[i].cmd));
		check(!strncmp(terr.e[i].loc, "hist:hist_test:", 15));
	}
	trigger_error_free(&terr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "kmalloc", "netif_receive_skb", "process_fork",
					     "sched_switch" };
	struct evt_instance *inst = evt_instance_top();
	static unsigned int waking;
	size_t n = size ? strnlen((const char *)data + 1, size - 1) : 0;
	char *cmd, *text, *line;
	unsigned int id;
	int ret, tables;

	if (!size)
		return 0;
	if (!waking) {
		waking = event_id("sched_waking");
		check(waking != 0);
		check(synth_run_command("fz_lat u64 lat; int pid; char comm[]; int prio") == 0);
		apply(inst, waking, "hist:keys=pid:ts0=ts,wc=comm", &ret);
		check(ret == 0);
	}
	id = event_id(names[data[0] % 4]);
	check(id != 0);
	cmd = malloc(n + 6);
	check(cmd != NULL);
	if (n && data[1] == '!') {
		memcpy(cmd, data + 1, n);
		cmd[n] = '\0';
	} else {
		memcpy(cmd, "hist:", 5);
		memcpy(cmd + 5, data + 1, n);
		cmd[n + 5] = '\0';
	}
	for (size_t i = 0; cmd[i]; i++)
		if (cmd[i] == '\n')
			cmd[i] = ' ';
	/*
	 * A trigger defining ts0 or wc too could not be removed through its line,
	 * as in the kernel: its $ts0 would then name two variables ("Variable name
	 * not unique"). Not the parser's business: skip.
	 */
	if (strstr(cmd, ":ts0=") || strstr(cmd, ",ts0=") || strstr(cmd, ":wc=") ||
	    strstr(cmd, ",wc=")) {
		free(cmd);
		return 0;
	}
	apply(inst, id, cmd, &ret);
	check(ret == 0 || ret == -EINVAL || ret == -EEXIST || ret == -ENOMEM || ret == -ENOENT ||
	      ret == -EDOM || ret == -EPERM || ret == -ERANGE || ret == -ESRCH ||
	      (ret < 0 && ret > -4096));

	for (int i = 0; i < 3; i++) {
		trace_kmalloc((unsigned long)i, 2, (unsigned long)i * 100, 8, 0);
		trace_netif_receive_skb(0xffff0000ul + (unsigned long)i, (unsigned int)i, "eth0");
		trace_process_fork(i ? "bash" : "a-very-long-thread-name", i);
		trace_sched_waking(i, 100 + i, 1000 * (unsigned long)i);
		trace_sched_switch("a", 0, i ? "b" : "cyclictest", i, 120,
				   1000 * (unsigned long)i + 5);
	}

	check(hist_show_text(inst, id, &text) == 0);
	tables = count(text, "# event histogram\n");
	check(count(text, "\nTotals:\n    Hits: ") == tables);
	free(text);

	/*
	 * Remove what the trigger file shows: "!" + the line without " [active]";
	 * when the line does not parse back (as in the kernel: "sort=x.log2" reads
	 * ".log2" as a sort modifier), with the command as written.
	 */
	check(trigger_show_text(inst, id, &text) == 0);
	if (text[0] != '#') {
		for (char *l = text, *e; *l; l = e + 1) {
			char *sp;

			e = strchr(l, '\n');
			check(e != NULL);
			check(!strncmp(l, "hist:", 5));
			tables--;
			*e = '\0';
			sp = strrchr(l, ' ');
			check(sp != NULL);
			*sp = '\0';
			line = malloc(strlen(l) + strlen(cmd) + 2);
			check(line != NULL);
			line[0] = '!';
			strcpy(line + 1, l);
			apply(inst, id, line, &ret);
			if (ret == -EINVAL && cmd[0] != '!') {
				line[0] = '!';
				strcpy(line + 1, cmd);
				apply(inst, id, line, &ret);
			}
			check(ret == 0);
			free(line);
		}
		free(text);
		check(trigger_show_text(inst, id, &text) == 0);
	}
	free(cmd);
	check(tables == 0);
	check(text[0] == '#');
	free(text);
	check(hist_show_text(inst, id, &text) == 0);
	check(text[0] == '\0');
	free(text);
	check(trigger_show_text(inst, waking, &text) == 0);
	check(!strcmp(text, WAKING));
	free(text);
	return 0;
}
