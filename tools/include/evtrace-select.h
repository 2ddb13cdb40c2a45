/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-select.h - the record selection that `evtrace report` and `evtrace
 * export` share (tools/evtrace/select.c): -c CPUS, -e EVENTS (repeatable),
 * -F FILTER (the kernel's filter grammar), --first/--last NS.
 */
#ifndef EVTRACE_SELECT_H
#define EVTRACE_SELECT_H

#include <getopt.h>
#include <stdbool.h>

struct evt_tracedat;
struct evt_tracedat_record;
struct evt_tracedat_filter;

#define CMD_SELECT_MAX 64

struct cmd_select {
	unsigned char cpus[4096]; /* selected CPUs (all when none given) */
	bool cpu_sel;
	char *ev_sys[CMD_SELECT_MAX], *ev_name[CMD_SELECT_MAX];
	int nev;
	unsigned long long first, last;
	const char *filter;
	/* per event ID: 0 not compiled yet, 1 compiled (prog, NULL passes all), 2 no match */
	unsigned char fstate[65536];
	struct evt_tracedat_filter *fprog[65536];
};

/* The getopt_long entries and short options of the selection, for the command's tables. */
/* clang-format off */
#define CMD_SELECT_LONGOPTS						\
	{ "cpu", required_argument, NULL, 'c' },			\
	{ "events", required_argument, NULL, 'e' },			\
	{ "filter", required_argument, NULL, 'f' },			\
	{ "first", required_argument, NULL, 'A' },			\
	{ "last", required_argument, NULL, 'L' }
/* clang-format on */
#define CMD_SELECT_SHORTOPTS "c:e:F:"
/* The usage lines of the selection options. */
#define CMD_SELECT_USAGE                                                                    \
	"  -c, --cpu CPUS      only these CPUs: 0,2,3\n"                                    \
	"  -e, --events LIST   only these events: name, sys:name, sys:* (comma list)\n"     \
	"  -F, --filter EXPR   only records passing EXPR (kernel filter grammar), of the\n" \
	"                      events that have its fields\n"                               \
	"  --first/--last NS   only records in that time range (clock units)\n"

/* Everything selected; the struct is large (1 MiB): allocate it. */
void cmd_select_init(struct cmd_select *s);

/*
 * Take option @c (a getopt_long result) with @arg. Return: 0 taken, 1 not a selection
 * option, -1 a bad value (the error printed: a usage error).
 */
int cmd_select_option(struct cmd_select *s, int c, char *arg);

/*
 * After the file opened: a -F filter that no event of @td can take is a usage error,
 * as the kernel says. Return: 0, or -1 (the error printed).
 */
int cmd_select_check(struct cmd_select *s, struct evt_tracedat *td);

/* Is @rec selected? (-F's program is compiled for each event at its first record.) */
bool cmd_select_wanted(struct cmd_select *s, const struct evt_tracedat_record *rec);

/* Free the compiled filters (not @s). */
void cmd_select_release(struct cmd_select *s);

#endif /* EVTRACE_SELECT_H */
