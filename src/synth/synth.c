// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth/synth.c - synthetic events: definitions, the `synthetic_events` and
 * `dynamic_events` command grammar (the kernel's trace_events_synth.c and
 * trace_dynevent.c, read for their rules and messages), registration as
 * events of system "synthetic", the record writer and the printer.
 *
 * Lifetime: a synth_event lives in synth_list (event_mutex) from creation to
 * deletion; deletion is refused while it has references or an instance
 * records it. Its registered event is unregistered at deletion and the
 * synth_event itself is freed after a grace period (event_gc_add()), so a
 * writer that found it through an instance's active set is done with it.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "events/error_log.h"
#include "events/event_internal.h"
#include "synth/synth.h"

/* --- errors (the kernel's messages, in its order) ------------------------------------------ */

enum synth_err {
	SYNTH_ERR_BAD_NAME,
	SYNTH_ERR_INVALID_CMD,
	SYNTH_ERR_INVALID_DYN_CMD,
	SYNTH_ERR_EVENT_EXISTS,
	SYNTH_ERR_TOO_MANY_FIELDS,
	SYNTH_ERR_INCOMPLETE_TYPE,
	SYNTH_ERR_INVALID_TYPE,
	SYNTH_ERR_INVALID_FIELD,
	SYNTH_ERR_INVALID_ARRAY_SPEC,
};

static const char *const synth_err_text[] = {
	[SYNTH_ERR_BAD_NAME] = "Illegal name",
	[SYNTH_ERR_INVALID_CMD] = "Command must be of the form: <name> field[;field] ...",
	[SYNTH_ERR_INVALID_DYN_CMD] =
		"Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
	[SYNTH_ERR_EVENT_EXISTS] = "Event already exists",
	[SYNTH_ERR_TOO_MANY_FIELDS] = "Too many fields",
	[SYNTH_ERR_INCOMPLETE_TYPE] = "Incomplete type",
	[SYNTH_ERR_INVALID_TYPE] = "Invalid type",
	[SYNTH_ERR_INVALID_FIELD] = "Invalid field",
	[SYNTH_ERR_INVALID_ARRAY_SPEC] = "Invalid array specification",
};

/* The command being parsed (the kernel's last_cmd): where error positions point. */
struct synth_cmd {
	const char *text;
};

/* The kernel's err_pos(): where @str first occurs in the command, else 0. */
static unsigned int errpos(const struct synth_cmd *c, const char *str)
{
	const char *found;

	if (!c || !c->text || !str)
		return 0;
	found = strstr(c->text, str);
	return found ? (unsigned int)(found - c->text) : 0;
}

static void synth_err(const struct synth_cmd *c, enum synth_err err, unsigned int pos)
{
	struct error_log *log;

	if (!c || !c->text)
		return;
	log = instance_error_log(instance_top_locked());
	if (log)
		error_log_add(log, "synthetic_events", synth_err_text[err], c->text, pos);
}

/* --- the list ------------------------------------------------------------------------------ */

static struct synth_event **synth_list; /* creation order: event_mutex */
static unsigned int nr_synth, cap_synth;

struct synth_event *synth_event_find_locked(const char *name)
{
	event_assert_locked();
	if (!name)
		return NULL;
	for (unsigned int i = 0; i < nr_synth; i++)
		if (!strcmp(synth_list[i]->name, name)) {
			synth_event_get(synth_list[i]);
			return synth_list[i];
		}
	return NULL;
}

struct synth_event *synth_event_find(const char *name)
{
	struct synth_event *se;

	events_init();
	event_lock();
	se = synth_event_find_locked(name);
	event_unlock();
	return se;
}

static struct synth_event *synth_lookup_locked(const char *name)
{
	event_assert_locked();
	for (unsigned int i = 0; i < nr_synth; i++)
		if (!strcmp(synth_list[i]->name, name))
			return synth_list[i];
	return NULL;
}

void synth_event_get(struct synth_event *se)
{
	/* Relaxed: the count orders nothing; delete reads it under event_mutex, and a
	 * holder got its first reference under that mutex too. */
	add_relaxed(&se->ref, 1);
}

void synth_event_put(struct synth_event *se)
{
	if (se)
		sub_relaxed(&se->ref, 1); /* as synth_event_get() */
}

struct evt_event *synth_event_event(struct synth_event *se)
{
	return se ? ld_acquire(&se->def.event) : NULL;
}

/* --- field types (the kernel's synth_field_size() and friends) ------------------------------- */

static bool is_good_name(const char *name)
{
	if (!isalpha((unsigned char)*name) && *name != '_')
		return false;
	while (*++name != '\0')
		if (!isalpha((unsigned char)*name) && !isdigit((unsigned char)*name) &&
		    *name != '_')
			return false;
	return true;
}

static bool type_is_string(const char *type)
{
	return strstr(type, "char[") != NULL;
}

/* long[] (or long[N]): a stacktrace, as the kernel's synth_field_is_stack(). */
static bool type_is_stack(const char *type)
{
	return strstr(type, "long[") != NULL;
}

/* u64[]: the dynamic array of this library (the kernel has long[] stacks only). */
static bool type_is_u64_array(const char *type)
{
	return !strcmp(type, "u64[]");
}

/* Size of a char[N] type: N, 0 for char[] (or N = 0), -EINVAL. */
static int string_size(const char *type)
{
	const char *start = strstr(type, "char["), *end;
	unsigned long size;
	char buf[4], *e;
	size_t len;

	if (!start)
		return -EINVAL;
	start += sizeof("char[") - 1;
	end = strchr(type, ']');
	if (!end || end < start || type + strlen(type) > end + 1)
		return -EINVAL;
	len = (size_t)(end - start);
	if (len > 3)
		return -EINVAL;
	if (len == 0)
		return 0;
	memcpy(buf, start, len);
	buf[len] = '\0';
	/* kstrtouint(buf, 0): an optional '+', then decimal, 0x hex or 0 octal, nothing else */
	if (buf[0] == '-' || isspace((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	size = strtoul(buf, &e, 0);
	if (*e || e == buf || errno)
		return -EINVAL;
	if (size > SYNTH_STR_LEN_MAX)
		return -EINVAL;
	return (int)size;
}

static const struct {
	const char *type;
	unsigned int size;
	const char *fmt;
} synth_types[] = {
	{ "s64", 8, "%lld" },
	{ "u64", 8, "%llu" },
	{ "s32", 4, "%d" },
	{ "u32", 4, "%u" },
	{ "s16", 2, "%d" },
	{ "u16", 2, "%u" },
	{ "s8", 1, "%d" },
	{ "u8", 1, "%u" },
	{ "char", 1, "%d" },
	{ "unsigned char", 1, "%u" },
	{ "int", sizeof(int), "%d" },
	{ "unsigned int", sizeof(unsigned int), "%u" },
	{ "long", sizeof(long), "%ld" },
	{ "unsigned long", sizeof(unsigned long), "%lu" },
	{ "bool", 1, "%d" },
	{ "pid_t", 4, "%d" },
	{ "gfp_t", 4, "%x" },
};

/* The kernel's synth_field_size(): bytes, 0 for a dynamic or unknown type, -EINVAL. */
int synth_field_size(const char *type)
{
	for (size_t i = 0; i < ARRAY_SIZE(synth_types); i++)
		if (!strcmp(type, synth_types[i].type))
			return (int)synth_types[i].size;
	if (type_is_string(type))
		return string_size(type);
	return 0;
}

/* The printf conversion of a type (the kernel's synth_field_fmt()). */
static const char *synth_field_fmt(const char *type)
{
	for (size_t i = 0; i < ARRAY_SIZE(synth_types); i++)
		if (!strcmp(type, synth_types[i].type))
			return synth_types[i].fmt;
	if (type_is_string(type))
		return "%.*s";
	if (type_is_stack(type) || type_is_u64_array(type))
		return "%s";
	return "%llu";
}

static bool synth_field_signed(const char *type)
{
	return type[0] != 'u' && strcmp(type, "gfp_t") != 0;
}

/* --- building a definition ------------------------------------------------------------------ */

static void synth_fields_free(struct synth_field *fields, unsigned int n)
{
	if (!fields)
		return;
	for (unsigned int i = 0; i < n; i++) {
		free(fields[i].type);
		free(fields[i].name);
	}
	free(fields);
}

static void synth_event_free(struct synth_event *se)
{
	if (!se)
		return;
	synth_fields_free(se->fields, se->n_fields);
	if (se->efields)
		for (unsigned int i = 0; i < se->n_fields; i++)
			free((char *)se->efields[i].type);
	free(se->efields);
	free(se->print_fmt);
	free(se->name);
	free(se);
}

static void synth_event_free_void(void *p)
{
	synth_event_free(p);
}

/*
 * One field from the words at @argv (@argc of them): "type name", or
 * "unsigned type name". Adds the words used to *@consumed.
 */
static int parse_field(const struct synth_cmd *c, int argc, char **argv, int *consumed,
		       struct synth_field *f)
{
	const char *prefix = "", *ftype = argv[0], *fname, *array;
	size_t nlen;
	int size;

	if (!strcmp(ftype, "unsigned")) {
		if (argc < 3) {
			synth_err(c, SYNTH_ERR_INCOMPLETE_TYPE, errpos(c, ftype));
			return -EINVAL;
		}
		prefix = "unsigned ";
		ftype = argv[1];
		fname = argv[2];
		*consumed += 3;
	} else {
		fname = argc > 1 ? argv[1] : NULL;
		*consumed += 2;
	}
	if (!fname) {
		synth_err(c, SYNTH_ERR_INVALID_FIELD, errpos(c, ftype));
		return -EINVAL;
	}
	array = strchr(fname, '[');
	nlen = array ? (size_t)(array - fname) : strlen(fname);
	f->name = strndup(fname, nlen);
	if (!f->name)
		return -ENOMEM;
	if (!is_good_name(f->name)) {
		synth_err(c, SYNTH_ERR_BAD_NAME, errpos(c, fname));
		return -EINVAL;
	}
	if (asprintf(&f->type, "%s%s%s", prefix, ftype, array ? array : "") < 0) {
		f->type = NULL;
		return -ENOMEM;
	}
	size = synth_field_size(f->type);
	if (size < 0) {
		if (array)
			synth_err(c, SYNTH_ERR_INVALID_ARRAY_SPEC, errpos(c, fname));
		else
			synth_err(c, SYNTH_ERR_INVALID_TYPE, errpos(c, ftype));
		return -EINVAL;
	}
	if (size == 0) {
		if (type_is_string(f->type)) {
			f->is_dynamic = true;
		} else if (type_is_stack(f->type)) {
			f->is_dynamic = true;
			f->is_stack = true;
		} else if (type_is_u64_array(f->type)) {
			f->is_dynamic = true;
			f->is_array = true;
		} else {
			synth_err(c, SYNTH_ERR_INVALID_TYPE, errpos(c, ftype));
			return -EINVAL;
		}
		size = 8;
	}
	f->size = (unsigned int)size;
	f->is_string = type_is_string(f->type);
	/* the kernel tests the type after "__data_loc " is put before a dynamic one's */
	f->is_signed = synth_field_signed(f->is_dynamic && !f->is_array ? "__data_loc" : f->type);
	return 0;
}

/* Split @s in place into whitespace-separated words (the kernel's argv_split). */
static int split_words(char *s, char **argv, int max)
{
	int argc = 0;

	for (;;) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (argc == max)
			return -E2BIG;
		argv[argc++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

#define SYNTH_ARGV_MAX (3 * SYNTH_FIELDS_MAX + 8)

/* The kernel's print fmt of a synthetic event. */
static char *synth_print_fmt(const struct synth_event *se)
{
	size_t cap = 64, len = 0;
	char *out;

	for (unsigned int i = 0; i < se->n_fields; i++)
		cap += 3 * strlen(se->fields[i].name) + 128; /* the longest: u64[] */
	out = malloc(cap);
	if (!out)
		return NULL;
#define ADD(...) \
	(len +=  \
	 (size_t)snprintf(out + (len < cap ? len : cap), len < cap ? cap - len : 0, __VA_ARGS__))
	ADD("\"");
	for (unsigned int i = 0; i < se->n_fields; i++)
		ADD("%s=%s%s", se->fields[i].name, synth_field_fmt(se->fields[i].type),
		    i == se->n_fields - 1 ? "" : ", ");
	ADD("\"");
	for (unsigned int i = 0; i < se->n_fields; i++) {
		const struct synth_field *f = &se->fields[i];

		if (f->is_string && f->is_dynamic)
			ADD(", __get_str(%s)", f->name);
		else if (f->is_stack)
			ADD(", __get_stacktrace(%s)", f->name);
		else if (f->is_array)
			ADD(", __print_array(__get_dynamic_array(%s), "
			    "__get_dynamic_array_len(%s) / 8, 8)",
			    f->name, f->name);
		else
			ADD(", REC->%s", f->name);
	}
#undef ADD
	if (len >= cap) { /* cannot happen: cap counts every piece above */
		free(out);
		return NULL;
	}
	return out;
}

static int synth_print_record(const struct evt_event *ev, const void *rec, size_t len,
			      struct evt_seq *s);

/* Record layout, field descriptors, print format, the def: ready to register. */
static int synth_event_setup(struct synth_event *se)
{
	unsigned int off = sizeof(struct evt_trace_entry);

	se->efields = calloc(se->n_fields, sizeof(*se->efields));
	if (!se->efields)
		return -ENOMEM;
	for (unsigned int i = 0; i < se->n_fields; i++) {
		struct synth_field *f = &se->fields[i];
		struct evt_field *e = &se->efields[i];
		char *type;
		int n;

		f->offset = off;
		e->name = f->name;
		e->offset = (uint16_t)off;
		e->is_signed = f->is_signed;
		if (f->is_dynamic) {
			/* the kernel's type of a dynamic field: "__data_loc char[]" */
			n = asprintf(&type, "__data_loc %s", f->type);
			e->kind = f->is_string ? EVT_FIELD_DYN_STRING : EVT_FIELD_DYN_ARRAY;
			e->size = 8;
			e->elem_size = f->is_string ? 1 : 8;
		} else if (f->is_string) {
			/* The kernel defines it without a length: `format` shows "char name[]". */
			n = asprintf(&type, "%.*s[]", (int)strcspn(f->type, "["), f->type);
			e->kind = EVT_FIELD_STRING;
			e->size = (uint16_t)f->size;
			e->elem_size = 1;
		} else {
			n = asprintf(&type, "%s", f->type);
			e->kind = EVT_FIELD_INT;
			e->size = (uint16_t)f->size;
			e->elem_size = (uint16_t)f->size;
		}
		if (n < 0)
			return -ENOMEM;
		e->type = type;
		off += f->is_string && !f->is_dynamic ? SYNTH_STR_LEN_MAX : 8;
		if (f->is_dynamic)
			se->n_dynamic++;
	}
	se->size = off;
	se->print_fmt = synth_print_fmt(se);
	if (!se->print_fmt)
		return -ENOMEM;
	se->def.abi = EVT_EVENT_DEF_ABI;
	se->def.size = off;
	se->def.system = SYNTH_SYSTEM;
	se->def.name = se->name;
	se->def.fields = se->efields;
	se->def.nr_fields = se->n_fields;
	se->def.print_fmt = se->print_fmt;
	se->def.key = &se->key;
	return 0;
}

static int synth_list_add_locked(struct synth_event *se)
{
	event_assert_locked();
	if (nr_synth == cap_synth) {
		unsigned int cap = cap_synth ? cap_synth * 2 : 16;
		struct synth_event **n = realloc(synth_list, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		synth_list = n;
		cap_synth = cap;
	}
	synth_list[nr_synth++] = se;
	return 0;
}

/* The kernel's __create_synth_event(): @name, then the fields text. event_mutex held. */
static int create_synth_event_locked(const struct synth_cmd *c, const char *name,
				     const char *raw_fields)
{
	struct synth_field fields[SYNTH_FIELDS_MAX];
	char *argv[SYNTH_ARGV_MAX + 1];
	struct synth_event *se = NULL;
	char *copy = NULL, *rest, *field_str;
	unsigned int n_fields = 0;
	struct evt_event *ev;
	int ret = 0;

	event_assert_locked();
	memset(fields, 0, sizeof(fields));
	if (name[0] == '\0') {
		synth_err(c, SYNTH_ERR_INVALID_CMD, 0);
		return -EINVAL;
	}
	if (!is_good_name(name)) {
		synth_err(c, SYNTH_ERR_BAD_NAME, errpos(c, name));
		return -EINVAL;
	}
	if (synth_lookup_locked(name) || event_find_locked(SYNTH_SYSTEM, name)) {
		synth_err(c, SYNTH_ERR_EVENT_EXISTS, errpos(c, name));
		return -EEXIST;
	}
	rest = copy = strdup(raw_fields);
	if (!copy)
		return -ENOMEM;
	while ((field_str = strsep(&rest, ";")) != NULL) {
		int argc = split_words(field_str, argv, SYNTH_ARGV_MAX), consumed = 0;

		if (argc < 0) {
			synth_err(c, SYNTH_ERR_TOO_MANY_FIELDS, 0);
			ret = -EINVAL;
			goto err;
		}
		while (argc > consumed) {
			struct synth_field f = { 0 };

			ret = parse_field(c, argc - consumed, argv + consumed, &consumed, &f);
			if (ret) {
				free(f.type);
				free(f.name);
				goto err;
			}
			if (n_fields == SYNTH_FIELDS_MAX) {
				free(f.type);
				free(f.name);
				synth_err(c, SYNTH_ERR_TOO_MANY_FIELDS, 0);
				ret = -EINVAL;
				goto err;
			}
			fields[n_fields++] = f;
		}
	}
	if (n_fields == 0) {
		synth_err(c, SYNTH_ERR_INVALID_CMD, 0);
		ret = -EINVAL;
		goto err;
	}
	se = calloc(1, sizeof(*se));
	if (!se || !(se->name = strdup(name)) ||
	    !(se->fields = calloc(n_fields, sizeof(*se->fields)))) {
		ret = -ENOMEM;
		goto err;
	}
	memcpy(se->fields, fields, n_fields * sizeof(fields[0]));
	se->n_fields = n_fields;
	n_fields = 0; /* se owns them now */
	ret = synth_event_setup(se);
	if (ret)
		goto err;
	ret = synth_list_add_locked(se);
	if (ret)
		goto err;
	ret = event_register_locked(&se->def);
	if (ret < 0) {
		nr_synth--;
		goto err;
	}
	ev = se->def.event;
	/* A zombie brought back has it already, and its old records may be printing now. */
	if (ev->print != synth_print_record)
		ev->print = synth_print_record;
	free(copy);
	return 0;
err:
	for (unsigned int i = 0; i < n_fields; i++) {
		free(fields[i].type);
		free(fields[i].name);
	}
	synth_event_free(se);
	free(copy);
	return ret;
}

/* Is @se held, or recorded by an instance? event_mutex held. */
struct busy_arg {
	struct evt_event *ev;
	bool busy;
};

static int busy_one(struct evt_instance *inst, void *p)
{
	struct busy_arg *a = p;
	struct trace_event_file *file = event_file_locked(inst, a->ev);

	if (file && (ld_relaxed(&file->flags) & (EVT_FILE_ENABLED | EVT_FILE_SOFT_MODE)))
		a->busy = true;
	return 0;
}

static bool synth_busy_locked(struct synth_event *se)
{
	struct busy_arg a = { se->def.event, false };

	event_assert_locked();
	if (ld_relaxed(&se->ref))
		return true;
	if (!a.ev)
		return false;
	busy_one(instance_top_locked(), &a);
	instance_foreach_locked(busy_one, &a);
	return a.busy;
}

static int synth_destroy_locked(struct synth_event *se)
{
	event_assert_locked();
	if (synth_busy_locked(se))
		return -EBUSY;
	for (unsigned int i = 0; i < nr_synth; i++)
		if (synth_list[i] == se) {
			memmove(&synth_list[i], &synth_list[i + 1],
				(nr_synth - i - 1) * sizeof(*synth_list));
			nr_synth--;
			break;
		}
	event_unregister_locked(&se->def);
	/* Writers that found the event through an active set may still read it. */
	event_gc_add(se, synth_event_free_void);
	return 0;
}

static int synth_delete_locked(const char *name)
{
	struct synth_event *se = synth_lookup_locked(name);

	event_assert_locked();
	return se ? synth_destroy_locked(se) : -ENOENT;
}

int evt_synth_event_delete(const char *name)
{
	int ret;

	if (!name)
		return -EINVAL;
	events_init();
	event_lock();
	ret = synth_delete_locked(name);
	event_unlock();
	return ret;
}

int synth_release_all(void)
{
	int ret = 0;

	events_init();
	event_lock();
	for (unsigned int i = 0; i < nr_synth; i++)
		if (synth_busy_locked(synth_list[i])) {
			ret = -EBUSY;
			goto out;
		}
	while (nr_synth && !ret)
		ret = synth_destroy_locked(synth_list[0]);
out:
	event_unlock();
	return ret;
}

/* --- the command grammar --------------------------------------------------------------------- */

static const char *skip_spaces(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* The kernel's check_command(): "<name> <type> <field>" at least before the first ';'. */
static int check_command(const char *raw)
{
	char *argv[SYNTH_ARGV_MAX + 1];
	char *copy = strdup(raw), *semi;
	int argc, ret = 0;

	if (!copy)
		return -ENOMEM;
	semi = strchr(copy, ';');
	if (semi)
		*semi = '\0';
	if (copy[0] != '!') {
		argc = split_words(copy, argv, SYNTH_ARGV_MAX);
		if (argc >= 0 && argc < 3)
			ret = -EINVAL;
	}
	free(copy);
	return ret;
}

/* A `synthetic_events` line: create_or_delete_synth_event(). event_mutex held. */
static int synth_run_command_locked(const char *raw)
{
	struct synth_cmd c;
	const char *p;
	char *name;
	int ret;

	event_assert_locked();
	raw = skip_spaces(raw);
	if (raw[0] == '\0')
		return 0;
	c.text = raw;
	ret = check_command(raw);
	if (ret) {
		synth_err(&c, SYNTH_ERR_INVALID_CMD, 0);
		return ret;
	}
	p = strpbrk(raw, " \t");
	if (!p && raw[0] != '!') {
		synth_err(&c, SYNTH_ERR_INVALID_CMD, 0);
		return -EINVAL;
	}
	name = strndup(raw, p ? (size_t)(p - raw) : strlen(raw));
	if (!name)
		return -ENOMEM;
	if (name[0] == '!')
		ret = synth_delete_locked(name + 1);
	else
		ret = create_synth_event_locked(&c, name, skip_spaces(p));
	free(name);
	return ret;
}

int synth_run_command(const char *line)
{
	int ret;

	events_init();
	event_lock();
	ret = synth_run_command_locked(line);
	event_unlock();
	return ret;
}

/* "s:[synthetic/]name fields": the kernel's create_synth_event(). event_mutex held. */
static int dyn_create_locked(const char *raw)
{
	const char *name, *p, *fields;
	struct synth_cmd c;
	size_t len;
	char *n;
	int ret;

	event_assert_locked();
	raw = skip_spaces(raw);
	if (raw[0] == '\0')
		return 0;
	c.text = raw;
	if (raw[0] != 's' || raw[1] != ':')
		return -EINVAL; /* no other kind of dynamic event here */
	name = raw + 2;
	p = strpbrk(raw, " \t");
	if (!p) {
		synth_err(&c, SYNTH_ERR_INVALID_CMD, 0);
		return -EINVAL;
	}
	fields = skip_spaces(p);
	if (strchr(name, '/')) {
		if (strncmp(name, SYNTH_SYSTEM "/", sizeof(SYNTH_SYSTEM))) {
			synth_err(&c, SYNTH_ERR_INVALID_DYN_CMD, 0);
			return -EINVAL;
		}
		name += sizeof(SYNTH_SYSTEM);
	}
	len = (size_t)(name - raw);
	ret = check_command(raw + len);
	if (ret) {
		synth_err(&c, SYNTH_ERR_INVALID_CMD, 0);
		return ret;
	}
	if (p < raw + len) {
		/* a blank inside "s:synthetic/": the name is empty */
		synth_err(&c, SYNTH_ERR_INVALID_CMD, 0);
		return -EINVAL;
	}
	n = strndup(raw + len, (size_t)(p - raw) - len);
	if (!n)
		return -ENOMEM;
	ret = create_synth_event_locked(&c, n, fields);
	free(n);
	return ret;
}

/* "-:[system/]name" or "!s:...": the kernel's dyn_event_release(). event_mutex held. */
static int dyn_release_locked(const char *raw)
{
	char *argv[SYNTH_ARGV_MAX + 1];
	char *copy = strdup(raw), *event, *system = NULL, *slash;
	int argc, ret = -ENOENT;
	struct synth_event *se;

	event_assert_locked();
	if (!copy)
		return -ENOMEM;
	argc = split_words(copy, argv, SYNTH_ARGV_MAX);
	if (argc <= 0) {
		ret = -EINVAL;
		goto out;
	}
	if (argv[0][0] == '-') {
		if (argv[0][1] != ':') {
			ret = -EINVAL;
			goto out;
		}
		event = &argv[0][2];
	} else {
		event = strchr(argv[0], ':');
		if (!event) {
			ret = -EINVAL;
			goto out;
		}
		event++;
	}
	slash = strchr(event, '/');
	if (slash) {
		system = event;
		event = slash + 1;
		*slash = '\0';
	}
	if (!system && event[0] == '\0') {
		ret = -EINVAL;
		goto out;
	}
	if (system && strcmp(system, SYNTH_SYSTEM))
		goto out;
	se = synth_lookup_locked(event);
	if (se)
		ret = synth_destroy_locked(se);
out:
	free(copy);
	return ret;
}

/* --- other types of dynamic events (dyn_event_ops) ------------------------------------------ */

static const struct dyn_event_ops *dyn_types[DYN_EVENT_TYPES_MAX]; /* event_mutex */
static unsigned int nr_dyn_types;

int dyn_event_register(const struct dyn_event_ops *ops)
{
	int ret = 0;

	events_init();
	event_lock();
	for (unsigned int i = 0; i < nr_dyn_types; i++)
		if (dyn_types[i] == ops)
			goto out;
	if (nr_dyn_types == DYN_EVENT_TYPES_MAX)
		ret = -ENOSPC;
	else
		dyn_types[nr_dyn_types++] = ops;
out:
	event_unlock();
	return ret;
}

static const struct dyn_event_ops *dyn_type_locked(const char *name)
{
	event_assert_locked();
	for (unsigned int i = 0; i < nr_dyn_types; i++)
		if (!strcmp(dyn_types[i]->name, name))
			return dyn_types[i];
	return NULL;
}

/* "-:[GRP/]EVENT" into @sys (NULL if none) and @ev, in @copy. 0 or -EINVAL. */
static int dyn_split_release(char *copy, char **sys, char **ev)
{
	char *argv[SYNTH_ARGV_MAX + 1], *event, *slash;
	int argc = split_words(copy, argv, SYNTH_ARGV_MAX);

	if (argc <= 0 || argv[0][0] != '-' || argv[0][1] != ':')
		return -EINVAL;
	event = &argv[0][2];
	*sys = NULL;
	slash = strchr(event, '/');
	if (slash) {
		*sys = event;
		*slash = '\0';
		event = slash + 1;
	}
	if (event[0] == '\0')
		return -EINVAL;
	*ev = event;
	return 0;
}

/* A line of another type: -: releases, anything else creates. event_mutex held. */
static int dyn_other_locked(const struct dyn_event_ops *only, const char *line)
{
	int ret = -EINVAL;

	event_assert_locked();
	line = skip_spaces(line);
	if (line[0] == '\0')
		return 0;
	if (line[0] == '-') {
		char *copy = strdup(line), *sys, *ev;

		if (!copy)
			return -ENOMEM;
		ret = dyn_split_release(copy, &sys, &ev);
		if (!ret)
			ret = -ENOENT;
		for (unsigned int i = 0; ret == -ENOENT && i < nr_dyn_types; i++)
			if (!only || dyn_types[i] == only)
				ret = dyn_types[i]->release(sys, ev);
		free(copy);
		return ret;
	}
	for (unsigned int i = 0; i < nr_dyn_types; i++) {
		if (only && dyn_types[i] != only)
			continue;
		ret = dyn_types[i]->create(line);
		if (ret != -ECANCELED)
			return ret;
	}
	return -EINVAL;
}

int dyn_event_type_run(const char *type, const char *line)
{
	const struct dyn_event_ops *ops;
	int ret = -ENODEV;

	events_init();
	event_lock();
	ops = dyn_type_locked(type);
	if (ops)
		ret = dyn_other_locked(ops, line);
	event_unlock();
	return ret;
}

int dyn_event_type_release_all(const char *type)
{
	const struct dyn_event_ops *ops;
	int ret = -ENODEV;

	events_init();
	event_lock();
	ops = dyn_type_locked(type);
	if (ops) {
		ret = ops->release_all(true);
		if (!ret)
			ret = ops->release_all(false);
	}
	event_unlock();
	return ret;
}

/* The lines of @only (NULL: every other type) into a malloc'd string. event_mutex held. */
static long dyn_show_locked(const struct dyn_event_ops *only, char **textp)
{
	event_assert_locked();
	for (size_t cap = 4096; cap <= (16u << 20); cap *= 2) {
		struct evt_seq s;
		char *buf = malloc(cap);

		if (!buf)
			return -ENOMEM;
		evt_seq_init(&s, buf, cap);
		for (unsigned int i = 0; i < nr_dyn_types; i++)
			if (!only || dyn_types[i] == only)
				dyn_types[i]->show(&s);
		if (!s.full) {
			*textp = buf;
			return (long)s.len;
		}
		free(buf);
	}
	return -ENOMEM;
}

long dyn_event_type_show(const char *type, char **textp)
{
	const struct dyn_event_ops *ops;
	long ret = -ENODEV;

	events_init();
	event_lock();
	ops = dyn_type_locked(type);
	if (ops)
		ret = dyn_show_locked(ops, textp);
	event_unlock();
	return ret;
}

int dyn_event_release_all(void)
{
	int ret = 0;

	events_init();
	event_lock();
	for (unsigned int i = 0; i < nr_synth && !ret; i++)
		if (synth_busy_locked(synth_list[i]))
			ret = -EBUSY;
	for (unsigned int i = 0; i < nr_dyn_types && !ret; i++)
		ret = dyn_types[i]->release_all(true);
	while (nr_synth && !ret)
		ret = synth_destroy_locked(synth_list[0]);
	for (unsigned int i = 0; i < nr_dyn_types && !ret; i++)
		ret = dyn_types[i]->release_all(false);
	event_unlock();
	return ret;
}

int dynevent_run_command(const char *line)
{
	const char *p = skip_spaces(line);
	int ret;

	events_init();
	event_lock();
	if (p[0] == '!' || (p[0] == 's' && p[1] == ':') || p[0] == '\0')
		ret = p[0] == '!' ? dyn_release_locked(p) : dyn_create_locked(p);
	else if (p[0] == '-') {
		ret = dyn_release_locked(p);
		if (ret == -ENOENT && nr_dyn_types)
			ret = dyn_other_locked(NULL, p);
	} else {
		ret = dyn_other_locked(NULL, p);
	}
	event_unlock();
	return ret;
}

/*
 * The kernel's WRITE_BUFSIZE: it reads a write 4095 bytes at a time, so a line is at most
 * 4094 bytes and its newline, or 4095 bytes at the very end of the write.
 */
#define SYNTH_WRITE_BUFSIZE 4096

long synth_parse_run(const char *buf, size_t len, int (*fn)(const char *line))
{
	size_t done = 0;
	char *line;
	int ret;

	line = malloc(SYNTH_WRITE_BUFSIZE);
	if (!line)
		return -ENOMEM;
	while (done < len) {
		const char *start = buf + done, *nl;
		size_t avail = len - done, n;
		char *hash;

		nl = memchr(start, '\n',
			    avail < SYNTH_WRITE_BUFSIZE - 1 ? avail : SYNTH_WRITE_BUFSIZE - 1);
		if (nl) {
			n = (size_t)(nl - start);
			done += n + 1;
		} else {
			if (avail > SYNTH_WRITE_BUFSIZE - 1) {
				free(line);
				return -EINVAL; /* "Line length is too long" */
			}
			n = avail;
			done += n;
		}
		memcpy(line, start, n);
		line[n] = '\0';
		/* a NUL in the write ends the line there, as the kernel's strchr() does */
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		ret = fn(line);
		if (ret) {
			free(line);
			return ret;
		}
	}
	free(line);
	return (long)len;
}

/* --- listing ------------------------------------------------------------------------------- */

long synth_show(bool dyn, char **textp)
{
	size_t cap = 256, len = 0;
	char *out;

	events_init();
	event_lock();
	for (unsigned int i = 0; i < nr_synth; i++) {
		cap += strlen(synth_list[i]->name) + 32;
		for (unsigned int j = 0; j < synth_list[i]->n_fields; j++)
			cap += strlen(synth_list[i]->fields[j].type) +
			       strlen(synth_list[i]->fields[j].name) + 4;
	}
	out = malloc(cap);
	if (!out) {
		event_unlock();
		return -ENOMEM;
	}
	out[0] = '\0';
	for (unsigned int i = 0; i < nr_synth; i++) {
		const struct synth_event *se = synth_list[i];

		if (dyn)
			len += (size_t)snprintf(out + (len < cap ? len : cap),
						len < cap ? cap - len : 0, "s:%s/", SYNTH_SYSTEM);
		len += (size_t)snprintf(out + (len < cap ? len : cap), len < cap ? cap - len : 0,
					"%s\t", se->name);
		for (unsigned int j = 0; j < se->n_fields; j++)
			len += (size_t)snprintf(out + (len < cap ? len : cap),
						len < cap ? cap - len : 0, "%s %s%s",
						se->fields[j].type, se->fields[j].name,
						j == se->n_fields - 1 ? "" : "; ");
		len += (size_t)snprintf(out + (len < cap ? len : cap), len < cap ? cap - len : 0,
					"\n");
	}
	if (dyn && nr_dyn_types && len < cap) {
		char *more = NULL, *joined;
		long n = dyn_show_locked(NULL, &more);

		if (n < 0 || !(joined = realloc(out, len + (size_t)n + 1))) {
			free(more);
			free(out);
			event_unlock();
			return n < 0 ? n : -ENOMEM;
		}
		out = joined;
		memcpy(out + len, more, (size_t)n + 1);
		len += (size_t)n;
		cap = len + 1;
		free(more);
	}
	event_unlock();
	if (len >= cap) { /* cannot happen: cap counts every piece above */
		free(out);
		return -ENOMEM;
	}
	*textp = out;
	return (long)len;
}

/* --- writing records ----------------------------------------------------------------------- */

static const char synth_fault[] = "(fault)";

/*
 * Bytes a stacktrace takes: its entries up to the first 0 or SYNTH_STACK_MAX, and the 0 if
 * it fits (the kernel's trace_stack()).
 */
static size_t synth_stack_len(const unsigned long *stack)
{
	size_t n = 0;

	if (!stack)
		return 0;
	while (n < SYNTH_STACK_MAX && stack[n])
		n++;
	if (n < SYNTH_STACK_MAX)
		n++;
	return n * sizeof(long);
}

/* Bytes of dynamic data the values need. */
size_t synth_dyn_size(const struct synth_event *se, const uint64_t *vals)
{
	size_t total = 0;

	for (unsigned int i = 0; i < se->n_fields; i++) {
		const struct synth_field *f = &se->fields[i];

		if (!f->is_dynamic)
			continue;
		if (f->is_stack) {
			total += synth_stack_len((const unsigned long *)(uintptr_t)vals[i]);
		} else if (f->is_array) {
			const struct evt_synth_u64_array *a =
				(const struct evt_synth_u64_array *)(uintptr_t)vals[i];
			unsigned int nr = a && a->vals ? a->nr : 0;

			total += 8u * (nr < SYNTH_ARRAY_MAX ? nr : SYNTH_ARRAY_MAX);
		} else {
			const char *s = (const char *)(uintptr_t)vals[i];

			total += strnlen(s ? s : synth_fault, SYNTH_DYN_STR_MAX - 1) + 1;
		}
	}
	return total;
}

static void put_loc(char *slot, size_t off, size_t len)
{
	uint32_t loc = evt_data_loc_make((uint16_t)off, (uint16_t)len);

	memcpy(slot, &loc, sizeof(loc));
}

/* Store @val in the slot of @f (static fields). */
void synth_put_val(char *rec, const struct synth_field *f, uint64_t val)
{
	char *slot = rec + f->offset;

	if (f->is_string) {
		const char *s = (const char *)(uintptr_t)val;
		size_t n;

		if (!s)
			s = synth_fault;
		n = strnlen(s, SYNTH_STR_LEN_MAX - 1);
		memcpy(slot, s, n);
		memset(slot + n, 0, SYNTH_STR_LEN_MAX - n);
		return;
	}
	memset(slot, 0, 8);
	switch (f->size) {
	case 1: {
		uint8_t v = (uint8_t)val;

		memcpy(slot, &v, 1);
		break;
	}
	case 2: {
		uint16_t v = (uint16_t)val;

		memcpy(slot, &v, 2);
		break;
	}
	case 4: {
		uint32_t v = (uint32_t)val;

		memcpy(slot, &v, 4);
		break;
	}
	default:
		memcpy(slot, &val, 8);
		break;
	}
}

/* Fill a whole record of @se (@rec: the reserved record, common fields set). */
void synth_fill(const struct synth_event *se, char *rec, const uint64_t *vals)
{
	size_t dyn = se->size;

	for (unsigned int i = 0; i < se->n_fields; i++) {
		const struct synth_field *f = &se->fields[i];
		char *slot = rec + f->offset;

		if (!f->is_dynamic) {
			synth_put_val(rec, f, vals[i]);
			continue;
		}
		memset(slot, 0, 8);
		if (f->is_stack) {
			const unsigned long *stack = (const unsigned long *)(uintptr_t)vals[i];
			size_t bytes = synth_stack_len(stack);

			if (bytes)
				memcpy(rec + dyn, stack, bytes);
			put_loc(slot, dyn, bytes);
			dyn += bytes;
		} else if (f->is_array) {
			const struct evt_synth_u64_array *a =
				(const struct evt_synth_u64_array *)(uintptr_t)vals[i];
			unsigned int nr = a && a->vals ? a->nr : 0;
			size_t bytes;

			if (nr > SYNTH_ARRAY_MAX)
				nr = SYNTH_ARRAY_MAX;
			bytes = 8u * nr;
			if (bytes)
				memcpy(rec + dyn, a->vals, bytes);
			put_loc(slot, dyn, bytes);
			dyn += bytes;
		} else {
			const char *s = (const char *)(uintptr_t)vals[i];
			size_t n;

			if (!s)
				s = synth_fault;
			n = strnlen(s, SYNTH_DYN_STR_MAX - 1);
			memcpy(rec + dyn, s, n);
			rec[dyn + n] = '\0';
			put_loc(slot, dyn, n + 1);
			dyn += n + 1;
		}
	}
}

int synth_event_trace_vals(struct synth_event *se, const uint64_t *vals, unsigned int n)
{
	struct evt_trace_event_buffer fb;
	size_t len;
	bool nested;
	void *rec;

	if (unlikely(!se || n != se->n_fields || (n && !vals)))
		return -EINVAL;
	len = se->size + (se->n_dynamic ? synth_dyn_size(se, vals) : 0);
	nested = event_trace_nest_start();
	for (rec = evt_trace_event_reserve(&fb, &se->def, len); rec;
	     rec = evt_trace_event_commit(&fb))
		synth_fill(se, rec, vals);
	event_trace_nest_end(nested);
	return 0;
}

/* --- printing (the kernel's print_synth_event()) ---------------------------------------------- */

static uint64_t rec_uint(const unsigned char *rec, size_t len, size_t off, unsigned int size)
{
	uint64_t v = 0;

	if (off + size > len)
		return 0;
	switch (size) {
	case 1:
		return rec[off];
	case 2: {
		uint16_t x;

		memcpy(&x, rec + off, 2);
		return x;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, rec + off, 4);
		return x;
	}
	default:
		memcpy(&v, rec + off, 8);
		return v;
	}
}

/* "=> sym+0xoff\n" (the kernel's %pS), or the address when there is no symbol. */
static void print_sym(struct evt_seq *s, uint64_t addr)
{
	Dl_info info;

	if (dladdr((void *)(uintptr_t)addr, &info) && info.dli_sname) {
		uint64_t off = addr - (uint64_t)(uintptr_t)info.dli_saddr;

		if (off)
			evt_seq_printf(s, "=> %s+0x%llx\n", info.dli_sname,
				       (unsigned long long)off);
		else
			evt_seq_printf(s, "=> %s\n", info.dli_sname);
	} else {
		evt_seq_printf(s, "=> 0x%llx\n", (unsigned long long)addr);
	}
}

/*
 * A __data_loc field's bytes in the record: their offset in *@off, their count
 * as the return, cut at the record's end (none when they start past it).
 */
static size_t rec_dyn(const unsigned char *rec, size_t len, const struct evt_field *f, size_t *off)
{
	uint32_t loc = (uint32_t)rec_uint(rec, len, f->offset, 4);
	size_t o = evt_data_loc_offset(loc), bytes = evt_data_loc_len(loc);

	if (o > len)
		o = len;
	if (bytes > len - o)
		bytes = len - o;
	*off = o;
	return bytes;
}

static int synth_print_record(const struct evt_event *ev, const void *recp, size_t len,
			      struct evt_seq *s)
{
	const unsigned char *rec = recp;
	unsigned int n = ev->nr_fields - ev->nr_common;

	for (unsigned int i = 0; i < n; i++) {
		const struct evt_field *f = &ev->fields[ev->nr_common + i];
		const char *space = i == n - 1 ? "" : " ";

		if (s->full)
			break;
		if (f->kind == EVT_FIELD_STRING || f->kind == EVT_FIELD_DYN_STRING) {
			size_t off = f->offset, max = SYNTH_STR_LEN_MAX, bytes;

			if (f->kind == EVT_FIELD_DYN_STRING) {
				bytes = rec_dyn(rec, len, f, &off);
				if (bytes < max)
					max = bytes;
			} else {
				if (off > len)
					off = len;
				if (max > len - off)
					max = len - off;
			}
			evt_seq_printf(s, "%s=%.*s%s", f->name,
				       (int)strnlen((const char *)rec + off, max),
				       (const char *)rec + off, space);
		} else if (f->kind == EVT_FIELD_DYN_ARRAY && type_is_stack(f->type)) {
			size_t off, bytes = rec_dyn(rec, len, f, &off);

			/* the kernel's: "name=STACK:\n" and "=> %pS\n" per entry, up to a 0 */
			evt_seq_printf(s, "%s=STACK:\n", f->name);
			for (size_t j = 0; j + sizeof(long) <= bytes; j += sizeof(long)) {
				uint64_t addr = rec_uint(rec, len, off + j, sizeof(long));

				if (!addr)
					break;
				print_sym(s, addr);
			}
		} else if (f->kind == EVT_FIELD_DYN_ARRAY) {
			size_t off, bytes = rec_dyn(rec, len, f, &off);

			evt_seq_printf(s, "%s={", f->name);
			for (size_t j = 0; j + 8 <= bytes; j += 8)
				evt_seq_printf(s, "%s0x%llx", j ? "," : "",
					       (unsigned long long)rec_uint(rec, len, off + j, 8));
			evt_seq_printf(s, "}%s", space);
		} else {
			uint64_t v = rec_uint(rec, len, f->offset, f->size);
			const char *fmt = synth_field_fmt(f->type);

			/* As the kernel: a value of 1, 2 or 4 bytes is passed zero-extended to
			 * a 32-bit conversion (an s8 of -1 prints 255, an s32 of -1 prints -1). */
			if (f->size <= 4) {
				if (!strcmp(fmt, "%d"))
					evt_seq_printf(s, "%s=%d%s", f->name, (int)(uint32_t)v,
						       space);
				else if (!strcmp(fmt, "%x"))
					evt_seq_printf(s, "%s=%x%s", f->name, (unsigned int)v,
						       space);
				else
					evt_seq_printf(s, "%s=%u%s", f->name, (unsigned int)v,
						       space);
			} else if (!strcmp(fmt, "%lld") || !strcmp(fmt, "%ld") ||
				   !strcmp(fmt, "%d")) {
				evt_seq_printf(s, "%s=%lld%s", f->name, (long long)v, space);
			} else {
				evt_seq_printf(s, "%s=%llu%s", f->name, (unsigned long long)v,
					       space);
			}
			if (!strcmp(f->type, "gfp_t")) {
				/* The kernel decodes the GFP flag names; there are none here. */
				if (v)
					evt_seq_printf(s, " (0x%llx)", (unsigned long long)v);
				else
					evt_seq_puts(s, " ()");
			}
		}
	}
	return s->full ? -ENOSPC : 0;
}
