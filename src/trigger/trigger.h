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
#include "compat/urcu.h"
#include "events/event_internal.h"
#include "filter/filter.h"

#define TRIGGER_MAX	  64 /* per event (one bit of a mask each) */
#define TRIGGER_UNLIMITED (-1L)

struct trigger_data;

/*
 * A trigger command. Registered in trigger_cmds.c; trigger.c parses the
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
};

struct trigger_data {
	const struct trigger_cmd *cmd;
	long count;			 /* TRIGGER_UNLIMITED or what is left; atomic */
	struct filter_prog *filter;	 /* NULL: always */
	struct trace_event_file *file;	 /* the event it is attached to */
	struct trace_event_file *target; /* enable_event/disable_event */
	bool enable;
};

struct trigger_list {
	unsigned int nr;
	bool cond;		   /* some trigger has a filter: needs the record */
	struct trigger_data *td[]; /* newest first, as the kernel lists them */
};

/* What trace_event_file.triggers points to (allocated once, kept with the file). */
struct trigger_file {
	struct trigger_list *list; /* RCU; NULL = no triggers */
	unsigned int soft_ref;	   /* event_mutex: users of the file's soft mode */
};

/* The writer's view: inside rcu_lock(). */
static inline struct trigger_list *trigger_list_rcu(struct trace_event_file *file)
{
	/* Acquire: the trigger_file is initialized before it is seen (pairs with
	 * the st_release in trigger.c). */
	struct trigger_file *tf = ld_acquire((struct trigger_file **)&file->triggers);

	/* Acquire: a published list and its triggers are complete (rcu_publish). */
	return tf ? rcu_deref(tf->list) : NULL;
}

/* Which triggers of @tl fire for record @rec (@rec NULL: those without a filter). */
unsigned long trigger_test(const struct trigger_list *tl, const void *rec, size_t len);
/* Run the triggers of @tl in @mask (after the record was committed or dropped). */
void trigger_post(const struct trigger_list *tl, unsigned long mask);

/*
 * trigger_apply - apply one command written to the `trigger` file of event
 * @event_id in @inst: add it, or remove it (`!command...`). A blank @cmd does
 * nothing. On a filter error, *@ferr is filled and *@has_ferr set (the
 * caller logs it to error_log as "event filter parse error").
 * Return: 0 or -EINVAL (unknown command, bad parameter, bad filter),
 * -EEXIST (uniqueness), -ENOMEM, -ENODEV (no such event).
 * Context: takes event_mutex (and may wait for a grace period).
 */
int trigger_apply(struct evt_instance *inst, unsigned int event_id, const char *cmd,
		  struct filter_error *ferr, bool *has_ferr);

/* The `trigger` file's text, malloc'd into *@textp. Return: 0, -ENOMEM, -ENODEV. */
int trigger_show_text(struct evt_instance *inst, unsigned int event_id, char **textp);

/* --- for trigger_cmds.c ----------------------------------------------------------------- */

/* Parse a count ("" or NULL: unlimited, as the kernel). 0 or -EINVAL. */
int trigger_parse_count(const char *s, long *count);
/* A file's soft mode (the kernel's sm_ref): get/put, event_mutex held. */
int trigger_soft_get(struct trace_event_file *file);
void trigger_soft_put(struct trace_event_file *file);

extern const struct trigger_cmd *const trigger_cmds[];

#endif /* EVT_TRIGGER_TRIGGER_H */
