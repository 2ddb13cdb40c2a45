/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/events-util.h - what the events-* tests share (defined in events-util.c of the test library).
 */
#ifndef EVT_TESTS_EVENTS_UTIL_H
#define EVT_TESTS_EVENTS_UTIL_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/seq.h>

#include "helpers.h"

/* A fresh named instance for this test ("evtest-<what>-<pid>"). */
struct evt_instance *t_instance(const char *what);

/*
 * Consume every record of @inst (all CPUs); call @fn on each data record.
 * Return: the number of records.
 */
unsigned long t_consume(struct evt_instance *inst,
				      void (*fn)(const void *rec, unsigned int len, void *arg),
				      void *arg);

/* The whole `trace` text of @inst in a static buffer. */
const char *t_trace_text(struct evt_instance *inst, int cpu);

/* How many times @needle occurs in @hay. */
int t_count(const char *hay, const char *needle);

#endif /* EVT_TESTS_EVENTS_UTIL_H */
