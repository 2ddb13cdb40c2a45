/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/hist-util.h - what the hist-* tests share: the trigger files of the hist-tp.h
 * events, the error_log without its time stamps, the golden files of tests/data/hist/.
 * Defined in hist-util.c of the test library.
 */
#ifndef EVT_TESTS_HIST_UTIL_H
#define EVT_TESTS_HIST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "trigger-util.h"

#define KMALLOC	 "events/hist_test/kmalloc/"
#define SYSENTER "events/hist_test/sys_enter/"
#define FORK	 "events/hist_test/process_fork/"
#define RECV	 "events/hist_test/netif_receive_skb/"
#define RX	 "events/hist_test/netif_rx/"

/* The top instance's error_log without its time stamps ("[   12.345678] " prefixes). */
const char *elog(void);

/*
 * Compare @text with tests/data/hist/@name.txt; with HIST_GOLDEN_WRITE=1 in
 * the environment, write the file instead (then read it: it is the contract).
 */
void golden(const char *name, const char *text);

#endif /* EVT_TESTS_HIST_UTIL_H */
