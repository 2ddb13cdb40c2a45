// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger/trigger_cmds.c - the trigger commands: traceon, traceoff,
 * snapshot, stacktrace, enable_event, disable_event (events.rst 6.2). The hist
 * commands (hist, enable_hist, disable_hist) register themselves from hist/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "compat/compiler.h"
#include "trigger/trigger.h"

/* --- traceon, traceoff ---------------------------------------------------------------------- */

static bool is_onoff_cmd(const struct trigger_cmd *cmd);

static int onoff_parse(struct trigger_data *td, char *param)
{
	char *extra = param ? strchr(param, ':') : NULL;

	/* the kernel's event_trigger_parse_num() reads up to the next ':' only */
	if (extra)
		*extra = '\0';
	/* '!traceoff:count=1', as the trigger file prints it: the kernel ignores a removal's count */
	if (td->remove)
		return 0;
	return trigger_parse_count(param, &td->count);
}

/* One traceon or traceoff per event (the kernel's ETT_TRACE_ONOFF). */
static bool onoff_same(const struct trigger_data *a, const struct trigger_data *b)
{
	return is_onoff_cmd(a->cmd) && is_onoff_cmd(b->cmd);
}

static bool traceon_would(const struct trigger_data *td)
{
	return !ld_relaxed(&td->file->inst->tracing_on);
}

static bool traceoff_would(const struct trigger_data *td)
{
	return ld_relaxed(&td->file->inst->tracing_on);
}

/* Writers test tracing_on with a relaxed load: one in flight may still write, as in ftrace. */
static void traceon_fire(struct trigger_data *td)
{
	st_relaxed(&td->file->inst->tracing_on, 1);
}

static void traceoff_fire(struct trigger_data *td)
{
	st_relaxed(&td->file->inst->tracing_on, 0);
}

/* "traceon" / "traceoff": the command's name is all there is to print */
static int onoff_print(const struct trigger_data *td, char *buf, size_t size)
{
	return snprintf(buf, size, "%s", td->cmd->name);
}

static const struct trigger_cmd traceon_cmd = {
	.name = "traceon",
	.parse = onoff_parse,
	.same = onoff_same,
	.would_fire = traceon_would,
	.fire = traceon_fire,
	.print = onoff_print,
};

static const struct trigger_cmd traceoff_cmd = {
	.name = "traceoff",
	.parse = onoff_parse,
	.same = onoff_same,
	.would_fire = traceoff_would,
	.fire = traceoff_fire,
	.print = onoff_print,
	.post = true, /* the event that turns tracing off is recorded (traceon is not post) */
};

/* --- stacktrace ----------------------------------------------------------------------------- */

/* One stacktrace per event (the kernel's ETT_STACKTRACE). */
static bool same_cmd(const struct trigger_data *a, const struct trigger_data *b)
{
	return a->cmd == b->cmd;
}

/* The traced program's stack, above its call into the writer: an ftrace:kernel_stack record. */
static void stacktrace_fire(struct trigger_data *td)
{
	event_trace_stack(td->file->inst);
}

static const struct trigger_cmd stacktrace_cmd = {
	.name = "stacktrace",
	.parse = onoff_parse,
	.same = same_cmd,
	.fire = stacktrace_fire,
	.print = onoff_print,
	.post = true, /* the stack follows its event */
};

/* --- snapshot ------------------------------------------------------------------------------- */

/* The instance's snapshot buffer is allocated when the trigger registers (the
 * kernel's register_snapshot_trigger), and kept while it exists. */
static int snapshot_reg(struct trigger_data *td)
{
	return instance_snapshot_get_locked(td->file->inst);
}

static void snapshot_unreg(struct trigger_data *td)
{
	instance_snapshot_put_locked(td->file->inst);
}

/* Swap the live buffer with the snapshot buffer: one CAS, writer-safe. */
static void snapshot_fire(struct trigger_data *td)
{
	instance_snapshot_swap(td->file->inst);
}

static const struct trigger_cmd snapshot_cmd = {
	.name = "snapshot",
	.parse = onoff_parse,
	.same = same_cmd,
	.reg = snapshot_reg,
	.unreg = snapshot_unreg,
	.fire = snapshot_fire,
	.print = onoff_print,
};

/* --- enable_event, disable_event ------------------------------------------------------------ */

static bool is_enable_cmd(const struct trigger_cmd *cmd);

int trigger_enable_parse(struct trigger_data *td, char *param)
{
	char *sys, *name, *count;
	struct evt_event *ev;
	int ret;

	if (!param)
		return -EINVAL;
	sys = param;
	name = strchr(sys, ':');
	if (!name)
		return -EINVAL;
	*name++ = '\0';
	count = strchr(name, ':');
	if (count)
		*count++ = '\0';
	/* as onoff_parse(): a removal's count is not read (the kernel unregisters first) */
	ret = td->remove ? 0 : trigger_parse_count(count, &td->count);
	if (ret)
		return ret;
	ev = event_find_locked(sys, name);
	if (!ev)
		return -EINVAL;
	td->target = event_file_locked(td->file->inst, ev);
	if (!td->target)
		return -ENOMEM;
	td->enable = !strcmp(td->cmd->name, "enable_event");
	return 0;
}

/* One enable/disable trigger per event it acts on (the kernel's ETT_EVENT_ENABLE). */
static bool enable_same(const struct trigger_data *a, const struct trigger_data *b)
{
	return is_enable_cmd(a->cmd) && is_enable_cmd(b->cmd) && a->target == b->target;
}

/* The target stays in its event's active set, soft-disabled, while the trigger exists. */
int trigger_enable_reg(struct trigger_data *td)
{
	return trigger_soft_get(td->target);
}

void trigger_enable_unreg(struct trigger_data *td)
{
	trigger_soft_put(td->target);
}

static bool enable_would(const struct trigger_data *td)
{
	bool on = !(ld_relaxed(&td->target->flags) & EVT_FILE_SOFT_DISABLED);

	return on != td->enable;
}

static void enable_fire(struct trigger_data *td)
{
	/*
	 * Relaxed read-modify-write of one bit: it orders nothing else (writers
	 * test the bit with a relaxed load, a record in flight may still see the
	 * old state, as in the kernel). event_mutex holders update the word with a
	 * CAS too (file_flags_update), so neither side loses the other's bits.
	 */
	if (td->enable)
		and_relaxed(&td->target->flags, ~EVT_FILE_SOFT_DISABLED);
	else
		or_relaxed(&td->target->flags, EVT_FILE_SOFT_DISABLED);
}

int trigger_enable_print(const struct trigger_data *td, char *buf, size_t size)
{
	return snprintf(buf, size, "%s:%s:%s", td->cmd->name, td->target->event->system,
			td->target->event->name);
}

static const struct trigger_cmd enable_event_cmd = {
	.name = "enable_event",
	.parse = trigger_enable_parse,
	.same = enable_same,
	.reg = trigger_enable_reg,
	.unreg = trigger_enable_unreg,
	.would_fire = enable_would,
	.fire = enable_fire,
	.print = trigger_enable_print,
};

static const struct trigger_cmd disable_event_cmd = {
	.name = "disable_event",
	.parse = trigger_enable_parse,
	.same = enable_same,
	.reg = trigger_enable_reg,
	.unreg = trigger_enable_unreg,
	.would_fire = enable_would,
	.fire = enable_fire,
	.print = trigger_enable_print,
};

static bool is_onoff_cmd(const struct trigger_cmd *cmd)
{
	return cmd == &traceon_cmd || cmd == &traceoff_cmd;
}

static bool is_enable_cmd(const struct trigger_cmd *cmd)
{
	return cmd == &enable_event_cmd || cmd == &disable_event_cmd;
}

/*
 * The commands of this layer, in the kernel's registration order (the "# Available
 * triggers" line); hist registers enable_hist, disable_hist and hist after them.
 */
void trigger_cmds_register_builtin(void)
{
	static const struct trigger_cmd *const cmds[] = {
		&traceon_cmd,	 &traceoff_cmd,	    &snapshot_cmd,
		&stacktrace_cmd, &enable_event_cmd, &disable_event_cmd,
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(cmds); i++)
		trigger_cmd_add(cmds[i]);
}
