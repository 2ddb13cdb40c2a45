// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist/hist.c - hist triggers (histogram.rst section 2, the kernel's
 * trace_events_hist.c): parsing of `hist:keys=...`, the writer's side
 * (fire_rec: build the key, insert, add the values), the `trigger` line and
 * the `hist` file.
 *
 * Objects: a trigger_data (one per `hist:` written to an event) has a
 * struct hist_trigger (paused flag); it points to a struct hist_data (keys,
 * values, sort keys, the map), its own or the one shared by name=. A
 * hist_data is freed when the last trigger using it is freed (after a grace
 * period: refs is atomic); the list of named hist_data is event_mutex's.
 *
 * Variables (name=expr) live in the map's elements (tmap vars with a "set"
 * flag); a $reference to another histogram's variable is a var_ref holding
 * a reference on that hist_data (it stays allocated) and counted in its
 * ref_users (event_mutex: the owner cannot be removed, -EBUSY). Histograms
 * with variables are on vars_list (event_mutex), where references are
 * resolved at parse time. Actions (onmatch/onmax/onchange) are parsed with
 * the histogram and hold a reference on their synthetic event.
 *
 * A hit (hist_fire_rec, writer context, no lock, no allocation): the key
 * (one numeric value, or a compound key in a per-thread pad); the other
 * histograms' variables it reads, looked up with that key (one missing: the
 * hit is skipped, as the kernel's); the element (tracing_map insert); the
 * sums, then the variables; then the actions with this histogram's own
 * variables.
 *
 * Writers read hist_data fields that never change after the trigger was
 * published, the map pointer with rcu_deref (a `clear` publishes a new map
 * and frees the old one after a grace period), the paused flag relaxed.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <evtrace/clock.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/cpu.h"
#include "compat/urcu.h"
#include "core/text.h"
#include "events/event_internal.h"
#include "hist/hist.h"
#include "hist/tracing_map.h"
#include "synth/synth.h"

/* field flags, as the kernel's HIST_FIELD_FL_* (those we have) */
#define HF_HITCOUNT   (1u << 0)
#define HF_KEY	      (1u << 1)
#define HF_STRING     (1u << 2)
#define HF_HEX	      (1u << 3)
#define HF_SYM	      (1u << 4)
#define HF_SYM_OFFSET (1u << 5)
#define HF_EXECNAME   (1u << 6)
#define HF_SYSCALL    (1u << 7)
#define HF_STACKTRACE (1u << 8)
#define HF_LOG2	      (1u << 9)
#define HF_TIMESTAMP  (1u << 10)
#define HF_USECS      (1u << 11)
#define HF_VAR	      (1u << 12) /* while a variable's own field is parsed only */
#define HF_CPU	      (1u << 15)
#define HF_BUCKET     (1u << 17)
#define HF_PERCENT    (1u << 19)
#define HF_GRAPH      (1u << 20)

#define HIST_STR_MAX   256 /* MAX_FILTER_STR_VAL: a string key */
#define HIST_KEY_MAX   384 /* HIST_KEY_SIZE_MAX */

enum hf_src {
	SRC_ONE,
	SRC_INT,
	SRC_STR,
	SRC_DSTR,
	SRC_RSTR,
	SRC_TS,
	SRC_CPU,
	SRC_CONST, /* a numeric literal */
	SRC_EXPR,  /* lhs op rhs, or -(lhs) */
	SRC_REF,   /* a variable's value, resolved before the hit ($name) */
	SRC_STACK, /* the stack above the traced call (a key of 16 addresses) */
	SRC_COMM,  /* the writing thread's name (common_comm) */
};

enum {
	OP_NONE,
	OP_PLUS,
	OP_MINUS,
	OP_UMINUS,
	OP_DIV,
	OP_MULT
};

#define HIST_ACTIONS_MAX 8   /* the kernel's */
#define HIST_SUBEXPR_MAX 3   /* "Too many subexpressions (3 max)" */
#define HIST_SAVE_STR	 256 /* STR_VAR_LEN_MAX: a string save()d by onmax/onchange */
#define HIST_STACK_DEPTH 16  /* HIST_STACKTRACE_DEPTH */

struct hist_field {
	unsigned int flags;
	uint8_t src;  /* enum hf_src */
	uint8_t size; /* SRC_INT: 1, 2, 4, 8 */
	uint8_t is_signed;
	uint16_t offset;      /* in the record */
	uint16_t fsize;	      /* the record field's size (static strings) */
	unsigned int key_off; /* keys: where in the key */
	unsigned int key_size;
	unsigned long buckets;
	const char *name; /* as hist_field_name() shows it */
	const char *type; /* for name= compatibility */
	uint8_t op;	  /* SRC_EXPR: OP_* */
	struct hist_field *lhs, *rhs; /* SRC_EXPR operands (allocated) */
	uint64_t constant;	      /* SRC_CONST */
	unsigned int ref;	      /* SRC_REF: index in hist_data.refs */
	char *dname;		      /* allocated name (expressions, references) */
	char *var;		      /* a variable's name (hist_data.vars) */
	unsigned int str_off;	      /* save()d strings, string variables: where in elt->str */
	unsigned int str_len;	      /* string variables: the bytes kept there (NUL included) */
	unsigned int slot;	      /* save()d numbers: the map variable they are kept in */
};

/* A reference to a variable, the kernel's VAR_REF hist_field. */
struct var_ref {
	struct hist_data *owner; /* NULL: a variable of this histogram */
	unsigned int idx;	 /* the variable's slot in the owner's map */
	bool once;		 /* an expression's operand: read and unset */
	bool is_str;		 /* a string variable: the value points to its text */
	unsigned int str_len;	 /* is_str: the bytes of the owner's copy (NUL included) */
	unsigned int ksize;	 /* the variable's size as the kernel's (type checks) */
	bool is_signed;		 /* and its signedness */
	char *name;
};

enum {
	H_ONMATCH = 1,
	H_ONMAX,
	H_ONCHANGE
};
enum {
	A_TRACE = 1,
	A_SAVE,
	A_SNAPSHOT
};

/* An onmatch()/onmax()/onchange() handler and its action (histogram.rst 2.2.3). */
struct hist_action {
	uint8_t handler, action;
	bool trace_kw; /* .trace(synth, ...) rather than .synth(...) */
	char *match_sys, *match_event;
	char *var_str;	   /* onmax($x): "$x" */
	char *action_name; /* "trace", "save" or the synthetic event's name */
	char *synth_name;
	struct synth_event *se; /* a reference is held */
	unsigned int track_ref; /* onmax/onchange: the tracked variable (a ref) */
	unsigned int track_var; /* and the slot of its max/last value */
	unsigned int n_params;
	char *params[SYNTH_FIELDS_MAX];
	struct hist_field pv[SYNTH_FIELDS_MAX]; /* the params' values */
	/* a param that is a field of another event (sys.event.field, or a field of the
	 * onmatch() event): read through the variable synthetic_<field> of a histogram
	 * made on that event at registration (the kernel's create_field_var_hist()) */
	char *fv_sys[SYNTH_FIELDS_MAX], *fv_event[SYNTH_FIELDS_MAX], *fv_field[SYNTH_FIELDS_MAX];
	/* snapshot(): the kernel's track_data, the value and key of the last snapshot */
	uint64_t snap_val;  /* atomic: the largest (onmax) / last (onchange) value seen */
	uint8_t snap_busy;  /* atomic try-lock of snap_key (a writer skips when held) */
	uint8_t snap_taken; /* atomic */
	unsigned char snap_key[HIST_KEY_MAX];
	char snap_comm[TMAP_COMM_LEN];
};

struct hist_data {
	unsigned int refs;  /* atomic: triggers pointing here */
	unsigned int users; /* event_mutex: registered triggers */
	char *name;	    /* "name=foo" as written, or NULL */
	struct hist_data *next_named;
	struct hist_field vals[TMAP_VALS_MAX];
	unsigned int n_vals; /* vals[0] is hitcount */
	struct hist_field keys[TMAP_KEYS_MAX];
	unsigned int n_keys;
	unsigned int key_size;
	bool compound; /* several keys or a string: the key is built in a pad */
	struct {
		unsigned int idx; /* < n_vals: a value; else key idx - n_vals */
		bool desc;
	} sort[TMAP_SORT_KEYS_MAX];
	unsigned int n_sort;
	unsigned int bits;
	bool nohitcount, uses_ts, ts_usecs, uses_execname;
	int clock; /* common_timestamp's clock (evt_clock_id) */
	char clock_name[32];
	bool pause, cont, clear; /* the command's, not the histogram's */
	struct tmap *map;	 /* RCU */
	char *spec;		 /* "keys=..:vals=..:sort=.." (matching) */
	char *types;		 /* every field's type/size/sign (matching) */
	/* variables, references, actions */
	struct hist_field vars[TMAP_VARS_MAX];
	unsigned int n_vars;
	struct var_ref vrefs[TMAP_VARS_MAX];
	unsigned int n_refs;
	bool other_refs, self_refs;
	struct hist_action *actions[HIST_ACTIONS_MAX];
	unsigned int n_actions;
	unsigned int n_map_vars; /* variables, max/last values, saved numbers */
	unsigned int str_size;	 /* saved strings per element */
	char *acts;		 /* the actions as the trigger line shows them */
	char *assign[TMAP_VARS_MAX];
	unsigned int n_assign;
	char *act_str[HIST_ACTIONS_MAX];
	unsigned int n_act_str;
	bool remove;
	struct trace_event_file *file;
	struct hist_data *next_var; /* the histograms with variables (event_mutex) */
	unsigned int ref_users;	    /* registered histograms referencing ours (event_mutex) */
	bool owners_held;	    /* a reference on each vrefs[].owner is ours */
	unsigned int snap_refs;	    /* snapshot buffer references taken (event_mutex) */
	char *fvh_cmd;	    /* a field variable histogram: the command that made it (event_mutex) */
	unsigned int n_fvh; /* params that are field variables of other events */
};

struct hist_trigger {
	struct hist_data *hd;
	uint8_t paused;	 /* relaxed atomic */
	bool registered; /* event_mutex: between reg and unreg */
	bool dying;	 /* freed with its instance: the other events' triggers go too */
};

static struct hist_data *named_list; /* event_mutex */
static struct hist_data *vars_list;  /* event_mutex: histograms with variables */

/* --- the writer ------------------------------------------------------------------------------ */

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

/* --- text -------------------------------------------------------------------------------------- */

static const char *field_flags_str(unsigned int flags)
{
	if (flags & HF_HEX)
		return "hex";
	if (flags & HF_SYM)
		return "sym";
	if (flags & HF_SYM_OFFSET)
		return "sym-offset";
	if (flags & HF_EXECNAME)
		return "execname";
	if (flags & HF_SYSCALL)
		return "syscall";
	if (flags & HF_LOG2)
		return "log2";
	if (flags & HF_BUCKET)
		return "buckets";
	if (flags & HF_USECS)
		return "usecs";
	if (flags & HF_PERCENT)
		return "percent";
	if (flags & HF_GRAPH)
		return "graph";
	return NULL;
}

/* the kernel's hist_field_print() */
static void field_print(struct text *t, const struct hist_field *f)
{
	const char *fl = field_flags_str(f->flags);

	if (f->var)
		text_add(t, "%s=", f->var);
	/* hist_field_print() names the CPU and comm fields by flag, however they were written */
	if (f->src == SRC_CPU)
		text_add(t, "common_cpu");
	else if (f->src == SRC_COMM)
		text_add(t, "common_comm");
	else if (f->src == SRC_CONST)
		text_add(t, "%llu", (unsigned long long)f->constant);
	else if (f->src == SRC_REF)
		text_add(t, "$%s", f->name);
	else
		text_add(t, "%s", f->name);
	if (fl && f->src != SRC_EXPR && f->src != SRC_REF)
		text_add(t, ".%s", fl);
	if (f->flags & HF_BUCKET)
		text_add(t, "=%lu", f->buckets);
}

/* "keys=...:vals=...:sort=..." (also what name= and removal compare) */
static void spec_print(struct text *t, const struct hist_data *hd)
{
	bool shown = false;

	text_add(t, "keys=");
	for (unsigned int i = 0; i < hd->n_keys; i++) {
		if (i)
			text_add(t, ",");
		field_print(t, &hd->keys[i]);
	}
	text_add(t, ":vals=");
	for (unsigned int i = 0; i < hd->n_vals; i++) {
		if (i == 0) {
			if (hd->nohitcount)
				continue;
			text_add(t, "hitcount");
		} else {
			if (shown)
				text_add(t, ",");
			field_print(t, &hd->vals[i]);
		}
		shown = true;
	}
	for (unsigned int i = 0; i < hd->n_vars; i++) {
		text_add(t, i ? "," : ":");
		field_print(t, &hd->vars[i]);
	}
	text_add(t, ":sort=");
	for (unsigned int i = 0; i < hd->n_sort; i++) {
		unsigned int idx = hd->sort[i].idx;

		if (i)
			text_add(t, ",");
		if (idx == 0)
			text_add(t, "hitcount");
		else if (idx < hd->n_vals)
			field_print(t, &hd->vals[idx]);
		else
			field_print(t, &hd->keys[idx - hd->n_vals]);
		if (hd->sort[i].desc)
			text_add(t, ".descending");
	}
}

/* the kernel's event_hist_trigger_print(), '\n' included */
static void trigger_line(struct text *t, const struct trigger_data *td)
{
	const struct hist_trigger *ht = td->priv;
	const struct hist_data *hd = ht->hd;

	text_add(t, "hist:");
	if (hd->name)
		text_add(t, "%s:", hd->name);
	spec_print(t, hd);
	text_add(t, ":size=%u", 1u << hd->bits);
	if (hd->uses_ts)
		text_add(t, ":clock=%s", hd->clock_name);
	if (hd->nohitcount)
		text_add(t, ":nohitcount");
	if (hd->acts)
		text_add(t, "%s", hd->acts);
	if (td->filter)
		text_add(t, " if %s", filter_prog_text(td->filter));
	text_add(t, " [%s]\n", ld_relaxed(&ht->paused) ? "paused" : "active");
}

static int hist_show_line(const struct trigger_data *td, char *buf, size_t size)
{
	struct text t = { 0 };
	int n;

	trigger_line(&t, td);
	if (t.err) {
		free(t.buf);
		return t.err;
	}
	n = snprintf(buf, size, "%s", t.buf);
	free(t.buf);
	return n;
}

/* --- parsing ----------------------------------------------------------------------------------- */

struct hist_attrs {
	char *keys, *vals, *sort;
	char *clock;
};

/* The caret position of @s in "hist:<line>", as the kernel's err_pos(): where the text occurs. */
static unsigned int errpos(const struct trigger_data *td, const char *s)
{
	size_t n = strlen(td->line ? td->line : "") + 6;
	char *cmd = malloc(n);
	unsigned int pos = 0;
	const char *f;

	if (!cmd || !s)
		goto out;
	snprintf(cmd, n, "hist:%s", td->line ? td->line : "");
	f = strstr(cmd, s);
	if (f)
		pos = (unsigned int)(f - cmd);
out:
	free(cmd);
	return pos;
}

static void field_free(struct hist_field *f)
{
	if (!f)
		return;
	if (f->lhs) {
		field_free(f->lhs);
		free(f->lhs);
	}
	if (f->rhs) {
		field_free(f->rhs);
		free(f->rhs);
	}
	free(f->dname);
	free(f->var);
}

static void action_free(struct hist_action *a)
{
	if (!a)
		return;
	for (unsigned int i = 0; i < a->n_params; i++) {
		free(a->params[i]);
		field_free(&a->pv[i]);
		free(a->fv_sys[i]);
		free(a->fv_event[i]);
		free(a->fv_field[i]);
	}
	if (a->se)
		synth_event_put(a->se);
	free(a->match_sys);
	free(a->match_event);
	free(a->var_str);
	free(a->action_name);
	free(a->synth_name);
	free(a);
}

static void hist_data_put(struct hist_data *hd);

static void hist_data_free(struct hist_data *hd)
{
	if (!hd)
		return;
	for (unsigned int i = 0; hd->owners_held && i < hd->n_refs; i++)
		if (hd->vrefs[i].owner)
			hist_data_put(hd->vrefs[i].owner);
	tmap_destroy(hd->map);
	for (unsigned int i = 0; i < TMAP_VALS_MAX; i++)
		field_free(&hd->vals[i]);
	for (unsigned int i = 0; i < TMAP_KEYS_MAX; i++)
		field_free(&hd->keys[i]);
	for (unsigned int i = 0; i < hd->n_vars; i++)
		field_free(&hd->vars[i]);
	for (unsigned int i = 0; i < hd->n_refs; i++)
		free(hd->vrefs[i].name);
	for (unsigned int i = 0; i < hd->n_actions; i++)
		action_free(hd->actions[i]);
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

static int parse_size(const char *s, unsigned int *bits)
{
	unsigned long v;
	char *end;
	unsigned int b = 0;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	v = strtoul(s, &end, 0);
	if (*end || !v)
		return -EINVAL;
	while ((1ul << b) < v && b < 63)
		b++;
	if (b < TMAP_BITS_MIN || b > TMAP_BITS_MAX)
		return -EINVAL;
	*bits = b;
	return 0;
}

static const struct evt_field *find_field(const struct evt_event *ev, const char *name)
{
	for (unsigned int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

/*
 * The size the kernel gives field @f (hist_field->size), which the type checks
 * of synthetic event params compare: a static string its array size, other
 * strings MAX_FILTER_STR_VAL, numbers their size.
 */
static unsigned int field_ksize(const struct hist_data *hd, const struct hist_field *f)
{
	switch (f->src) {
	case SRC_REF:
		return hd->vrefs[f->ref].ksize;
	case SRC_EXPR:
		return field_ksize(hd, f->lhs);
	case SRC_STR:
		return f->fsize;
	case SRC_DSTR:
	case SRC_RSTR:
	case SRC_COMM:
		return HIST_STR_MAX;
	case SRC_CPU:
		return 4;
	case SRC_INT:
		return f->flags & HF_EXECNAME && f->flags & HF_STRING ? HIST_STR_MAX : f->size;
	default:
		return 8;
	}
}

/* Is @f signed for the kernel (hist_field->is_signed)? */
static bool field_signed(const struct hist_data *hd, const struct hist_field *f)
{
	if (f->src == SRC_REF)
		return hd->vrefs[f->ref].is_signed;
	if (f->src == SRC_EXPR)
		return field_signed(hd, f->lhs);
	return f->src == SRC_INT && f->is_signed && !(f->flags & HF_STRING);
}

/* The bytes a string variable @f keeps per element (NUL included; STR_VAR_LEN_MAX at most). */
static unsigned int var_str_len(const struct hist_data *hd, const struct hist_field *f)
{
	switch (f->src) {
	case SRC_REF:
		return hd->vrefs[f->ref].str_len;
	case SRC_STR:
		return f->fsize < HIST_SAVE_STR ? f->fsize : HIST_SAVE_STR;
	case SRC_COMM:
		return TMAP_COMM_LEN;
	case SRC_INT: /* common_pid.execname */
		return TMAP_COMM_LEN;
	default:
		return HIST_SAVE_STR;
	}
}

/* kstrtoul(s, 0, ...): an optional '+', base 0, one trailing '\n', nothing else; no overflow. */
static int k_strtoul(const char *s, unsigned long *res)
{
	int saved = errno, range;
	unsigned long v;
	char *end;

	if (*s == '+')
		s++;
	if (!isxdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	range = errno;
	errno = saved;
	if (range)
		return -ERANGE;
	if (*end == '\n')
		end++;
	if (*end || end == s)
		return -EINVAL;
	*res = v;
	return 0;
}

/*
 * One key or value: "name[.modifier]" (the kernel's parse_field() and
 * create_hist_field()). @key: it is a key. Logs the kernel's errors.
 */
static int parse_one(struct trigger_data *td, struct hist_data *hd, struct hist_field *f, char *str,
		     bool key)
{
	const struct evt_event *ev = td->file->event;
	char *mod = strchr(str, '.');
	const struct evt_field *ef;
	unsigned int flags = f->flags;

	if (mod) {
		*mod++ = '\0';
		if (!strcmp(mod, "hex")) {
			flags |= HF_HEX;
		} else if (!strcmp(mod, "sym")) {
			flags |= HF_SYM;
		} else if (!strcmp(mod, "sym-offset") || !strcmp(mod, "symXoffset")) {
			flags |= HF_SYM_OFFSET;
		} else if (!strcmp(mod, "execname") && !strcmp(str, "common_pid")) {
			flags |= HF_EXECNAME;
		} else if (!strcmp(mod, "syscall")) {
			flags |= HF_SYSCALL;
		} else if (!strcmp(mod, "log2")) {
			flags |= HF_LOG2;
		} else if (!strcmp(mod, "usecs")) {
			flags |= HF_USECS;
		} else if (!strncmp(mod, "bucket", 6)) {
			/*
			 * parse_field() moves its modifier pointer along "bucket[s]=" as it
			 * reads, and its error's caret is where that pointer stopped: at
			 * the number for ".buckets=0", at the end of ".buckets".
			 */
			mod += 6;
			if (*mod == 's')
				mod++;
			if (*mod != '=')
				goto bad_mod;
			mod++;
			if (k_strtoul(mod, &f->buckets) || !f->buckets)
				goto bad_mod;
			flags |= HF_BUCKET;
		} else if (!strncmp(mod, "percent", 7)) {
			if (key || (flags & HF_VAR))
				goto bad_mod;
			flags |= HF_PERCENT;
		} else if (!strncmp(mod, "graph", 5)) {
			if (key || (flags & HF_VAR))
				goto bad_mod;
			flags |= HF_GRAPH;
		} else {
			goto bad_mod;
		}
	}
	if (!strcmp(str, "common_timestamp")) {
		flags |= HF_TIMESTAMP;
		f->src = SRC_TS;
		f->name = "common_timestamp";
		f->type = "u64";
		hd->uses_ts = true;
		if (flags & HF_USECS)
			hd->ts_usecs = true;
	} else if (!strcmp(str, "common_cpu") ||
		   ((!strcmp(str, "cpu") || !strcmp(str, "CPU")) && !find_field(ev, str))) {
		/*
		 * "cpu" and "CPU" are the kernel's generic fields (trace_find_event_field()
		 * finds them after the event's own): the hist_field keeps that field, so
		 * hist_field_name() prints the name as given; "common_cpu" has none.
		 */
		flags |= HF_CPU;
		f->src = SRC_CPU;
		f->name = !strcmp(str, "cpu") ? "cpu" : !strcmp(str, "CPU") ? "CPU" : "common_cpu";
		f->type = "unsigned int";
	} else if (!strcmp(str, "common_comm") ||
		   ((!strcmp(str, "comm") || !strcmp(str, "COMM")) && !find_field(ev, str))) {
		flags |= HF_STRING;
		f->src = SRC_COMM;
		f->name = !strcmp(str, "comm") ? "comm" : !strcmp(str, "COMM") ? "COMM" : "common_comm";
		f->type = "char[]";
	} else if (!strcmp(str, "hitcount")) {
		flags |= HF_HITCOUNT;
		f->src = SRC_ONE;
		f->name = "hitcount";
		f->type = "u64";
	} else {
		ef = find_field(ev, str);
		if (!ef || !ef->size) {
			trigger_err(td, "Couldn't find field", errpos(td, str));
			return -EINVAL;
		}
		f->name = ef->name;
		f->type = ef->type;
		f->offset = ef->offset;
		f->fsize = ef->size;
		switch (ef->kind) {
		case EVT_FIELD_STRING:
			flags |= HF_STRING;
			f->src = SRC_STR;
			break;
		case EVT_FIELD_DYN_STRING:
			flags |= HF_STRING;
			f->src = SRC_DSTR;
			break;
		case EVT_FIELD_REL_STRING:
			flags |= HF_STRING;
			f->src = SRC_RSTR;
			break;
		default:
			if (ef->size != 1 && ef->size != 2 && ef->size != 4 && ef->size != 8)
				return -EINVAL; /* no value of that size (arrays) */
			f->src = SRC_INT;
			f->size = (uint8_t)ef->size;
			f->is_signed = ef->is_signed;
			break;
		}
	}
	f->flags = flags;
	if ((flags & (HF_LOG2 | HF_BUCKET)) && (flags & HF_STRING))
		return -EINVAL;
	if (flags & HF_EXECNAME)
		hd->uses_execname = true;
	return 0;
bad_mod:
	trigger_err(td, "Invalid field modifier", errpos(td, mod));
	return -EINVAL;
}

/* --- expressions and variable references (the kernel's parse_expr()) ---------------------- */

static int parse_expr(struct trigger_data *td, struct hist_data *hd, struct hist_field *f,
		      char *str, bool key, unsigned int *n_sub);

static struct hist_field *field_new(void)
{
	return calloc(1, sizeof(struct hist_field));
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : p;
}

/* A variable of a registered histogram (the kernel's find_var_field()). */
static int var_index(const struct hist_data *hd, const char *name)
{
	for (unsigned int i = 0; i < hd->n_vars; i++)
		if (!strcmp(hd->vars[i].var, name))
			return (int)i;
	return -1;
}

/*
 * The histogram that defines @name for @td (the kernel's find_event_var()):
 * first on the onmatch() event, then any in the instance (only one may).
 * *@idx is the variable's slot. NULL with an error logged.
 */
static struct hist_data *find_var(struct trigger_data *td, struct hist_data *hd, const char *name,
				  unsigned int *idx, bool log)
{
	struct evt_instance *inst = td->file->inst;
	struct hist_data *found = NULL;
	int i;

	for (unsigned int n = 0; n < hd->n_act_str; n++) {
		char sys[128], ev[128];

		if (sscanf(hd->act_str[n], "onmatch(%127[^.].%127[^)])", sys, ev) != 2)
			continue;
		for (struct hist_data *o = vars_list; o; o = o->next_var) {
			if (o->file->inst != inst || strcmp(o->file->event->system, sys) ||
			    strcmp(o->file->event->name, ev) || (i = var_index(o, name)) < 0)
				continue;
			*idx = (unsigned int)i;
			return o;
		}
	}
	for (struct hist_data *o = vars_list; o; o = o->next_var) {
		if (o->file->inst != inst || (i = var_index(o, name)) < 0)
			continue;
		if (found && found->file != o->file) {
			trigger_err(td,
				    "Variable name not unique, need to use fully qualified name "
				    "(subsys.event.var) for variable",
				    errpos(td, name));
			return NULL;
		}
		if (!found) {
			found = o;
			*idx = (unsigned int)i;
		}
	}
	if (!found && log)
		trigger_err(td, "Couldn't find variable", errpos(td, name));
	return found;
}

/* The histogram of event @sys:@ev in @td's instance that defines @name (sys.event.$name). */
static struct hist_data *find_var_on(struct trigger_data *td, const char *sys, const char *ev,
				     const char *name, unsigned int *idx)
{
	int i;

	for (struct hist_data *o = vars_list; o; o = o->next_var) {
		if (o->file->inst != td->file->inst || strcmp(o->file->event->system, sys) ||
		    strcmp(o->file->event->name, ev) || (i = var_index(o, name)) < 0)
			continue;
		*idx = (unsigned int)i;
		return o;
	}
	return NULL;
}

/* "sys.event.$var": split in place; false if @str is not of that form. */
static bool split_qualified(char *str, char **sys, char **ev, char **var)
{
	char *d1 = strchr(str, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;

	if (!d2 || d2[1] != '$' || !d2[2] || d1 == str || d2 == d1 + 1)
		return false;
	*d1 = *d2 = '\0';
	*sys = str;
	*ev = d1 + 1;
	*var = d2 + 2;
	return true;
}

/* A reference of @hd to variable @idx of @owner (NULL: its own), shared when there is one. */
static int add_ref(struct hist_data *hd, struct hist_data *owner, unsigned int idx,
		   const char *name, bool once)
{
	/* one reference per variable, as the kernel's create_var_ref(): read once if an
	 * expression uses it (its other users get the value that read got) */
	for (unsigned int i = 0; i < hd->n_refs; i++)
		if (hd->vrefs[i].owner == owner && hd->vrefs[i].idx == idx) {
			hd->vrefs[i].once |= once;
			return (int)i;
		}
	if (hd->n_refs == TMAP_VARS_MAX)
		return -EINVAL;
	const struct hist_data *vo = owner ? owner : hd;
	const struct hist_field *v = &vo->vars[idx];

	hd->vrefs[hd->n_refs].owner = owner;
	hd->vrefs[hd->n_refs].idx = idx;
	hd->vrefs[hd->n_refs].once = once;
	hd->vrefs[hd->n_refs].is_str = v->flags & HF_STRING;
	hd->vrefs[hd->n_refs].str_len = v->str_len;
	hd->vrefs[hd->n_refs].ksize = field_ksize(vo, v);
	hd->vrefs[hd->n_refs].is_signed = field_signed(vo, v);
	hd->vrefs[hd->n_refs].name = strdup(name);
	if (!hd->vrefs[hd->n_refs].name)
		return -ENOMEM;
	if (owner)
		hd->other_refs = true;
	else
		hd->self_refs = true;
	return (int)hd->n_refs++;
}

/*
 * @f reads variable @idx of @owner (NULL: @hd's own) through @hd's reference
 * to it (add_ref()). Return the reference's index or a negative errno.
 */
static int field_ref(struct hist_data *hd, struct hist_field *f, struct hist_data *owner,
		     unsigned int idx, const char *name, bool once)
{
	int r = add_ref(hd, owner, idx, name, once);

	if (r < 0)
		return r;
	f->src = SRC_REF;
	f->ref = (unsigned int)r;
	f->type = (owner ? owner : hd)->vars[idx].type;
	return r;
}

/* The expression of a variable this command defines as a plain field (local_field_var_ref()). */
static const char *local_var_field(const struct hist_data *hd, const char *name)
{
	for (unsigned int i = 0; i < hd->n_assign; i++) {
		const char *a = hd->assign[i], *eq = strchr(a, '=');

		if (eq && (size_t)(eq - a) == strlen(name) && !strncmp(a, name, (size_t)(eq - a)) &&
		    !strpbrk(eq + 1, "+-*/") && eq[1] != '$')
			return eq + 1;
	}
	return NULL;
}

/*
 * A "$name" that names no variable: parse_var_ref() has logged "Couldn't find
 * variable" and returned NULL, and parse_atom() goes on to parse_field() with
 * the same text, which fails on it again: a second error_log entry ("Couldn't
 * find field" at "$name", or "Invalid field modifier" for a bad ".modifier").
 */
static int not_a_field(struct trigger_data *td, struct hist_data *hd, struct hist_field *f,
		       char *str, bool key)
{
	int ret = parse_one(td, hd, f, str, key);

	return ret < 0 ? ret : -EINVAL;
}

/* One operand: a number, $variable, or a field (the kernel's parse_atom()). */
static int parse_atom(struct trigger_data *td, struct hist_data *hd, struct hist_field *f,
		      char *str, bool key, bool once)
{
	if (str[0] >= '0' && str[0] <= '9') {
		char *end;

		f->constant = strtoull(str, &end, 0);
		if (*end) {
			trigger_err(td, "Expecting numeric literal", errpos(td, str));
			return -EINVAL;
		}
		f->src = SRC_CONST;
		f->type = "u64";
		f->name = "";
		return 0;
	}
	char *qsys, *qev, *qvar;

	if (split_qualified(str, &qsys, &qev, &qvar)) {
		/* sys.event.$var: that event's variable (shown as $sys.event.var) */
		struct hist_data *owner;
		unsigned int idx;
		int r;

		owner = find_var_on(td, qsys, qev, qvar, &idx);
		if (!owner) {
			trigger_err(td, "Couldn't find variable", errpos(td, qvar));
			return not_a_field(td, hd, f, qvar - 1, key);
		}
		r = field_ref(hd, f, owner, idx, qvar, once);
		if (r < 0)
			return r;
		f->flags |= owner->vars[idx].flags & (HF_TIMESTAMP | HF_USECS | HF_STRING);
		f->dname = xasprintf("$%s.%s.%s", qsys, qev, qvar);
		f->name = f->dname ? f->dname + 1 : "";
		return f->dname ? 0 : -ENOMEM;
	}
	if (str[0] == '$' && str[1]) {
		const char *local = local_var_field(hd, str + 1);
		struct hist_data *owner;
		unsigned int idx;
		int r;

		if (local) {
			char *copy = strdup(local);
			int ret;

			if (!copy)
				return -ENOMEM;
			ret = parse_one(td, hd, f, copy, key);
			free(copy);
			return ret;
		}
		owner = find_var(td, hd, str + 1, &idx, true);
		if (!owner)
			return not_a_field(td, hd, f, str, key);
		if (owner->key_size != hd->key_size && hd->key_size) {
			trigger_err(td, "Couldn't find variable", errpos(td, str + 1));
			return -EINVAL;
		}
		r = field_ref(hd, f, owner, idx, str + 1, once);
		if (r < 0)
			return r;
		f->flags |= owner->vars[idx].flags & (HF_TIMESTAMP | HF_USECS | HF_STRING);
		f->dname = xasprintf("$%s", str + 1);
		f->name = f->dname ? f->dname + 1 : "";
		return f->dname ? 0 : -ENOMEM;
	}
	return parse_one(td, hd, f, str, key);
}

/* Where the root operator of @str is (the kernel's contains_operator()). */
static int root_op(char *str, char **sep)
{
	char *minus = strrchr(str, '-'), *plus, *div, *mult;
	int op = OP_NONE;

	*sep = NULL;
	if (minus) {
		if (minus == str) {
			*sep = minus;
			return OP_UMINUS;
		}
		op = OP_MINUS;
	}
	plus = strrchr(str, '+');
	if (plus || minus) {
		*sep = plus > minus ? plus : minus;
		return plus > minus ? OP_PLUS : op;
	}
	div = strrchr(str, '/');
	mult = strrchr(str, '*');
	if (mult > div) {
		*sep = mult;
		return OP_MULT;
	}
	if (div) {
		*sep = div;
		return OP_DIV;
	}
	return OP_NONE;
}

/* The kernel's expr_field_str(): an operand as an expression's name shows it. */
static void operand_name(struct text *t, const struct hist_field *f)
{
	const char *fl = f->src == SRC_REF ? NULL : field_flags_str(f->flags);

	if (f->src == SRC_REF)
		text_add(t, "$%s", f->name);
	else if (f->src == SRC_CONST)
		text_add(t, "%llu", (unsigned long long)f->constant);
	else
		text_add(t, "%s", f->name);
	if (fl)
		text_add(t, ".%s", fl);
}

static int parse_expr(struct trigger_data *td, struct hist_data *hd, struct hist_field *f,
		      char *str, bool key, unsigned int *n_sub)
{
	char *sep, *rhs_str;
	struct text t = { 0 };
	int op, ret;

	if (*n_sub > HIST_SUBEXPR_MAX) {
		trigger_err(td, "Too many subexpressions (3 max)", errpos(td, str));
		return -EINVAL;
	}
	op = root_op(str, &sep);
	if (op == OP_NONE)
		return parse_atom(td, hd, f, str, key, false);
	++*n_sub;
	f->lhs = field_new();
	if (!f->lhs)
		return -ENOMEM;
	if (op == OP_UMINUS) {
		char *close;

		if (*n_sub > HIST_SUBEXPR_MAX) {
			trigger_err(td, "Too many subexpressions (3 max)", errpos(td, str));
			return -EINVAL;
		}
		str++;
		if (*str != '(')
			return -EINVAL;
		str++;
		close = strrchr(str, ')');
		if (!close)
			return -EINVAL;
		if (close[1]) {
			trigger_err(td, "Unary minus not supported in sub-expressions",
				    errpos(td, str));
			return -EINVAL;
		}
		*close = '\0';
		ret = parse_expr(td, hd, f->lhs, str, false, n_sub);
		if (ret)
			return ret;
		if (f->lhs->flags & HF_STRING) {
			trigger_err(td, "String type can not be an operand in expression",
				    errpos(td, str));
			return -EINVAL;
		}
	} else {
		*sep = '\0';
		rhs_str = sep + 1;
		if (!*str || !*rhs_str)
			return -EINVAL;
		ret = parse_expr(td, hd, f->lhs, str, false, n_sub);
		if (ret)
			return ret;
		if (f->lhs->flags & HF_STRING) {
			trigger_err(td, "String type can not be an operand in expression",
				    errpos(td, str));
			return -EINVAL;
		}
		f->rhs = field_new();
		if (!f->rhs)
			return -ENOMEM;
		ret = parse_expr(td, hd, f->rhs, rhs_str, false, n_sub);
		if (ret)
			return ret;
		if (f->rhs->flags & HF_STRING) {
			trigger_err(td, "String type can not be an operand in expression",
				    errpos(td, rhs_str));
			return -EINVAL;
		}
		if ((f->lhs->flags & HF_USECS) != (f->rhs->flags & HF_USECS)) {
			trigger_err(td, "Timestamp units in expression don't match", 0);
			return -EINVAL;
		}
		if (op == OP_DIV && f->rhs->src == SRC_CONST && !f->rhs->constant) {
			trigger_err(td, "Division by zero", errpos(td, rhs_str));
			return -EDOM;
		}
		/* an operand read through an expression is used once (read_once) */
		if (f->lhs->src == SRC_REF)
			hd->vrefs[f->lhs->ref].once = true;
		if (f->rhs->src == SRC_REF)
			hd->vrefs[f->rhs->ref].once = true;
	}
	f->op = (uint8_t)op;
	f->flags |= f->lhs->flags & (HF_TIMESTAMP | HF_USECS);
	f->type = f->lhs->type;
	f->is_signed = f->lhs->is_signed;
	if (op == OP_UMINUS) {
		text_add(&t, "-(");
		if (f->lhs->src == SRC_EXPR)
			text_add(&t, "%s", f->lhs->name);
		else
			operand_name(&t, f->lhs);
		text_add(&t, ")");
	} else {
		static const char ops[] = { 0, '+', '-', 0, '/', '*' };

		operand_name(&t, f->lhs);
		text_add(&t, "%c", ops[op]);
		operand_name(&t, f->rhs);
	}
	if (t.err) {
		free(t.buf);
		return -ENOMEM;
	}
	if (f->lhs->src == SRC_CONST && f->rhs && f->rhs->src == SRC_CONST) {
		/* two constants: one (the kernel folds them) */
		f->constant = field_value(hd, f, NULL, 0, NULL);
		field_free(f->lhs);
		field_free(f->rhs);
		free(f->lhs);
		free(f->rhs);
		f->lhs = f->rhs = NULL;
		f->src = SRC_CONST;
		f->dname = t.buf;
		f->name = "";
		return 0;
	}
	f->src = SRC_EXPR;
	f->dname = t.buf;
	f->name = t.buf;
	return 0;
}

/* A key, value or variable: an expression (with the kernel's sym-offset trick). */
/*
 * A key, value or variable (@extra: HF_VAR, which parse_field() of the kernel
 * sees for a variable that is a field, not for the operands of an expression).
 */
static int parse_field_flags(struct trigger_data *td, struct hist_data *hd, struct hist_field *f,
			     char *str, bool key, unsigned int extra)
{
	unsigned int n_sub = 0;
	int ret;

	memset(f, 0, sizeof(*f));
	f->flags = (key ? HF_KEY : 0) | extra;
	for (char *p = strstr(str, ".sym-offset"); p; p = strstr(p + 11, ".sym-offset"))
		p[4] = 'X';
	ret = parse_expr(td, hd, f, str, key, &n_sub);
	f->flags &= ~HF_VAR;
	return ret;
}

static int parse_field(struct trigger_data *td, struct hist_data *hd, struct hist_field *f,
		       char *str, bool key)
{
	return parse_field_flags(td, hd, f, str, key, 0);
}

static int create_vals(struct trigger_data *td, struct hist_data *hd, char *str)
{
	unsigned int i, j = 1, n_hitcount = 0;
	char *fs = str, *one;
	int ret = 0;

	memset(&hd->vals[0], 0, sizeof(hd->vals[0]));
	hd->vals[0].flags = HF_HITCOUNT;
	hd->vals[0].src = SRC_ONE;
	hd->vals[0].name = "hitcount";
	hd->vals[0].type = "u64";
	hd->n_vals = 1;
	if (!fs)
		goto out;
	for (i = 0; i < TMAP_VALS_MAX && j < TMAP_VALS_MAX; i++) {
		char *orig;

		one = strsep(&fs, ",");
		if (!one)
			break;
		if (!strcmp(one, "hitcount") && !n_hitcount++)
			continue;
		orig = strdup(one);
		if (!orig)
			return -ENOMEM;
		ret = parse_field(td, hd, &hd->vals[j], one, false);
		if (!ret && (hd->vals[j].flags & HF_STRING))
			ret = -EINVAL; /* a sum of strings (the kernel sums their addresses) */
		else if (!ret &&
			 (hd->vals[j].flags & (HF_LOG2 | HF_BUCKET | HF_SYM | HF_SYM_OFFSET |
					       HF_SYSCALL | HF_STACKTRACE))) {
			/* values take no such modifier (the kernel's __create_val_field) */
			trigger_err(td, "Invalid field modifier", errpos(td, orig));
			ret = -EINVAL;
		}
		free(orig);
		if (ret)
			return ret;
		j++;
		hd->n_vals++;
	}
	if (fs && strcmp(fs, "hitcount"))
		ret = -EINVAL;
out:
	if (j == 1 && hd->nohitcount) {
		trigger_err(td, "Non-hitcount value is required for 'nohitcount'", 0);
		ret = -ENOENT;
	}
	return ret;
}

static bool has_ref(const struct hist_field *f)
{
	return f && (f->src == SRC_REF || has_ref(f->lhs) || has_ref(f->rhs));
}

/* The variables of the assignments "name=expr[,name=expr]" (parse_var_defs, create_var_fields). */
static int create_vars(struct trigger_data *td, struct hist_data *hd)
{
	for (unsigned int n = 0; n < hd->n_assign; n++) {
		char *copy = strdup(hd->assign[n]), *fs = copy, *one;
		int ret = 0;

		if (!copy)
			return -ENOMEM;
		while (!ret && (one = strsep(&fs, ","))) {
			char *name = strsep(&one, "=");
			struct hist_field *f;

			if (!name || !one) {
				trigger_err(td, "Malformed assignment", errpos(td, name));
				ret = -EINVAL;
				break;
			}
			if (hd->n_vars == TMAP_VARS_MAX) {
				trigger_err(td, "Too many variables defined", errpos(td, name));
				ret = -EINVAL;
				break;
			}
			bool dup = var_index(hd, name) >= 0;

			for (struct hist_data *o = vars_list; o && !dup; o = o->next_var)
				dup = o->file == td->file && var_index(o, name) >= 0;
			if (dup && !td->remove) {
				trigger_err(td, "Variable already defined", errpos(td, name));
				ret = -EINVAL;
				break;
			}
			f = &hd->vars[hd->n_vars];
			char *expr = strdup(one);

			if (!expr) {
				ret = -ENOMEM;
				break;
			}
			ret = parse_field_flags(td, hd, f, one, false, HF_VAR);
			if (!ret && (f->flags & (HF_GRAPH | HF_PERCENT | HF_BUCKET | HF_LOG2))) {
				trigger_err(td, "Invalid field modifier", errpos(td, expr));
				ret = -EINVAL;
			}
			free(expr);
			if (!ret && (f->flags & HF_EXECNAME) && f->src == SRC_INT) {
				/* common_pid.execname: the entry's comm as a string (the
				 * kernel's update_var_execname()) */
				f->flags |= HF_STRING;
				f->type = "char[]";
			}
			if (!ret && (f->flags & HF_STRING)) {
				/* its text is kept in the element's preallocated str area */
				f->str_len = var_str_len(hd, f);
				f->str_off = hd->str_size;
				hd->str_size += (f->str_len + 7) & ~7u;
			}
			if (!ret) {
				f->var = strdup(name);
				if (!f->var)
					ret = -ENOMEM;
			}
			hd->n_vars++;
		}
		free(copy);
		if (ret)
			return ret;
	}
	return 0;
}

/* --- actions: onmatch(sys.event), onmax($var), onchange($var) (the kernel's parse_actions) -- */

static int action_params(struct trigger_data *td, struct hist_action *a, char *params)
{
	bool first = true;
	char *p;

	while (params) {
		if (a->n_params >= SYNTH_FIELDS_MAX) {
			trigger_err(td, "Too many action params", 0);
			return -EINVAL;
		}
		p = strsep(&params, ",");
		while (*p == ' ' || *p == '\t')
			p++;
		for (char *e = p + strlen(p); e > p && (e[-1] == ' ' || e[-1] == '\t'); e--)
			e[-1] = '\0';
		if (strlen(p) < 2) {
			trigger_err(td, "Invalid action param", errpos(td, p));
			return -EINVAL;
		}
		if (first && a->trace_kw) {
			a->synth_name = strdup(p);
			first = false;
			if (!a->synth_name)
				return -ENOMEM;
			continue;
		}
		first = false;
		a->params[a->n_params] = strdup(p);
		if (!a->params[a->n_params++])
			return -ENOMEM;
	}
	return 0;
}

/* ".name(params)" after the handler (the kernel's action_parse()) */
static int action_parse(struct trigger_data *td, struct hist_action *a, char *str)
{
	char *name, *params;

	strsep(&str, ".");
	if (!str) {
		trigger_err(td, "No action found", 0);
		return -EINVAL;
	}
	name = strsep(&str, "(");
	if (!name || !str) {
		trigger_err(td, "No action found", 0);
		return -EINVAL;
	}
	a->action_name = strdup(name);
	if (!a->action_name)
		return -ENOMEM;
	if (!strncmp(name, "save", 4)) {
		params = strsep(&str, ")");
		if (!params) {
			trigger_err(td, "No params found for save()", 0);
			return -EINVAL;
		}
		if (a->handler == H_ONMATCH) {
			trigger_err(td, "Handler doesn't support action", errpos(td, name));
			return -EINVAL;
		}
		a->action = A_SAVE;
		return action_params(td, a, params);
	}
	if (!strncmp(name, "snapshot", 8)) {
		params = strsep(&str, ")");
		if (!str) {
			trigger_err(td, "No closing paren found", errpos(td, params));
			return -EINVAL;
		}
		if (a->handler == H_ONMATCH) {
			trigger_err(td, "Handler doesn't support action", errpos(td, name));
			return -EINVAL;
		}
		a->action = A_SNAPSHOT;
		return 0;
	}
	params = strsep(&str, ")");
	a->trace_kw = !strncmp(name, "trace", 5);
	a->action = A_TRACE;
	return params ? action_params(td, a, params) : 0;
}

static int parse_actions(struct trigger_data *td, struct hist_data *hd)
{
	for (unsigned int n = 0; n < hd->n_act_str; n++) {
		struct hist_action *a = calloc(1, sizeof(*a));
		char *copy = strdup(hd->act_str[n]), *str = copy, *inner;
		int ret = -EINVAL;

		if (!a || !copy) {
			free(a);
			free(copy);
			return -ENOMEM;
		}
		hd->actions[hd->n_actions++] = a;
		if (!strncmp(str, "onmatch(", 8)) {
			char *sys, *ev;

			a->handler = H_ONMATCH;
			str += 8;
			inner = strsep(&str, ")");
			if (!str) {
				trigger_err(td, "No closing paren found", errpos(td, inner));
				goto out;
			}
			ev = inner;
			sys = strsep(&ev, ".");
			if (!ev) {
				trigger_err(td, "Missing subsystem", errpos(td, sys));
				goto out;
			}
			if (!event_find_locked(sys, ev)) {
				trigger_err(td, "Invalid subsystem or event name", errpos(td, ev));
				goto out;
			}
			a->match_sys = strdup(sys);
			a->match_event = strdup(ev);
			if (!a->match_sys || !a->match_event) {
				ret = -ENOMEM;
				goto out;
			}
		} else {
			a->handler = !strncmp(str, "onmax(", 6) ? H_ONMAX : H_ONCHANGE;
			str += a->handler == H_ONMAX ? 6 : 9;
			inner = strsep(&str, ")");
			if (!str)
				goto out;
			a->var_str = strdup(inner);
			if (!a->var_str) {
				ret = -ENOMEM;
				goto out;
			}
		}
		ret = action_parse(td, a, str);
out:
		free(copy);
		if (ret)
			return ret;
	}
	return 0;
}

/* A trigger_data of a hist trigger on @file whose keys are like @hd's (find_compatible_hist()). */
static struct trigger_data *compatible_hist(const struct hist_data *hd,
					    struct trace_event_file *file)
{
	const struct trigger_list *tl = file->triggers;

	for (unsigned int i = 0; tl && i < tl->nr; i++) {
		const struct hist_data *o;
		unsigned int k;

		if (tl->td[i]->cmd != &hist_cmd)
			continue;
		o = ((const struct hist_trigger *)tl->td[i]->priv)->hd;
		if (o->n_keys != hd->n_keys)
			continue;
		for (k = 0; k < hd->n_keys; k++)
			if (strcmp(o->keys[k].type, hd->keys[k].type) ||
			    o->keys[k].key_size != hd->keys[k].key_size ||
			    o->keys[k].is_signed != hd->keys[k].is_signed)
				break;
		if (k == hd->n_keys)
			return tl->td[i];
	}
	return NULL;
}

/* @f: field @name of event @ev as a param's value (its type, for the checks). */
static bool other_field(struct hist_field *f, const struct evt_event *ev, const char *name)
{
	const struct evt_field *ef = find_field(ev, name);

	if (!ef || !ef->size)
		return false;
	f->name = ef->name;
	f->type = ef->type;
	f->fsize = ef->size;
	f->size = ef->size <= 8 ? (uint8_t)ef->size : 8;
	f->is_signed = ef->is_signed;
	switch (ef->kind) {
	case EVT_FIELD_STRING:
		f->flags |= HF_STRING;
		f->src = SRC_STR;
		break;
	case EVT_FIELD_DYN_STRING:
	case EVT_FIELD_REL_STRING:
		f->flags |= HF_STRING;
		f->src = SRC_DSTR;
		break;
	default:
		if (ef->size != 1 && ef->size != 2 && ef->size != 4 && ef->size != 8)
			return false;
		f->src = SRC_INT;
		break;
	}
	return true;
}

/*
 * A param that is a field of another event (the kernel's
 * trace_action_create_field_var() when the field is not the target's): checked
 * now, its histogram made at registration (fv_attach).
 */
static int field_var_param(struct trigger_data *td, struct hist_data *hd, struct hist_action *a,
			   unsigned int i, const char *sys, const char *evname, const char *field)
{
	struct hist_field *f = &a->pv[i];
	struct trace_event_file *file;
	struct evt_event *ev;

	if (hd->n_fvh >= SYNTH_FIELDS_MAX) {
		trigger_err(td, "Too many field variables defined", errpos(td, field));
		return -EINVAL;
	}
	ev = event_find_locked(sys, evname);
	file = ev ? event_file_locked(td->file->inst, ev) : NULL;
	if (!file || file == td->file) {
		trigger_err(td, !file ? "Event file not found" : "Matching event histogram not found",
			    errpos(td, field));
		return -EINVAL;
	}
	if (!td->remove && !compatible_hist(hd, file)) {
		trigger_err(td, "Matching event histogram not found", errpos(td, field));
		return -EINVAL;
	}
	if (!other_field(f, ev, field)) {
		trigger_err(td, "Couldn't find field", errpos(td, field));
		return -EINVAL;
	}
	a->fv_sys[i] = strdup(sys);
	a->fv_event[i] = strdup(evname);
	a->fv_field[i] = strdup(field);
	if (!a->fv_sys[i] || !a->fv_event[i] || !a->fv_field[i])
		return -ENOMEM;
	hd->n_fvh++;
	return 0;
}

/*
 * Param @i of @a (the kernel's trace_action_create()): $var (this histogram's,
 * or the onmatch() event's...), sys.event.$var, a field of this event, or a
 * field of another event (sys.event.field; unqualified: the onmatch() event's).
 */
static int action_param(struct trigger_data *td, struct hist_data *hd, struct hist_action *a,
			unsigned int n, char *param)
{
	const struct evt_event *tev = td->file->event;
	struct hist_field *f = &a->pv[n];
	char *sys = NULL, *evname = NULL;
	int i, r;

	memset(f, 0, sizeof(*f));
	if (param[0] == '$') {
		struct hist_data *owner;
		unsigned int idx;

		i = var_index(hd, param + 1);
		if (i >= 0) {
			r = field_ref(hd, f, NULL, (unsigned int)i, param + 1, false);
		} else {
			owner = find_var(td, hd, param + 1, &idx, false);
			if (!owner) {
				trigger_err(td, "Couldn't find param", errpos(td, param + 1));
				return -EINVAL;
			}
			r = field_ref(hd, f, owner, idx, param + 1, false);
		}
		if (r < 0)
			return r;
		f->flags |= hd->vrefs[r].is_str ? HF_STRING : 0;
		f->name = "";
		return 0;
	}
	char *qsys, *qev, *qvar;

	if (split_qualified(param, &qsys, &qev, &qvar)) {
		struct hist_data *owner;
		unsigned int idx;

		owner = find_var_on(td, qsys, qev, qvar, &idx);
		if (!owner) {
			trigger_err(td, "Couldn't find param", errpos(td, qvar));
			return -EINVAL;
		}
		r = field_ref(hd, f, owner, idx, qvar, false);
		if (r < 0)
			return r;
		f->flags |= hd->vrefs[r].is_str ? HF_STRING : 0;
		f->name = "";
		return 0;
	}
	if (strchr(param, '.')) {
		/* system.event.field: the kernel's split (one dot only: -EINVAL) */
		sys = strsep(&param, ".");
		evname = strsep(&param, ".");
		if (!param || !*param)
			return -EINVAL;
	}
	if (!sys || (!strcmp(sys, tev->system) && !strcmp(evname, tev->name))) {
		/* a field of this event (create_target_field_var()) */
		if (find_field(tev, param) || !strcmp(param, "common_timestamp") ||
		    !strcmp(param, "common_cpu") || !strcmp(param, "common_comm") ||
		    !strcmp(param, "cpu") || !strcmp(param, "CPU") || !strcmp(param, "comm") ||
		    !strcmp(param, "COMM")) {
			f->flags = HF_KEY; /* strings allowed */
			r = parse_one(td, hd, f, param, true);
			f->flags &= ~HF_KEY;
			if (r)
				trigger_err(td, "Couldn't create field variable",
					    errpos(td, param));
			return r;
		}
		/*
		 * create_field_var(): parse_atom() logs the field, then "Couldn't parse
		 * field variable"; trace_action_create_field_var() goes on to the
		 * named event (this one: no histogram of it matches yet) or the
		 * onmatch() event, and fails there too unless that event has it.
		 */
		trigger_err(td, "Couldn't find field", errpos(td, param));
		trigger_err(td, "Couldn't parse field variable", errpos(td, param));
		if (sys) {
			trigger_err(td, "Matching event histogram not found", errpos(td, param));
			return -EINVAL;
		}
		if (a->handler != H_ONMATCH)
			return -EINVAL;
		/* not this event's: the onmatch() event's */
		return field_var_param(td, hd, a, n, a->match_sys, a->match_event, param);
	}
	return field_var_param(td, hd, a, n, sys, evname, param);
}

/*
 * May @f be the value of synthetic field @sf? The kernel's check_synth_field():
 * a char[] field takes any string; else the same type, or the same size (and
 * for numbers the same signedness). And a string only for a string field
 * (the kernel would take a number of the size of a char[] field's slot).
 */
static bool param_fits(const struct hist_data *hd, const struct hist_field *f,
		       const struct synth_field *sf)
{
	if (!!(f->flags & HF_STRING) != sf->is_string)
		return false;
	if (sf->is_string && sf->is_dynamic)
		return true;
	if (!strcmp(sf->type, f->type ? f->type : ""))
		return true;
	if (sf->size != field_ksize(hd, f))
		return false;
	return sf->is_string || sf->is_signed == field_signed(hd, f);
}

/*
 * A save() param (the kernel's create_target_field_var() of it): a field of
 * this event, or $var (a variable of this histogram, of the onmatch() event,
 * of any histogram in the instance; a variable that is a plain field of this
 * command is that field).
 */
static int save_param(struct trigger_data *td, struct hist_data *hd, struct hist_field *f,
		      char *param)
{
	struct hist_data *owner = NULL;
	const char *local;
	unsigned int idx;
	int r;

	memset(f, 0, sizeof(*f));
	if (param[0] == '$' && (local = local_var_field(hd, param + 1)) == NULL) {
		r = var_index(hd, param + 1);
		if (r >= 0) {
			idx = (unsigned int)r;
		} else {
			owner = find_var(td, hd, param + 1, &idx, true);
			if (!owner)
				return not_a_field(td, hd, f, param, true);
		}
		r = field_ref(hd, f, owner, idx, param + 1, false);
		if (r < 0)
			return r;
		f->flags |= hd->vrefs[r].is_str ? HF_STRING : 0;
		f->name = "";
		return 0;
	}
	if (param[0] == '$') {
		char *copy = strdup(local);

		if (!copy)
			return -ENOMEM;
		f->flags = HF_KEY; /* strings allowed */
		r = parse_one(td, hd, f, copy, true);
		free(copy);
	} else {
		f->flags = HF_KEY;
		r = parse_one(td, hd, f, param, true);
	}
	f->flags &= ~HF_KEY;
	return r;
}

/* The kernel's create_actions(): the synthetic events, params, tracked variables. */
static int create_actions(struct trigger_data *td, struct hist_data *hd)
{
	bool saved = false;

	for (unsigned int n = 0; n < hd->n_actions; n++) {
		struct hist_action *a = hd->actions[n];
		int ret;

		if (a->handler != H_ONMATCH) {
			int i;

			if (a->var_str[0] != '$') {
				trigger_err(td, "For onmax(x) or onchange(x), x must be a variable",
					    errpos(td, a->var_str));
				return -EINVAL;
			}
			i = var_index(hd, a->var_str + 1);
			if (i < 0) {
				trigger_err(td, "Couldn't find onmax or onchange variable",
					    errpos(td, a->var_str + 1));
				return -EINVAL;
			}
			ret = add_ref(hd, NULL, (unsigned int)i, a->var_str + 1, false);
			if (ret < 0)
				return ret;
			a->track_ref = (unsigned int)ret;
			a->track_var = hd->n_map_vars++;
		}
		if (a->action == A_SNAPSHOT)
			continue; /* the snapshot buffer: at registration */
		if (a->action == A_SAVE) {
			if (saved) {
				trigger_err(td, "Can't have more than one save() action per hist",
					    0);
				return -EEXIST;
			}
			saved = true;
			for (unsigned int i = 0; i < a->n_params; i++) {
				struct hist_field *f = &a->pv[i];
				char *copy = strdup(a->params[i]);

				if (!copy)
					return -ENOMEM;
				ret = save_param(td, hd, f, copy);
				free(copy);
				if (ret) {
					/* create_field_var(), then action_create() */
					trigger_err(td, "Couldn't parse field variable",
						    errpos(td, a->params[i]));
					trigger_err(td, "Couldn't create field variable",
						    errpos(td, a->params[i]));
					return ret;
				}
				if (f->flags & HF_STRING) {
					f->str_off = hd->str_size;
					hd->str_size += HIST_SAVE_STR;
				} else {
					f->slot = hd->n_map_vars++;
				}
			}
			continue;
		}
		/* trace: the synthetic event and one value per field */
		const char *sname = a->trace_kw ? a->synth_name : a->action_name;

		a->se = sname ? synth_event_find_locked(sname) : NULL;
		if (!a->se) {
			trigger_err(td, "Couldn't find synthetic event", errpos(td, sname));
			return -EINVAL;
		}
		for (unsigned int i = 0; i < a->n_params; i++) {
			char *copy = strdup(a->params[i]);

			if (!copy)
				return -ENOMEM;
			ret = action_param(td, hd, a, i, copy);
			free(copy);
			if (ret)
				return ret;
			if (i < a->se->n_fields && !param_fits(hd, &a->pv[i], &a->se->fields[i])) {
				trigger_err(td,
					    "Param type doesn't match synthetic event field type",
					    errpos(td, a->params[i]));
				return -EINVAL;
			}
		}
		if (a->n_params != a->se->n_fields) {
			trigger_err(td, "Param count doesn't match synthetic event field count",
				    errpos(td, a->se->name));
			return -EINVAL;
		}
	}
	return 0;
}

/* the actions as the trigger line shows them (print_actions_spec) */
static char *actions_text(const struct hist_data *hd)
{
	struct text t = { 0 };

	text_add(&t, "%s", "");
	for (unsigned int n = 0; n < hd->n_actions; n++) {
		const struct hist_action *a = hd->actions[n];

		if (a->handler == H_ONMATCH)
			text_add(&t, ":onmatch(%s.%s).%s(", a->match_sys, a->match_event,
				 a->action_name);
		else
			text_add(&t, ":%s(%s).%s(", a->handler == H_ONMAX ? "onmax" : "onchange",
				 a->var_str, a->action_name);
		if (a->trace_kw)
			text_add(&t, "%s", a->synth_name);
		for (unsigned int i = 0; i < a->n_params; i++)
			text_add(&t, "%s%s", i || a->trace_kw ? "," : "", a->params[i]);
		text_add(&t, ")");
	}
	if (t.err) {
		free(t.buf);
		return NULL;
	}
	return t.buf;
}

static int create_keys(struct trigger_data *td, struct hist_data *hd, char *str)
{
	char *fs = str, *one;
	unsigned int off = 0;
	int ret;

	for (unsigned int i = 0; i < TMAP_KEYS_MAX; i++) {
		struct hist_field *f = &hd->keys[i];
		unsigned int size;

		one = strsep(&fs, ",");
		if (!one)
			break;
		if (!strcmp(one, "stacktrace") || !strcmp(one, "common_stacktrace")) {
			/* the traced program's stack (backtrace() above the call site) */
			memset(f, 0, sizeof(*f));
			f->flags = HF_KEY | HF_STACKTRACE;
			f->src = SRC_STACK;
			f->name = "common_stacktrace";
			f->type = "unsigned long[]";
			f->key_off = off;
			f->key_size = HIST_STACK_DEPTH * 8;
			off += f->key_size;
			if (off > HIST_KEY_MAX)
				return -EINVAL;
			hd->n_keys++;
			hd->compound = true;
			continue;
		}
		ret = parse_field(td, hd, f, one, true);
		if (ret)
			return ret;
		if (has_ref(f)) {
			trigger_err(td, "Using variable references in keys not supported",
				    errpos(td, one));
			return -EINVAL;
		}
		if (f->flags & HF_STRING)
			size = f->src == SRC_STR ? f->fsize : HIST_STR_MAX;
		else
			size = 8;
		size = (size + 7) & ~7u;
		f->key_off = off;
		f->key_size = size;
		off += size;
		if (off > HIST_KEY_MAX)
			return -EINVAL;
		hd->n_keys++;
		if (f->flags & HF_STRING)
			hd->compound = true;
	}
	if (fs)
		return -EINVAL;
	if (!hd->n_keys)
		return -EINVAL;
	hd->key_size = off;
	if (hd->n_keys > 1)
		hd->compound = true;
	return 0;
}

static int is_descending(struct trigger_data *td, const char *s)
{
	if (!s)
		return 0;
	if (!strcmp(s, "descending"))
		return 1;
	if (!strcmp(s, "ascending"))
		return 0;
	trigger_err(td, "Invalid sort modifier", errpos(td, s));
	return -EINVAL;
}

/* the kernel's create_sort_keys() */
static int create_sort(struct trigger_data *td, struct hist_data *hd, char *str)
{
	char *fs = str;
	unsigned int i;
	int desc;

	hd->n_sort = 1;
	hd->sort[0].idx = 0;
	hd->sort[0].desc = false;
	if (!fs)
		return 0;
	for (i = 0; i < TMAP_SORT_KEYS_MAX; i++) {
		char *one, *name;
		unsigned int j, n_fields = hd->n_vals + hd->n_keys;

		one = strsep(&fs, ",");
		if (!one)
			break;
		if (!*one) {
			trigger_err(td, "Empty sort field", errpos(td, "sort="));
			return -EINVAL;
		}
		if (i == TMAP_SORT_KEYS_MAX - 1 && fs) {
			trigger_err(td, "Too many sort fields (Max = 2)", errpos(td, "sort="));
			return -EINVAL;
		}
		name = strsep(&one, ".");
		if (!name || !*name) {
			trigger_err(td, "Empty sort field", errpos(td, "sort="));
			return -EINVAL;
		}
		if (!strcmp(name, "hitcount")) {
			desc = is_descending(td, one);
			if (desc < 0)
				return desc;
			hd->sort[i].idx = 0;
			hd->sort[i].desc = desc;
			continue;
		}
		for (j = 1; j < n_fields; j++) {
			const struct hist_field *f = j < hd->n_vals ? &hd->vals[j] :
								      &hd->keys[j - hd->n_vals];

			if (!strcmp(name, f->name)) {
				desc = is_descending(td, one);
				if (desc < 0)
					return desc;
				hd->sort[i].idx = j;
				hd->sort[i].desc = desc;
				break;
			}
		}
		if (j == n_fields) {
			trigger_err(td, "Sort field must be a key or a val", errpos(td, name));
			return -EINVAL;
		}
	}
	hd->n_sort = i;
	return 0;
}

static int parse_attrs(struct trigger_data *td, struct hist_data *hd, struct hist_attrs *a,
		       char *param)
{
	char *str;

	while ((str = strsep(&param, ":"))) {
		char *rhs = strchr(str, '=');

		if (rhs) {
			if (!*++rhs) {
				trigger_err(td, "Empty assignment", errpos(td, str));
				return -EINVAL;
			}
			if (!strncmp(str, "key=", 4) || !strncmp(str, "keys=", 5)) {
				a->keys = rhs;
			} else if (!strncmp(str, "val=", 4) || !strncmp(str, "vals=", 5) ||
				   !strncmp(str, "values=", 7)) {
				a->vals = rhs;
			} else if (!strncmp(str, "sort=", 5)) {
				a->sort = rhs;
			} else if (!strncmp(str, "name=", 5)) {
				free(hd->name);
				hd->name = strdup(str);
				if (!hd->name)
					return -ENOMEM;
			} else if (!strncmp(str, "clock=", 6)) {
				a->clock = rhs;
			} else if (!strncmp(str, "size=", 5)) {
				if (parse_size(rhs, &hd->bits))
					return -EINVAL;
			} else {
				if (hd->n_assign == TMAP_VARS_MAX) {
					trigger_err(td, "Too many variables defined",
						    errpos(td, str));
					return -EINVAL;
				}
				hd->assign[hd->n_assign] = strdup(str);
				if (!hd->assign[hd->n_assign++])
					return -ENOMEM;
			}
		} else if (!strcmp(str, "nohitcount") || !strcmp(str, "NOHC")) {
			hd->nohitcount = true;
		} else if (!strcmp(str, "pause")) {
			hd->pause = true;
		} else if (!strcmp(str, "cont") || !strcmp(str, "continue")) {
			hd->cont = true;
		} else if (!strcmp(str, "clear")) {
			hd->clear = true;
		} else if ((!strncmp(str, "onmatch(", 8) || !strncmp(str, "onmax(", 6) ||
			    !strncmp(str, "onchange(", 9)) &&
			   hd->n_act_str < HIST_ACTIONS_MAX) {
			hd->act_str[hd->n_act_str] = strdup(str);
			if (!hd->act_str[hd->n_act_str++])
				return -ENOMEM;
		} else {
			return -EINVAL;
		}
	}
	return a->keys ? 0 : -EINVAL;
}

static char *types_of(const struct hist_data *hd)
{
	struct text t = { 0 };

	for (unsigned int i = 0; i < hd->n_vals; i++)
		text_add(&t, "%s/%u/%u;", hd->vals[i].type, hd->vals[i].size,
			 hd->vals[i].is_signed);
	for (unsigned int i = 0; i < hd->n_keys; i++)
		text_add(&t, "%s/%u/%u;", hd->keys[i].type, hd->keys[i].key_size,
			 hd->keys[i].is_signed);
	if (t.err) {
		free(t.buf);
		return NULL;
	}
	return t.buf;
}

static int hist_parse(struct trigger_data *td, char *param)
{
	struct hist_attrs a = { 0 };
	struct hist_trigger *ht;
	struct hist_data *hd;
	struct text t = { 0 };
	int ret;

	if (!param || !*param)
		return -EINVAL;
	ht = calloc(1, sizeof(*ht));
	hd = calloc(1, sizeof(*hd));
	if (!ht || !hd) {
		free(ht);
		free(hd);
		return -ENOMEM;
	}
	ht->hd = hd;
	hd->refs = 1;
	hd->bits = TMAP_BITS_DEFAULT;
	td->priv = ht;
	td->count = TRIGGER_UNLIMITED;
	ret = parse_attrs(td, hd, &a, param);
	if (ret)
		return ret;
	hd->file = td->file;
	hd->remove = td->remove;
	ret = parse_actions(td, hd);
	if (ret)
		return ret;
	ret = create_vals(td, hd, a.vals);
	if (ret)
		return ret;
	ret = create_vars(td, hd);
	if (ret)
		return ret;
	ret = create_keys(td, hd, a.keys);
	if (ret)
		return ret;
	ret = create_sort(td, hd, a.sort);
	if (ret)
		return ret;
	hd->n_map_vars = hd->n_vars;
	ret = create_actions(td, hd);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < hd->n_refs; i++) {
		/* a variable is looked up with this histogram's key: same layout (the
		 * kernel reads the owner's key size from ours: no such check) */
		if (hd->vrefs[i].owner && hd->vrefs[i].owner->key_size != hd->key_size) {
			trigger_err(td, "Couldn't find variable", errpos(td, hd->vrefs[i].name));
			return -EINVAL;
		}
	}
	if (hd->n_actions) {
		hd->acts = actions_text(hd);
		if (!hd->acts)
			return -ENOMEM;
	}
	snprintf(hd->clock_name, sizeof(hd->clock_name), "%s", a.clock ? a.clock : "global");
	if (hd->uses_ts) {
		hd->clock = evt_clock_by_name(hd->clock_name);
		if (hd->clock < 0) {
			trigger_err(td, "Couldn't set trace_clock", errpos(td, a.clock));
			return -EINVAL;
		}
	}
	spec_print(&t, hd);
	hd->spec = t.buf;
	hd->types = types_of(hd);
	if (t.err || !hd->types)
		return -ENOMEM;
	return 0;
}

/* Drop a reference on @hd; the last one frees it. */
static void hist_data_put(struct hist_data *hd)
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

/* --- registration (event_mutex) ---------------------------------------------------------------- */

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
			errpos(td, hd->name));
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

/*
 * Remove the field variable histograms @hd used that nothing uses any more
 * (the kernel's unregister_field_var_hists(); a histogram made for one
 * trigger and reused by another goes with the last user here).
 */
static void fv_release(struct hist_data *hd)
{
	for (unsigned int i = 0; i < hd->n_refs; i++) {
		struct hist_data *o = hd->vrefs[i].owner;
		char *cmd;

		if (!o || !o->fvh_cmd || o->ref_users || !o->users)
			continue;
		cmd = xasprintf("!%s", o->fvh_cmd);
		if (cmd)
			trigger_apply_file_locked(o->file, cmd, NULL);
		free(cmd);
	}
}

/*
 * Make on event @sys:@evname the histogram of field variable @var (the
 * kernel's create_field_var_hist()): "keys=<the keys of a histogram there
 * like @hd's>:@var=@field [if <its filter>]". Return: its hist_data, or NULL
 * with the error logged and *@ret set.
 */
static struct hist_data *fv_make(struct trigger_data *td, struct hist_data *hd, const char *sys,
				 const char *evname, const char *field, const char *var,
				 unsigned int *idx, int *ret)
{
	struct evt_event *ev = event_find_locked(sys, evname);
	struct trace_event_file *file = ev ? event_file_locked(td->file->inst, ev) : NULL;
	struct trigger_data *ct = file ? compatible_hist(hd, file) : NULL;
	const struct hist_data *chd;
	struct hist_data *owner;
	struct text t = { 0 };

	*ret = -EINVAL;
	if (!ct) {
		trigger_err(td, "Matching event histogram not found", errpos(td, field));
		return NULL;
	}
	chd = ((const struct hist_trigger *)ct->priv)->hd;
	text_add(&t, "hist:keys=");
	for (unsigned int k = 0; k < chd->n_keys; k++)
		text_add(&t, "%s%s", k ? "," : "", chd->keys[k].name);
	text_add(&t, ":%s=%s", var, field);
	if (ct->filter)
		text_add(&t, " if %s", filter_prog_text(ct->filter));
	*ret = t.err ? t.err : trigger_apply_file_locked(file, t.buf, td->err);
	if (*ret) {
		trigger_err(td, "Couldn't create histogram for field", errpos(td, field));
		free(t.buf);
		return NULL;
	}
	owner = find_var_on(td, sys, evname, var, idx);
	if (!owner) {
		trigger_err(td, "Couldn't find synthetic variable", errpos(td, field));
		free(t.buf);
		*ret = -EINVAL;
		return NULL;
	}
	owner->fvh_cmd = t.buf;
	return owner;
}

/*
 * The params that are fields of other events read the variable
 * synthetic_<field> of a histogram on that event: the one there, or one made
 * now (fv_make).
 */
static int fv_attach(struct trigger_data *td, struct hist_data *hd)
{
	for (unsigned int n = 0; n < hd->n_actions; n++) {
		struct hist_action *a = hd->actions[n];

		for (unsigned int i = 0; i < a->n_params; i++) {
			struct hist_data *owner;
			unsigned int idx;
			char *var;
			int r = 0;

			if (!a->fv_field[i])
				continue;
			var = xasprintf("synthetic_%s", a->fv_field[i]);
			if (!var)
				return -ENOMEM;
			owner = find_var_on(td, a->fv_sys[i], a->fv_event[i], var, &idx);
			if (!owner)
				owner = fv_make(td, hd, a->fv_sys[i], a->fv_event[i],
						a->fv_field[i], var, &idx, &r);
			if (owner)
				r = add_ref(hd, owner, idx, var, false);
			free(var);
			if (r < 0)
				return r;
			a->pv[i].src = SRC_REF;
			a->pv[i].ref = (unsigned int)r;
		}
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
		int ret = fv_attach(td, hd);

		if (ret) {
			fv_release(hd);
			return ret;
		}
	}
	hd->map = map_new(hd);
	if (!hd->map) {
		fv_release(hd);
		return -ENOMEM;
	}
	ht->paused = hd->pause;
	hd->users++;
	if (hd->name) {
		hd->next_named = named_list;
		named_list = hd;
	}
	if (hd->n_vars) {
		hd->next_var = vars_list;
		vars_list = hd;
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
		fv_release(hd);
	for (struct hist_data **pp = &vars_list; *pp; pp = &(*pp)->next_var) {
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

/* --- the `hist` file --------------------------------------------------------------------------- */

struct sort_ctx {
	const struct hist_data *hd;
	unsigned int key_size;
};

/* An entry as the file shows it: its sums read once (writers keep adding). */
struct hent {
	struct tmap_elt *elt;
	uint64_t sums[TMAP_VALS_MAX];
};

struct hcollect {
	struct hent *v;
	unsigned int n, cap, n_sums;
};

static int collect(struct tmap_elt *elt, void *arg)
{
	struct hcollect *c = arg;

	if (c->n < c->cap) {
		c->v[c->n].elt = elt;
		for (unsigned int i = 0; i < c->n_sums; i++)
			c->v[c->n].sums[i] = tmap_read_sum(elt, i);
		c->n++;
	}
	return 0;
}

static int cmp_one(const struct hist_data *hd, unsigned int idx, const struct hent *a,
		   const struct hent *b)
{
	if (idx < hd->n_vals) {
		uint64_t x = a->sums[idx], y = b->sums[idx];

		return x < y ? -1 : x > y;
	}
	const struct hist_field *f = &hd->keys[idx - hd->n_vals];
	const unsigned char *ka = (const unsigned char *)a->elt->key + f->key_off;
	const unsigned char *kb = (const unsigned char *)b->elt->key + f->key_off;

	if (f->flags & HF_STRING)
		return strncmp((const char *)ka, (const char *)kb, f->key_size);
	uint64_t x, y;

	memcpy(&x, ka, 8);
	memcpy(&y, kb, 8);
	if (f->is_signed && !(f->flags & (HF_LOG2 | HF_BUCKET)))
		return (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
	return x < y ? -1 : x > y;
}

static int cmp_entries(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct hent *a = pa, *b = pb;
	int r;

	for (unsigned int i = 0; i < c->hd->n_sort; i++) {
		r = cmp_one(c->hd, c->hd->sort[i].idx, a, b);
		if (r)
			return c->hd->sort[i].desc ? -r : r;
	}
	/* ties: by the key's bytes (the kernel's order among ties is its sort's) */
	return memcmp(a->elt->key, b->elt->key, c->key_size);
}

/* The syscall names .syscall shows (those of <sys/syscall.h> we know): data, not code. */
struct syscall_entry {
	long nr;
	const char *name;
};

#define S(n) { SYS_##n, "sys_" #n }
static const struct syscall_entry syscall_tab[] = {
	S(read),
	S(write),
	S(close),
	S(fstat),
	S(lseek),
	S(mmap),
	S(mprotect),
	S(munmap),
	S(brk),
	S(rt_sigaction),
	S(rt_sigprocmask),
	S(ioctl),
	S(pread64),
	S(pwrite64),
	S(readv),
	S(writev),
	S(sched_yield),
	S(mremap),
	S(msync),
	S(madvise),
	S(dup),
	S(dup3),
	S(nanosleep),
	S(getpid),
	S(socket),
	S(connect),
	S(accept),
	S(sendto),
	S(recvfrom),
	S(sendmsg),
	S(recvmsg),
	S(shutdown),
	S(bind),
	S(listen),
	S(clone),
	S(execve),
	S(exit),
	S(wait4),
	S(kill),
	S(uname),
	S(fcntl),
	S(flock),
	S(fsync),
	S(fdatasync),
	S(ftruncate),
	S(getcwd),
	S(chdir),
	S(gettimeofday),
	S(getrusage),
	S(getuid),
	S(getppid),
	S(setsid),
	S(futex),
	S(epoll_ctl),
	S(epoll_pwait),
	S(openat),
	S(mkdirat),
	S(unlinkat),
	S(renameat),
	S(faccessat),
	S(pselect6),
	S(ppoll),
	S(exit_group),
	S(gettid),
	S(tgkill),
	S(clock_gettime),
	S(clock_nanosleep),
	S(prctl),
	S(statfs),
	S(fstatfs),
	S(getdents64),
	S(pipe2),
	S(eventfd2),
	S(epoll_create1),
	S(getrandom),
	S(memfd_create),
	S(sched_getaffinity),
	S(set_robust_list),
	S(rseq),
};
/* the older calls some architectures have */
static const struct syscall_entry syscall_old[] = {
#ifdef SYS_open
	S(open),
#endif
#ifdef SYS_stat
	S(stat),
#endif
#ifdef SYS_lstat
	S(lstat),
#endif
#ifdef SYS_poll
	S(poll),
#endif
#ifdef SYS_access
	S(access),
#endif
#ifdef SYS_pipe
	S(pipe),
#endif
#ifdef SYS_select
	S(select),
#endif
#ifdef SYS_dup2
	S(dup2),
#endif
#ifdef SYS_fork
	S(fork),
#endif
#ifdef SYS_vfork
	S(vfork),
#endif
#ifdef SYS_rename
	S(rename),
#endif
#ifdef SYS_mkdir
	S(mkdir),
#endif
#ifdef SYS_unlink
	S(unlink),
#endif
#ifdef SYS_readlink
	S(readlink),
#endif
#ifdef SYS_epoll_wait
	S(epoll_wait),
#endif
	{ -1, NULL },
};
#undef S

/* the name of system call @nr, or NULL */
static const char *syscall_name(uint64_t nr)
{
	for (size_t i = 0; i < sizeof(syscall_tab) / sizeof(syscall_tab[0]); i++)
		if ((uint64_t)syscall_tab[i].nr == nr)
			return syscall_tab[i].name;
	for (size_t i = 0; syscall_old[i].name; i++)
		if ((uint64_t)syscall_old[i].nr == nr)
			return syscall_old[i].name;
	return NULL;
}

/* %ps / %pS of the kernel, with dladdr: "name", "name+0xoff/0xsize", or "0x..." */
static void symbol_of(uint64_t addr, bool offset, char *buf, size_t size)
{
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (addr && dladdr1((void *)(uintptr_t)addr, &info, (void **)&sym, RTLD_DL_SYMENT) &&
	    info.dli_sname) {
		uint64_t off = addr - (uint64_t)(uintptr_t)info.dli_saddr;

		if (offset)
			snprintf(buf, size, "%s+0x%llx/0x%llx", info.dli_sname,
				 (unsigned long long)off,
				 (unsigned long long)(sym ? sym->st_size : 0));
		else
			snprintf(buf, size, "%s", info.dli_sname);
		return;
	}
	snprintf(buf, size, "0x%llx", (unsigned long long)addr);
}

/* the kernel's hist_trigger_print_key() */
static void print_key(struct text *t, const struct hist_data *hd, const struct tmap_elt *elt)
{
	bool multiline = false;

	text_add(t, "{ ");
	for (unsigned int i = 0; i < hd->n_keys; i++) {
		const struct hist_field *f = &hd->keys[i];
		const unsigned char *k = (const unsigned char *)elt->key + f->key_off;
		unsigned long long v = 0;
		char sym[512];

		if (!(f->flags & HF_STRING))
			memcpy(&v, k, 8);
		if (i)
			text_add(t, ", ");
		if (f->flags & HF_STACKTRACE) {
			/* the kernel's hist_trigger_stacktrace_print(): %pS, 9 columns in */
			text_add(t, "common_stacktrace:\n");
			for (unsigned int j = 0; j < HIST_STACK_DEPTH; j++) {
				uint64_t ip;

				memcpy(&ip, k + j * 8, 8);
				if (!ip)
					break;
				symbol_of(ip, true, sym, sizeof(sym));
				text_add(t, "%*c%s\n", 9, ' ', sym);
			}
			multiline = true;
		} else if (f->flags & HF_HEX) {
			text_add(t, "%s: %llx", f->name, v);
		} else if (f->flags & (HF_SYM | HF_SYM_OFFSET)) {
			symbol_of(v, f->flags & HF_SYM_OFFSET, sym, sizeof(sym));
			text_add(t, f->flags & HF_SYM ? "%s: [%llx] %-45s" : "%s: [%llx] %-55s",
				 f->name, v, sym);
		} else if (f->flags & HF_EXECNAME) {
			char comm[TMAP_COMM_LEN + 1];

			memcpy(comm, elt->comm, TMAP_COMM_LEN);
			comm[TMAP_COMM_LEN] = '\0';
			text_add(t, "%s: %-16s[%10llu]", f->name, comm, v);
		} else if (f->flags & HF_SYSCALL) {
			const char *n = syscall_name(v);

			text_add(t, "%s: %-30s[%3llu]", f->name, n ? n : "unknown_syscall", v);
		} else if (f->flags & HF_LOG2) {
			text_add(t, "%s: ~ 2^%-2llu", f->name, v);
		} else if (f->flags & HF_BUCKET) {
			text_add(t, "%s: ~ %llu-%llu", f->name, v, v + f->buckets - 1);
		} else if (f->flags & HF_STRING) {
			text_add(t, "%s: %-50s", f->name, (const char *)k);
		} else {
			text_add(t, "%s: %10llu", f->name, v);
		}
	}
	text_add(t, multiline ? "}" : " }");
}

/* 100 times the percentage of @val in @total (the kernel's __get_percentage) */
static unsigned int percentage(uint64_t val, uint64_t total)
{
	if (!total)
		return val ? UINT32_MAX : 0;
	if (val < UINT64_MAX / 10000)
		return (unsigned int)(val * 10000 / total);
	total /= 10000;
	if (!total)
		return val ? UINT32_MAX : 0;
	return (unsigned int)(val / total);
}

struct val_stat {
	uint64_t max, total;
};

static void print_val(struct text *t, const struct hist_field *f, unsigned int idx,
		      const struct val_stat *st, const struct hent *e)
{
	uint64_t v = e->sums[idx];

	if (f->flags & HF_PERCENT) {
		unsigned int pc = percentage(v, st[idx].total);

		if (pc == UINT32_MAX)
			text_add(t, " %s (%%):[ERROR]", f->name);
		else
			text_add(t, " %s (%%): %3u.%02u", f->name, pc / 100, pc % 100);
	} else if (f->flags & HF_GRAPH) {
		unsigned int pc = percentage(v, st[idx].max), n, i;
		char bar[21];

		if (pc == UINT32_MAX) {
			snprintf(bar, sizeof(bar), "[ERROR]");
		} else {
			n = pc * 20 / 10000;
			for (i = 0; i < n && i < 20; i++)
				bar[i] = '#';
			while (i < 20)
				bar[i++] = ' ';
			bar[20] = '\0';
		}
		text_add(t, " %s: %20s", f->name, bar);
	} else if (f->flags & HF_HEX) {
		text_add(t, " %s: %10llx", f->name, (unsigned long long)v);
	} else {
		text_add(t, " %s: %10llu", f->name, (unsigned long long)v);
	}
}

/* onmax()/onchange(): the tracked value and what was saved (the kernel's track_data_print) */
static void print_actions(struct text *t, const struct hist_data *hd, struct tmap *map,
			  struct tmap_elt *elt)
{
	for (unsigned int n = 0; n < hd->n_actions; n++) {
		const struct hist_action *a = hd->actions[n];
		uint64_t v = 0;

		if (a->handler == H_ONMATCH || a->action == A_SNAPSHOT)
			continue;
		tmap_get_var(elt, map->n_vars, a->track_var, false, &v);
		text_add(t, "\n\t%s: %10llu", a->handler == H_ONMAX ? "max" : "changed",
			 (unsigned long long)v);
		if (a->action != A_SAVE)
			continue;
		for (unsigned int i = 0; i < a->n_params; i++) {
			const struct hist_field *f = &a->pv[i];

			if (f->flags & HF_STRING) {
				char s[HIST_SAVE_STR];

				memcpy(s, elt->str + f->str_off, sizeof(s));
				s[sizeof(s) - 1] = '\0';
				text_add(t, "  %s: %-32s", a->params[i], s);
			} else {
				v = 0;
				tmap_get_var(elt, map->n_vars, f->slot, false, &v);
				text_add(t, "  %s: %10llu", a->params[i], (unsigned long long)v);
			}
		}
	}
}

/* the kernel's track_data_snapshot_print(): the key of the last snapshot taken */
static void print_snapshot(struct text *t, const struct hist_data *hd)
{
	for (unsigned int n = 0; n < hd->n_actions; n++) {
		struct hist_action *a = hd->actions[n];
		unsigned char key[HIST_KEY_MAX];
		struct tmap_elt e = { .key = key };
		uint8_t free_ = 0;

		if (a->action != A_SNAPSHOT || !ld_relaxed(&a->snap_taken))
			continue;
		/* Acquire: the writer's key copy is complete (its release); writers only
		 * try this lock, a reader waits the few stores they hold it for. */
		while (!__atomic_compare_exchange_n(&a->snap_busy, &free_, 1, false,
						    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			free_ = 0;
		memcpy(key, a->snap_key, sizeof(key));
		memcpy(e.comm, a->snap_comm, TMAP_COMM_LEN);
		/* Release: we are done with the key. */
		st_release(&a->snap_busy, 0);
		text_add(t, "\nSnapshot taken (see tracing/snapshot).  Details:\n");
		text_add(t, "\ttriggering value { %s(%s) }: %10llu",
			 a->handler == H_ONMAX ? "onmax" : "onchange", a->var_str,
			 (unsigned long long)ld_relaxed(&a->snap_val));
		text_add(t, "\ttriggered by event with key: ");
		print_key(t, hd, &e);
		text_add(t, "\n");
	}
}

static void hist_table(struct text *t, const struct trigger_data *td, unsigned int n)
{
	const struct hist_data *hd = ((const struct hist_trigger *)td->priv)->hd;
	struct tmap *map = hd->map;
	struct val_stat st[TMAP_VALS_MAX];
	struct hcollect c = { NULL, 0, 0, hd->n_vals };
	struct sort_ctx sc = { hd, 0 };
	uint64_t hits = 0;

	if (n > 0)
		text_add(t, "\n\n");
	text_add(t, "# event histogram\n#\n# trigger info: ");
	trigger_line(t, td);
	text_add(t, "#\n\n");
	if (map) {
		sc.key_size = map->key_size;
		c.cap = map->max_elts;
		c.v = malloc(sizeof(*c.v) * c.cap);
		if (!c.v) {
			t->err = -ENOMEM;
			return;
		}
		tmap_for_each(map, collect, &c);
		qsort_r(c.v, c.n, sizeof(*c.v), cmp_entries, &sc);
		memset(st, 0, sizeof(st));
		for (unsigned int j = 0; j < hd->n_vals; j++) {
			if (!(hd->vals[j].flags & (HF_PERCENT | HF_GRAPH)))
				continue;
			for (unsigned int i = 0; i < c.n; i++) {
				uint64_t v = c.v[i].sums[j];

				st[j].total += v;
				if (st[j].max < v)
					st[j].max = v;
			}
		}
		for (unsigned int i = 0; i < c.n; i++)
			hits += c.v[i].sums[0];
		for (unsigned int i = 0; i < c.n; i++) {
			print_key(t, hd, c.v[i].elt);
			if (!hd->nohitcount)
				print_val(t, &hd->vals[0], 0, st, &c.v[i]);
			for (unsigned int j = 1; j < hd->n_vals; j++) {
				if (hd->vals[j].src == SRC_EXPR)
					continue; /* as the kernel: expressions are not shown */
				text_add(t, " ");
				print_val(t, &hd->vals[j], j, st, &c.v[i]);
			}
			print_actions(t, hd, map, c.v[i].elt);
			text_add(t, "\n");
		}
		free(c.v);
		print_snapshot(t, hd);
	}
	text_add(t, "\nTotals:\n    Hits: %llu\n    Entries: %u\n    Dropped: %llu\n",
		 (unsigned long long)hits, c.n, (unsigned long long)(map ? tmap_drops(map) : 0));
}

int hist_show_text(struct evt_instance *inst, unsigned int event_id, char **textp)
{
	struct text t = { 0 };
	struct trace_event_file *file;
	struct trigger_list *tl;
	struct evt_event *ev;
	unsigned int n = 0;
	int ret = 0;

	events_init();
	event_lock();
	ev = event_find_id_locked(event_id);
	file = ev ? event_file_locked(inst, ev) : NULL;
	if (!file) {
		ret = -ENODEV;
		goto out;
	}
	text_add(&t, "%s", "");
	tl = file->triggers;
	for (unsigned int i = 0; tl && i < tl->nr; i++)
		if (tl->td[i]->cmd == &hist_cmd)
			hist_table(&t, tl->td[i], n++);
	ret = t.err;
out:
	event_unlock();
	if (ret)
		free(t.buf);
	else
		*textp = t.buf;
	return ret;
}
