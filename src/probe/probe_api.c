// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_api.c - the public API of evtrace/kprobe.h (events.rst 7.3): probe
 * events built with the dynevent_cmd machinery and run as `kprobe_events` lines,
 * as the kernel's __kprobe_event_gen_cmd_start(), __kprobe_event_add_fields() and
 * kprobe_event_delete() do (read for their behaviour).
 *
 * The header defines macros of the same names as the variadic functions (they add the
 * terminating NULL): the definitions below put the names in parentheses so that the
 * macros do not expand there.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <evtrace/kprobe.h>

#include "core/detail.h"
#include "probe/probe.h"
#include "synth/synth.h"

/* The kernel's trace_kprobe_run_command(): the text as one `kprobe_events` line. */
static int kprobe_run_command(struct evt_dynevent_cmd *cmd)
{
	probe_register();
	return dyn_event_type_run("kprobe", cmd->buf);
}

void evt_kprobe_event_cmd_init(struct evt_dynevent_cmd *cmd, char *buf, int maxlen)
{
	evt_dynevent_cmd_init(cmd, buf, maxlen, EVT_DYNEVENT_TYPE_KPROBE, kprobe_run_command);
}

/* Append the fetch arguments of @ap up to its NULL; counts them in cmd->n_fields. */
static int kprobe_add_args(struct evt_dynevent_cmd *cmd, va_list ap)
{
	struct evt_dynevent_arg arg;
	const char *field;
	int ret = 0;

	evt_dynevent_arg_init(&arg, NULL, 0);
	while ((field = va_arg(ap, const char *))) {
		if (++cmd->n_fields > PROBE_ARGS_MAX)
			return -EINVAL;
		arg.str = field;
		ret = evt_dynevent_arg_add(cmd, &arg);
		if (ret)
			break;
	}
	return ret;
}

/* "p:kprobes/NAME LOC" or "r:...": the head of the command. */
static int kprobe_cmd_head(struct evt_dynevent_cmd *cmd, bool kretprobe, const char *name,
			   const char *loc)
{
	char head[PROBE_NAME_MAX + sizeof("p:" EVT_KPROBE_EVENT_SYSTEM "/")];
	struct evt_dynevent_arg arg;
	int ret;

	if (!cmd || cmd->type != EVT_DYNEVENT_TYPE_KPROBE || !name || !loc || !*name ||
	    strlen(name) >= PROBE_NAME_MAX)
		return -EINVAL;
	cmd->event_name = name;
	snprintf(head, sizeof(head), "%c:%s/%s", kretprobe ? 'r' : 'p', EVT_KPROBE_EVENT_SYSTEM,
		 name);
	ret = evt_dynevent_str_add(cmd, head);
	if (ret)
		return ret;
	evt_dynevent_arg_init(&arg, NULL, 0);
	arg.str = loc;
	return evt_dynevent_arg_add(cmd, &arg);
}

int(evt_kprobe_event_gen_cmd_start)(struct evt_dynevent_cmd *cmd, const char *name,
				    const char *loc, ...)
{
	va_list ap;
	int ret;

	ret = kprobe_cmd_head(cmd, false, name, loc);
	if (ret)
		return ret;
	va_start(ap, loc);
	ret = kprobe_add_args(cmd, ap);
	va_end(ap);
	return ret;
}

int(evt_kretprobe_event_gen_cmd_start)(struct evt_dynevent_cmd *cmd, const char *name,
				       const char *loc, ...)
{
	va_list ap;
	int ret;

	ret = kprobe_cmd_head(cmd, true, name, loc);
	if (ret)
		return ret;
	va_start(ap, loc);
	ret = kprobe_add_args(cmd, ap);
	va_end(ap);
	return ret;
}

int(evt_kprobe_event_add_fields)(struct evt_dynevent_cmd *cmd, ...)
{
	va_list ap;
	int ret;

	if (!cmd || cmd->type != EVT_DYNEVENT_TYPE_KPROBE)
		return -EINVAL;
	va_start(ap, cmd);
	ret = kprobe_add_args(cmd, ap);
	va_end(ap);
	return ret;
}

int evt_kprobe_event_gen_cmd_end(struct evt_dynevent_cmd *cmd)
{
	if (!cmd || cmd->type != EVT_DYNEVENT_TYPE_KPROBE)
		return -EINVAL;
	return evt_dynevent_create(cmd);
}

int evt_kretprobe_event_gen_cmd_end(struct evt_dynevent_cmd *cmd)
{
	return evt_kprobe_event_gen_cmd_end(cmd);
}

int evt_kprobe_event_delete(const char *name)
{
	char line[2 * PROBE_NAME_MAX + 4];

	detail_clear();
	if (!name || !*name || strlen(name) >= sizeof(line) - 2 || strpbrk(name, " \t\n"))
		return -EINVAL;
	snprintf(line, sizeof(line), "-:%s", name);
	probe_register();
	return dyn_event_type_run("kprobe", line);
}
