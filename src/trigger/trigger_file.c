// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger/trigger_file.c - each event's `trigger` file (the kernel's event_trigger_fops):
 * reading it lists the event's triggers, writing it runs one command
 * (trigger_apply()) and logs what went wrong in the instance's error_log. The trigger
 * layer registers the file with the tracing tree (tfs_register_file()) from its start:
 * the tree knows no trigger.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "events/error_log.h"
#include "filter/filter.h"
#include "tracefs/tfs_internal.h"
#include "trigger/trigger.h"

/* an event of another backend has no triggers: an empty file */
static int trigger_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	return tfs_event_text_show(f, s, trigger_show_text);
}

static ssize_t trigger_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	struct error_log *elog = tfs_error_log(f->node.inst);
	int id = tfs_node_event_id(&f->node);
	struct trigger_error terr = { .n = 0 };
	struct filter_error err;
	bool has_err = false;
	char *cmd;
	int ret;

	if (id < 0)
		return -ENODEV;
	cmd = tfs_strdup_stripped(buf, len);
	if (!cmd)
		return -ENOMEM;
	ret = *cmd ? trigger_apply(f->node.inst, (unsigned int)id, cmd, &err, &has_err, &terr) : 0;
	/* a command's own errors (hist), as the kernel's hist_err() */
	for (unsigned int i = 0; elog && i < terr.n; i++)
		error_log_add(elog, terr.e[i].loc, terr.e[i].msg, terr.e[i].cmd, terr.e[i].pos);
	trigger_error_free(&terr);
	if (has_err) {
		/* as the kernel: the filter's error, with the filter as the command */
		const char *fexpr = strstr(cmd, " if");

		fexpr = fexpr ? fexpr + 3 : cmd;
		fexpr += strspn(fexpr, " \t");
		tfs_filter_error_log(elog, &err, fexpr);
	}
	free(cmd);
	if (ret == -ENODEV)
		ret = -EINVAL;	/* an event of another backend: no trigger commands */
	return ret ? ret : (ssize_t)len;
}

static const struct tfs_ops trigger_file_ops = {
	.name = "trigger", .mode = TFS_MODE_RW, .show = trigger_show, .write = trigger_write,
};

int trigger_file_register(void)
{
	return tfs_register_file(TFS_AT_EVENT, &trigger_file_ops);
}
