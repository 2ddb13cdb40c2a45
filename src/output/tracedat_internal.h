/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output/tracedat_internal.h - what the trace.dat writer and reader share.
 */
#ifndef EVT_OUTPUT_TRACEDAT_INTERNAL_H
#define EVT_OUTPUT_TRACEDAT_INTERNAL_H

#include <stdbool.h>

/* Option ids of a version 6 file (trace-cmd's enum tracecmd_file_options). */
#define TRACEDAT_OPT_DONE		0
#define TRACEDAT_OPT_DATE		1
#define TRACEDAT_OPT_CPUSTAT		2
#define TRACEDAT_OPT_BUFFER		3
#define TRACEDAT_OPT_TRACECLOCK		4
#define TRACEDAT_OPT_UNAME		5
#define TRACEDAT_OPT_OFFSET		7
#define TRACEDAT_OPT_CPUCOUNT		8
#define TRACEDAT_OPT_VERSION		9

/* Does trace-cmd print time stamps of clock @name as seconds? */
bool tracedat_clock_is_secs(const char *name);

#endif /* EVT_OUTPUT_TRACEDAT_INTERNAL_H */
