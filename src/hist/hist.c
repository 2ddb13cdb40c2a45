// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist/hist.c - hist triggers, the map glue: the writer's side (hist_fire_rec: build the key,
 * insert it in the map, add the values, set the variables, run the actions), the lifetime of a
 * histogram (hist_data_put(), hist_free()), its registration (named histograms, the list of
 * histograms with variables, pause/cont/clear, the snapshot buffer of snapshot() actions) and
 * the hist trigger command, hist_cmd. The design (objects, references, a hit, what writers
 * read) is in hist_internal.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <evtrace/clock.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/cpu.h"
#include "compat/rcu.h"
#include "hist/hist_internal.h"

static struct hist_data *named_list; /* event_mutex */
struct hist_data *hist_vars_list; /* event_mutex: histograms with variables */

/* --- the writer ------------------------------------------------------------------------------- */

static inline uint64_t rd_int(const unsigned char *p, unsigned int size, bool sgn)
{
	switch (size) {
	case 1:
		return sgn ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return sgn ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return sgn ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

static inline uint64_t ilog2_roundup(uint64_t v)
{
	return v <= 1 ? 0 : 64 - (uint64_t)__builtin_clzll(v - 1);
}

/* A numeric field's value (the kernel's hist_fn_call for what we have). */
static uint64_t field_value(const struct hist_data *hd, const struct hist_field *f,
			    const unsigned char *rec, size_t len, const uint64_t *refv)
{
	uint64_t v, a, b;

	switch (f->src) {
	case SRC_ONE:
		return 1;
	case SRC_CONST:
		return f->constant;
	case SRC_REF:
		return refv[f->ref];
	case SRC_EXPR:
		a = field_value(hd, f->lhs, rec, len, refv);
		if (f->op == OP_UMINUS)
			return (uint64_t) - (int64_t)a;
		b = field_value(hd, f->rhs, rec, len, refv);
		switch (f->op) {
		case OP_PLUS:
			return a + b;
		case OP_MINUS:
			return a - b;
		case OP_MULT:
			return a * b;
		default:
			return b ? a / b : (uint64_t)-1; /* the kernel's -1 */
		}
	case SRC_TS:
		v = evt_clock_read((enum evt_clock_id)hd->clock);
		if (hd->ts_usecs && evt_clock_is_ns((enum evt_clock_id)hd->clock))
			v /= 1000;
		break;
	case SRC_CPU:
		v = (uint64_t)evt_cpu_current();
		break;
	default:
		if (unlikely((size_t)f->offset + f->size > len))
			return 0;
		v = rd_int(rec + f->offset, f->size, f->is_signed);
		break;
	}
	if (f->flags & HF_LOG2)
		v = ilog2_roundup(v);
	else if (f->flags & HF_BUCKET)
		v = v / f->buckets * f->buckets;
	return v;
}

/* Copy string field @f of @rec into @dst (NUL-terminated, at most @size - 1 bytes). */
static void string_copy(const struct hist_field *f, char *dst, size_t size,
			const unsigned char *rec, size_t len)
{
	size_t off = f->offset, n = 0, max;
	uint32_t loc;

	if (f->src == SRC_COMM) {
		/* current->comm: the thread's name (prctl is async-signal-safe) */
		char comm[TMAP_COMM_LEN + 1] = "";

		prctl(PR_GET_NAME, comm);
		comm[TMAP_COMM_LEN] = '\0';
		n = strnlen(comm, size - 1);
		memcpy(dst, comm, n);
		dst[n] = '\0';
		return;
	}
	if (f->src == SRC_STR) {
		max = f->fsize;
	} else {
		if (off + 4 > len)
			return;
		memcpy(&loc, rec + off, 4);
		off = f->src == SRC_RSTR ? off + 4 + evt_data_loc_offset(loc) :
					   evt_data_loc_offset(loc);
		max = evt_data_loc_len(loc);
	}
	if (off >= len)
		return;
	if (max > len - off)
		max = len - off;
	if (max > size - 1)
		max = size - 1;
	while (n < max && rec[off + n])
		n++;
	memcpy(dst, rec + off, n);
	dst[n] = '\0';
}

/*
 * A string variable's copy in an element (elt->str, 8-byte aligned, its size
 * rounded up to 8) is written and read in relaxed 8-byte words: writers of one
 * element and readers of it (other histograms' references) race as in the
 * kernel (a text may mix two hits'), but each word is whole and the copy's
 * last byte is always NUL, so a reader's text ends inside it.
 */
static void str_store(char *dst, const char *src, unsigned int len)
{
	for (unsigned int i = 0; i < len; i += 8) {
		uint64_t w;

		memcpy(&w, src + i, 8);
		/* Relaxed: a word of text orders nothing (see above). */
		st_relaxed((uint64_t *)(void *)(dst + i), w);
	}
}

/* Copy string variable @r's text at @src into @dst (@size bytes, NUL-terminated). */
static void ref_str_copy(char *dst, size_t size, const char *src, const struct var_ref *r)
{
	char tmp[HIST_SAVE_STR] __attribute__((aligned(8)));
	unsigned int len = (r->str_len + 7) & ~7u;
	size_t n = 0;

	if (src && r->str_len) {
		for (unsigned int i = 0; i < len; i += 8) {
			/* Relaxed: as str_store(). */
			uint64_t w = ld_relaxed((const uint64_t *)(const void *)(src + i));

			memcpy(tmp + i, &w, 8);
		}
		tmp[r->str_len - 1] = '\0';
		n = strnlen(tmp, size - 1);
		memcpy(dst, tmp, n);
	}
	dst[n] = '\0';
}

/*
 * The value of string variable @f of @elt (the kernel's hist_trigger_elt_update()
 * for HIST_FIELD_FL_STRING variables): the text copied into the element's
 * preallocated str area, the value a pointer to that copy.
 */
static uint64_t var_string(const struct hist_data *hd, const struct hist_field *f,
			   struct tmap_elt *elt, const unsigned char *rec, size_t len,
			   const uint64_t *refv)
{
	char buf[HIST_SAVE_STR] __attribute__((aligned(8)));
	unsigned int size = (f->str_len + 7) & ~7u;
	char *dst = elt->str + f->str_off;

	memset(buf, 0, size);
	if (f->src == SRC_REF) {
		ref_str_copy(buf, f->str_len, (const char *)(uintptr_t)refv[f->ref],
			     &hd->vrefs[f->ref]);
	} else if (f->flags & HF_EXECNAME) {
		/* the comm was written before the element was published */
		memcpy(buf, elt->comm, TMAP_COMM_LEN);
		buf[f->str_len - 1] = '\0';
	} else {
		string_copy(f, buf, f->str_len, rec, len);
	}
	str_store(dst, buf, size);
	return (uint64_t)(uintptr_t)dst;
}

/* execname: the thread's name, once per new entry (async-signal-safe prctl) */
static void comm_init(struct tmap_elt *elt)
{
	char comm[TMAP_COMM_LEN + 1] = "";

	prctl(PR_GET_NAME, comm);
	memcpy(elt->comm, comm, TMAP_COMM_LEN);
}

/*
 * The values of @hd's references for @key (the kernel's resolve_var_refs()):
 * those to other histograms' variables (@self false, before the hit) or to
 * its own (@self true, after it, for the actions). False when one is not set:
 * the hit (or the actions) is skipped, as the kernel's.
 */
static bool resolve_refs(const struct hist_data *hd, const void *key, uint64_t *refv, bool self)
{
	for (unsigned int i = 0; i < hd->n_refs; i++) {
		const struct var_ref *r = &hd->vrefs[i];
		const struct hist_data *owner = r->owner ? r->owner : hd;
		struct tmap_elt *elt;
		struct tmap *map;

		if (self == (r->owner != NULL))
			continue;
		/* Acquire: the map a clear published is initialized (rcu_publish). */
		map = rcu_deref(((struct hist_data *)owner)->map);
		if (!map)
			return false;
		elt = tmap_lookup(map, key);
		if (!elt || !tmap_get_var(elt, map->n_vars, r->idx, r->once && !self, &refv[i]))
			return false;
	}
	return true;
}

/* The synthetic event of @a with its params' values (the kernel's action_trace()). */
static void action_trace(const struct hist_data *hd, const struct hist_action *a,
			 const unsigned char *rec, size_t len, const uint64_t *refv)
{
	uint64_t vals[SYNTH_FIELDS_MAX];
	char strs[4][HIST_SAVE_STR];
	unsigned int ns = 0;

	for (unsigned int i = 0; i < a->n_params; i++) {
		const struct hist_field *f = &a->pv[i];

		if (f->flags & HF_STRING) {
			if (ns == 4) {
				vals[i] = 0;
				continue;
			}
			strs[ns][0] = '\0';
			if (f->src == SRC_REF)
				ref_str_copy(strs[ns], sizeof(strs[ns]),
					     (const char *)(uintptr_t)refv[f->ref],
					     &hd->vrefs[f->ref]);
			else
				string_copy(f, strs[ns], sizeof(strs[ns]), rec, len);
			vals[i] = (uint64_t)(uintptr_t)strs[ns++];
		} else {
			vals[i] = field_value(hd, f, rec, len, refv);
		}
	}
	synth_event_trace_vals(a->se, vals, a->n_params);
}

/*
 * snapshot(): swap the instance's buffers when @v beats the value of the last
 * snapshot (the kernel's cond_snapshot_update(), without its max_lock: the
 * key is kept under a try-lock a racing writer skips).
 */
static void action_snapshot(const struct hist_data *hd, struct hist_action *a, struct tmap_elt *elt,
			    unsigned int key_size, uint64_t v)
{
	uint64_t cur = ld_relaxed(&a->snap_val);
	uint8_t free_ = 0;

	do {
		if (a->handler == H_ONMAX ? v <= cur : v == cur)
			return;
		/* Relaxed: the value orders nothing; the CAS decides which hit snapshots. */
	} while (!__atomic_compare_exchange_n(&a->snap_val, &cur, v, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	instance_snapshot_swap(hd->file->inst);
	/* Acquire: the key area is ours until the release below. */
	if (__atomic_compare_exchange_n(&a->snap_busy, &free_, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		memcpy(a->snap_key, elt->key, key_size);
		memcpy(a->snap_comm, elt->comm, TMAP_COMM_LEN);
		st_relaxed(&a->snap_taken, 1);
		/* Release: the key before the lock is free (the reader's acquire). */
		st_release(&a->snap_busy, 0);
	}
}

static void run_actions(const struct hist_data *hd, struct tmap *map, struct tmap_elt *elt,
			const unsigned char *rec, size_t len, const uint64_t *refv)
{
	for (unsigned int n = 0; n < hd->n_actions; n++) {
		const struct hist_action *a = hd->actions[n];
		uint64_t v, cur = 0;

		if (a->handler == H_ONMATCH) {
			action_trace(hd, a, rec, len, refv);
			continue;
		}
		v = refv[a->track_ref];
		tmap_get_var(elt, map->n_vars, a->track_var, false, &cur);
		if (a->handler == H_ONMAX ? v <= cur : v == cur)
			continue;
		/* as the kernel's: check and save are not one step (racing hits may mix) */
		tmap_set_var(elt, map->n_vars, a->track_var, v);
		if (a->action == A_SNAPSHOT) {
			action_snapshot(hd, (struct hist_action *)a, elt, map->key_size, v);
			continue;
		}
		if (a->action == A_TRACE) {
			action_trace(hd, a, rec, len, refv);
			continue;
		}
		for (unsigned int i = 0; i < a->n_params; i++) {
			const struct hist_field *f = &a->pv[i];

			if (f->src == SRC_REF && (f->flags & HF_STRING))
				ref_str_copy(elt->str + f->str_off, HIST_SAVE_STR,
					     (const char *)(uintptr_t)refv[f->ref],
					     &hd->vrefs[f->ref]);
			else if (f->flags & HF_STRING)
				string_copy(f, elt->str + f->str_off, HIST_SAVE_STR, rec, len);
			else
				tmap_set_var(elt, map->n_vars, f->slot,
					     field_value(hd, f, rec, len, refv));
		}
	}
}

static void hist_fire_rec(struct trigger_data *td, const void *recv, size_t len)
{
	struct hist_trigger *ht = td->priv;
	const struct hist_data *hd = ht->hd;
	const unsigned char *rec = recv;
	/*
	 * A compound key is built on the stack: a signal handler's write nests
	 * in a frame of its own, and the library keeps no big thread-local block
	 * (its initial-exec TLS stays a few bytes, so it can be dlopen()ed).
	 */
	unsigned char pad[HIST_KEY_MAX] __attribute__((aligned(8)));
	uint64_t k1, refv[TMAP_VARS_MAX];
	struct tmap_elt *elt;
	struct tmap *map;
	const void *key;

	/* Relaxed: pause/continue orders nothing (a hit in flight may still count). */
	if (ld_relaxed(&ht->paused))
		return;
	/* Acquire: a map published by a clear is initialized (pairs with rcu_publish). */
	map = rcu_deref(((struct hist_data *)hd)->map);
	if (unlikely(!map))
		return;
	if (!hd->compound) {
		k1 = field_value(hd, &hd->keys[0], rec, len, NULL);
		key = &k1;
	} else {
		memset(pad, 0, hd->key_size);
		for (unsigned int i = 0; i < hd->n_keys; i++) {
			const struct hist_field *f = &hd->keys[i];

			if (f->flags & HF_STRING) {
				string_copy(f, (char *)pad + f->key_off, f->key_size, rec, len);
			} else if (f->src == SRC_STACK) {
				uint64_t ips[HIST_STACK_DEPTH];
				int n = event_stack_frames(ips, HIST_STACK_DEPTH);

				memcpy(pad + f->key_off, ips, (size_t)n * 8);
			} else {
				k1 = field_value(hd, f, rec, len, NULL);
				memcpy(pad + f->key_off, &k1, 8);
			}
		}
		key = pad;
	}
	if (unlikely(hd->other_refs) && !resolve_refs(hd, key, refv, false))
		return;
	elt = tmap_insert(map, key, hd->uses_execname ? comm_init : NULL);
	if (!elt)
		return;
	for (unsigned int i = 0; i < hd->n_vals; i++)
		tmap_add_sum(elt, i, field_value(hd, &hd->vals[i], rec, len, refv));
	for (unsigned int i = 0; i < hd->n_vars; i++) {
		const struct hist_field *f = &hd->vars[i];

		tmap_set_var(elt, map->n_vars, i,
			     f->flags & HF_STRING ? var_string(hd, f, elt, rec, len, refv) :
						    field_value(hd, f, rec, len, refv));
	}
	if (unlikely(hd->n_actions) && resolve_refs(hd, key, refv, true))
		run_actions(hd, map, elt, rec, len, refv);
}

void hist_set_paused(struct trigger_data *td, bool paused)
{
	struct hist_trigger *ht = td->priv;

	/* Relaxed: see hist_fire_rec. */
	st_relaxed(&ht->paused, paused ? 1 : 0);
}

/**
 * hist_data_free() - free a histogram: its map, fields, actions and texts
 * @hd: the histogram (NULL: nothing)
 *
 * Drops the references on the owners of the variables it reads (if it took them).
 *
 * Context: no writer can see it (never published, or after a grace period); event_mutex
 * held or not.
 */
void hist_data_free(struct hist_data *hd)
{
	if (!hd)
		return;
	for (unsigned int i = 0; hd->owners_held && i < hd->n_refs; i++)
		if (hd->vrefs[i].owner)
			hist_data_put(hd->vrefs[i].owner);
	tmap_destroy(hd->map);
	for (unsigned int i = 0; i < TMAP_VALS_MAX; i++)
		hist_field_free(&hd->vals[i]);
	for (unsigned int i = 0; i < TMAP_KEYS_MAX; i++)
		hist_field_free(&hd->keys[i]);
	for (unsigned int i = 0; i < hd->n_vars; i++)
		hist_field_free(&hd->vars[i]);
	for (unsigned int i = 0; i < hd->n_refs; i++)
		free(hd->vrefs[i].name);
	for (unsigned int i = 0; i < hd->n_actions; i++)
		hist_action_free(hd->actions[i]);
	for (unsigned int i = 0; i < hd->n_assign; i++)
		free(hd->assign[i]);
	for (unsigned int i = 0; i < hd->n_act_str; i++)
		free(hd->act_str[i]);
	free(hd->fvh_cmd);
	free(hd->name);
	free(hd->spec);
	free(hd->types);
	free(hd->acts);
	free(hd);
}

/**
 * hist_data_put() - drop a reference on @hd; the last one frees it
 * @hd: the histogram
 *
 * Context: as hist_data_free() for the last reference.
 */
void hist_data_put(struct hist_data *hd)
{
	/* Acq_rel: the last one to let go frees what every user wrote (counters only). */
	if (__atomic_sub_fetch(&hd->refs, 1, __ATOMIC_ACQ_REL) == 0)
		hist_data_free(hd);
}

static void hist_unreg(struct trigger_data *td);

static void hist_free(struct trigger_data *td)
{
	struct hist_trigger *ht = td->priv;

	if (!ht)
		return;
	if (ht->registered) {
		/* freed with its instance (evt_instance_destroy), never unregistered:
		 * leave the named and variable lists now (no lock is held here) */
		ht->dying = true;
		event_lock();
		hist_unreg(td);
		event_unlock();
	}
	hist_data_put(ht->hd);
	free(ht);
	td->priv = NULL;
}

/**
 * hist_const_value() - the value of an expression of constants, as the writer computes it
 * @hd: the histogram of @f
 * @f:  the expression (its operands SRC_CONST)
 *
 * For the constant folding of the parse: the kernel folds two constants into one.
 *
 * Context: any.
 * Return: the value.
 */
uint64_t hist_const_value(const struct hist_data *hd, const struct hist_field *f)
{
	return field_value(hd, f, NULL, 0, NULL);
}

/* --- registration (event_mutex) --------------------------------------------------------------- */

static struct hist_data *find_named(const char *name)
{
	for (struct hist_data *hd = named_list; hd; hd = hd->next_named)
		if (name && !strcmp(hd->name, name))
			return hd;
	return NULL;
}

static bool filters_equal(const struct trigger_data *a, const struct trigger_data *b)
{
	if (!a->filter || !b->filter)
		return !a->filter && !b->filter;
	return !strcmp(filter_prog_text(a->filter), filter_prog_text(b->filter));
}

/* the kernel's hist_trigger_match(): @td (a command) against @test (a trigger) */
static bool hist_match(const struct trigger_data *td, const struct trigger_data *test,
		       const struct hist_data *named, bool ignore_filter)
{
	const struct hist_data *a = ((const struct hist_trigger *)td->priv)->hd;
	const struct hist_data *b = ((const struct hist_trigger *)test->priv)->hd;

	if (named && b != named)
		return false;
	if (!named && b->name)
		return false;
	if (strcmp(a->spec, b->spec) || strcmp(a->types, b->types) ||
	    strcmp(a->acts ? a->acts : "", b->acts ? b->acts : ""))
		return false;
	return ignore_filter || filters_equal(td, test);
}

static bool hist_same(const struct trigger_data *existing, const struct trigger_data *cmd)
{
	const struct hist_data *hd;

	if (existing->cmd != &hist_cmd || cmd->cmd != &hist_cmd)
		return false;
	hd = ((const struct hist_trigger *)cmd->priv)->hd;
	return hist_match(cmd, existing, hd->name ? find_named(hd->name) : NULL, false);
}

/* Hits are the sum of the hitcounts (vals[0], kept even with nohitcount): no counter. */
static struct tmap *map_new(const struct hist_data *hd)
{
	struct tmap *map =
		tmap_create(hd->bits, hd->key_size, hd->n_vals, hd->n_map_vars, hd->str_size);

	if (map)
		tmap_no_hits(map);
	return map;
}

static void map_free(void *p)
{
	tmap_destroy(p);
}

/* A new, empty map in place of the old one, freed after a grace period. */
static int hist_clear(struct hist_data *hd)
{
	struct tmap *map = map_new(hd), *old = hd->map;

	if (!map)
		return -ENOMEM;
	/* Release: the new map is initialized before writers see it. */
	rcu_publish(hd->map, map);
	event_gc_add(old, map_free);
	return 0;
}

/* pause/cont/clear on an existing trigger; the kernel's register checks */
static int hist_update(struct trigger_data *td, const struct trigger_list *tl)
{
	struct hist_trigger *ht = td->priv;
	struct hist_data *hd = ht->hd, *named = hd->name ? find_named(hd->name) : NULL;

	if (hd->pause || hd->cont || hd->clear) {
		bool ok = !hd->name || (named && !strcmp(hd->spec, named->spec) &&
					!strcmp(hd->types, named->types));

		for (unsigned int i = 0; ok && tl && i < tl->nr; i++) {
			struct trigger_data *t = tl->td[i];

			if (t->cmd != &hist_cmd || !hist_match(td, t, named, false))
				continue;
			if (hd->pause)
				hist_set_paused(t, true);
			else if (hd->cont)
				hist_set_paused(t, false);
			else if (hist_clear(((struct hist_trigger *)t->priv)->hd))
				return -ENOMEM;
			return 1;
		}
	}
	if (named && (strcmp(hd->spec, named->spec) || strcmp(hd->types, named->types))) {
		trigger_err(
			td,
			"Named hist trigger doesn't match existing named trigger (includes variables)",
			hist_errpos(td, hd->name));
		return -EINVAL;
	}
	if (!hd->name || named) {
		for (unsigned int i = 0; tl && i < tl->nr; i++) {
			if (tl->td[i]->cmd == &hist_cmd &&
			    hist_match(td, tl->td[i], named, false)) {
				trigger_err(td, "Hist trigger already exists", 0);
				return -EEXIST;
			}
		}
	}
	if (hd->cont || hd->clear) {
		trigger_err(td, "Can't clear or continue a nonexistent hist trigger", 0);
		return -ENOENT;
	}
	return 0;
}

static int hist_reg(struct trigger_data *td)
{
	struct hist_trigger *ht = td->priv;
	struct hist_data *hd = ht->hd, *named = hd->name ? find_named(hd->name) : NULL;

	if (named) {
		/* share the named histogram; ours was only a description */
		add_relaxed(&named->refs, 1); /* relaxed: we hold event_mutex, it cannot go */
		named->users++;
		ht->paused = hd->pause;
		ht->hd = named;
		ht->registered = true;
		hist_data_free(hd);
		return 0;
	}
	if (hd->n_fvh) {
		int ret = hist_fv_attach(td, hd);

		if (ret) {
			hist_fv_release(hd);
			return ret;
		}
	}
	hd->map = map_new(hd);
	if (!hd->map) {
		hist_fv_release(hd);
		return -ENOMEM;
	}
	ht->paused = hd->pause;
	hd->users++;
	if (hd->name) {
		hd->next_named = named_list;
		named_list = hd;
	}
	if (hd->n_vars) {
		hd->next_var = hist_vars_list;
		hist_vars_list = hd;
	}
	for (unsigned int i = 0; i < hd->n_refs; i++) {
		if (!hd->vrefs[i].owner)
			continue;
		hd->vrefs[i].owner->ref_users++;
		/* relaxed: event_mutex is held and the owner is registered: it cannot go */
		add_relaxed(&hd->vrefs[i].owner->refs, 1);
	}
	hd->owners_held = true;
	ht->registered = true;
	for (unsigned int n = 0; n < hd->n_actions; n++) {
		if (hd->actions[n]->action != A_SNAPSHOT)
			continue;
		/* the snapshot buffer exists while the action does (as a snapshot trigger) */
		if (instance_snapshot_get_locked(td->file->inst) == 0)
			hd->snap_refs++;
	}
	return 0;
}

static void hist_unreg(struct trigger_data *td)
{
	struct hist_trigger *ht = td->priv;
	struct hist_data *hd = ht->hd;

	if (!ht->registered)
		return;
	ht->registered = false;
	if (--hd->users)
		return;
	for (; hd->snap_refs; hd->snap_refs--)
		instance_snapshot_put_locked(hd->file->inst);
	for (unsigned int i = 0; i < hd->n_refs; i++)
		if (hd->vrefs[i].owner)
			hd->vrefs[i].owner->ref_users--;
	if (hd->n_fvh && !ht->dying)
		hist_fv_release(hd);
	for (struct hist_data **pp = &hist_vars_list; *pp; pp = &(*pp)->next_var) {
		if (*pp == hd) {
			*pp = hd->next_var;
			break;
		}
	}
	for (struct hist_data **pp = &named_list; hd->name && *pp; pp = &(*pp)->next_named) {
		if (*pp == hd) {
			*pp = hd->next_named;
			break;
		}
	}
}

/* A histogram whose variables others use cannot go (the kernel's hist_trigger_check_refs). */
static int hist_busy(const struct trigger_data *td)
{
	return ((const struct hist_trigger *)td->priv)->hd->ref_users ? -EBUSY : 0;
}

/* the `trigger` file has the line with its filter and state */
static int hist_print(const struct trigger_data *td, char *buf, size_t size)
{
	return hist_show_line(td, buf, size);
}

const struct trigger_cmd hist_cmd = {
	.name = "hist",
	.parse = hist_parse,
	.same = hist_same,
	.reg = hist_reg,
	.unreg = hist_unreg,
	.fire = NULL,
	.print = hist_print,
	.fire_rec = hist_fire_rec,
	.update = hist_update,
	.show = hist_show_line,
	.free = hist_free,
	.busy = hist_busy,
	.append = true,
};
