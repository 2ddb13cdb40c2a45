// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events/registry.c - registered events: IDs, lookup, enable state, filters.
 *
 * Every event ever registered in the process keeps its struct evt_event
 * (and its ID) until the process exits: an unregistered event (its
 * library was dlclose'd) becomes a "zombie" that still prints the
 * records it left in ring buffers, and comes back to life with the same
 * ID if the same definition is registered again. So nothing a writer or
 * a reader can hold is ever freed except the RCU-published sets and
 * filters, which go through the garbage list (event_gc_*) and are freed
 * after a grace period when event_mutex is released.
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/rcu.h"
#include "events/event_internal.h"
#include "filter/filter.h"

const struct evt_field evt_common_fields[EVT_NR_COMMON_FIELDS] = {
	{ "unsigned short", "common_type", 0, 2, 2, EVT_FIELD_INT, 0 },
	{ "unsigned char", "common_flags", 2, 1, 1, EVT_FIELD_INT, 0 },
	{ "unsigned char", "common_preempt_count", 3, 1, 1, EVT_FIELD_INT, 0 },
	{ "int", "common_pid", 4, 4, 4, EVT_FIELD_INT, 1 },
	{ "int", "common_tgid", 8, 4, 4, EVT_FIELD_INT, 1 },
};

static pthread_mutex_t event_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Every event by ID (zombies included); the array is RCU-published for readers. */
struct event_table {
	unsigned int cap;
	struct evt_event *ev[];
};
static struct event_table *event_table;
static unsigned int next_id = EVENT_ID_FIRST;

/* Live events sorted by (system, name): event_mutex. */
static struct evt_event **sorted;
static size_t nr_sorted, cap_sorted;

/* --- garbage: freed after a grace period, when event_mutex is released --------------- */

struct gc_item {
	void *p;
	void (*free)(void *p);
};
static struct gc_item *gc;
static size_t nr_gc, cap_gc;

static void gc_free_filter(void *p)
{
	filter_free(p);
}

/* Queue @p for freeing; if the list cannot grow, wait for the grace period now. */
void event_gc_add(void *p, void (*fn)(void *))
{
	if (!p)
		return;
	if (nr_gc == cap_gc) {
		size_t cap = cap_gc ? cap_gc * 2 : 16;
		struct gc_item *n = realloc(gc, cap * sizeof(*n));

		if (!n) {
			rcu_sync();
			fn(p);
			return;
		}
		gc = n;
		cap_gc = cap;
	}
	gc[nr_gc].p = p;
	gc[nr_gc].free = fn;
	nr_gc++;
}

void event_gc_free(void *p)
{
	event_gc_add(p, free);
}

static void event_gc_flush(void)
{
	if (!nr_gc)
		return;
	/* Every writer that could still see a queued pointer entered its read side before this. */
	rcu_sync();
	for (size_t i = 0; i < nr_gc; i++)
		gc[i].free(gc[i].p);
	nr_gc = 0;
}

__thread unsigned int event_locks_held; /* see event_internal.h */

/* The holder of event_mutex (pthread_self()), 0 if none: for event_assert_locked(). */
static unsigned long event_mutex_owner;

void event_lock(void)
{
	pthread_mutex_lock(&event_mutex);
	event_locks_held++; /* no start-up hold under it (event_internal.h) */
	/* Relaxed: only the holder compares it with itself; others see "not mine". */
	st_relaxed(&event_mutex_owner, (unsigned long)pthread_self());
}

void event_unlock(void)
{
	event_gc_flush();
	event_locks_held--;
	st_relaxed(&event_mutex_owner, 0ul); /* as in event_lock() */
	pthread_mutex_unlock(&event_mutex);
}

#ifndef NDEBUG
void event_assert_locked_fn(const char *func)
{
	/* Relaxed: written by this thread under the mutex if it holds it (event_lock()). */
	if (ld_relaxed(&event_mutex_owner) == (unsigned long)pthread_self())
		return;
	fprintf(stderr, "evtrace: %s() called without event_mutex\n", func);
	abort();
}
#endif

/* --- lookup --------------------------------------------------------------------------- */

bool event_glob_match(const char *glob, const char *str)
{
	if (!glob || !strcmp(glob, "*"))
		return true;
	return fnmatch(glob, str, 0) == 0;
}

static int event_cmp(const char *sys_a, const char *name_a, const char *sys_b,
		     const char *name_b)
{
	int c = strcmp(sys_a, sys_b);

	return c ? c : strcmp(name_a, name_b);
}

/* Index of the first sorted event >= (system, name). */
static size_t sorted_lower_bound(const char *system, const char *name)
{
	size_t lo = 0, hi = nr_sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (event_cmp(sorted[mid]->system, sorted[mid]->name, system, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct evt_event *event_find_locked(const char *system, const char *name)
{
	size_t i;

	event_assert_locked();
	if (!system || !name)
		return NULL;
	i = sorted_lower_bound(system, name);
	if (i < nr_sorted && !event_cmp(sorted[i]->system, sorted[i]->name, system, name))
		return sorted[i];
	return NULL;
}

struct evt_event *event_find_id_locked(unsigned int id)
{
	struct event_table *t = event_table;

	event_assert_locked();
	return t && id < t->cap ? t->ev[id] : NULL;
}

struct evt_event *event_find_id_rcu(unsigned int id)
{
	struct event_table *t = rcu_deref(event_table);

	/* The slot is written (release) before the event can be in any buffer. */
	return t && id < t->cap ? ld_acquire(&t->ev[id]) : NULL;
}

unsigned int event_id_limit_locked(void)
{
	event_assert_locked();
	return event_table ? event_table->cap : 0;
}

int event_foreach_locked(const char *system, const char *name,
			 int (*fn)(struct evt_event *ev, void *arg), void *arg)
{
	event_assert_locked();
	for (size_t i = 0; i < nr_sorted; i++) {
		struct evt_event *ev = sorted[i];
		int ret;

		if (!event_glob_match(system, ev->system) || !event_glob_match(name, ev->name))
			continue;
		ret = fn(ev, arg);
		if (ret)
			return ret;
	}
	return 0;
}

int event_foreach_system_locked(int (*fn)(const char *system, void *arg), void *arg)
{
	const char *last = NULL;

	event_assert_locked();
	for (size_t i = 0; i < nr_sorted; i++) {
		int ret;

		if (last && !strcmp(last, sorted[i]->system))
			continue;
		last = sorted[i]->system;
		ret = fn(last, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* --- public lookup -------------------------------------------------------------------- */

unsigned int evt_event_id(const struct evt_event *ev)
{
	return ev->id;
}

const char *evt_event_name(const struct evt_event *ev)
{
	return ev->name;
}

const char *evt_event_system(const struct evt_event *ev)
{
	return ev->system;
}

const struct evt_event_def *evt_event_def_of(const struct evt_event *ev)
{
	return ev->def;
}

int evt_event_foreach(const char *system, const char *name,
		      int (*fn)(struct evt_event *ev, void *arg), void *arg)
{
	int ret;

	if (!fn)
		return -EINVAL;
	events_init();
	event_lock();
	ret = event_foreach_locked(system, name, fn, arg);
	event_unlock();
	return ret;
}

static int count_one(struct evt_event *ev, void *arg)
{
	(void)ev;
	(*(int *)arg)++;
	return 0;
}

int evt_event_count(const char *system, const char *name)
{
	int n = 0;

	evt_event_foreach(system, name, count_one, &n);
	return n;
}

/* --- the active set and the key ------------------------------------------------------- */

/* @def's reg/unreg callbacks (TRACE_EVENT_FN), or NULL: ABI 1 definitions have none. */
static int (*def_reg(const struct evt_event_def *def))(void)
{
	return def && def->abi >= 2 ? def->reg : NULL;
}

static void (*def_unreg(const struct evt_event_def *def))(void)
{
	return def && def->abi >= 2 ? def->unreg : NULL;
}

int event_reg_locked(struct evt_event *ev)
{
	int (*reg)(void) = def_reg(ev->def);
	int ret;

	event_assert_locked();
	if (ev->reg_on || !ev->live)
		return 0;
	if (reg) {
		ret = reg();
		if (ret < 0)
			return ret;
	}
	ev->reg_on = true;
	return 0;
}

/*
 * Rebuild @ev's active set from the files of every instance that records
 * it (enabled, or in soft mode) and set its key. event_mutex held.
 */
void event_update_active_locked(struct evt_event *ev)
{
	struct event_active *old = ev->active, *set = NULL;
	struct trace_event_file *files[INSTANCE_MAX];
	unsigned int n = 0;

	event_assert_locked();
	if (ev->live)
		n = instance_active_files_locked(ev, files, INSTANCE_MAX);
	/* reg before the first instance records (the paths that enable called it and
	 * failed on its error; this covers any other), unreg after the key is off */
	if (n && event_reg_locked(ev) < 0)
		n = 0;
	if (n) {
		set = malloc(sizeof(*set) + n * sizeof(set->files[0]));
		if (!set) {
			/* Keep the old set: the enable state and the writers disagree until the
			 * next change; better than failing to disable. */
			if (old)
				return;
		} else {
			set->nr = n;
			memcpy(set->files, files, n * sizeof(files[0]));
		}
	}
	/* Release: the set's contents before the pointer (pairs with rcu_deref in the writer). */
	rcu_publish(ev->active, set);
	/* The key last, so a call site that sees it on finds a set (or finds NULL: harmless). */
	if (ev->key)
		__atomic_store_n(ev->key, (uint8_t)(set != NULL), __ATOMIC_RELEASE);
	event_gc_free(old);
	if (!set && ev->reg_on) {
		void (*unreg)(void) = def_unreg(ev->def);

		ev->reg_on = false;
		if (unreg)
			unreg();
	}
}

/* --- files ---------------------------------------------------------------------------- */

/*
 * Clear @clr and set @set in @file's flags; returns the flags before. A CAS,
 * not a load and a store: the enable_event/disable_event triggers flip
 * EVT_FILE_SOFT_DISABLED from writers without event_mutex, and a store of
 * the whole word would lose such a flip. Relaxed: the flags order nothing
 * else (writers test them with relaxed loads; the active set is published
 * with its own release).
 */
static unsigned int file_flags_update(struct trace_event_file *file, unsigned int clr,
				      unsigned int set)
{
	unsigned int old = ld_relaxed(&file->flags);

	while (!cas_relaxed(&file->flags, &old, (old & ~clr) | set))
		;
	return old;
}

int event_file_enable_locked(struct trace_event_file *file, bool enable)
{
	event_assert_locked();
	/* SOFT_MODE only changes under event_mutex: stable here */
	unsigned int flags = ld_relaxed(&file->flags), clr, set, old;

	/* As the kernel: an event in soft mode (triggers) records once enabled, and
	 * stays on for its triggers, soft-disabled, once disabled. */
	if (enable) {
		set = EVT_FILE_ENABLED;
		clr = EVT_FILE_SOFT_DISABLED;
	} else if (flags & EVT_FILE_SOFT_MODE) {
		set = EVT_FILE_SOFT_DISABLED;
		clr = EVT_FILE_ENABLED;
	} else {
		set = 0;
		clr = EVT_FILE_ENABLED;
	}
	if (enable) {
		int ret = event_reg_locked(file->event);

		if (ret < 0)
			return ret;
	}
	old = file_flags_update(file, clr, set);
	if (((old & ~clr) | set) == old)
		return 0;
	event_update_active_locked(file->event);
	return 1;
}

int event_file_soft_locked(struct trace_event_file *file, bool soft_mode, bool soft_disabled)
{
	unsigned int set = 0;

	event_assert_locked();
	if (soft_mode)
		set |= EVT_FILE_SOFT_MODE;
	if (soft_mode && soft_disabled)
		set |= EVT_FILE_SOFT_DISABLED;
	/*
	 * Out of soft mode, an event that is not enabled leaves the writers'
	 * active set (event_update_active_locked() below). A writer may still
	 * hold the old set, so the event must stay soft-disabled for it: had the
	 * bit been cleared first, such a writer recorded a disabled event. The
	 * bit means nothing outside the set; enabling the event clears it
	 * before the event comes back (event_file_enable_locked()).
	 */
	if (!soft_mode && !(ld_relaxed(&file->flags) & EVT_FILE_ENABLED))
		set |= EVT_FILE_SOFT_DISABLED;
	if (soft_mode) {
		int ret = event_reg_locked(file->event);

		if (ret < 0)
			return ret;
	}
	/* Writers read the flags with a relaxed load: a record written just after the
	 * change may still see the old flag, as in the kernel. */
	file_flags_update(file, EVT_FILE_SOFT_MODE | EVT_FILE_SOFT_DISABLED, set);
	event_update_active_locked(file->event);
	return 0;
}

void event_file_set_filter_locked(struct trace_event_file *file, struct filter_prog *prog)
{
	struct filter_prog *old = file->filter;

	event_assert_locked();
	/* Release: the compiled program before the pointer (pairs with the writer's acquire). */
	rcu_publish(file->filter, prog);
	if (prog)
		file_flags_update(file, 0, EVT_FILE_FILTERED);
	else
		file_flags_update(file, EVT_FILE_FILTERED, 0);
	free(file->filter_shown);
	file->filter_shown = NULL;
	event_gc_add(old, gc_free_filter);
}

void event_files_set_filters_locked(struct trace_event_file **files,
				    struct filter_prog **progs, size_t n)
{
	event_assert_locked();
	for (size_t i = 0; i < n; i++)
		event_file_set_filter_locked(files[i], progs[i]);
}

/* --- registration --------------------------------------------------------------------- */

static bool name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 255)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || *s == '-' || *s == '.'))
			return false;
	return true;
}

static void event_free(struct evt_event *ev)
{
	if (!ev)
		return;
	if (ev->fields)
		for (unsigned int i = EVT_NR_COMMON_FIELDS; i < ev->nr_fields; i++) {
			free((char *)ev->fields[i].type);
			free((char *)ev->fields[i].name);
		}
	free(ev->fields);
	print_fmt_free(ev->print_fmt);
	free((char *)ev->print_fmt_text);
	free((char *)ev->system);
	free((char *)ev->name);
	free(ev);
}

/*
 * The print format as the kernel's `format` file shows it: the format string
 * is one literal there ("a=%d " "b=%d" in the source is pasted into one), so
 * adjacent literals at the start of @text are joined. Escapes stay as written.
 */
static char *print_fmt_join(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	const char *p = text;

	if (!out)
		return NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '"')
		return strcpy(out, text);
	*o++ = *p++;
	for (;;) {
		while (*p && *p != '"') {
			if (*p == '\\' && p[1])
				*o++ = *p++;
			*o++ = *p++;
		}
		if (!*p)
			break;
		{
			const char *q = p + 1;

			while (*q == ' ' || *q == '\t' || *q == '\n')
				q++;
			if (*q != '"')
				break;
			p = q + 1;	/* drop `" "`: the next literal continues this one */
		}
	}
	strcpy(o, p);
	return out;
}

/* A library-owned copy of everything of @def that printing needs. */
static struct evt_event *event_alloc(const char *system, const char *name,
				     const struct evt_field *fields, unsigned int nr,
				     const char *print_fmt, unsigned int size)
{
	struct evt_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->system = strdup(system);
	ev->name = strdup(name);
	ev->print_fmt_text = print_fmt_join(print_fmt ? print_fmt : "\"\"");
	ev->fields = calloc(EVT_NR_COMMON_FIELDS + nr, sizeof(*ev->fields));
	if (!ev->system || !ev->name || !ev->print_fmt_text || !ev->fields)
		goto fail;
	memcpy(ev->fields, evt_common_fields, sizeof(evt_common_fields));
	ev->nr_fields = EVT_NR_COMMON_FIELDS;
	ev->nr_common = EVT_NR_COMMON_FIELDS;
	for (unsigned int i = 0; i < nr; i++) {
		struct evt_field *f = &ev->fields[ev->nr_fields];

		*f = fields[i];
		f->type = strdup(fields[i].type ? fields[i].type : "int");
		f->name = strdup(fields[i].name ? fields[i].name : "?");
		ev->nr_fields++;
		if (!f->type || !f->name)
			goto fail;
	}
	ev->size = size;
	ev->print_fmt = print_fmt_parse(ev->print_fmt_text, ev->fields, ev->nr_fields);
	return ev;
fail:
	event_free(ev);
	return NULL;
}

/* Does a zombie describe exactly the same records as @def? */
static bool event_same_layout(const struct evt_event *ev, const struct evt_event_def *def)
{
	char *joined = print_fmt_join(def->print_fmt ? def->print_fmt : "\"\"");
	bool same_fmt = joined && !strcmp(ev->print_fmt_text, joined);

	free(joined);
	if (ev->nr_fields != EVT_NR_COMMON_FIELDS + def->nr_fields || ev->size != def->size ||
	    !same_fmt)
		return false;
	for (unsigned int i = 0; i < def->nr_fields; i++) {
		const struct evt_field *a = &ev->fields[EVT_NR_COMMON_FIELDS + i];
		const struct evt_field *b = &def->fields[i];

		if (a->offset != b->offset || a->size != b->size || a->kind != b->kind ||
		    a->elem_size != b->elem_size || a->is_signed != b->is_signed ||
		    strcmp(a->name, b->name) || strcmp(a->type, b->type))
			return false;
	}
	return true;
}

/* Zombies by name, newest last: event_mutex. */
static struct evt_event **zombies;
static size_t nr_zombies, cap_zombies;

static int table_insert_locked(struct evt_event *ev)
{
	struct event_table *t = event_table, *n;
	unsigned int cap;

	if (t && ev->id < t->cap) {
		st_release(&t->ev[ev->id], ev);
		return 0;
	}
	cap = t ? t->cap * 2 : 256;
	while (cap <= ev->id)
		cap *= 2;
	n = calloc(1, sizeof(*n) + cap * sizeof(n->ev[0]));
	if (!n)
		return -ENOMEM;
	n->cap = cap;
	if (t)
		memcpy(n->ev, t->ev, t->cap * sizeof(t->ev[0]));
	n->ev[ev->id] = ev;
	/* Release: the copied slots before the table (readers acquire the pointer). */
	rcu_publish(event_table, n);
	event_gc_free(t);
	return instance_grow_files_locked(cap);
}

static int sorted_insert_locked(struct evt_event *ev)
{
	size_t i;

	if (nr_sorted == cap_sorted) {
		size_t cap = cap_sorted ? cap_sorted * 2 : 64;
		struct evt_event **n = realloc(sorted, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		sorted = n;
		cap_sorted = cap;
	}
	i = sorted_lower_bound(ev->system, ev->name);
	memmove(&sorted[i + 1], &sorted[i], (nr_sorted - i) * sizeof(*sorted));
	sorted[i] = ev;
	nr_sorted++;
	return 0;
}

static void sorted_remove_locked(struct evt_event *ev)
{
	for (size_t i = 0; i < nr_sorted; i++)
		if (sorted[i] == ev) {
			memmove(&sorted[i], &sorted[i + 1], (nr_sorted - i - 1) * sizeof(*sorted));
			nr_sorted--;
			return;
		}
}

/* Make @ev live (a new event or a revived zombie): files, sorted list, env. */
static int event_make_live_locked(struct evt_event *ev)
{
	int ret = sorted_insert_locked(ev);

	if (ret)
		return ret;
	ret = instance_add_event_locked(ev);
	if (ret) {
		sorted_remove_locked(ev);
		return ret;
	}
	ev->live = true;
	return 0;
}

int event_register_builtin_locked(struct evt_event *ev, unsigned int id)
{
	int ret;

	event_assert_locked();
	ev->id = id;
	ev->key = &ev->key_local;
	ret = table_insert_locked(ev);
	if (!ret)
		ret = event_make_live_locked(ev);
	return ret;
}

struct evt_event *event_new_builtin(const char *system, const char *name,
				    const struct evt_field *fields, unsigned int nr,
				    const char *print_fmt, unsigned int size)
{
	return event_alloc(system, name, fields, nr, print_fmt, size);
}

int evt_event_register(struct evt_event_def *def)
{
	int ret;

	if (!def || def->abi < 1 || def->abi > EVT_EVENT_DEF_ABI || !name_ok(def->system) ||
	    !name_ok(def->name) || !def->key)
		return -EINVAL;
	events_init();
	event_lock();
	ret = event_register_locked(def);
	event_unlock();
	return ret;
}

int event_register_locked(struct evt_event_def *def)
{
	struct evt_event *ev, *zombie = NULL;
	size_t zi = 0;
	int ret;

	event_assert_locked();
	if (!def || def->abi < 1 || def->abi > EVT_EVENT_DEF_ABI || !name_ok(def->system) ||
	    !name_ok(def->name) || !def->key)
		return -EINVAL;
	if (def->init)
		def->init(def);
	if (def->nr_fields && !def->fields) {
		ret = -EINVAL;
		goto out;
	}
	ev = def->event;
	if (ev && ev->live) {
		ret = (int)ev->id;
		goto out;
	}
	ev = event_find_locked(def->system, def->name);
	if (ev) {
		ret = -EEXIST;
		goto out;
	}
	for (size_t i = nr_zombies; i-- > 0;)
		if (!strcmp(zombies[i]->system, def->system) &&
		    !strcmp(zombies[i]->name, def->name)) {
			zombie = zombies[i];
			zi = i;
			break;
		}
	if (zombie && event_same_layout(zombie, def)) {
		ev = zombie;
		memmove(&zombies[zi], &zombies[zi + 1], (nr_zombies - zi - 1) * sizeof(*zombies));
		nr_zombies--;
	} else {
		if (next_id > EVENT_ID_MAX) {
			ret = -ENOSPC;
			goto out;
		}
		ev = event_alloc(def->system, def->name, def->fields, def->nr_fields,
				 def->print_fmt, def->size);
		if (!ev) {
			ret = -ENOMEM;
			goto out;
		}
		ev->id = next_id;
		ret = table_insert_locked(ev);
		if (ret) {
			event_free(ev);
			goto out;
		}
		next_id++;
	}
	ev->def = def;
	ev->key = def->key;
	ret = event_make_live_locked(ev);
	if (ret) {
		ev->def = NULL;
		goto out;
	}
	/* Release: the event is complete before a writer can find it through def. */
	st_release(&def->event, ev);
	events_env_apply_locked(ev);
	ret = (int)ev->id;
out:
	return ret;
}

void evt_event_unregister(struct evt_event_def *def)
{
	if (!def)
		return;
	event_lock();
	event_unregister_locked(def);
	event_unlock();
}

void event_unregister_locked(struct evt_event_def *def)
{
	struct evt_event *ev;

	event_assert_locked();
	if (!def)
		return;
	ev = def->event;
	if (!ev || !ev->live || ev->def != def)
		return;
	ev->live = false;
	instance_remove_event_locked(ev);	/* flags cleared, filters queued */
	event_update_active_locked(ev);		/* empty set, key 0 */
	sorted_remove_locked(ev);
	st_release(&def->event, NULL);
	ev->def = NULL;
	ev->key = NULL;
	if (nr_zombies == cap_zombies) {
		size_t cap = cap_zombies ? cap_zombies * 2 : 16;
		struct evt_event **n = realloc(zombies, cap * sizeof(*n));

		if (n) {
			zombies = n;
			cap_zombies = cap;
		}
	}
	if (nr_zombies < cap_zombies)
		zombies[nr_zombies++] = ev;
}
