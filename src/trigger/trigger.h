/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trigger/trigger.h - event triggers (events.rst section 6): the commands
 * written to an event's `trigger` file, `command[:count] [if filter]`.
 *
 * An event's triggers are a trigger_list, an immutable array published with
 * RCU in its file's trigger_file (trace_event_file.triggers). Writers read
 * it inside their rcu_lock() without any lock; updaters (trigger_apply())
 * hold event_mutex, build a new list and publish it, and the old list and
 * removed triggers are freed after a grace period (event_gc_add()).
 * A trigger's count is the only thing writers modify: atomically.
 */
#ifndef EVT_TRIGGER_TRIGGER_H
#define EVT_TRIGGER_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>

#include "compat/atomic.h"
#include "compat/rcu.h"
#include "events/event_internal.h"
#include "filter/filter.h"

#define TRIGGER_MAX	  64 /* per event (one bit of a mask each) */
#define TRIGGER_UNLIMITED (-1L)

struct trigger_data;
struct trigger_list;

/*
 * A trigger command, registered with trigger_cmd_register() by the layer that
 * implements it (trigger_cmds.c here, hist/ its own); trigger.c parses the
 * common part (`name[:param] [if filter]`, the `!` of a removal) and calls:
 *   parse     @param is what follows "name:" (NULL: nothing), in place;
 *             fill @td (count, target). event_mutex held. 0 or -errno.
 *   same      would @a and @b be the same trigger (uniqueness, removal)?
 *             event_mutex held.
 *   reg/unreg when @td enters/leaves the published list (soft mode of a
 *             target). event_mutex held. May be NULL.
 *   would_fire would firing change anything now? Writer context. When not,
 *             the count is not used (as the kernel's *_count_trigger). May be NULL.
 *   fire      run once: writer context, no lock, no allocation, signal safe.
 *   print     the name and parameters without the count ("traceon",
 *             "enable_event:sched:sched_wakeup"), snprintf-like. event_mutex held.
 *
 * Commands that read the record (hist, the kernel's EVENT_CMD_FL_NEEDS_REC):
 *   fire_rec  instead of fire: run with the record, before it is committed
 *             (the kernel's event_triggers_call()); writer context as fire.
 *             The trigger's filter was tested already; it has no count.
 *   update    before a new trigger is added: act on an existing one instead
 *             (hist's pause/cont/clear) and return 1, return 0 to add @td,
 *             or -errno. event_mutex held. May be NULL.
 *   show      the whole line of the `trigger` file, '\n' included (instead
 *             of print, the count and the filter). event_mutex held.
 *   free      free td->priv (after a grace period, or a failed parse).
 *   busy      may @td be removed now? 0 or -EBUSY (hist: others use its
 *             variables). event_mutex held. May be NULL.
 *   append    new triggers go to the end of the list (the kernel's
 *             hist_trigger_enable()); others to the front.
 *   post      run after the record is committed or discarded, never before
 *             (the kernel's EVENT_CMD_FL_POST_TRIGGER: traceoff, stacktrace):
 *             the event that turns tracing off is in the buffer, a stack
 *             record follows its event. Such a trigger makes its list `cond`.
 */
struct trigger_cmd {
	const char *name;
	int (*parse)(struct trigger_data *td, char *param);
	bool (*same)(const struct trigger_data *a, const struct trigger_data *b);
	int (*reg)(struct trigger_data *td);
	void (*unreg)(struct trigger_data *td);
	bool (*would_fire)(const struct trigger_data *td);
	void (*fire)(struct trigger_data *td);
	int (*print)(const struct trigger_data *td, char *buf, size_t size);
	void (*fire_rec)(struct trigger_data *td, const void *rec, size_t len);
	int (*update)(struct trigger_data *td, const struct trigger_list *tl);
	int (*show)(const struct trigger_data *td, char *buf, size_t size);
	void (*free)(struct trigger_data *td);
	int (*busy)(const struct trigger_data *td);
	bool append;
	bool post;
};

/*
 * What a command reports to the instance's error_log (hist's errors, as the
 * kernel's hist_err()), one entry per call in the order made: the kernel
 * logs every hist_err() (a "$name" that is no variable logs "Couldn't find
 * variable", then "Couldn't find field" when parse_atom() tries it as a
 * field). Each entry: @loc ("hist:sys:event"), @msg, the command (malloc'd,
 * freed by trigger_error_free()) and the caret's position in it. Entries past
 * TRIGGER_ERRS_MAX are dropped (the kernel's log keeps 16 in all).
 */
#define TRIGGER_ERRS_MAX 8

struct trigger_error {
	unsigned int n;
	struct trigger_error_entry {
		char loc[128];
		const char *msg;
		char *cmd;
		unsigned int pos;
	} e[TRIGGER_ERRS_MAX];
};

/* trigger_error_free() - free the commands of @terr's entries; it is empty after. */
void trigger_error_free(struct trigger_error *terr);

struct trigger_data {
	const struct trigger_cmd *cmd;
	long count;			 /* TRIGGER_UNLIMITED or what is left; atomic */
	struct filter_prog *filter;	 /* NULL: always */
	struct trace_event_file *file;	 /* the event it is attached to */
	struct trace_event_file *target; /* enable_event/disable_event */
	bool enable;
	uint8_t firing;		   /* a writer is checking/changing state (trigger_post) */
	bool remove;		   /* parse: this is a '!' removal */
	void *priv;		   /* the command's (hist: struct hist_trigger) */
	const char *line;	   /* parse only: all after "name:", filter included */
	struct trigger_error *err; /* parse/update only: where to report (may be NULL) */
};

/*
 * struct trigger_list (a file's published triggers) is the writer's, in
 * events/event_internal.h; the list hangs on trace_event_file.triggers (RCU).
 */

/* The trigger layer's state of a file: its EVENT_FILE_EXT_TRIGGER slot. */
struct trigger_file {
	unsigned int soft_ref;	   /* event_mutex: users of the file's soft mode */
};

/* A file's triggers: inside rcu_lock(), or under event_mutex. */
static inline struct trigger_list *trigger_list_rcu(struct trace_event_file *file)
{
	return event_file_triggers_rcu(file);
}

/*
 * trigger_test - the kernel's event_triggers_call(): run the triggers of @tl
 * whose filter @rec matches (@rec NULL, a list that is not `cond`: every
 * trigger, before anything is reserved), in list order, except the post
 * ones, which are returned as a mask for trigger_post(). The writer reads the
 * file's soft-disable bit after this, afresh: an enable_event/disable_event
 * on the event itself decides the fate of the record that fired it.
 * Writer context: no lock, no allocation, signal safe.
 */
unsigned long trigger_test(const struct trigger_list *tl, const void *rec, size_t len);
/* Run the post triggers of @tl in @mask (after the record was committed or discarded). */
void trigger_post(const struct trigger_list *tl, unsigned long mask);

/*
 * trigger_apply - apply one command written to the `trigger` file of event
 * @event_id in @inst: add it, or remove it (`!command...`). A blank @cmd does
 * nothing. On a filter error, *@ferr is filled and *@has_ferr set (the
 * caller logs it to error_log as "event filter parse error").
 * Return: 0 or -EINVAL (unknown command, bad parameter, bad filter),
 * -EEXIST (uniqueness), -ENOMEM, -ENODEV (no such event); hist also -ENOENT.
 * A command's own error is put in *@terr (when not NULL) with terr->cmd set:
 * the caller logs it and frees terr->cmd.
 * Context: takes event_mutex (and may wait for a grace period).
 */
int trigger_apply(struct evt_instance *inst, unsigned int event_id, const char *cmd,
		  struct filter_error *ferr, bool *has_ferr, struct trigger_error *terr);

/*
 * trigger_apply_file_locked - trigger_apply() on @file, event_mutex held: for
 * a command that adds or removes a trigger of another event while it is
 * registered (hist's field variable histograms, the kernel's
 * create_field_var_hist()). A filter error is not reported.
 */
int trigger_apply_file_locked(struct trace_event_file *file, const char *cmd,
			      struct trigger_error *terr);

/* For commands: report an error (the first one only, as the kernel's log of one write). */
void trigger_err(struct trigger_data *td, const char *msg, unsigned int pos);

/* The `trigger` file's text, malloc'd into *@textp. Return: 0, -ENOMEM, -ENODEV. */
int trigger_show_text(struct evt_instance *inst, unsigned int event_id, char **textp);

/* --- for trigger_cmds.c ----------------------------------------------------------------- */

/* Parse a count ("" or NULL: unlimited, as the kernel). 0 or -EINVAL. */
int trigger_parse_count(const char *s, long *count);
/* A file's soft mode (the kernel's sm_ref): get/put, event_mutex held. */
int trigger_soft_get(struct trace_event_file *file);
void trigger_soft_put(struct trace_event_file *file);

/*
 * enable_event/disable_event's parts, for commands that act on another event's
 * file as they do (hist's enable_hist/disable_hist): parse `system:event[:count]`
 * into td->target, take/drop the target's soft mode, print `name:system:event`.
 */
int trigger_enable_parse(struct trigger_data *td, char *param);
int trigger_enable_reg(struct trigger_data *td);
void trigger_enable_unreg(struct trigger_data *td);
int trigger_enable_print(const struct trigger_data *td, char *buf, size_t size);

/* Register this layer's own commands (trigger_cmds.c), in the kernel's order. */
void trigger_cmds_register_builtin(void);
/* Add @cmd to the table (trigger_cmd_register() without the start-up). */
void trigger_cmd_add(const struct trigger_cmd *cmd);

/* --- registration (the kernel's register_event_command()) ------------------------------ */

#define TRIGGER_CMDS_MAX 32

/*
 * trigger_cmd_register - make @cmd a command of the `trigger` file, after the
 * ones registered before it (the "# Available triggers" line lists them in
 * this order). @cmd must live for ever.
 * Context: takes event_mutex. Return: 0, -EEXIST (a command of that name),
 * -ENOSPC (TRIGGER_CMDS_MAX).
 */
int trigger_cmd_register(const struct trigger_cmd *cmd);

/*
 * trigger_init - the trigger layer's start: its own commands, then its runners
 * as the writer's trigger hooks (event_set_trigger_hooks()). Idempotent; the
 * library's start (src/init.c) calls it, and so does everything that needs it
 * (under tfs_lock too: it takes no lock of the tree).
 */
void trigger_init(void);

/**
 * trigger_file_register() - add the `trigger` file to every event's directory of the tree
 *
 * Its read lists the event's triggers (trigger_show_text()), a write runs one command
 * (trigger_apply()) and logs its errors in the instance's error_log (trigger_file.c).
 *
 * Context: takes tfs_lock; called once by the library's start (src/init.c).
 * Return: 0 or a negative errno of tfs_register_file().
 */
int trigger_file_register(void);

#endif /* EVT_TRIGGER_TRIGGER_H */
