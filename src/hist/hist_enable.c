// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist/hist_enable.c - the enable_hist and disable_hist trigger commands
 * (histogram.rst 2), and the registration of hist's commands with the trigger
 * layer (the kernel's register_trigger_hist_enable_disable_cmds() and
 * register_trigger_hist_cmd()) and of each event's `hist` file with the tree.
 */
#include <stdbool.h>
#include <string.h>

#include "hist/hist_internal.h"
#include "trigger/trigger.h"

static const struct trigger_cmd enable_hist_cmd, disable_hist_cmd;

/* --- enable_hist, disable_hist (histogram.rst 2: pause/continue a target's hist triggers) -- */

static bool is_hist_enable_cmd(const struct trigger_cmd *cmd)
{
	return cmd == &enable_hist_cmd || cmd == &disable_hist_cmd;
}

static int hist_enable_parse(struct trigger_data *td, char *param)
{
	int ret = trigger_enable_parse(td, param);

	td->enable = !strcmp(td->cmd->name, "enable_hist");
	return ret;
}

/* One enable_hist/disable_hist per target (the kernel's ETT_HIST_ENABLE). */
static bool hist_enable_same(const struct trigger_data *a, const struct trigger_data *b)
{
	return is_hist_enable_cmd(a->cmd) && is_hist_enable_cmd(b->cmd) && a->target == b->target;
}

/* As the kernel's hist_enable_trigger(): every hist trigger of the target. */
static void hist_enable_fire(struct trigger_data *td)
{
	/* Acquire: the target's list and its triggers are complete (rcu_publish). */
	struct trigger_list *tl = trigger_list_rcu(td->target);

	for (unsigned int i = 0; tl && i < tl->nr; i++)
		if (tl->td[i]->cmd == &hist_cmd)
			hist_set_paused(tl->td[i], !td->enable);
}

static const struct trigger_cmd enable_hist_cmd = {
	.name = "enable_hist",
	.parse = hist_enable_parse,
	.same = hist_enable_same,
	.reg = trigger_enable_reg,
	.unreg = trigger_enable_unreg,
	.fire = hist_enable_fire,
	.print = trigger_enable_print,
};

static const struct trigger_cmd disable_hist_cmd = {
	.name = "disable_hist",
	.parse = hist_enable_parse,
	.same = hist_enable_same,
	.reg = trigger_enable_reg,
	.unreg = trigger_enable_unreg,
	.fire = hist_enable_fire,
	.print = trigger_enable_print,
};

/* Called once by the library's start (src/init.c), after the trigger layer's own. */
int hist_init(void)
{
	int ret = trigger_cmd_register(&enable_hist_cmd);

	if (!ret)
		ret = trigger_cmd_register(&disable_hist_cmd);
	if (!ret)
		ret = trigger_cmd_register(&hist_cmd);
	if (!ret)
		ret = hist_file_register();
	return ret;
}
