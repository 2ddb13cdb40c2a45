// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist/hist_action.c - the actions of hist triggers (histogram.rst 2.2.3, the kernel's
 * parse_actions(), create_actions(), trace_action_create()): the handlers onmatch(sys.event),
 * onmax($var) and onchange($var), their actions trace()/<synthetic event>(), save() and
 * snapshot(), each param's value, and the histograms of field variables made on other events
 * at registration (hist_fv_attach(), hist_fv_release()). The actions run in the writer
 * (hist.c: run_actions()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "hist/hist_internal.h"

/**
 * hist_action_free() - free an action, its params and its synthetic event's reference
 * @a: the action (NULL: nothing)
 *
 * Context: as hist_data_free().
 */
void hist_action_free(struct hist_action *a)
{
	if (!a)
		return;
	for (unsigned int i = 0; i < a->n_params; i++) {
		free(a->params[i]);
		hist_field_free(&a->pv[i]);
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
			trigger_err(td, "Invalid action param", hist_errpos(td, p));
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
			trigger_err(td, "Handler doesn't support action", hist_errpos(td, name));
			return -EINVAL;
		}
		a->action = A_SAVE;
		return action_params(td, a, params);
	}
	if (!strncmp(name, "snapshot", 8)) {
		params = strsep(&str, ")");
		if (!str) {
			trigger_err(td, "No closing paren found", hist_errpos(td, params));
			return -EINVAL;
		}
		if (a->handler == H_ONMATCH) {
			trigger_err(td, "Handler doesn't support action", hist_errpos(td, name));
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

/**
 * hist_parse_actions() - onmatch(sys.event), onmax($var), onchange($var) and their action
 * @td: the trigger being parsed (its error log)
 * @hd: its histogram: the texts in hd->act_str, the actions made in hd->actions
 *
 * The kernel's parse_actions(): the handlers and their .action(params), as text; what they
 * name is looked up later, by hist_create_actions().
 *
 * Context: event_mutex held (parse).
 * Return: 0 or a negative errno (the kernel's error logged).
 */
int hist_parse_actions(struct trigger_data *td, struct hist_data *hd)
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
				trigger_err(td, "No closing paren found", hist_errpos(td, inner));
				goto out;
			}
			ev = inner;
			sys = strsep(&ev, ".");
			if (!ev) {
				trigger_err(td, "Missing subsystem", hist_errpos(td, sys));
				goto out;
			}
			if (!event_find_locked(sys, ev)) {
				trigger_err(td, "Invalid subsystem or event name",
					    hist_errpos(td, ev));
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
	const struct evt_field *ef = hist_find_field(ev, name);

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
		trigger_err(td, "Too many field variables defined", hist_errpos(td, field));
		return -EINVAL;
	}
	ev = event_find_locked(sys, evname);
	file = ev ? event_file_locked(td->file->inst, ev) : NULL;
	if (!file || file == td->file) {
		trigger_err(td,
			    !file ? "Event file not found" : "Matching event histogram not found",
			    hist_errpos(td, field));
		return -EINVAL;
	}
	if (!td->remove && !compatible_hist(hd, file)) {
		trigger_err(td, "Matching event histogram not found", hist_errpos(td, field));
		return -EINVAL;
	}
	if (!other_field(f, ev, field)) {
		trigger_err(td, "Couldn't find field", hist_errpos(td, field));
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

		i = hist_var_index(hd, param + 1);
		if (i >= 0) {
			r = hist_field_ref(hd, f, NULL, (unsigned int)i, param + 1, false);
		} else {
			owner = hist_find_var(td, hd, param + 1, &idx, false);
			if (!owner) {
				trigger_err(td, "Couldn't find param", hist_errpos(td, param + 1));
				return -EINVAL;
			}
			r = hist_field_ref(hd, f, owner, idx, param + 1, false);
		}
		if (r < 0)
			return r;
		f->flags |= hd->vrefs[r].is_str ? HF_STRING : 0;
		f->name = "";
		return 0;
	}
	char *qsys, *qev, *qvar;

	if (hist_split_qualified(param, &qsys, &qev, &qvar)) {
		struct hist_data *owner;
		unsigned int idx;

		owner = hist_find_var_on(td, qsys, qev, qvar, &idx);
		if (!owner) {
			trigger_err(td, "Couldn't find param", hist_errpos(td, qvar));
			return -EINVAL;
		}
		r = hist_field_ref(hd, f, owner, idx, qvar, false);
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
		if (hist_find_field(tev, param) || !strcmp(param, "common_timestamp") ||
		    !strcmp(param, "common_cpu") || !strcmp(param, "common_comm") ||
		    !strcmp(param, "cpu") || !strcmp(param, "CPU") || !strcmp(param, "comm") ||
		    !strcmp(param, "COMM")) {
			f->flags = HF_KEY; /* strings allowed */
			r = hist_parse_one(td, hd, f, param, true);
			f->flags &= ~HF_KEY;
			if (r)
				trigger_err(td, "Couldn't create field variable",
					    hist_errpos(td, param));
			return r;
		}
		/*
		 * create_field_var(): parse_atom() logs the field, then "Couldn't parse
		 * field variable"; trace_action_create_field_var() goes on to the
		 * named event (this one: no histogram of it matches yet) or the
		 * onmatch() event, and fails there too unless that event has it.
		 */
		trigger_err(td, "Couldn't find field", hist_errpos(td, param));
		trigger_err(td, "Couldn't parse field variable", hist_errpos(td, param));
		if (sys) {
			trigger_err(td, "Matching event histogram not found",
				    hist_errpos(td, param));
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
	if (sf->size != hist_field_ksize(hd, f))
		return false;
	return sf->is_string || sf->is_signed == hist_field_signed(hd, f);
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
	if (param[0] == '$' && (local = hist_local_var_field(hd, param + 1)) == NULL) {
		r = hist_var_index(hd, param + 1);
		if (r >= 0) {
			idx = (unsigned int)r;
		} else {
			owner = hist_find_var(td, hd, param + 1, &idx, true);
			if (!owner)
				return hist_not_a_field(td, hd, f, param, true);
		}
		r = hist_field_ref(hd, f, owner, idx, param + 1, false);
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
		r = hist_parse_one(td, hd, f, copy, true);
		free(copy);
	} else {
		f->flags = HF_KEY;
		r = hist_parse_one(td, hd, f, param, true);
	}
	f->flags &= ~HF_KEY;
	return r;
}

/**
 * hist_create_actions() - the synthetic events, params and tracked variables of the actions
 * @td: the trigger being parsed (its error log)
 * @hd: its histogram, its variables and keys made
 *
 * The kernel's create_actions(): each param's value (a variable, a field of this event or of
 * another, checked against the synthetic event's field), save()'s room in the map's elements,
 * onmax()/onchange()'s tracked variable.
 *
 * Context: event_mutex held (parse).
 * Return: 0 or a negative errno (the kernel's error logged).
 */
int hist_create_actions(struct trigger_data *td, struct hist_data *hd)
{
	bool saved = false;

	for (unsigned int n = 0; n < hd->n_actions; n++) {
		struct hist_action *a = hd->actions[n];
		int ret;

		if (a->handler != H_ONMATCH) {
			int i;

			if (a->var_str[0] != '$') {
				trigger_err(td, "For onmax(x) or onchange(x), x must be a variable",
					    hist_errpos(td, a->var_str));
				return -EINVAL;
			}
			i = hist_var_index(hd, a->var_str + 1);
			if (i < 0) {
				trigger_err(td, "Couldn't find onmax or onchange variable",
					    hist_errpos(td, a->var_str + 1));
				return -EINVAL;
			}
			ret = hist_add_ref(hd, NULL, (unsigned int)i, a->var_str + 1, false);
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
						    hist_errpos(td, a->params[i]));
					trigger_err(td, "Couldn't create field variable",
						    hist_errpos(td, a->params[i]));
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
			trigger_err(td, "Couldn't find synthetic event", hist_errpos(td, sname));
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
					    hist_errpos(td, a->params[i]));
				return -EINVAL;
			}
		}
		if (a->n_params != a->se->n_fields) {
			trigger_err(td, "Param count doesn't match synthetic event field count",
				    hist_errpos(td, a->se->name));
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * hist_fv_release() - remove the field variable histograms @hd used that nothing uses any more
 * @hd: the histogram that goes
 *
 * The kernel's unregister_field_var_hists(): a histogram made for one trigger and reused by
 * another goes with the last user here.
 *
 * Context: event_mutex held (registration).
 */
void hist_fv_release(struct hist_data *hd)
{
	for (unsigned int i = 0; i < hd->n_refs; i++) {
		struct hist_data *o = hd->vrefs[i].owner;
		char *cmd;

		if (!o || !o->fvh_cmd || o->ref_users || !o->users)
			continue;
		cmd = hist_asprintf("!%s", o->fvh_cmd);
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
		trigger_err(td, "Matching event histogram not found", hist_errpos(td, field));
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
		trigger_err(td, "Couldn't create histogram for field", hist_errpos(td, field));
		free(t.buf);
		return NULL;
	}
	owner = hist_find_var_on(td, sys, evname, var, idx);
	if (!owner) {
		trigger_err(td, "Couldn't find synthetic variable", hist_errpos(td, field));
		free(t.buf);
		*ret = -EINVAL;
		return NULL;
	}
	owner->fvh_cmd = t.buf;
	return owner;
}

/**
 * hist_fv_attach() - the histograms that hold the params that are fields of other events
 * @td: the trigger being registered
 * @hd: its histogram
 *
 * Such a param reads the variable synthetic_<field> of a histogram on that event: the one
 * there, or one made now (the kernel's create_field_var_hist()).
 *
 * Context: event_mutex held (registration).
 * Return: 0 or a negative errno (the kernel's error logged).
 */
int hist_fv_attach(struct trigger_data *td, struct hist_data *hd)
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
			var = hist_asprintf("synthetic_%s", a->fv_field[i]);
			if (!var)
				return -ENOMEM;
			owner = hist_find_var_on(td, a->fv_sys[i], a->fv_event[i], var, &idx);
			if (!owner)
				owner = fv_make(td, hd, a->fv_sys[i], a->fv_event[i],
						a->fv_field[i], var, &idx, &r);
			if (owner)
				r = hist_add_ref(hd, owner, idx, var, false);
			free(var);
			if (r < 0)
				return r;
			a->pv[i].src = SRC_REF;
			a->pv[i].ref = (unsigned int)r;
		}
	}
	return 0;
}
