// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger/trigger.c - the trigger command registry: parsing of what is
 * written to an event's `trigger` file, the published lists, the text read
 * back, and the writer's side (trigger_test, trigger_post).
 *
 * Grammar (the kernel's trigger_process_regex and event_trigger_parse):
 *   [!]command[:param] [if filter]
 * where param is the command's (a count, or system:event[:count]).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "trigger/trigger.h"

static void td_free(void *p)
{
	struct trigger_data *td = p;

	if (!td)
		return;
	if (td->cmd && td->cmd->free)
		td->cmd->free(td);
	filter_free(td->filter);
	free(td);
}

/* The file is freed (its instance destroyed): its triggers go too, no grace period. */
static void trigger_file_free(struct trace_event_file *file, void *data)
{
	struct trigger_list *tl = file->triggers;

	for (unsigned int i = 0; tl && i < tl->nr; i++)
		td_free(tl->td[i]);
	free(tl);
	free(data);
}

static const struct event_file_ext_ops trigger_file_ops = {
	.name = "trigger",
	.free = trigger_file_free,
};

int trigger_parse_count(const char *s, long *count)
{
	unsigned long v = 0;
	char *end;

	if (!s || !*s) {
		*count = TRIGGER_UNLIMITED;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoul(s, &end, 0);
	if (*end || v > (unsigned long)(~0UL >> 2))
		return -EINVAL;
	*count = (long)v;
	return 0;
}

static struct trigger_file *tfile_get(struct trace_event_file *file)
{
	struct trigger_file *tf = event_file_ext_get(file, EVENT_FILE_EXT_TRIGGER);

	if (tf)
		return tf;
	tf = calloc(1, sizeof(*tf));
	if (!tf)
		return NULL;
	event_file_ext_set_locked(file, EVENT_FILE_EXT_TRIGGER, &trigger_file_ops, tf);
	return tf;
}

int trigger_soft_get(struct trace_event_file *file)
{
	struct trigger_file *tf = tfile_get(file);

	if (!tf)
		return -ENOMEM;
	if (tf->soft_ref++ == 0) {
		int ret = event_file_soft_locked(file, true,
						 !(ld_relaxed(&file->flags) & EVT_FILE_ENABLED));

		if (ret)
			tf->soft_ref--; /* not taken */
		return ret;
	}
	return 0;
}

void trigger_soft_put(struct trace_event_file *file)
{
	struct trigger_file *tf = event_file_ext_get(file, EVENT_FILE_EXT_TRIGGER);

	unsigned int flags;
	bool on;

	if (!tf || !tf->soft_ref || --tf->soft_ref)
		return;
	/* As the kernel: the event keeps the state its triggers left it in (an
	 * event enable_event turned on stays enabled, disable_event's stays off). */
	flags = ld_relaxed(&file->flags);
	on = !(flags & EVT_FILE_SOFT_DISABLED);
	/*
	 * That state first, while soft mode still keeps the event in the
	 * writers' active set: leaving soft mode before turned an event its
	 * trigger had left on off for a moment, and one it had left off on.
	 */
	if (on != !!(flags & EVT_FILE_ENABLED))
		event_file_enable_locked(file, on);
	event_file_soft_locked(file, false, false);
}

/* --- writer side -------------------------------------------------------------------------- */

/* Take one from @td's count; false when it is used up. */
static bool count_take(struct trigger_data *td)
{
	long c = ld_relaxed(&td->count);

	for (;;) {
		if (c == TRIGGER_UNLIMITED)
			return true;
		if (c <= 0)
			return false;
		/* Relaxed is enough: the count orders nothing else, only each decrement
		 * must be taken once (two writers racing on the last one: one wins). */
		if (__atomic_compare_exchange_n(&td->count, &c, c - 1, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	}
}

/* Run @td once: its count, and the state check of a command that has one. */
static void trigger_run(struct trigger_data *td)
{
	if (td->cmd->would_fire) {
		/*
		 * As the kernel's *_count_trigger: a command that would change
		 * nothing does not use up its count. The check, the count and the
		 * change as one: two writers that both saw the old state would use
		 * two counts for one change. Whoever holds td->firing does it; the
		 * others skip (the state they would set is being set). Never waits,
		 * so a signal handler nested in the holder just skips too. The
		 * first check without it: once the state is set, the usual case,
		 * no locked instruction. Acquire: the previous holder's change is
		 * seen by the check under the flag.
		 */
		if (!td->cmd->would_fire(td) || xchg_acq_rel(&td->firing, 1))
			return;
		if (td->cmd->would_fire(td) && count_take(td))
			td->cmd->fire(td);
		/* Release: our change and count before the next holder's check. */
		st_release(&td->firing, 0);
		return;
	}
	if (count_take(td))
		td->cmd->fire(td);
}

unsigned long trigger_test(const struct trigger_list *tl, const void *rec, size_t len)
{
	unsigned long mask = 0;

	for (unsigned int i = 0; i < tl->nr; i++) {
		struct trigger_data *td = tl->td[i];

		if (td->cmd->fire_rec) {
			/* hist: runs now, on the record not committed yet */
			if (rec && (!td->filter || filter_match(td->filter, rec, len)))
				td->cmd->fire_rec(td, rec, len);
			continue;
		}
		if (td->filter && (!rec || !filter_match(td->filter, rec, len)))
			continue;
		if (rec && td->cmd->post)
			mask |= 1UL << i;
		else
			trigger_run(td);
	}
	return mask;
}

void trigger_post(const struct trigger_list *tl, unsigned long mask)
{
	for (unsigned int i = 0; i < tl->nr; i++)
		if (mask & (1UL << i))
			trigger_run(tl->td[i]);
}

/* --- updates (event_mutex) ------------------------------------------------------------------ */

/* --- the commands ---------------------------------------------------------------------- */

/* Registered commands, in order: written under event_mutex, read under it. */
static const struct trigger_cmd *cmds[TRIGGER_CMDS_MAX];
static unsigned int nr_cmds;

static const struct trigger_cmd *cmd_find(const char *name)
{
	for (unsigned int i = 0; i < nr_cmds; i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i];
	return NULL;
}

void trigger_cmd_add(const struct trigger_cmd *cmd)
{
	if (nr_cmds < TRIGGER_CMDS_MAX && !cmd_find(cmd->name))
		cmds[nr_cmds++] = cmd;
}

static const struct event_trigger_hooks trigger_hooks = {
	.test = trigger_test,
	.post = trigger_post,
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void trigger_init_once(void)
{
	event_lock();
	trigger_cmds_register_builtin();
	event_unlock();
	/* Before any list is published: the writer runs a list through these. */
	event_set_trigger_hooks(&trigger_hooks);
}

void trigger_init(void)
{
	pthread_once(&init_once, trigger_init_once);
}

int trigger_cmd_register(const struct trigger_cmd *cmd)
{
	int ret = 0;

	trigger_init();
	event_lock();
	if (cmd_find(cmd->name))
		ret = -EEXIST;
	else if (nr_cmds >= TRIGGER_CMDS_MAX)
		ret = -ENOSPC;
	else
		cmds[nr_cmds++] = cmd;
	event_unlock();
	return ret;
}

static int list_publish(struct trace_event_file *file, struct trigger_list *nl)
{
	struct trigger_list *old = file->triggers;

	if (nl && !nl->nr) {
		free(nl);
		nl = NULL;
	}
	if (nl)
		for (unsigned int i = 0; i < nl->nr; i++)
			nl->cond |= nl->td[i]->filter != NULL || nl->td[i]->cmd->fire_rec ||
				    nl->td[i]->cmd->post;
	/* Writers build the record in a scratch record when they cannot reserve one. */
	if (nl && nl->cond && event_scratch_prepare() < 0) {
		free(nl);
		return -ENOMEM;
	}
	/* The event stays on (soft mode) while it has triggers, as the kernel's
	 * trace_event_trigger_enable_disable(): taken before the first list is
	 * published, so that a failure leaves nothing published to undo. */
	if (!old && nl) {
		int ret = trigger_soft_get(file);

		if (ret) {
			free(nl);
			return ret;
		}
	}
	/* Release: the list and its triggers before the pointer (pairs with rcu_deref). */
	rcu_publish(file->triggers, nl);
	event_gc_free(old);
	if (old && !nl)
		trigger_soft_put(file);
	return 0;
}

static int trigger_add(struct trace_event_file *file, struct trigger_data *td)
{
	struct trigger_file *tf = tfile_get(file);
	struct trigger_list *old, *nl;
	unsigned int nr;
	int ret;

	if (!tf)
		return -ENOMEM;
	old = file->triggers;
	nr = old ? old->nr : 0;
	if (td->cmd->update) {
		ret = td->cmd->update(td, old);
		if (ret)
			return ret < 0 ? ret : 1;
	}
	for (unsigned int i = 0; i < nr; i++)
		if (td->cmd->same(old->td[i], td))
			return -EEXIST;
	if (nr >= TRIGGER_MAX)
		return -ENOSPC;
	nl = calloc(1, sizeof(*nl) + (nr + 1) * sizeof(nl->td[0]));
	if (!nl)
		return -ENOMEM;
	if (td->cmd->reg) {
		ret = td->cmd->reg(td);
		if (ret) {
			free(nl);
			return ret;
		}
	}
	nl->nr = nr + 1;
	if (td->cmd->append) {
		for (unsigned int i = 0; i < nr; i++)
			nl->td[i] = old->td[i];
		nl->td[nr] = td;
	} else {
		nl->td[0] = td;
		for (unsigned int i = 0; i < nr; i++)
			nl->td[i + 1] = old->td[i];
	}
	ret = list_publish(file, nl);
	if (ret && td->cmd->unreg)
		td->cmd->unreg(td); /* not published: the caller frees it */
	return ret;
}

static int trigger_remove(struct trace_event_file *file, struct trigger_data *test)
{
	struct trigger_list *old = file->triggers, *nl;
	struct trigger_data *gone = NULL;
	unsigned int n = 0;

	if (!old)
		return 0; /* the kernel: removing what is not there is no error */
	nl = calloc(1, sizeof(*nl) + old->nr * sizeof(nl->td[0]));
	if (!nl)
		return -ENOMEM;
	for (unsigned int i = 0; i < old->nr; i++) {
		if (!gone && test->cmd->same(old->td[i], test))
			gone = old->td[i];
		else
			nl->td[n++] = old->td[i];
	}
	if (!gone) {
		free(nl);
		return 0;
	}
	if (gone->cmd->busy && gone->cmd->busy(gone)) {
		free(nl);
		return -EBUSY;
	}
	nl->nr = n;
	list_publish(file, nl);
	if (gone->cmd->unreg)
		gone->cmd->unreg(gone);
	event_gc_add(gone, td_free);
	return 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

void trigger_err(struct trigger_data *td, const char *msg, unsigned int pos)
{
	const struct evt_event *ev = td->file->event;
	struct trigger_error_entry *e;

	if (!td->err || td->err->n == TRIGGER_ERRS_MAX)
		return;
	e = &td->err->e[td->err->n];
	e->cmd = malloc(strlen(td->cmd->name) + strlen(td->line ? td->line : "") + 2);
	if (!e->cmd)
		return;
	sprintf(e->cmd, "%s:%s", td->cmd->name, td->line ? td->line : "");
	snprintf(e->loc, sizeof(e->loc), "%s:%s:%s", td->cmd->name, ev->system, ev->name);
	e->msg = msg;
	e->pos = pos;
	td->err->n++;
}

void trigger_error_free(struct trigger_error *terr)
{
	for (unsigned int i = 0; i < terr->n; i++)
		free(terr->e[i].cmd);
	terr->n = 0;
}

/* trigger_apply() on @file with event_mutex held; *@tdp: what the caller frees, unlocked. */
static int apply_locked(struct trace_event_file *file, const char *cmd, struct filter_error *ferr,
			bool *has_ferr, struct trigger_error *terr, struct trigger_data **tdp)
{
	struct trigger_data *td = NULL;
	char *buf, *p, *name, *param = NULL, *line = NULL;
	const struct evt_event *ev = file->event;
	bool remove = false;
	int ret;

	event_assert_locked();
	*has_ferr = false;
	buf = strdup(cmd);
	if (!buf)
		return -ENOMEM;
	p = buf;
	while (is_space(*p))
		p++;
	for (char *e = p + strlen(p); e > p && is_space(e[-1]); e--)
		e[-1] = '\0';
	if (!*p) {
		free(buf);
		return 0;
	}
	if (*p == '!') {
		remove = true;
		p++;
	}
	name = p;
	while (*p && *p != ':' && !is_space(*p))
		p++;
	if (*p == ':') {
		*p++ = '\0';
		line = strdup(p);
		if (!line) {
			free(buf);
			return -ENOMEM;
		}
		param = p;
		while (*p && !is_space(*p))
			p++;
	}
	if (*p)
		*p++ = '\0';
	while (is_space(*p))
		p++;

	ret = -EINVAL;
	td = calloc(1, sizeof(*td));
	if (!td) {
		ret = -ENOMEM;
		goto out;
	}
	td->cmd = cmd_find(name);
	td->file = file;
	td->remove = remove;
	td->line = line;
	td->err = terr;
	if (!td->cmd)
		goto out;
	ret = td->cmd->parse(td, param);
	if (ret)
		goto out;
	if (*p) {
		/* the rest must be "if <filter>" */
		if (strncmp(p, "if", 2) || (p[2] && !is_space(p[2]))) {
			ret = -EINVAL;
			goto out;
		}
		if (!remove || td->cmd->fire_rec) {
			p += 2;
			while (is_space(*p))
				p++;
			/* "if" and nothing after it: -EINVAL and no error_log entry
			 * (the kernel's set_trigger_filter()) */
			if (!*p) {
				ret = -EINVAL;
				goto out;
			}
			memset(ferr, 0, sizeof(*ferr));
			ret = filter_compile(ev->fields, ev->nr_fields, p, &td->filter, ferr);
			if (ret) {
				/* the compiler's errno, as the kernel's create_event_filter()
				 * gives it back ("Too many '('": -ENOENT) */
				*has_ferr = true;
				goto out;
			}
		}
	}
	if (remove) {
		ret = trigger_remove(file, td);
		goto out;
	}
	ret = trigger_add(file, td);
	td->line = NULL; /* parse and update only */
	td->err = NULL;
	if (!ret)
		td = NULL;
	else if (ret > 0)
		ret = 0; /* the command acted on an existing trigger */
out:
	if (td) {
		td->line = NULL;
		td->err = NULL;
	}
	*tdp = td;
	free(line);
	free(buf);
	return ret;
}

int trigger_apply_file_locked(struct trace_event_file *file, const char *cmd,
			      struct trigger_error *terr)
{
	struct trigger_data *td = NULL;
	struct filter_error ferr;
	bool has_ferr;
	int ret;

	event_assert_locked();
	ret = apply_locked(file, cmd, &ferr, &has_ferr, terr, &td);
	td_free(td); /* never registered: frees without taking event_mutex */
	return ret;
}

int trigger_apply(struct evt_instance *inst, unsigned int event_id, const char *cmd,
		  struct filter_error *ferr, bool *has_ferr, struct trigger_error *terr)
{
	struct trace_event_file *file;
	struct trigger_data *td = NULL;
	struct evt_event *ev;
	int ret = -ENODEV;

	*has_ferr = false;
	events_init();
	trigger_init();
	event_lock();
	ev = event_find_id_locked(event_id);
	file = ev ? event_file_locked(inst, ev) : NULL;
	if (file)
		ret = apply_locked(file, cmd, ferr, has_ferr, terr, &td);
	event_unlock();
	td_free(td);
	return ret;
}

/* --- the `trigger` file --------------------------------------------------------------------- */

int trigger_show_text(struct evt_instance *inst, unsigned int event_id, char **textp)
{
	struct text t = { .buf = malloc(256), .cap = 256 };
	struct trace_event_file *file;
	struct trigger_list *tl;
	struct evt_event *ev;
	char name[8192];
	int ret = 0;

	if (!t.buf)
		return -ENOMEM;
	t.buf[0] = '\0';
	events_init();
	trigger_init();
	event_lock();
	ev = event_find_id_locked(event_id);
	file = ev ? event_file_locked(inst, ev) : NULL;
	if (!file) {
		ret = -ENODEV;
		goto out;
	}
	tl = file->triggers;
	if (!tl) {
		text_add(&t, "# Available triggers:\n#");
		for (unsigned int i = 0; i < nr_cmds; i++)
			text_add(&t, " %s", cmds[i]->name);
		text_add(&t, "\n");
	}
	for (unsigned int i = 0; tl && i < tl->nr; i++) {
		struct trigger_data *td = tl->td[i];
		long c = ld_relaxed(&td->count);

		if (td->cmd->show) {
			td->cmd->show(td, name, sizeof(name));
			text_add(&t, "%s", name);
			continue;
		}
		td->cmd->print(td, name, sizeof(name));
		if (c == TRIGGER_UNLIMITED)
			text_add(&t, "%s:unlimited", name);
		else
			text_add(&t, "%s:count=%ld", name, c);
		if (td->filter)
			text_add(&t, " if %s", filter_prog_text(td->filter));
		text_add(&t, "\n");
	}
	ret = t.err;
out:
	event_unlock();
	if (ret)
		free(t.buf);
	else
		*textp = t.buf;
	return ret;
}
