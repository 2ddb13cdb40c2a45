// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist/hist_parse.c - parsing of `hist:keys=...` (the kernel's trace_events_hist.c
 * event_hist_trigger_parse() and create_hist_data()): the attributes, the fields of the event
 * with their modifiers (hist_parse_one()), the values, keys and sort keys, and hist_parse(),
 * the command's parse that puts them together with the variables (hist_expr.c) and the actions
 * (hist_action.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/clock.h>

#include "core/text.h"
#include "hist/hist_internal.h"

struct hist_attrs {
	char *keys, *vals, *sort;
	char *clock;
};

/**
 * hist_errpos() - the caret position of @s in "hist:<line>"
 * @td: the trigger being parsed (its line)
 * @s:  a piece of the command's text
 *
 * As the kernel's err_pos(): where the text occurs first.
 *
 * Context: parse (it allocates).
 * Return: the position, or 0 when it is not found.
 */
unsigned int hist_errpos(const struct trigger_data *td, const char *s)
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

/**
 * hist_find_field() - field @name of event @ev
 * @ev:   the event
 * @name: the field's name
 *
 * Context: event_mutex held (or an event that cannot go).
 * Return: the field, or NULL.
 */
const struct evt_field *hist_find_field(const struct evt_event *ev, const char *name)
{
	for (unsigned int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
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

/**
 * hist_parse_one() - one key or value: "name[.modifier]"
 * @td:  the trigger being parsed (its event, its error log)
 * @hd:  its histogram
 * @f:   the field, filled here (its flags kept)
 * @str: the text, changed in place
 * @key: @f is a key
 *
 * The kernel's parse_field() and create_hist_field(): the event's fields and the generic ones
 * (common_timestamp, common_cpu, common_comm, hitcount), with their modifier.
 *
 * Context: event_mutex held (parse).
 * Return: 0 or a negative errno (the kernel's errors logged).
 */
int hist_parse_one(struct trigger_data *td, struct hist_data *hd, struct hist_field *f, char *str,
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
		   ((!strcmp(str, "cpu") || !strcmp(str, "CPU")) && !hist_find_field(ev, str))) {
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
		   ((!strcmp(str, "comm") || !strcmp(str, "COMM")) && !hist_find_field(ev, str))) {
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
		ef = hist_find_field(ev, str);
		if (!ef || !ef->size) {
			trigger_err(td, "Couldn't find field", hist_errpos(td, str));
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
	trigger_err(td, "Invalid field modifier", hist_errpos(td, mod));
	return -EINVAL;
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
		ret = hist_parse_field(td, hd, &hd->vals[j], one, false);
		if (!ret && (hd->vals[j].flags & HF_STRING))
			ret = -EINVAL; /* a sum of strings (the kernel sums their addresses) */
		else if (!ret &&
			 (hd->vals[j].flags & (HF_LOG2 | HF_BUCKET | HF_SYM | HF_SYM_OFFSET |
					       HF_SYSCALL | HF_STACKTRACE))) {
			/* values take no such modifier (the kernel's __create_val_field) */
			trigger_err(td, "Invalid field modifier", hist_errpos(td, orig));
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
		ret = hist_parse_field(td, hd, f, one, true);
		if (ret)
			return ret;
		if (hist_has_ref(f)) {
			trigger_err(td, "Using variable references in keys not supported",
				    hist_errpos(td, one));
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
	trigger_err(td, "Invalid sort modifier", hist_errpos(td, s));
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
			trigger_err(td, "Empty sort field", hist_errpos(td, "sort="));
			return -EINVAL;
		}
		if (i == TMAP_SORT_KEYS_MAX - 1 && fs) {
			trigger_err(td, "Too many sort fields (Max = 2)", hist_errpos(td, "sort="));
			return -EINVAL;
		}
		name = strsep(&one, ".");
		if (!name || !*name) {
			trigger_err(td, "Empty sort field", hist_errpos(td, "sort="));
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
			trigger_err(td, "Sort field must be a key or a val", hist_errpos(td, name));
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
				trigger_err(td, "Empty assignment", hist_errpos(td, str));
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
						    hist_errpos(td, str));
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

/**
 * hist_parse() - the hist trigger command's parse (trigger_cmd.parse)
 * @td:    the trigger: its priv gets the struct hist_trigger and its struct hist_data
 * @param: what follows "hist:", changed in place
 *
 * The attributes, then the actions' texts, values, variables, keys, sort keys and the actions;
 * then the texts that name= and a removal compare.
 *
 * Context: event_mutex held.
 * Return: 0 or a negative errno (the kernel's errors logged); on an error td->priv is freed
 * by hist_free().
 */
int hist_parse(struct trigger_data *td, char *param)
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
	ret = hist_parse_actions(td, hd);
	if (ret)
		return ret;
	ret = create_vals(td, hd, a.vals);
	if (ret)
		return ret;
	ret = hist_create_vars(td, hd);
	if (ret)
		return ret;
	ret = create_keys(td, hd, a.keys);
	if (ret)
		return ret;
	ret = create_sort(td, hd, a.sort);
	if (ret)
		return ret;
	hd->n_map_vars = hd->n_vars;
	ret = hist_create_actions(td, hd);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < hd->n_refs; i++) {
		/* a variable is looked up with this histogram's key: same layout (the
		 * kernel reads the owner's key size from ours: no such check) */
		if (hd->vrefs[i].owner && hd->vrefs[i].owner->key_size != hd->key_size) {
			trigger_err(td, "Couldn't find variable",
				    hist_errpos(td, hd->vrefs[i].name));
			return -EINVAL;
		}
	}
	if (hd->n_actions) {
		hd->acts = hist_actions_text(hd);
		if (!hd->acts)
			return -ENOMEM;
	}
	snprintf(hd->clock_name, sizeof(hd->clock_name), "%s", a.clock ? a.clock : "global");
	if (hd->uses_ts) {
		hd->clock = evt_clock_by_name(hd->clock_name);
		if (hd->clock < 0) {
			trigger_err(td, "Couldn't set trace_clock", hist_errpos(td, a.clock));
			return -EINVAL;
		}
	}
	hist_spec_print(&t, hd);
	hd->spec = t.buf;
	hd->types = types_of(hd);
	if (t.err || !hd->types)
		return -ENOMEM;
	return 0;
}
