// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-names: the trace clocks' names round-trip as ftrace spells them,
 * both spellings of the counter clock are accepted, anything else is
 * -EINVAL; evt_clock_is_ns() and the identity conversions.
 */
#include <errno.h>
#include <string.h>

#include <evtrace/clock.h>

#include "helpers.h"

static const struct {
	const char *name;
	enum evt_clock_id id;
	int is_ns;
} known[] = {
	{ "local", EVT_CLOCK_LOCAL, 1 },
	{ "global", EVT_CLOCK_GLOBAL, 1 },
	{ "counter", EVT_CLOCK_COUNTER, 0 },
	{ "mono", EVT_CLOCK_MONO, 1 },
	{ "mono_raw", EVT_CLOCK_MONO_RAW, 1 },
	{ "boot", EVT_CLOCK_BOOT, 1 },
	{ "x86-tsc", EVT_CLOCK_TSC, 0 },
	{ "tsc", EVT_CLOCK_TSC, 0 },
};

static const char *const bad[] = {
	"", "LOCAL", "Local", "local ", " local", "loc", "localx", "x86", "x86-tsc\n", "tsc2",
	"perf", "uptime", "mono-raw", "monoraw", "x86_tsc",
};

int main(void)
{
	/* every id has a name, and the name leads back to the id */
	for (int id = 0; id < EVT_CLOCK__COUNT; id++) {
		const char *name = evt_clock_name((enum evt_clock_id)id);

		T_ASSERT(name && *name);
		T_ASSERT_EQ(evt_clock_by_name(name), id);
	}
#if defined(__x86_64__)
	T_ASSERT(!strcmp(evt_clock_name(EVT_CLOCK_TSC), "x86-tsc"));
#else
	T_ASSERT(!strcmp(evt_clock_name(EVT_CLOCK_TSC), "tsc"));
#endif
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		T_ASSERT_EQ(evt_clock_by_name(known[i].name), known[i].id);
		T_ASSERT_EQ(evt_clock_is_ns(known[i].id), known[i].is_ns);
		if (strcmp(known[i].name, "x86-tsc") && strcmp(known[i].name, "tsc"))
			T_ASSERT(!strcmp(evt_clock_name(known[i].id), known[i].name));
	}

	/* unknown names and ids */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (evt_clock_by_name(bad[i]) != -EINVAL)
			t_fail("evt_clock_by_name(\"%s\") = %d, not -EINVAL", bad[i],
			       evt_clock_by_name(bad[i]));
	T_ASSERT_EQ(evt_clock_by_name(NULL), -EINVAL);
	T_ASSERT(evt_clock_name(EVT_CLOCK__COUNT) == NULL);
	T_ASSERT(evt_clock_name((enum evt_clock_id)-1) == NULL);
	T_ASSERT(evt_clock_name((enum evt_clock_id)1000) == NULL);
	T_ASSERT_EQ(evt_clock_is_ns(EVT_CLOCK__COUNT), 0);
	T_ASSERT_EQ(evt_clock_is_ns((enum evt_clock_id)-1), 0);
	T_ASSERT_EQ(evt_clock_read(EVT_CLOCK__COUNT), 0);
	T_ASSERT_EQ(evt_clock_read((enum evt_clock_id)-1), 0);

	/* nanosecond clocks and "counter" convert to themselves */
	for (int id = 0; id < EVT_CLOCK__COUNT; id++) {
		if (id == EVT_CLOCK_TSC)
			continue;
		T_ASSERT_EQ(evt_clock_to_ns((enum evt_clock_id)id, 12345), 12345);
		T_ASSERT(evt_clock_to_ns((enum evt_clock_id)id, UINT64_MAX) == UINT64_MAX);
	}
	printf("clock-names: PASS\n");
	return T_PASS;
}
