/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hist/hist_internal.h - what the files of hist triggers share (the kernel's
 * trace_events_hist.c, split by job):
 *
 *   hist.c         the map glue: the writer (hist_fire_rec), a histogram's lifetime, its
 *                  registration, the hist trigger command (hist_cmd)
 *   hist_parse.c   `hist:keys=...`: attributes, fields and modifiers, values, keys, sort keys
 *   hist_expr.c    expressions, variables and references to them
 *   hist_action.c  onmatch()/onmax()/onchange() and their trace/save/snapshot actions
 *   hist_print.c   the `trigger` line and the `hist` file
 *   hist_enable.c  enable_hist, disable_hist, and hist_init()
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
 * with variables are on hist_vars_list (event_mutex), where references are
 * resolved at parse time. Actions (onmatch/onmax/onchange) are parsed with
 * the histogram and hold a reference on their synthetic event.
 *
 * A hit (hist_fire_rec, writer context, no lock, no allocation): the key
 * (one numeric value, or a compound key in a pad on the stack); the other
 * histograms' variables it reads, looked up with that key (one missing: the
 * hit is skipped, as the kernel's); the element (tracing_map insert); the
 * sums, then the variables; then the actions with this histogram's own
 * variables.
 *
 * Writers read hist_data fields that never change after the trigger was
 * published, the map pointer with rcu_deref (a `clear` publishes a new map
 * and frees the old one after a grace period), the paused flag relaxed.
 *
 * Everything here but the writer runs under event_mutex (the trigger layer's
 * parse/reg/unreg/show, the `hist` file), or on a histogram no one else sees yet.
 */
#ifndef EVT_HIST_HIST_INTERNAL_H
#define EVT_HIST_HIST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/event_internal.h"
#include "hist/hist.h"
#include "hist/tracing_map.h"
#include "synth/synth.h"

struct text;

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

/* The histograms with variables, where references are resolved (hist.c; event_mutex). */
extern struct hist_data *hist_vars_list;

/* hist.c: a histogram's lifetime, and constant folding with the writer's arithmetic */
void hist_data_free(struct hist_data *hd);
void hist_data_put(struct hist_data *hd);
uint64_t hist_const_value(const struct hist_data *hd, const struct hist_field *f);

/* hist_parse.c */
int hist_parse(struct trigger_data *td, char *param);
unsigned int hist_errpos(const struct trigger_data *td, const char *s);
const struct evt_field *hist_find_field(const struct evt_event *ev, const char *name);
int hist_parse_one(struct trigger_data *td, struct hist_data *hd, struct hist_field *f, char *str,
		   bool key);

/* hist_expr.c */
void hist_field_free(struct hist_field *f);
unsigned int hist_field_ksize(const struct hist_data *hd, const struct hist_field *f);
bool hist_field_signed(const struct hist_data *hd, const struct hist_field *f);
char *hist_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int hist_var_index(const struct hist_data *hd, const char *name);
struct hist_data *hist_find_var(struct trigger_data *td, struct hist_data *hd, const char *name,
				unsigned int *idx, bool log);
struct hist_data *hist_find_var_on(struct trigger_data *td, const char *sys, const char *ev,
				   const char *name, unsigned int *idx);
bool hist_split_qualified(char *str, char **sys, char **ev, char **var);
int hist_add_ref(struct hist_data *hd, struct hist_data *owner, unsigned int idx, const char *name,
		 bool once);
int hist_field_ref(struct hist_data *hd, struct hist_field *f, struct hist_data *owner,
		   unsigned int idx, const char *name, bool once);
const char *hist_local_var_field(const struct hist_data *hd, const char *name);
int hist_not_a_field(struct trigger_data *td, struct hist_data *hd, struct hist_field *f, char *str,
		     bool key);
int hist_parse_field(struct trigger_data *td, struct hist_data *hd, struct hist_field *f, char *str,
		     bool key);
bool hist_has_ref(const struct hist_field *f);
int hist_create_vars(struct trigger_data *td, struct hist_data *hd);

/* hist_action.c */
void hist_action_free(struct hist_action *a);
int hist_parse_actions(struct trigger_data *td, struct hist_data *hd);
int hist_create_actions(struct trigger_data *td, struct hist_data *hd);
void hist_fv_release(struct hist_data *hd);
int hist_fv_attach(struct trigger_data *td, struct hist_data *hd);

/* hist_print.c */
const char *hist_field_flags_str(unsigned int flags);
void hist_spec_print(struct text *t, const struct hist_data *hd);
char *hist_actions_text(const struct hist_data *hd);
int hist_show_line(const struct trigger_data *td, char *buf, size_t size);
int hist_file_register(void);

#endif /* EVT_HIST_HIST_INTERNAL_H */
