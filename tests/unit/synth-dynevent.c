// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth-dynevent: the dynevent_cmd API (events.rst 7.4): args, arg pairs with their check
 * functions, separators and operators, strings as they are; a command that does not fit its
 * buffer or is EVT_MAX_DYNEVENT_CMD_LEN bytes long is refused (-E2BIG) and the text is kept;
 * a NULL run_command runs the text as a dynamic_events line; the synthetic calls refuse a cmd
 * of another type; gen_cmd errors.
 */
#include "synth-util.h"

static int checked;

static int check_no_x(void *p)
{
	struct evt_dynevent_arg *arg = p;

	checked++;
	return strchr(arg->str, 'x') ? -EPERM : 0;
}

static int check_pair(void *p)
{
	struct evt_dynevent_arg_pair *pair = p;

	checked++;
	return pair->lhs && pair->rhs ? 0 : -EINVAL;
}

static char last_run[EVT_MAX_DYNEVENT_CMD_LEN];

static int run_copy(struct evt_dynevent_cmd *cmd)
{
	snprintf(last_run, sizeof(last_run), "%s", cmd->buf);
	return 42;
}

int main(void)
{
	static char big[2 * EVT_MAX_DYNEVENT_CMD_LEN];
	struct evt_dynevent_arg_pair pair;
	struct evt_dynevent_arg arg;
	struct evt_dynevent_cmd cmd;
	char buf[64];

	/* building */
	evt_dynevent_cmd_init(&cmd, buf, sizeof(buf), EVT_DYNEVENT_TYPE_RAW, run_copy);
	T_ASSERT_STR(buf, "");
	T_ASSERT_OK(evt_dynevent_str_add(&cmd, "s:ev"));
	evt_dynevent_arg_init(&arg, check_no_x, 0);
	T_ASSERT_EQ(arg.separator, ' ');
	arg.str = "abc";
	T_ASSERT_OK(evt_dynevent_arg_add(&cmd, &arg));
	arg.str = "xyz";
	T_ASSERT_EQ(evt_dynevent_arg_add(&cmd, &arg), -EPERM);
	T_ASSERT_EQ(checked, 2);
	evt_dynevent_arg_pair_init(&pair, check_pair, 0, ';');
	T_ASSERT_EQ(pair.op, ' ');
	pair.lhs = "u64";
	pair.rhs = "lat";
	T_ASSERT_OK(evt_dynevent_arg_pair_add(&cmd, &pair));
	evt_dynevent_arg_pair_init(&pair, NULL, '=', 0);
	pair.lhs = "flags";
	pair.rhs = "%cx";
	T_ASSERT_OK(evt_dynevent_arg_pair_add(&cmd, &pair));
	pair.rhs = NULL;
	T_ASSERT_EQ(evt_dynevent_arg_pair_add(&cmd, &pair), -EINVAL);
	T_ASSERT_STR(buf, "s:ev abc  u64 lat; flags=%cx ");
	T_ASSERT_EQ(cmd.len, strlen(buf));
	T_ASSERT_EQ(evt_dynevent_create(&cmd), 42);
	T_ASSERT_STR(last_run, buf);

	/* overflow: -E2BIG, the text kept, create refuses */
	T_ASSERT_EQ(evt_dynevent_str_add(&cmd, "0123456789012345678901234567890123456789"), -E2BIG);
	T_ASSERT_STR(buf, "s:ev abc  u64 lat; flags=%cx ");
	T_ASSERT(cmd.overflow);
	T_ASSERT_EQ(evt_dynevent_str_add(&cmd, "a"), -E2BIG);
	T_ASSERT_EQ(evt_dynevent_create(&cmd), -E2BIG);

	/* a buffer bigger than the limit: the command must still be shorter than it */
	evt_dynevent_cmd_init(&cmd, big, sizeof(big), EVT_DYNEVENT_TYPE_RAW, run_copy);
	memset(last_run, 0, sizeof(last_run));
	for (int i = 0; i < EVT_MAX_DYNEVENT_CMD_LEN - 1; i++)
		T_ASSERT_OK(evt_dynevent_str_add(&cmd, "a"));
	T_ASSERT_EQ(evt_dynevent_create(&cmd), 42);
	T_ASSERT_OK(evt_dynevent_str_add(&cmd, "a"));
	T_ASSERT_EQ(evt_dynevent_create(&cmd), -E2BIG);

	/* bad arguments */
	T_ASSERT_EQ(evt_dynevent_create(NULL), -EINVAL);
	evt_dynevent_cmd_init(&cmd, NULL, 10, EVT_DYNEVENT_TYPE_RAW, NULL);
	T_ASSERT_EQ(evt_dynevent_str_add(&cmd, "x"), -EINVAL);
	T_ASSERT_EQ(evt_dynevent_create(&cmd), -EINVAL);
	evt_dynevent_cmd_init(&cmd, buf, sizeof(buf), EVT_DYNEVENT_TYPE_RAW, NULL);
	T_ASSERT_EQ(evt_dynevent_str_add(&cmd, NULL), -EINVAL);
	T_ASSERT_EQ(evt_dynevent_arg_add(&cmd, NULL), -EINVAL);
	T_ASSERT_EQ(evt_dynevent_create(&cmd), -EINVAL); /* empty */
	T_ASSERT_OK(evt_dynevent_str_add(&cmd, "  "));
	T_ASSERT_EQ(evt_dynevent_create(&cmd), -EINVAL);

	/* no run_command: a dynamic_events line */
	evt_dynevent_cmd_init(&cmd, buf, sizeof(buf), EVT_DYNEVENT_TYPE_RAW, NULL);
	T_ASSERT_OK(evt_dynevent_str_add(&cmd, "s:synthetic/rawev"));
	evt_dynevent_arg_pair_init(&pair, NULL, 0, ';');
	pair.lhs = "u64";
	pair.rhs = "lat";
	T_ASSERT_OK(evt_dynevent_arg_pair_add(&cmd, &pair));
	T_ASSERT_OK(evt_dynevent_create(&cmd));
	T_ASSERT_STR(cat("dynamic_events"), "s:synthetic/rawev\tu64 lat\n");
	T_ASSERT_EQ(evt_dynevent_create(&cmd), -EEXIST);
	evt_dynevent_cmd_init(&cmd, buf, sizeof(buf), EVT_DYNEVENT_TYPE_RAW, NULL);
	T_ASSERT_OK(evt_dynevent_str_add(&cmd, "-:rawev"));
	T_ASSERT_OK(evt_dynevent_create(&cmd));
	T_ASSERT_EQ(evt_dynevent_create(&cmd), -ENOENT);
	T_ASSERT_STR(cat("dynamic_events"), "");

	/* the synthetic calls check the cmd's type and their arguments */
	evt_dynevent_cmd_init(&cmd, buf, sizeof(buf), EVT_DYNEVENT_TYPE_RAW, NULL);
	T_ASSERT_EQ(evt_synth_event_add_field(&cmd, "u64", "a"), -EINVAL);
	T_ASSERT_EQ(evt_synth_event_add_field_str(&cmd, "u64 a"), -EINVAL);
	T_ASSERT_EQ(evt_synth_event_gen_cmd_start(&cmd, "x", "u64", "a"), -EINVAL);
	T_ASSERT_EQ(evt_synth_event_gen_cmd_end(&cmd), -EINVAL);
	evt_synth_event_cmd_init(&cmd, buf, sizeof(buf));
	T_ASSERT_EQ(evt_synth_event_gen_cmd_start(&cmd, NULL), -EINVAL);
	evt_synth_event_cmd_init(&cmd, buf, sizeof(buf));
	T_ASSERT_OK(evt_synth_event_gen_cmd_start(&cmd, "gc"));
	T_ASSERT_EQ(evt_synth_event_add_field(&cmd, NULL, "a"), -EINVAL);
	T_ASSERT_EQ(evt_synth_event_add_field(&cmd, "u65", "a"), -EINVAL); /* the check */
	T_ASSERT_OK(evt_synth_event_add_field(&cmd, "char[999]", "a"));	   /* passes it */
	T_ASSERT_EQ(evt_synth_event_gen_cmd_end(&cmd), -EINVAL);	   /* not the run */
	T_ASSERT(strstr(cat("error_log"), "synthetic_events: error: Invalid type\n"
					  "  Command: gc  char[999] a;\n"));
	/* a field list longer than the buffer */
	evt_synth_event_cmd_init(&cmd, buf, sizeof(buf));
	T_ASSERT_OK(evt_synth_event_gen_cmd_start(&cmd, "long_one", "u64", "a", "u64", "b"));
	T_ASSERT_EQ(evt_synth_event_add_field(&cmd, "unsigned long", "a_rather_long_name_indeed"),
		    -E2BIG);
	T_ASSERT_EQ(evt_synth_event_gen_cmd_end(&cmd), -E2BIG);
	T_ASSERT_STR(cat("synthetic_events"), "");
	/* more than EVT_SYNTH_FIELDS_MAX fields */
	evt_synth_event_cmd_init(&cmd, big, sizeof(big));
	T_ASSERT_OK(evt_synth_event_gen_cmd_start(&cmd, "many"));
	for (int i = 0; i < EVT_SYNTH_FIELDS_MAX; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		T_ASSERT_OK(evt_synth_event_add_field(&cmd, "u8", name));
	}
	T_ASSERT_EQ(evt_synth_event_add_field(&cmd, "u8", "one_more"), -EINVAL);
	/* 64 fields exactly are fine; the 65th in the text is refused by the parser */
	T_ASSERT_EQ(evt_synth_event_gen_cmd_end(&cmd), -EINVAL);
	T_ASSERT(strstr(cat("error_log"), "synthetic_events: error: Too many fields\n"));
	evt_synth_event_cmd_init(&cmd, big, sizeof(big));
	T_ASSERT_OK(evt_synth_event_gen_cmd_start(&cmd, "many"));
	for (int i = 0; i < EVT_SYNTH_FIELDS_MAX; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		T_ASSERT_OK(evt_synth_event_add_field(&cmd, "u8", name));
	}
	T_ASSERT_OK(evt_synth_event_gen_cmd_end(&cmd));
	T_ASSERT_OK(evt_synth_event_delete("many"));
	return T_PASS;
}
