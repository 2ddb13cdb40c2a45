/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-report.h - what `evtrace report` shares between its files.
 */
#ifndef EVTRACE_REPORT_H
#define EVTRACE_REPORT_H

#include <stdio.h>

struct evt_tracedat;
struct evt_tracedat_record;

/*
 * cmd_report_raw() - print @rec as its fields (report -R, report-raw.c):
 * "TS [CPU] SYSTEM:NAME: tid=T pid=P comm=C field=value ...\n".
 */
void cmd_report_raw(struct evt_tracedat *td, const struct evt_tracedat_record *rec, FILE *f);

#endif /* EVTRACE_REPORT_H */
