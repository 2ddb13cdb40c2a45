// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the probe definition grammar (kprobetrace.rst: "p[:[GRP/]EVENT]
 * [LIB:]SYM[+OFFS] FETCHARGS", "r[N]:...", their fetch args and types), parsed as a
 * write to `kprobe_events` parses it, with its error_log messages and carets, and laid
 * out as an event (fields, print format), through probe_parse_only(): no symbol is
 * looked up and no code is patched, ever (a fuzzer that patched its own code could
 * write a jump anywhere). Each line of the input is one definition. Nothing may crash
 * or leak; the errnos are the kernel's; no probe exists after.
 *
 * Seeds (tests/fuzz/corpus/probe-parse/): the definitions of the probe unit tests and
 * of kprobetrace.rst, good and bad.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "events/event_internal.h"
#include "probe/probe.h"
#include "tracefs-cat.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static int errno_ok(int ret)
{
	return ret == 0 || ret == -EINVAL || ret == -ECANCELED || ret == -E2BIG ||
	       ret == -ENOENT || ret == -EADDRNOTAVAIL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *line, *save = NULL;
	unsigned int n;

	text = malloc(size + 1);
	check(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		check(errno_ok(probe_parse_only(line)));
	free(text);
	event_lock();
	n = probe_count_locked();
	event_unlock();
	check(n == 0);
	t_tracefs_cat(NULL, "error_log");
	check(evt_tracefs_write(NULL, "error_log", "", 0, EVT_TRACEFS_TRUNC) == 0);
	return 0;
}
