// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth/api.c - the public API of evtrace/dynevent.h and evtrace/synth.h:
 * the dynevent_cmd builder (events.rst 7.4), the synthetic event command
 * builders (7.1), event files and enabling, and tracing synthetic events
 * all at once or piecewise (7.2).
 *
 * The tracing calls are writer context: no lock, no allocation, signal
 * safe. A piecewise trace stays inside the RCU read side from
 * evt_synth_event_trace_start() to evt_synth_event_trace_end(), as the
 * kernel's stays with preemption off: end must always be called.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/dynevent.h>
#include <evtrace/synth.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "core/detail.h"
#include "events/event_internal.h"
#include "synth/synth.h"

/* --- dynevent_cmd ------------------------------------------------------------------------------ */

void evt_dynevent_cmd_init(struct evt_dynevent_cmd *cmd, char *buf, int maxlen,
			   enum evt_dynevent_type type, evt_dynevent_create_fn_t run_command)
{
	if (!cmd)
		return;
	memset(cmd, 0, sizeof(*cmd));
	cmd->buf = buf;
	cmd->maxlen = buf && maxlen > 0 ? (unsigned int)maxlen : 0;
	cmd->type = type;
	cmd->run_command = run_command;
	if (cmd->maxlen)
		buf[0] = '\0';
}

void evt_dynevent_arg_init(struct evt_dynevent_arg *arg, evt_dynevent_check_arg_fn_t check_arg,
			   char separator)
{
	if (!arg)
		return;
	memset(arg, 0, sizeof(*arg));
	arg->check_arg = check_arg;
	arg->separator = separator ? separator : ' ';
}

void evt_dynevent_arg_pair_init(struct evt_dynevent_arg_pair *pair,
				evt_dynevent_check_arg_fn_t check_arg, char op, char separator)
{
	if (!pair)
		return;
	memset(pair, 0, sizeof(*pair));
	pair->check_arg = check_arg;
	pair->op= op ? op : ' ';
	pair->separator = separator ? separator : ' ';
}

/* Append to the command; on overflow leave the text as it was and mark the cmd. */
static int cmd_append(struct evt_dynevent_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int cmd_append(struct evt_dynevent_cmd *cmd, const char *fmt, ...)
{
	size_t room;
	va_list ap;
	int n;

	if (!cmd || !cmd->buf || !cmd->maxlen)
		return -EINVAL;
	if (cmd->overflow)
		return -E2BIG;
	room = cmd->maxlen - cmd->len;
	va_start(ap, fmt);
	n = vsnprintf(cmd->buf + cmd->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		cmd->buf[cmd->len] = '\0';
		cmd->overflow = true;
		return -E2BIG;
	}
	cmd->len += (unsigned int)n;
	return 0;
}

int evt_dynevent_arg_add(struct evt_dynevent_cmd *cmd, struct evt_dynevent_arg *arg)
{
	int ret;

	if (!cmd || !arg)
		return -EINVAL;
	if (arg->check_arg) {
		ret = arg->check_arg(arg);
		if (ret)
			return ret;
	}
	if (!arg->str)
		return -EINVAL;
	return cmd_append(cmd, " %s%c", arg->str, arg->separator ? arg->separator : ' ');
}

int evt_dynevent_arg_pair_add(struct evt_dynevent_cmd *cmd, struct evt_dynevent_arg_pair *pair)
{
	int ret;

	if (!cmd || !pair)
		return -EINVAL;
	if (pair->check_arg) {
		ret = pair->check_arg(pair);
		if (ret)
			return ret;
	}
	if (!pair->lhs || !pair->rhs)
		return -EINVAL;
	return cmd_append(cmd, " %s%c%s%c", pair->lhs, pair->op ? pair->op : ' ',
			  pair->rhs, pair->separator ? pair->separator : ' ');
}

int evt_dynevent_str_add(struct evt_dynevent_cmd *cmd, const char *str)
{
	if (!str)
		return -EINVAL;
	return cmd_append(cmd, "%s", str);
}

static int dynevent_run_raw(struct evt_dynevent_cmd *cmd)
{
	long ret = synth_parse_run(cmd->buf, cmd->len, dynevent_run_command);

	return ret < 0 ? (int)ret : 0;
}

int evt_dynevent_create(struct evt_dynevent_cmd *cmd)
{
	size_t i;

	detail_clear();
	if (!cmd || !cmd->buf || !cmd->maxlen)
		return -EINVAL;
	if (cmd->overflow || cmd->len >= EVT_MAX_DYNEVENT_CMD_LEN)
		return -E2BIG;
	if (strlen(cmd->buf) != cmd->len)
		return -EINVAL; /* the text was changed behind our back */
	for (i = 0; i < cmd->len && (cmd->buf[i] == ' ' || cmd->buf[i] == '\t'); i++)
		;
	if (i == cmd->len)
		return -EINVAL;
	return cmd->run_command ? cmd->run_command(cmd) : dynevent_run_raw(cmd);
}

/* --- synthetic event commands --------------------------------------------------------------- */

static int synth_event_run_command(struct evt_dynevent_cmd *cmd)
{
	struct synth_event *se;
	int ret;

	ret = synth_run_command(cmd->buf);
	if (ret)
		return ret;
	se = synth_event_find(cmd->event_name);
	if (!se)
		return -ENOENT;
	synth_event_put(se);
	return 0;
}

void evt_synth_event_cmd_init(struct evt_dynevent_cmd *cmd, char *buf, int maxlen)
{
	evt_dynevent_cmd_init(cmd, buf, maxlen, EVT_DYNEVENT_TYPE_SYNTH, synth_event_run_command);
}

/* The kernel's synth_event_check_arg_fn(): a known type, or something with '['. */
static int synth_check_arg(void *data)
{
	struct evt_dynevent_arg_pair *pair = data;
	int size;

	size = synth_field_size(pair->lhs);
	if (size == 0 && strchr(pair->lhs, '['))
		return 0;
	return size ? 0 : -EINVAL;
}

int evt_synth_event_add_field(struct evt_dynevent_cmd *cmd, const char *type, const char *name)
{
	struct evt_dynevent_arg_pair pair;
	int ret;

	if (!cmd || cmd->type != EVT_DYNEVENT_TYPE_SYNTH || !type || !name)
		return -EINVAL;
	evt_dynevent_arg_pair_init(&pair, synth_check_arg, 0, ';');
	pair.lhs = type;
	pair.rhs = name;
	ret = evt_dynevent_arg_pair_add(cmd, &pair);
	if (ret)
		return ret;
	return ++cmd->n_fields > EVT_SYNTH_FIELDS_MAX ? -EINVAL : 0;
}

int evt_synth_event_add_field_str(struct evt_dynevent_cmd *cmd, const char *type_name)
{
	struct evt_dynevent_arg arg;
	int ret;

	if (!cmd || cmd->type != EVT_DYNEVENT_TYPE_SYNTH || !type_name)
		return -EINVAL;
	evt_dynevent_arg_init(&arg, NULL, ';');
	arg.str = type_name;
	ret = evt_dynevent_arg_add(cmd, &arg);
	if (ret)
		return ret;
	return ++cmd->n_fields > EVT_SYNTH_FIELDS_MAX ? -EINVAL : 0;
}

int evt_synth_event_add_fields(struct evt_dynevent_cmd *cmd,
			       const struct evt_synth_field_desc *fields, unsigned int n_fields)
{
	int ret = 0;

	if (n_fields && !fields)
		return -EINVAL;
	for (unsigned int i = 0; i < n_fields && !ret; i++) {
		if (!fields[i].type || !fields[i].name)
			return -EINVAL;
		ret = evt_synth_event_add_field(cmd, fields[i].type, fields[i].name);
	}
	return ret;
}

static int synth_cmd_start(struct evt_dynevent_cmd *cmd, const char *name)
{
	struct evt_dynevent_arg arg;

	if (!cmd)
		return -EINVAL;
	cmd->event_name = name;
	if (cmd->type != EVT_DYNEVENT_TYPE_SYNTH || !name)
		return -EINVAL;
	evt_dynevent_arg_init(&arg, NULL, 0);
	arg.str = name;
	return evt_dynevent_arg_add(cmd, &arg);
}

int evt_synth_event_gen_cmd_start_args(struct evt_dynevent_cmd *cmd, const char *name, ...)
{
	va_list ap;
	int ret;

	ret = synth_cmd_start(cmd, name);
	if (ret)
		return ret;
	va_start(ap, name);
	for (;;) {
		const char *type = va_arg(ap, const char *), *fname;

		if (!type)
			break;
		fname = va_arg(ap, const char *);
		if (!fname)
			break;
		ret = evt_synth_event_add_field(cmd, type, fname);
		if (ret)
			break;
	}
	va_end(ap);
	return ret;
}

int evt_synth_event_gen_cmd_array_start(struct evt_dynevent_cmd *cmd, const char *name,
					const struct evt_synth_field_desc *fields,
					unsigned int n_fields)
{
	int ret;

	if (n_fields > EVT_SYNTH_FIELDS_MAX) {
		if (cmd)
			cmd->event_name = name;
		return -EINVAL;
	}
	ret = synth_cmd_start(cmd, name);
	if (ret)
		return ret;
	return evt_synth_event_add_fields(cmd, fields, n_fields);
}

int evt_synth_event_gen_cmd_end(struct evt_dynevent_cmd *cmd)
{
	if (!cmd || cmd->type != EVT_DYNEVENT_TYPE_SYNTH)
		return -EINVAL;
	return evt_dynevent_create(cmd);
}

int evt_synth_event_create(const char *name, const struct evt_synth_field_desc *fields,
			   unsigned int n_fields)
{
	struct evt_dynevent_cmd cmd;
	char *buf;
	int ret;

	if (!name)
		return -EINVAL;
	buf = malloc(EVT_MAX_DYNEVENT_CMD_LEN);
	if (!buf)
		return -ENOMEM;
	evt_synth_event_cmd_init(&cmd, buf, EVT_MAX_DYNEVENT_CMD_LEN);
	ret = evt_synth_event_gen_cmd_array_start(&cmd, name, fields, n_fields);
	if (!ret)
		ret = evt_synth_event_gen_cmd_end(&cmd);
	free(buf);
	return ret;
}

/* --- event files ------------------------------------------------------------------------------ */

struct evt_event_file {
	struct trace_event_file *file;
	struct evt_instance *inst;
	struct synth_event *se; /* with a reference; NULL for other events */
};

int evt_trace_get_event_file(const char *instance, const char *system, const char *event,
			     struct evt_event_file **filep)
{
	struct evt_event_file *ef;
	struct evt_instance *inst;
	struct evt_event *ev;
	int ret = 0;

	if (!system || !event || !filep)
		return -EINVAL;
	ef = calloc(1, sizeof(*ef));
	if (!ef)
		return -ENOMEM;
	events_init();
	event_lock();
	inst = !instance || !*instance ? instance_top_locked() : instance_lookup_locked(instance);
	ev = event_find_locked(system, event);
	if (!inst || !ev || !(ef->file = event_file_locked(inst, ev))) {
		ret = -ENOENT;
		goto out;
	}
	if (!strcmp(system, SYNTH_SYSTEM))
		ef->se = synth_event_find_locked(event);
	ef->inst = inst;
	/* Held like an open trace iterator: evt_instance_destroy() gives -EBUSY. */
	inst->readers++;
	*filep = ef;
	ef = NULL;
out:
	event_unlock();
	free(ef);
	return ret;
}

void evt_trace_put_event_file(struct evt_event_file *file)
{
	if (!file)
		return;
	event_lock();
	file->inst->readers--;
	event_unlock();
	synth_event_put(file->se);
	free(file);
}

struct evt_instance *evt_event_file_instance(const struct evt_event_file *file)
{
	return file ? file->inst : NULL;
}

int evt_trace_array_set_clr_event(struct evt_instance *inst, const char *system, const char *event,
				  bool enable)
{
	struct trace_event_file *file;
	struct evt_event *ev;
	int ret = 0;

	if (!system || !event)
		return -EINVAL;
	events_init();
	event_lock();
	if (!inst)
		inst = instance_top_locked();
	ev = event_find_locked(system, event);
	file = event_file_locked(inst, ev);
	if (!file || !ev->def)
		ret = -EINVAL; /* as the kernel: nothing matched */
	else
		event_file_enable_locked(file, enable);
	event_unlock();
	return ret;
}

/* --- tracing ------------------------------------------------------------------------------- */

/* Does @file's instance record the event (enabled, or soft mode for triggers)? */
static bool file_records(const struct evt_event_file *file)
{
	/* Relaxed, as the writers read the flags: a change races with a record in flight. */
	return ld_relaxed(&file->file->flags) & (EVT_FILE_ENABLED | EVT_FILE_SOFT_MODE);
}

int evt_synth_event_trace_array(struct evt_event_file *file, const uint64_t *vals,
				unsigned int n_vals)
{
	struct evt_trace_event_buffer fb;
	struct synth_event *se;
	size_t len;
	bool nested;
	void *rec;

	if (!file || !(se = file->se) || n_vals != se->n_fields || (n_vals && !vals))
		return -EINVAL;
	if (!file_records(file))
		return 0;
	len = se->size + (se->n_dynamic ? synth_dyn_size(se, vals) : 0);
	nested = event_trace_nest_start();
	for (rec = event_file_trace_reserve(&fb, file->file, len); rec;
	     rec = evt_trace_event_commit(&fb))
		synth_fill(se, rec, vals);
	event_trace_nest_end(nested);
	return 0;
}

int evt_synth_event_trace(struct evt_event_file *file, unsigned int n_vals, ...)
{
	uint64_t vals[EVT_SYNTH_FIELDS_MAX];
	va_list ap;

	if (!file || !file->se || n_vals != file->se->n_fields)
		return -EINVAL;
	va_start(ap, n_vals);
	for (unsigned int i = 0; i < n_vals; i++)
		vals[i] = va_arg(ap, uint64_t);
	va_end(ap);
	return evt_synth_event_trace_array(file, vals, n_vals);
}

int evt_synth_event_trace_start(struct evt_event_file *file,
				struct evt_synth_event_trace_state *state)
{
	struct synth_event *se;
	char *rec;

	if (!state)
		return -EINVAL;
	memset(state, 0, sizeof(*state));
	state->disabled = true; /* until a record is reserved: end does nothing */
	if (!file || !(se = file->se))
		return -EINVAL;
	if (!file_records(file))
		return 0;
	if (se->n_dynamic)
		return -EOPNOTSUPP;
	state->nested = event_trace_nest_start();
	rec = event_file_trace_reserve(&state->fb, file->file, se->size);
	if (!rec) {
		event_trace_nest_end(state->nested);
		return 0;
	}
	/* Fields never set read 0. */
	memset(rec + sizeof(struct evt_trace_entry), 0, se->size - sizeof(struct evt_trace_entry));
	state->entry = rec;
	state->event = se;
	state->disabled = false;
	return 0;
}

static int synth_add_val(const char *field_name, uint64_t val,
			 struct evt_synth_event_trace_state *state)
{
	const struct synth_event *se;
	const struct synth_field *f = NULL;

	if (!state)
		return -EINVAL;
	/* The two styles do not mix within one trace. */
	if (field_name) {
		if (state->add_next)
			return -EINVAL;
		state->add_name = true;
	} else {
		if (state->add_name)
			return -EINVAL;
		state->add_next = true;
	}
	if (state->disabled)
		return 0;
	se = state->event;
	if (field_name) {
		for (unsigned int i = 0; i < se->n_fields && !f; i++)
			if (!strcmp(se->fields[i].name, field_name))
				f = &se->fields[i];
		if (!f)
			return -EINVAL;
	} else {
		if (state->cur_field >= se->n_fields)
			return -EINVAL;
		f = &se->fields[state->cur_field++];
	}
	if (f->is_string && (f->is_dynamic || !val))
		return -EINVAL;
	synth_put_val(state->entry, f, val);
	return 0;
}

int evt_synth_event_add_next_val(uint64_t val, struct evt_synth_event_trace_state *state)
{
	return synth_add_val(NULL, val, state);
}

int evt_synth_event_add_val(const char *field_name, uint64_t val,
			    struct evt_synth_event_trace_state *state)
{
	if (!field_name)
		return -EINVAL;
	return synth_add_val(field_name, val, state);
}

int evt_synth_event_trace_end(struct evt_synth_event_trace_state *state)
{
	if (!state)
		return -EINVAL;
	if (state->disabled)
		return 0;
	/* One file in the set: commit returns NULL and leaves the read side. */
	while (evt_trace_event_commit(&state->fb))
		;
	event_trace_nest_end(state->nested);
	state->disabled = true;
	return 0;
}
