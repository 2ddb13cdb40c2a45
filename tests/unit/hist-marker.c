// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist-marker: histogram.rst section 3, "User space creating a trigger":
 * hist triggers on ftrace:print fire on writes to trace_marker; a "start"
 * write saves ts0 per common_pid, an "end" write computes the latency and
 * traces the synthetic event latency, whose histogram counts it.
 */
#include <time.h>

#include "hist-util.h"

#define PRINT "events/ftrace/print/trigger"
#define LATH  "events/synthetic/latency/"

static void cmd(const char *c, const char *path)
{
	char buf[600];
	ssize_t r;

	snprintf(buf, sizeof(buf), "%s\n", c);
	r = echo(buf, path);
	if (r != (ssize_t)strlen(buf))
		t_fail("'%s' > %s: %zd", c, path, r);
}

static void mark(const char *s)
{
	T_ASSERT_EQ(evt_tracefs_write(NULL, "trace_marker", s, strlen(s), GGT), (ssize_t)strlen(s));
}

int main(void)
{
	struct timespec ts = { 0, 2000000 };
	const char *h;

	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "latency u64 lat\n", 16, GGT), 16);
	cmd("hist:keys=common_pid:ts0=common_timestamp.usecs if buf == \"start\"", PRINT);
	cmd("hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(ftrace.print).latency($lat)"
	    " if buf == \"end\"",
	    PRINT);
	cmd("hist:keys=lat,common_pid:sort=lat", LATH "trigger");
	for (int i = 0; i < 3; i++) {
		mark("start");
		nanosleep(&ts, NULL);
		mark("end");
	}
	mark("end"); /* no start before it: ts0 was used, nothing */
	h = cat(LATH "hist");
	printf("%s", h);
	T_ASSERT(strstr(h, "Hits: 3\n"));
	T_ASSERT(strstr(h, "{ lat: "));
	/* each latency is at least the 2 ms slept */
	for (const char *p = strstr(h, "{ lat: "); p; p = strstr(p + 1, "{ lat: ")) {
		unsigned long long lat;

		T_ASSERT(sscanf(p, "{ lat: %llu", &lat) == 1);
		T_ASSERT(lat >= 2000);
	}
	T_ASSERT(strstr(cat(PRINT),
			"hist:keys=common_pid:vals=hitcount:ts0=common_timestamp.usecs:"
			"sort=hitcount:size=2048:clock=global if buf == \"start\" [active]\n"));
	cmd("!hist:keys=lat,common_pid:sort=lat", LATH "trigger");
	cmd("!hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(ftrace.print).latency($lat)"
	    " if buf == \"end\"",
	    PRINT);
	cmd("!hist:keys=common_pid:ts0=common_timestamp.usecs if buf == \"start\"", PRINT);
	T_ASSERT(cat(PRINT)[0] == '#');
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "!latency\n", 9, GGT), 9);
	return 0;
}
