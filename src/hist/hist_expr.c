// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist/hist_expr.c - expressions and variables of hist triggers (the kernel's parse_expr(),
 * parse_atom(), find_event_var(), create_var_ref()): operands that are numbers, fields or
 * $variables (of this histogram, or another's, shared through a reference), the operators
 * + - * / and unary minus, the variables of `name=expr` and what the kernel calls a field's
 * size and sign for the checks of synthetic event params.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "hist/hist_internal.h"

/**
 * hist_field_free() - free what a field owns (its operands, names), not the field itself
 * @f: the field (NULL: nothing)
 *
 * Context: event_mutex held, or a field no writer can see (a failed parse, after a grace period).
 */
void hist_field_free(struct hist_field *f)
{
	if (!f)
		return;
	if (f->lhs) {
		hist_field_free(f->lhs);
		free(f->lhs);
	}
	if (f->rhs) {
		hist_field_free(f->rhs);
		free(f->rhs);
	}
	free(f->dname);
	free(f->var);
}

/**
 * hist_field_ksize() - the size the kernel gives field @f (hist_field->size)
 * @hd: the histogram of @f (its references)
 * @f:  the field
 *
 * The type checks of synthetic event params compare it: a static string its array size, other
 * strings MAX_FILTER_STR_VAL, numbers their size.
 *
 * Context: event_mutex held (parse).
 * Return: the size in bytes.
 */
unsigned int hist_field_ksize(const struct hist_data *hd, const struct hist_field *f)
{
	switch (f->src) {
	case SRC_REF:
		return hd->vrefs[f->ref].ksize;
	case SRC_EXPR:
		return hist_field_ksize(hd, f->lhs);
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

/**
 * hist_field_signed() - is @f signed for the kernel (hist_field->is_signed)?
 * @hd: the histogram of @f (its references)
 * @f:  the field
 *
 * Context: event_mutex held (parse).
 * Return: true for a signed number (an expression: its left operand).
 */
bool hist_field_signed(const struct hist_data *hd, const struct hist_field *f)
{
	if (f->src == SRC_REF)
		return hd->vrefs[f->ref].is_signed;
	if (f->src == SRC_EXPR)
		return hist_field_signed(hd, f->lhs);
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

static int parse_expr(struct trigger_data *td, struct hist_data *hd, struct hist_field *f,
		      char *str, bool key, unsigned int *n_sub);

static struct hist_field *field_new(void)
{
	return calloc(1, sizeof(struct hist_field));
}

/**
 * hist_asprintf() - vasprintf() into a new string
 * @fmt: the printf format, then its arguments
 *
 * Context: any but the writer's (it allocates).
 * Return: the malloc'd string, or NULL when out of memory.
 */
char *hist_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : p;
}

/**
 * hist_var_index() - a variable of a histogram (the kernel's find_var_field())
 * @hd:   the histogram
 * @name: the variable's name, without '$'
 *
 * Context: event_mutex held.
 * Return: the variable's slot in @hd->vars, or -1.
 */
int hist_var_index(const struct hist_data *hd, const char *name)
{
	for (unsigned int i = 0; i < hd->n_vars; i++)
		if (!strcmp(hd->vars[i].var, name))
			return (int)i;
	return -1;
}

/**
 * hist_find_var() - the histogram that defines variable @name for @td
 * @td:   the trigger being parsed (its instance, its error log)
 * @hd:   its histogram (its onmatch() events are looked at first)
 * @name: the variable's name, without '$'
 * @idx:  the variable's slot in the histogram found
 * @log:  log "Couldn't find variable" when there is none
 *
 * The kernel's find_event_var(): first on the onmatch() events, then any in the instance (only
 * one may define it: "Variable name not unique" is logged otherwise).
 *
 * Context: event_mutex held (hist_vars_list).
 * Return: the histogram, or NULL (an error logged as said).
 */
struct hist_data *hist_find_var(struct trigger_data *td, struct hist_data *hd, const char *name,
				unsigned int *idx, bool log)
{
	struct evt_instance *inst = td->file->inst;
	struct hist_data *found = NULL;
	int i;

	for (unsigned int n = 0; n < hd->n_act_str; n++) {
		char sys[128], ev[128];

		if (sscanf(hd->act_str[n], "onmatch(%127[^.].%127[^)])", sys, ev) != 2)
			continue;
		for (struct hist_data *o = hist_vars_list; o; o = o->next_var) {
			if (o->file->inst != inst || strcmp(o->file->event->system, sys) ||
			    strcmp(o->file->event->name, ev) || (i = hist_var_index(o, name)) < 0)
				continue;
			*idx = (unsigned int)i;
			return o;
		}
	}
	for (struct hist_data *o = hist_vars_list; o; o = o->next_var) {
		if (o->file->inst != inst || (i = hist_var_index(o, name)) < 0)
			continue;
		if (found && found->file != o->file) {
			trigger_err(td,
				    "Variable name not unique, need to use fully qualified name "
				    "(subsys.event.var) for variable",
				    hist_errpos(td, name));
			return NULL;
		}
		if (!found) {
			found = o;
			*idx = (unsigned int)i;
		}
	}
	if (!found && log)
		trigger_err(td, "Couldn't find variable", hist_errpos(td, name));
	return found;
}

/**
 * hist_find_var_on() - the histogram of event @sys:@ev in @td's instance that defines @name
 * @td:   the trigger being parsed (its instance)
 * @sys:  the event's system
 * @ev:   the event's name
 * @name: the variable's name (sys.event.$name), without '$'
 * @idx:  the variable's slot in the histogram found
 *
 * Context: event_mutex held (hist_vars_list).
 * Return: the histogram, or NULL (nothing logged).
 */
struct hist_data *hist_find_var_on(struct trigger_data *td, const char *sys, const char *ev,
				   const char *name, unsigned int *idx)
{
	int i;

	for (struct hist_data *o = hist_vars_list; o; o = o->next_var) {
		if (o->file->inst != td->file->inst || strcmp(o->file->event->system, sys) ||
		    strcmp(o->file->event->name, ev) || (i = hist_var_index(o, name)) < 0)
			continue;
		*idx = (unsigned int)i;
		return o;
	}
	return NULL;
}

/**
 * hist_split_qualified() - split "sys.event.$var" in place
 * @str: the text (its dots become NULs when it is of that form)
 * @sys: the system
 * @ev:  the event
 * @var: the variable's name, without '$'
 *
 * Context: any.
 * Return: false, @str untouched, if @str is not of that form.
 */
bool hist_split_qualified(char *str, char **sys, char **ev, char **var)
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

/**
 * hist_add_ref() - a reference of @hd to variable @idx of @owner, shared when there is one
 * @hd:    the histogram that reads the variable
 * @owner: the histogram that defines it (NULL: @hd itself)
 * @idx:   the variable's slot in @owner
 * @name:  the variable's name (copied)
 * @once:  an expression's operand: read and unset (the kernel's read_once)
 *
 * One reference per variable, as the kernel's create_var_ref(): read once if an expression
 * uses it (its other users get the value that read got).
 *
 * Context: event_mutex held (parse, registration).
 * Return: the reference's index in @hd->vrefs, -EINVAL (too many) or -ENOMEM.
 */
int hist_add_ref(struct hist_data *hd, struct hist_data *owner, unsigned int idx, const char *name,
		 bool once)
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
	hd->vrefs[hd->n_refs].ksize = hist_field_ksize(vo, v);
	hd->vrefs[hd->n_refs].is_signed = hist_field_signed(vo, v);
	hd->vrefs[hd->n_refs].name = strdup(name);
	if (!hd->vrefs[hd->n_refs].name)
		return -ENOMEM;
	if (owner)
		hd->other_refs = true;
	else
		hd->self_refs = true;
	return (int)hd->n_refs++;
}

/**
 * hist_field_ref() - make @f read variable @idx of @owner through a reference of @hd
 * @hd:    the histogram of @f
 * @f:     the field: it becomes SRC_REF, with the variable's type
 * @owner: the histogram that defines the variable (NULL: @hd itself)
 * @idx:   the variable's slot in @owner
 * @name:  the variable's name
 * @once:  as hist_add_ref()
 *
 * Context: event_mutex held (parse).
 * Return: the reference's index, or a negative errno.
 */
int hist_field_ref(struct hist_data *hd, struct hist_field *f, struct hist_data *owner,
		   unsigned int idx, const char *name, bool once)
{
	int r = hist_add_ref(hd, owner, idx, name, once);

	if (r < 0)
		return r;
	f->src = SRC_REF;
	f->ref = (unsigned int)r;
	f->type = (owner ? owner : hd)->vars[idx].type;
	return r;
}

/**
 * hist_local_var_field() - the field of a variable this command defines as a plain field
 * @hd:   the histogram being parsed (its assignments)
 * @name: the variable's name, without '$'
 *
 * The kernel's local_field_var_ref(): "$ts0" of "ts0=common_timestamp" is that field.
 *
 * Context: event_mutex held (parse).
 * Return: the text after '=' in the assignment (not an expression nor a reference), or NULL.
 */
const char *hist_local_var_field(const struct hist_data *hd, const char *name)
{
	for (unsigned int i = 0; i < hd->n_assign; i++) {
		const char *a = hd->assign[i], *eq = strchr(a, '=');

		if (eq && (size_t)(eq - a) == strlen(name) && !strncmp(a, name, (size_t)(eq - a)) &&
		    !strpbrk(eq + 1, "+-*/") && eq[1] != '$')
			return eq + 1;
	}
	return NULL;
}

/**
 * hist_not_a_field() - a "$name" that names no variable, parsed as a field to fail as the kernel's
 * @td:  the trigger being parsed (its error log)
 * @hd:  its histogram
 * @f:   the field
 * @str: the text, "$name" (or the variable's name after sys.event.)
 * @key: @f is a key
 *
 * parse_var_ref() of the kernel has logged "Couldn't find variable" and returned NULL, and
 * parse_atom() goes on to parse_field() with the same text, which fails on it again: a second
 * error_log entry ("Couldn't find field" at "$name", or "Invalid field modifier" for a bad
 * ".modifier").
 *
 * Context: event_mutex held (parse).
 * Return: a negative errno, always.
 */
int hist_not_a_field(struct trigger_data *td, struct hist_data *hd, struct hist_field *f, char *str,
		     bool key)
{
	int ret = hist_parse_one(td, hd, f, str, key);

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
			trigger_err(td, "Expecting numeric literal", hist_errpos(td, str));
			return -EINVAL;
		}
		f->src = SRC_CONST;
		f->type = "u64";
		f->name = "";
		return 0;
	}
	char *qsys, *qev, *qvar;

	if (hist_split_qualified(str, &qsys, &qev, &qvar)) {
		/* sys.event.$var: that event's variable (shown as $sys.event.var) */
		struct hist_data *owner;
		unsigned int idx;
		int r;

		owner = hist_find_var_on(td, qsys, qev, qvar, &idx);
		if (!owner) {
			trigger_err(td, "Couldn't find variable", hist_errpos(td, qvar));
			return hist_not_a_field(td, hd, f, qvar - 1, key);
		}
		r = hist_field_ref(hd, f, owner, idx, qvar, once);
		if (r < 0)
			return r;
		f->flags |= owner->vars[idx].flags & (HF_TIMESTAMP | HF_USECS | HF_STRING);
		f->dname = hist_asprintf("$%s.%s.%s", qsys, qev, qvar);
		f->name = f->dname ? f->dname + 1 : "";
		return f->dname ? 0 : -ENOMEM;
	}
	if (str[0] == '$' && str[1]) {
		const char *local = hist_local_var_field(hd, str + 1);
		struct hist_data *owner;
		unsigned int idx;
		int r;

		if (local) {
			char *copy = strdup(local);
			int ret;

			if (!copy)
				return -ENOMEM;
			ret = hist_parse_one(td, hd, f, copy, key);
			free(copy);
			return ret;
		}
		owner = hist_find_var(td, hd, str + 1, &idx, true);
		if (!owner)
			return hist_not_a_field(td, hd, f, str, key);
		if (owner->key_size != hd->key_size && hd->key_size) {
			trigger_err(td, "Couldn't find variable", hist_errpos(td, str + 1));
			return -EINVAL;
		}
		r = hist_field_ref(hd, f, owner, idx, str + 1, once);
		if (r < 0)
			return r;
		f->flags |= owner->vars[idx].flags & (HF_TIMESTAMP | HF_USECS | HF_STRING);
		f->dname = hist_asprintf("$%s", str + 1);
		f->name = f->dname ? f->dname + 1 : "";
		return f->dname ? 0 : -ENOMEM;
	}
	return hist_parse_one(td, hd, f, str, key);
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
	const char *fl = f->src == SRC_REF ? NULL : hist_field_flags_str(f->flags);

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
		trigger_err(td, "Too many subexpressions (3 max)", hist_errpos(td, str));
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
			trigger_err(td, "Too many subexpressions (3 max)", hist_errpos(td, str));
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
				    hist_errpos(td, str));
			return -EINVAL;
		}
		*close = '\0';
		ret = parse_expr(td, hd, f->lhs, str, false, n_sub);
		if (ret)
			return ret;
		if (f->lhs->flags & HF_STRING) {
			trigger_err(td, "String type can not be an operand in expression",
				    hist_errpos(td, str));
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
				    hist_errpos(td, str));
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
				    hist_errpos(td, rhs_str));
			return -EINVAL;
		}
		if ((f->lhs->flags & HF_USECS) != (f->rhs->flags & HF_USECS)) {
			trigger_err(td, "Timestamp units in expression don't match", 0);
			return -EINVAL;
		}
		if (op == OP_DIV && f->rhs->src == SRC_CONST && !f->rhs->constant) {
			trigger_err(td, "Division by zero", hist_errpos(td, rhs_str));
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
		f->constant = hist_const_value(hd, f);
		hist_field_free(f->lhs);
		hist_field_free(f->rhs);
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

/**
 * hist_parse_field() - a key or value: a field, a $variable, a number or an expression of them
 * @td:  the trigger being parsed (its error log)
 * @hd:  its histogram
 * @f:   the field, filled here (zeroed first)
 * @str: the text, changed in place
 * @key: @f is a key
 *
 * Context: event_mutex held (parse).
 * Return: 0 or a negative errno (the kernel's error logged).
 */
int hist_parse_field(struct trigger_data *td, struct hist_data *hd, struct hist_field *f, char *str,
		     bool key)
{
	return parse_field_flags(td, hd, f, str, key, 0);
}

/**
 * hist_has_ref() - does @f read a variable, itself or in an operand?
 * @f: the field (NULL: no)
 *
 * Context: any.
 * Return: true if it does.
 */
bool hist_has_ref(const struct hist_field *f)
{
	return f && (f->src == SRC_REF || hist_has_ref(f->lhs) || hist_has_ref(f->rhs));
}

/**
 * hist_create_vars() - the variables of the assignments "name=expr[,name=expr]"
 * @td: the trigger being parsed (its error log)
 * @hd: its histogram: hd->assign in, hd->vars out (string variables get room in hd->str_size)
 *
 * The kernel's parse_var_defs() and create_var_fields().
 *
 * Context: event_mutex held (parse; hist_vars_list).
 * Return: 0 or a negative errno (the kernel's error logged).
 */
int hist_create_vars(struct trigger_data *td, struct hist_data *hd)
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
				trigger_err(td, "Malformed assignment", hist_errpos(td, name));
				ret = -EINVAL;
				break;
			}
			if (hd->n_vars == TMAP_VARS_MAX) {
				trigger_err(td, "Too many variables defined",
					    hist_errpos(td, name));
				ret = -EINVAL;
				break;
			}
			bool dup = hist_var_index(hd, name) >= 0;

			for (struct hist_data *o = hist_vars_list; o && !dup; o = o->next_var)
				dup = o->file == td->file && hist_var_index(o, name) >= 0;
			if (dup && !td->remove) {
				trigger_err(td, "Variable already defined", hist_errpos(td, name));
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
				trigger_err(td, "Invalid field modifier", hist_errpos(td, expr));
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
