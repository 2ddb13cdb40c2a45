/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hist/hist.h - hist triggers (histogram.rst): the `hist` trigger command
 * (hist_cmd; hist_init() registers it with enable_hist and disable_hist,
 * hist_enable.c) and the per-event `hist` file's text.
 *
 * A hist trigger is a trigger_data whose priv is a struct hist_trigger; its
 * histogram (keys, values, sort keys, the map) is a struct hist_data, shared
 * by the triggers of one name (name=). Writers run hist_cmd.fire_rec on the
 * record before it is committed: no lock, no allocation (docs/hist.md).
 */
#ifndef EVT_HIST_HIST_H
#define EVT_HIST_HIST_H

#include <stdbool.h>

#include "trigger/trigger.h"

/* The hist trigger command (hist.c). */
extern const struct trigger_cmd hist_cmd;

/*
 * hist_init - register hist, enable_hist and disable_hist with the trigger
 * layer (trigger_cmd_register()), and each event's `hist` file with the tracing
 * tree (tfs_register_file()). Called once by the library's start (src/init.c).
 * Return: 0 or -errno.
 */
int hist_init(void);

/* enable_hist/disable_hist: pause or continue hist trigger @td. Writer context. */
void hist_set_paused(struct trigger_data *td, bool paused);

/*
 * hist_show_text - the `hist` file of event @event_id in @inst (every hist
 * trigger's table, as the kernel's hist_show()), malloc'd into *@textp.
 * Return: 0, -ENOMEM, -ENODEV. Context: takes event_mutex.
 */
int hist_show_text(struct evt_instance *inst, unsigned int event_id, char **textp);

#endif /* EVT_HIST_HIST_H */
