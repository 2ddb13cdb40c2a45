// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth-gen-cmd: the seed's examples (events.rst 7.1, 7.2): create "schedtest" with the
 * gen_cmd calls, enable it, trace it with synth_event_trace(), _trace_array() and piecewise
 * (both styles), read the lines back from `trace`; mixing the styles fails; deleting while
 * enabled or held fails.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/evtrace.h>

#include "helpers.h"
#include "tracefs-cat.h"

#define U(p) ((uint64_t)(uintptr_t)(p))

static const struct evt_synth_field_desc sched_fields[] = {
	{ .type = "pid_t", .name = "next_pid_field" },
	{ .type = "char[16]", .name = "next_comm_field" },
	{ .type = "u64", .name = "ts_ns" },
	{ .type = "u64", .name = "ts_ms" },
	{ .type = "unsigned int", .name = "cpu" },
	{ .type = "char[64]", .name = "my_string_field" },
	{ .type = "int", .name = "my_int_field" },
};

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
	struct evt_event_file *file;
	struct evt_dynevent_cmd cmd;
	const char *text;
	uint64_t vals[7];
	char *buf;

	buf = calloc(1, EVT_MAX_DYNEVENT_CMD_LEN);
	T_ASSERT(buf);

	/* 7.1: gen_cmd_start with two fields, add_field, add_fields, gen_cmd_end */
	evt_synth_event_cmd_init(&cmd, buf, EVT_MAX_DYNEVENT_CMD_LEN);
	T_ASSERT_OK(evt_synth_event_gen_cmd_start(&cmd, "schedtest", "pid_t", "next_pid_field",
						  "char[16]", "next_comm_field"));
	T_ASSERT_OK(evt_synth_event_add_field(&cmd, "u64", "ts_ns"));
	T_ASSERT_OK(evt_synth_event_add_fields(&cmd, sched_fields + 3, 2));
	T_ASSERT_OK(evt_synth_event_add_field_str(&cmd, "char[64] my_string_field"));
	T_ASSERT_OK(evt_synth_event_add_field(&cmd, "int", "my_int_field"));
	T_ASSERT_EQ(cmd.n_fields, 7);
	T_ASSERT_OK(evt_synth_event_gen_cmd_end(&cmd));
	T_ASSERT_EQ(evt_synth_event_gen_cmd_end(&cmd), -EEXIST);

	text = t_tracefs_cat(NULL, "synthetic_events");
	T_ASSERT(!strcmp(text, "schedtest\tpid_t next_pid_field; char[16] next_comm_field; "
			       "u64 ts_ns; u64 ts_ms; unsigned int cpu; "
			       "char[64] my_string_field; int my_int_field\n"));
	T_ASSERT(strstr(t_tracefs_cat(NULL, "available_events"), "synthetic:schedtest\n"));

	/* 7.2: the file, enable, trace */
	T_ASSERT_EQ(evt_trace_get_event_file(NULL, "synthetic", "nosuch", &file), -ENOENT);
	T_ASSERT_OK(evt_trace_get_event_file(NULL, "synthetic", "schedtest", &file));
	/* disabled: nothing recorded, no error */
	T_ASSERT_OK(evt_synth_event_trace(file, 7, (uint64_t)1, U("x"), (uint64_t)1, (uint64_t)1,
					  (uint64_t)1, U("y"), (uint64_t)1));
	T_ASSERT_OK(evt_trace_array_set_clr_event(evt_event_file_instance(file), "synthetic",
						  "schedtest", true));
	T_ASSERT_EQ(evt_trace_array_set_clr_event(NULL, "synthetic", "nosuch", true), -EINVAL);

	T_ASSERT_OK(evt_synth_event_trace(file, 7, (uint64_t)444, U("clackers"), (uint64_t)1000000,
					  (uint64_t)1000, (uint64_t)1, U("Thneed"), (uint64_t)999));
	T_ASSERT_EQ(evt_synth_event_trace(file, 6, (uint64_t)444, U("clackers"), (uint64_t)1,
					  (uint64_t)1, (uint64_t)1, U("Thneed")),
		    -EINVAL);

	vals[0] = 777;
	vals[1] = U("tiddlywinks");
	vals[2] = 1000000;
	vals[3] = 1000;
	vals[4] = 0;
	vals[5] = U("thneed");
	vals[6] = (uint64_t)-398;
	T_ASSERT_OK(evt_synth_event_trace_array(file, vals, 7));
	T_ASSERT_EQ(evt_synth_event_trace_array(file, vals, 8), -EINVAL);

	/* piecewise, one after the other */
	T_ASSERT_OK(evt_synth_event_trace_start(file, &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(777, &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(U("slinky"), &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(1000000, &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(1000, &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(1, &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(U("thneed_2.01"), &st));
	T_ASSERT_OK(evt_synth_event_add_next_val(395, &st));
	T_ASSERT_EQ(evt_synth_event_add_next_val(1, &st), -EINVAL);   /* past the last */
	T_ASSERT_EQ(evt_synth_event_add_val("cpu", 1, &st), -EINVAL); /* mixing */
	T_ASSERT_OK(evt_synth_event_trace_end(&st));

	/* piecewise, by name, in any order; mixing the other way fails; a bad name fails */
	T_ASSERT_OK(evt_synth_event_trace_start(file, &st));
	T_ASSERT_OK(evt_synth_event_add_val("my_int_field", 3999, &st));
	T_ASSERT_OK(evt_synth_event_add_val("next_pid_field", 777, &st));
	T_ASSERT_OK(evt_synth_event_add_val("next_comm_field", U("silly putty"), &st));
	T_ASSERT_OK(evt_synth_event_add_val("ts_ns", 1000000, &st));
	T_ASSERT_OK(evt_synth_event_add_val("ts_ms", 1000, &st));
	T_ASSERT_OK(evt_synth_event_add_val("cpu", 1, &st));
	T_ASSERT_EQ(evt_synth_event_add_val("nosuch", 1, &st), -EINVAL);
	T_ASSERT_EQ(evt_synth_event_add_val("my_string_field", 0, &st), -EINVAL); /* NULL */
	T_ASSERT_OK(evt_synth_event_add_val("my_string_field", U("thneed_9"), &st));
	T_ASSERT_EQ(evt_synth_event_add_next_val(1, &st), -EINVAL); /* mixing */
	T_ASSERT_OK(evt_synth_event_trace_end(&st));
	T_ASSERT_EQ(evt_synth_event_trace_end(NULL), -EINVAL);
	T_ASSERT_EQ(evt_synth_event_trace_start(file, NULL), -EINVAL);

	text = t_tracefs_cat(NULL, "trace");
	printf("%s", text);
	T_ASSERT(strstr(text, ": schedtest: next_pid_field=444 next_comm_field=clackers "
			      "ts_ns=1000000 ts_ms=1000 cpu=1 my_string_field=Thneed "
			      "my_int_field=999\n"));
	T_ASSERT(strstr(text, ": schedtest: next_pid_field=777 next_comm_field=tiddlywinks "
			      "ts_ns=1000000 ts_ms=1000 cpu=0 my_string_field=thneed "
			      "my_int_field=-398\n"));
	T_ASSERT(strstr(text, ": schedtest: next_pid_field=777 next_comm_field=slinky "
			      "ts_ns=1000000 ts_ms=1000 cpu=1 my_string_field=thneed_2.01 "
			      "my_int_field=395\n"));
	T_ASSERT(strstr(text, ": schedtest: next_pid_field=777 next_comm_field=silly putty "
			      "ts_ns=1000000 ts_ms=1000 cpu=1 my_string_field=thneed_9 "
			      "my_int_field=3999\n"));
	T_ASSERT_EQ(count(text, ": schedtest: "), 4);

	/* delete: busy while enabled, while held; then gone, and the records still print */
	T_ASSERT_EQ(evt_synth_event_delete("schedtest"), -EBUSY);
	T_ASSERT_OK(evt_trace_array_set_clr_event(NULL, "synthetic", "schedtest", false));
	T_ASSERT_EQ(evt_synth_event_delete("schedtest"), -EBUSY);
	evt_trace_put_event_file(file);
	T_ASSERT_OK(evt_synth_event_delete("schedtest"));
	T_ASSERT_EQ(evt_synth_event_delete("schedtest"), -ENOENT);
	T_ASSERT(!strcmp(t_tracefs_cat(NULL, "synthetic_events"), ""));
	T_ASSERT(!strstr(t_tracefs_cat(NULL, "available_events"), "synthetic:schedtest"));
	T_ASSERT_EQ(count(t_tracefs_cat(NULL, "trace"), ": schedtest: "), 4);

	/* evt_synth_event_create() in one step; array_start with too many fields */
	T_ASSERT_OK(evt_synth_event_create("schedtest", sched_fields, 7));
	T_ASSERT_EQ(evt_synth_event_create("schedtest", sched_fields, 7), -EEXIST);
	T_ASSERT_OK(evt_synth_event_delete("schedtest"));
	evt_synth_event_cmd_init(&cmd, buf, EVT_MAX_DYNEVENT_CMD_LEN);
	T_ASSERT_EQ(evt_synth_event_gen_cmd_array_start(&cmd, "x", sched_fields,
							EVT_SYNTH_FIELDS_MAX + 1),
		    -EINVAL);
	free(buf);
	return T_PASS;
}
