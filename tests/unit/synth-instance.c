// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth-instance: an event file of a named instance records there only; the instance cannot
 * be destroyed while the file is held; a disabled event traces nothing piecewise either (the
 * add calls still check their style); an event with a char[] field cannot be traced
 * piecewise (-EOPNOTSUPP, and end is still fine); not a synthetic event: -EINVAL; bad
 * arguments of the file calls.
 */
#include "synth-util.h"

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

int main(void)
{
	struct evt_synth_event_trace_state st;
	struct evt_event_file *file, *dfile, *pfile;
	struct evt_instance *inst;

	T_ASSERT_OK(evt_instance_create("synthinst", &inst));
	T_ECHO("si u32 a; char c[8]", "synthetic_events");
	T_ECHO("sd u32 a; char c[]", "synthetic_events");
	T_ASSERT_EQ(evt_trace_get_event_file("nosuch", "synthetic", "si", &file), -ENOENT);
	T_ASSERT_EQ(evt_trace_get_event_file(NULL, NULL, "si", &file), -EINVAL);
	T_ASSERT_OK(evt_trace_get_event_file("synthinst", "synthetic", "si", &file));
	T_ASSERT(evt_event_file_instance(file) == inst);
	T_ASSERT(evt_event_file_instance(NULL) == NULL);
	T_ASSERT_EQ(evt_instance_destroy(inst), -EBUSY);

	/* disabled: nothing, piecewise too; the styles are still checked */
	T_ASSERT_OK(evt_synth_event_trace_start(file, &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(1, &st));
	T_ASSERT_EQ(evt_synth_event_add_val("a", 1, &st), -EINVAL);
	T_ASSERT_OK(evt_synth_event_trace_end(&st));

	/* enabled in the named instance and in the top one: the file records in its own */
	T_ASSERT_OK(evt_trace_array_set_clr_event(inst, "synthetic", "si", true));
	T_ASSERT_OK(evt_trace_array_set_clr_event(NULL, "synthetic", "si", true));
	T_ASSERT_OK(evt_synth_event_trace(file, 2, (uint64_t)11, U("eleven")));
	T_ASSERT_OK(evt_synth_event_trace_start(file, &st));
	T_ASSERT_OK(evt_synth_event_add_val("a", 12, &st)); /* c never set: empty */
	T_ASSERT_OK(evt_synth_event_trace_end(&st));
	T_ASSERT_OK(evt_synth_event_trace_end(&st)); /* twice: nothing more */
	T_ASSERT_EQ(count(cat("instances/synthinst/trace"), ": si: a=11 c=eleven\n"), 1);
	T_ASSERT_EQ(count(cat("instances/synthinst/trace"), ": si: a=12 c=\n"), 1);
	T_ASSERT_EQ(count(cat("trace"), ": si: "), 0);

	/* tracing off in the instance: nothing recorded, no error */
	T_ECHO("0", "instances/synthinst/tracing_on");
	T_ASSERT_OK(evt_synth_event_trace(file, 2, (uint64_t)13, U("x")));
	T_ASSERT_OK(evt_synth_event_trace_start(file, &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(13, &st));
	T_ASSERT_OK(evt_synth_event_trace_end(&st));
	T_ECHO("1", "instances/synthinst/tracing_on");
	T_ASSERT_EQ(count(cat("instances/synthinst/trace"), ": si: "), 2);

	/* a char[] field: not piecewise */
	T_ASSERT_OK(evt_trace_get_event_file("synthinst", "synthetic", "sd", &dfile));
	T_ASSERT_OK(evt_trace_array_set_clr_event(inst, "synthetic", "sd", true));
	T_ASSERT_EQ(evt_synth_event_trace_start(dfile, &st), -EOPNOTSUPP);
	T_ASSERT_EQ(evt_synth_event_add_next_val(1, &st), 0);
	T_ASSERT_OK(evt_synth_event_trace_end(&st));
	T_ASSERT_OK(evt_synth_event_trace(dfile, 2, (uint64_t)14, (uint64_t)0));
	T_ASSERT_EQ(count(cat("instances/synthinst/trace"), ": sd: a=14 c=(fault)\n"), 1);

	/* not a synthetic event */
	T_ASSERT_OK(evt_trace_get_event_file("synthinst", "ftrace", "print", &pfile));
	T_ASSERT_EQ(evt_synth_event_trace(pfile, 0), -EINVAL);
	T_ASSERT_EQ(evt_synth_event_trace_array(pfile, NULL, 0), -EINVAL);
	T_ASSERT_EQ(evt_synth_event_trace_start(pfile, &st), -EINVAL);
	T_ASSERT_OK(evt_synth_event_trace_end(&st));
	T_ASSERT_EQ(evt_trace_array_set_clr_event(inst, "ftrace", "print", true), -EINVAL);
	evt_trace_put_event_file(pfile);
	evt_trace_put_event_file(NULL);

	/* release everything: the instance can go, the events too */
	T_ASSERT_OK(evt_trace_array_set_clr_event(inst, "synthetic", "si", false));
	T_ASSERT_OK(evt_trace_array_set_clr_event(NULL, "synthetic", "si", false));
	T_ASSERT_OK(evt_trace_array_set_clr_event(inst, "synthetic", "sd", false));
	evt_trace_put_event_file(file);
	T_ASSERT_EQ(evt_instance_destroy(inst), -EBUSY);
	evt_trace_put_event_file(dfile);
	T_ASSERT_OK(evt_instance_destroy(inst));
	T_ASSERT_OK(evt_synth_event_delete("si"));
	T_ASSERT_OK(evt_synth_event_delete("sd"));
	return T_PASS;
}
