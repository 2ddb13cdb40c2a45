// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth-hook: the internal hook histogram actions use (src/synth/synth.h):
 * synth_event_find() holds the event (delete gives -EBUSY until synth_event_put()),
 * synth_event_trace_vals() records into every instance that enables the event, refuses a
 * wrong number of values, and, called from inside another event's write (as a trigger's
 * fire() is), gives a record with the outer write's context (no signal-handler 'h' flag).
 */
#include "synth-util.h"

#include "synth/synth.h"

#define CREATE_TRACE_POINTS
#include "synth-hook-tp.h"

static struct synth_event *hook_se;

int synth_hook_fire(int v)
{
	uint64_t vals[2] = { (uint64_t)v, U("inner") };

	T_ASSERT_OK(synth_event_trace_vals(hook_se, vals, 2));
	return v;
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

int main(void)
{
	uint64_t vals[2] = { 5, U("direct") };
	struct synth_event *se, *se2;
	struct evt_instance *inst;
	const char *t;

	T_ASSERT(synth_event_find("nosuch") == NULL);
	T_ECHO("hooked u64 val; char s[]", "synthetic_events");
	se = synth_event_find("hooked");
	T_ASSERT(se);
	T_ASSERT_EQ(se->n_fields, 2);
	T_ASSERT_STR(se->fields[0].name, "val");
	T_ASSERT(se->fields[1].is_string && se->fields[1].is_dynamic);
	T_ASSERT(synth_event_event(se));
	T_ASSERT_EQ(evt_event_id(synth_event_event(se)), atoi(cat("events/synthetic/hooked/id")));

	/* held: no deletion */
	T_ASSERT_EQ(evt_synth_event_delete("hooked"), -EBUSY);
	T_ASSERT_EQ(echo("!hooked", "synthetic_events"), -EBUSY);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "", 0, EVT_TRACEFS_TRUNC), -EBUSY);
	se2 = synth_event_find("hooked");
	T_ASSERT(se2 == se);
	synth_event_put(se2);
	T_ASSERT_EQ(evt_synth_event_delete("hooked"), -EBUSY);

	/* disabled everywhere: nothing, no error; wrong count: -EINVAL */
	T_ASSERT_OK(synth_event_trace_vals(se, vals, 2));
	T_ASSERT_EQ(synth_event_trace_vals(se, vals, 1), -EINVAL);
	T_ASSERT_EQ(synth_event_trace_vals(NULL, vals, 2), -EINVAL);

	/* two instances */
	T_ASSERT_OK(evt_instance_create("synthhook", &inst));
	T_ECHO("1", "events/synthetic/hooked/enable");
	T_ECHO("1", "instances/synthhook/events/synthetic/hooked/enable");
	T_ASSERT_OK(synth_event_trace_vals(se, vals, 2));
	T_ASSERT(strstr(cat("trace"), ": hooked: val=5 s=direct\n"));
	T_ASSERT(strstr(cat("instances/synthhook/trace"), ": hooked: val=5 s=direct\n"));
	T_ECHO("0", "instances/synthhook/events/synthetic/hooked/enable");

	/* from inside another event's write */
	hook_se = se;
	T_ECHO("1", "events/synthhook/hook_outer/enable");
	trace_hook_outer(77);
	t = cat("trace");
	printf("%s", t);
	T_ASSERT_EQ(count(t, ": hooked: val=77 s=inner\n"), 1);
	T_ASSERT_EQ(count(t, ": hook_outer: v=77\n"), 1);
	/* the record's context columns: no 'h', no depth (then one space and the seconds,
	 * padded to 5 columns: no second space once the clock reads 10000 s) */
	T_ASSERT(strstr(t, "] ..... "));
	T_ASSERT(!strstr(t, "] ..h"));
	T_ASSERT_EQ(count(cat("instances/synthhook/trace"), ": hooked: "), 1);

	/* let go: now it can go, and its records still print */
	T_ECHO("0", "events/synthhook/hook_outer/enable");
	T_ECHO("0", "events/synthetic/hooked/enable");
	synth_event_put(se);
	T_ASSERT_OK(evt_synth_event_delete("hooked"));
	T_ASSERT(synth_event_find("hooked") == NULL);
	T_ASSERT_EQ(count(cat("trace"), ": hooked: "), 2);
	T_ASSERT_OK(evt_instance_destroy(inst));

	/* created again with the same fields: the same ID (the zombie comes back) */
	T_ECHO("hooked u64 val; char s[]", "synthetic_events");
	T_ASSERT_EQ(count(cat("trace"), ": hooked: "), 2);
	T_ECHO("!hooked", "synthetic_events");
	return T_PASS;
}
