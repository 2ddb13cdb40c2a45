// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe.c - probe events: the `p:` and `r:` definitions of
 * kprobe_events and dynamic_events (the kernel's trace_kprobe.c, read for
 * its grammar, names and messages), their events (system "kprobes" or the
 * group given), the hit handlers and the printer.
 *
 * Lifetime: a probe lives in probe_list (event_mutex) from creation to
 * deletion. Its code is patched at creation and restored at deletion
 * (refused with -EBUSY while an instance records the event). A hit reads
 * the probe through its site under rcu_lock(); deletion unpublishes it and
 * frees it after a grace period (event_gc_add()). Return probes pending on
 * some thread's shadow stack find it through probe_live[] by slot and serial.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/rcu.h"
#include "events/error_log.h"
#include "events/event_internal.h"
#include "probe/probe.h"
#include "synth/synth.h"

#define PROBES_MAX	 1024
#define PROBE_SCRATCH	 2048 /* bytes of fetched values at a hit, on the thread's stack */
#define PROBE_LOG_LOC	 "trace_kprobe"

struct probe {
	char *group;
	char *event;
	char *symbol;	 /* as written: [LIB:]SYM */
	uint64_t offset;
	bool is_return;
	unsigned int maxactive;
	struct probe_sym sym;
	uint64_t addr;	 /* the patched address (after an endbr64) */
	struct probe_site *site;
	struct probe_arg *args[PROBE_ARGS_MAX];
	unsigned int nargs;
	bool args_given; /* to a ghost */
	unsigned int fixed; /* bytes of the record without dynamic data */
	unsigned int slot;
	uint32_t serial;
	uint64_t nmissed; /* relaxed atomic */
	/* the event */
	struct evt_event_def def;
	struct evt_field *efields;
	char *print_fmt;
	uint8_t key;
};

/*
 * What the printer keeps of a deleted probe (its records stay in the buffers): the event,
 * the kind and the arguments. Kept for the life of the process, as the zombie event is.
 */
struct probe_ghost {
	struct probe_ghost *next;
	const struct evt_event *ev;
	bool is_return;
	unsigned int nargs;
	struct probe_arg *args[];
};

static struct probe_ghost *ghosts; /* print_mutex */
static struct probe *probe_list[PROBES_MAX]; /* creation order, event_mutex */
static unsigned int nr_probes;
static struct probe *probe_live[PROBES_MAX]; /* by slot, RCU */
static uint32_t next_serial;
/* Readers (the printer) look probes up under this too; deletion unlinks under it. */
static pthread_mutex_t print_mutex = PTHREAD_MUTEX_INITIALIZER;

bool probe_live_rcu(struct probe *p, unsigned int slot, uint32_t serial)
{
	return slot < PROBES_MAX && rcu_deref(probe_live[slot]) == p && p->serial == serial;
}

void probe_ret_lost(struct probe *p, unsigned int slot, uint32_t serial)
{
	rcu_lock();
	if (probe_live_rcu(p, slot, serial))
		add_relaxed(&p->nmissed, 1); /* a count only */
	rcu_unlock();
}

void probe_ident(const struct probe *p, unsigned int *slot, uint32_t *serial)
{
	*slot = p->slot;
	*serial = p->serial;
}

static void probe_free(struct probe *p)
{
	if (!p)
		return;
	for (unsigned int i = 0; !p->args_given && i < p->nargs; i++)
		probe_arg_free(p->args[i]);
	free(p->group);
	free(p->event);
	free(p->symbol);
	free(p->efields);
	free(p->print_fmt);
	free(p);
}

static void probe_free_void(void *p)
{
	probe_free(p);
}

/* --- hits (writer context) ------------------------------------------------------------------ */

static void probe_write(struct probe *p, struct probe_ctx *ctx, uint64_t a, uint64_t b)
{
	struct evt_trace_event_buffer fb;
	char scratch[PROBE_SCRATCH];
	size_t n, args_fixed;
	bool nested;
	char *rec;

	n = probe_args_fetch(p->args, p->nargs, ctx, scratch, sizeof(scratch));
	args_fixed = p->fixed - sizeof(struct evt_trace_entry) - (p->is_return ? 16 : 8);
	nested = event_trace_nest_start();
	for (rec = evt_trace_event_reserve(&fb, &p->def, p->fixed + (n - args_fixed)); rec;
	     rec = evt_trace_event_commit(&fb)) {
		memcpy(rec + sizeof(struct evt_trace_entry), &a, 8);
		if (p->is_return)
			memcpy(rec + sizeof(struct evt_trace_entry) + 8, &b, 8);
		probe_args_store(p->args, p->nargs, scratch, rec, p->fixed);
	}
	event_trace_nest_end(nested);
}

static void probe_hit(struct probe *p, struct probe_ctx *ctx)
{
	/* Relaxed: the key only says whether to try; reserve checks the instances under RCU. */
	if (!ld_relaxed(&p->key))
		return;
	if (p->is_return) {
		if (!probe_ret_hijack(p, ctx, p->maxactive))
			add_relaxed(&p->nmissed, 1); /* a count only */
		return;
	}
	probe_write(p, ctx, ctx->ip, 0);
}

void probe_ret_record(struct probe *p, struct probe_ctx *ctx, uint64_t func, uint64_t ret_ip)
{
	if (ld_relaxed(&p->key)) /* as probe_hit() */
		probe_write(p, ctx, func, ret_ip);
}

/* --- printing ------------------------------------------------------------------------------ */

/* A record of a deleted probe: its types are gone, its fields say enough. */
static int probe_print_zombie(const struct evt_event *ev, const unsigned char *rec, size_t len,
			      struct evt_seq *s)
{
	unsigned int i = ev->nr_common, nfix = 1;
	uint64_t v[2] = { 0, 0 };
	char a[256], b[256];

	if (i + 1 < ev->nr_fields && !strcmp(ev->fields[i].name, "__probe_func"))
		nfix = 2;
	for (unsigned int j = 0; j < nfix && i + j < ev->nr_fields; j++)
		if (ev->fields[i + j].offset + 8u <= len)
			memcpy(&v[j], rec + ev->fields[i + j].offset, 8);
	probe_sym_format(nfix == 2 ? v[1] : v[0], true, a, sizeof(a));
	probe_sym_format(v[0], false, b, sizeof(b));
	if (nfix == 2)
		evt_seq_printf(s, "(%s <- %s)", a, b);
	else
		evt_seq_printf(s, "(%s)", a);
	for (i += nfix; i < ev->nr_fields; i++) {
		const struct evt_field *f = &ev->fields[i];
		uint64_t x = 0;

		if (f->kind == EVT_FIELD_DYN_STRING) {
			uint32_t loc = 0;
			size_t off, n;

			if (f->offset + 4u <= len)
				memcpy(&loc, rec + f->offset, 4);
			off = evt_data_loc_offset(loc);
			n = evt_data_loc_len(loc);
			if (!n || off > len || n > len - off)
				evt_seq_printf(s, " %s=(fault)", f->name);
			else
				evt_seq_printf(s, " %s=\"%.*s\"", f->name,
					       (int)strnlen((const char *)rec + off, n),
					       (const char *)rec + off);
			continue;
		}
		if (f->kind != EVT_FIELD_INT || f->offset + (size_t)f->size > len)
			continue;
		memcpy(&x, rec + f->offset, f->size);
		if (f->is_signed && f->size < 8 && (x >> (f->size * 8 - 1)) & 1)
			x |= ~0ull << (f->size * 8);
		if (f->is_signed)
			evt_seq_printf(s, " %s=%lld", f->name, (long long)x);
		else
			evt_seq_printf(s, " %s=0x%llx", f->name, (unsigned long long)x);
	}
	return s->full ? -ENOSPC : 0;
}

/* "(compute+0x0/0x12)" or "(main+0x4f/0x90 <- compute)". */
static void probe_print_head(bool is_return, const unsigned char *rec, size_t len,
			     struct evt_seq *s)
{
	uint64_t v1 = 0, v2 = 0;
	char a[256], b[256];

	if (len >= sizeof(struct evt_trace_entry) + 8)
		memcpy(&v1, rec + sizeof(struct evt_trace_entry), 8);
	if (is_return && len >= sizeof(struct evt_trace_entry) + 16)
		memcpy(&v2, rec + sizeof(struct evt_trace_entry) + 8, 8);
	if (is_return) {
		probe_sym_format(v2, true, a, sizeof(a));
		probe_sym_format(v1, false, b, sizeof(b));
		evt_seq_printf(s, "(%s <- %s)", a, b);
	} else {
		probe_sym_format(v1, true, a, sizeof(a));
		evt_seq_printf(s, "(%s)", a);
	}
}

static int probe_print(const struct evt_event *ev, const void *recp, size_t len, struct evt_seq *s)
{
	const unsigned char *rec = recp;
	struct probe *p = NULL;

	pthread_mutex_lock(&print_mutex);
	for (unsigned int i = 0; i < nr_probes; i++)
		if (probe_list[i]->def.event == ev)
			p = probe_list[i];
	if (!p) { /* deleted: what its ghost kept, or the fields alone */
		const struct probe_ghost *g = ghosts;

		while (g && g->ev != ev)
			g = g->next;
		if (!g) {
			pthread_mutex_unlock(&print_mutex);
			return probe_print_zombie(ev, rec, len, s);
		}
		probe_print_head(g->is_return, rec, len, s);
		probe_args_print_args((struct probe_arg **)g->args, g->nargs, recp, len, s);
		pthread_mutex_unlock(&print_mutex);
		return s->full ? -ENOSPC : 0;
	}
	probe_print_head(p->is_return, rec, len, s);
	probe_args_print_args(p->args, p->nargs, recp, len, s);
	pthread_mutex_unlock(&print_mutex);
	return s->full ? -ENOSPC : 0;
}

/* --- errors -------------------------------------------------------------------------------- */

/* The command as the kernel logs it (argv joined by single spaces) and where each word starts. */
struct pcmd {
	char *text;
	unsigned int pos[PROBE_ARGS_MAX + 3];
	int argc;
	char *argv[PROBE_ARGS_MAX + 3];
	char *copy;
};

static void perr(const struct pcmd *c, int argi, unsigned int off, const char *msg)
{
	struct error_log *log = instance_error_log(instance_top_locked());

	if (log && c->text)
		error_log_add(log, PROBE_LOG_LOC, msg, c->text,
			      (argi < c->argc ? c->pos[argi] : (unsigned int)strlen(c->text)) + off);
}

static int split(struct pcmd *c, const char *line)
{
	size_t len = 0;
	char *s;

	memset(c, 0, sizeof(*c));
	c->copy = strdup(line);
	c->text = calloc(1, strlen(line) + 1);
	if (!c->copy || !c->text)
		return -ENOMEM;
	for (s = strtok(c->copy, " \t"); s; s = strtok(NULL, " \t")) {
		if (c->argc == PROBE_ARGS_MAX + 2)
			return -E2BIG;
		c->pos[c->argc] = (unsigned int)len;
		c->argv[c->argc++] = s;
		len += (size_t)sprintf(c->text + len, "%s%s", len ? " " : "", s);
		if (c->argc > 1)
			c->pos[c->argc - 1]++;
	}
	return 0;
}

static void pcmd_free(struct pcmd *c)
{
	free(c->copy);
	free(c->text);
}

static bool good_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (*++s)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static struct probe *find_locked(const char *group, const char *event)
{
	event_assert_locked();
	for (unsigned int i = 0; i < nr_probes; i++)
		if ((!group || !strcmp(probe_list[i]->group, group)) &&
		    !strcmp(probe_list[i]->event, event))
			return probe_list[i];
	return NULL;
}

/* --- creation ------------------------------------------------------------------------------ */

/* "p[:[GRP/]EVENT]" or "r[N][:...]" into @p. 0 or -EINVAL (logged). */
static int parse_head(struct pcmd *c, struct probe *p)
{
	const char *h = c->argv[0], *colon = strchr(h, ':');
	char *end;

	p->is_return = h[0] == 'r';
	if (isdigit((unsigned char)h[1])) {
		unsigned long v;

		if (!p->is_return) {
			perr(c, 0, 1, "Maxactive is not for kprobe");
			return -EINVAL;
		}
		v = strtoul(h + 1, &end, 10);
		if ((*end && *end != ':') || v > 4096) {
			perr(c, 0, 1, v > 4096 && (!*end || *end == ':') ? "Maxactive is too big" :
						       "Invalid maxactive number");
			return -EINVAL;
		}
		p->maxactive = (unsigned int)v;
	} else if (h[1] && h[1] != ':') {
		return -ECANCELED;
	}
	if (colon) {
		const char *ev = colon + 1, *slash = strchr(ev, '/');

		if (slash) {
			if (slash == ev) {
				perr(c, 0, (unsigned int)(ev - h), "Group name is not specified");
				return -EINVAL;
			}
			if (slash - ev >= PROBE_NAME_MAX) {
				perr(c, 0, (unsigned int)(ev - h), "Group name is too long");
				return -EINVAL;
			}
			p->group = strndup(ev, (size_t)(slash - ev));
			if (!p->group)
				return -ENOMEM;
			if (!good_name(p->group)) {
				perr(c, 0, (unsigned int)(ev - h),
				     "Group name must follow the same rules as C identifiers");
				return -EINVAL;
			}
			ev = slash + 1;
		}
		if (!*ev) {
			perr(c, 0, (unsigned int)(ev - h), "Event name is not specified");
			return -EINVAL;
		}
		if (strlen(ev) >= PROBE_NAME_MAX) {
			perr(c, 0, (unsigned int)(ev - h), "Event name is too long");
			return -EINVAL;
		}
		if (!good_name(ev)) {
			perr(c, 0, (unsigned int)(ev - h),
			     "Event name must follow the same rules as C identifiers");
			return -EINVAL;
		}
		p->event = strdup(ev);
		if (!p->event)
			return -ENOMEM;
	}
	return 0;
}

/* "[LIB:]SYM[+OFFS]" or "SYM%return" into @p; the symbol looked up when @resolve. */
static int parse_target(struct pcmd *c, struct probe *p, bool resolve)
{
	char *sym = strdup(c->argv[1]), *plus, *pct, *colon, *lib = NULL, *name;
	int ret = -EINVAL;

	if (!sym)
		return -ENOMEM;
	pct = strchr(sym, '%');
	if (pct) {
		if (strcmp(pct, "%return")) {
			perr(c, 1, (unsigned int)(pct - sym), "Invalid probed address suffix");
			goto out;
		}
		*pct = '\0';
		p->is_return = true;
	}
	plus = strchr(sym, '+');
	if (plus) {
		char *end;

		*plus = '\0';
		p->offset = strtoull(plus + 1, &end, 0);
		if (*end || plus[1] == '\0') {
			perr(c, 1, 0, "Invalid probed address or symbol");
			goto out;
		}
	}
	p->symbol = strdup(sym);
	if (!p->symbol) {
		ret = -ENOMEM;
		goto out;
	}
	if (p->is_return && p->offset) {
		perr(c, 1, 0, "Retprobe address must be an function entry");
		goto out;
	}
	colon = strchr(sym, ':');
	name = sym;
	if (colon) {
		*colon = '\0';
		lib = sym;
		name = colon + 1;
	}
	ret = resolve ? probe_sym_lookup(lib, name, &p->sym) : *name ? 0 : -ENOENT;
	if (ret == -EADDRNOTAVAIL) {
		perr(c, 1, 0, "The symbol is not unique");
		goto out;
	}
	if (ret) {
		perr(c, 1, 0, "Invalid probed address or symbol");
		goto out;
	}
	if (p->sym.size && p->offset >= p->sym.size) {
		perr(c, 1, 0, "Invalid probed address or symbol");
		ret = -EINVAL;
		goto out;
	}
	p->addr = p->sym.addr + p->offset;
	if (!p->event) { /* the kernel's name: p_SYM_OFFS, non-identifier bytes as '_' */
		char *n;

		if (asprintf(&p->event, "%c_%s_%llu", p->is_return ? 'r' : 'p', p->symbol,
			     (unsigned long long)p->offset) < 0) {
			p->event = NULL;
			ret = -ENOMEM;
			goto out;
		}
		for (n = p->event; *n; n++)
			if (!isalnum((unsigned char)*n) && *n != '_')
				*n = '_';
		if (strlen(p->event) >= PROBE_NAME_MAX)
			p->event[PROBE_NAME_MAX - 1] = '\0';
	}
	ret = 0;
out:
	free(sym);
	return ret;
}

/* Our own code and the dynamic linker's run inside every hit: never patched. */
static bool forbidden(uint64_t addr)
{
	Dl_info self, that;

	if (!dladdr((void *)(uintptr_t)addr, &that) || !that.dli_fname)
		return false;
	if (dladdr((void *)(uintptr_t)probe_hit, &self) && self.dli_fbase == that.dli_fbase &&
	    (strchr(self.dli_fname, '/') ? strstr(self.dli_fname, "libevtrace") != NULL : false))
		return true;
	return strstr(that.dli_fname, "/ld-linux") || strstr(that.dli_fname, "liburcu") ||
	       strstr(that.dli_fname, "libZydis");
}

static int probe_setup_event(struct probe *p)
{
	unsigned int off = sizeof(struct evt_trace_entry), nfix = p->is_return ? 2 : 1;
	size_t fmtlen = 256 + 64 * (size_t)p->nargs;

	p->efields = calloc(p->nargs + nfix, sizeof(*p->efields));
	p->print_fmt = calloc(1, fmtlen);
	if (!p->efields || !p->print_fmt)
		return -ENOMEM;
	for (unsigned int i = 0; i < nfix; i++) {
		struct evt_field *f = &p->efields[i];

		f->type = "unsigned long";
		f->name = !p->is_return ? "__probe_ip" : i ? "__probe_ret_ip" : "__probe_func";
		f->offset = (uint16_t)off;
		f->size = f->elem_size = 8;
		f->kind = EVT_FIELD_INT;
		off += 8;
	}
	p->fixed = probe_args_layout(p->args, p->nargs, off, p->efields + nfix);
	snprintf(p->print_fmt, fmtlen, "\"%s", p->is_return ? "(%lx <- %lx)" : "(%lx)");
	if (probe_args_print_fmt(p->args, p->nargs, p->print_fmt, fmtlen,
				 p->is_return ? ", REC->__probe_func, REC->__probe_ret_ip" :
						", REC->__probe_ip"))
		return -E2BIG;
	p->def.abi = EVT_EVENT_DEF_ABI;
	p->def.size = p->fixed;
	p->def.system = p->group;
	p->def.name = p->event;
	p->def.fields = p->efields;
	p->def.nr_fields = p->nargs + nfix;
	p->def.print_fmt = p->print_fmt;
	p->def.key = &p->key;
	return 0;
}

static int parse_args(struct pcmd *c, struct probe *p, bool resolve)
{
	unsigned int flags = (p->is_return ? PROBE_ARG_RETURN : 0) |
			     (p->offset == 0 ? PROBE_ARG_ENTRY : 0) | (resolve ? 0 : PROBE_ARG_NOSYMS);

	for (int i = 2; i < c->argc; i++) {
		struct probe_err err;
		int ret;

		ret = probe_arg_parse(c->argv[i], (unsigned int)(i - 2), flags, &p->args[p->nargs],
				      &err);
		if (ret) {
			if (err.msg)
				perr(c, i, err.pos, err.msg);
			return ret;
		}
		p->nargs++;
		for (unsigned int j = 0; j + 1 < p->nargs; j++)
			if (!strcmp(probe_arg_name(p->args[j]), probe_arg_name(p->args[p->nargs - 1]))) {
				perr(c, i, 0, "This argument name is already used");
				return -EINVAL;
			}
	}
	return 0;
}

static int free_slot_locked(void)
{
	event_assert_locked();
	for (unsigned int i = 0; i < PROBES_MAX; i++)
		if (!probe_live[i])
			return (int)i;
	return -ENOSPC;
}

/*
 * Split @line into @c and parse it into a new *@pp: the head, the location (its symbol
 * looked up when @resolve), the arguments. -ECANCELED: not a probe line; 0 with *@pp
 * NULL: an empty line. On error *@pp is freed (NULL); @c is always to be freed.
 */
static int probe_parse(const char *line, struct pcmd *c, struct probe **pp, bool resolve)
{
	struct probe *p;
	int ret;

	*pp = NULL;
	ret = split(c, line);
	if (ret || c->argc == 0 || (c->argv[0][0] != 'p' && c->argv[0][0] != 'r'))
		return ret ? ret : c->argc ? -ECANCELED : 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	ret = parse_head(c, p);
	if (!ret && c->argc < 2) {
		perr(c, 1, 0, "Invalid probed address or symbol");
		ret = -EINVAL;
	}
	if (!ret && !p->group && !(p->group = strdup(PROBE_GROUP_DEFAULT)))
		ret = -ENOMEM;
	if (!ret)
		ret = parse_target(c, p, resolve);
	if (!ret)
		ret = parse_args(c, p, resolve);
	if (ret)
		probe_free(p);
	else
		*pp = p;
	return ret;
}

static int probe_create_locked(const char *line)
{
	struct probe *p = NULL;
	const char *why = NULL;
	struct pcmd c;
	int ret, slot;

	event_assert_locked();
	ret = probe_parse(line, &c, &p, true);
	if (ret || !p)
		goto err;
	if (find_locked(p->group, p->event) || event_find_locked(p->group, p->event)) {
		perr(&c, 0, 0, "Given group/event name is already used by another event");
		ret = -EEXIST;
		goto err;
	}
	if (forbidden(p->addr)) {
		perr(&c, 1, 0, "Invalid probed address or symbol");
		ret = -EPERM;
		goto err;
	}
	ret = probe_setup_event(p);
	if (!ret && p->is_return)
		ret = probe_ret_prepare();
	if (ret)
		goto err;
	slot = free_slot_locked();
	if (slot < 0 || nr_probes == PROBES_MAX) {
		ret = -ENOSPC;
		goto err;
	}
	p->slot = (unsigned int)slot;
	p->serial = ++next_serial;
	ret = event_register_locked(&p->def);
	if (ret < 0)
		goto err;
	/* a zombie brought back has it already, and its old records may be printing now */
	if (p->def.event->print != probe_print)
		p->def.event->print = probe_print;
	ret = probe_site_install(p, p->addr, p->sym.addr, p->sym.size, probe_hit, &p->site, &why);
	if (ret) {
		event_unregister_locked(&p->def);
		perr(&c, 1, 0, ret == -EILSEQ ? "Probe point is not an instruction boundary" :
						"Failed to register probe event");
		if (why && ret != -EILSEQ) {
			struct error_log *log = instance_error_log(instance_top_locked());

			if (log)
				error_log_add(log, PROBE_LOG_LOC, why, c.text, c.pos[1]);
		}
		ret = ret == -EILSEQ ? -EINVAL : ret;
		goto err;
	}
	p->addr = probe_site_addr(p->site); /* after an endbr64 */
	rcu_publish(probe_live[p->slot], p); /* return trampolines may find it from now */
	pthread_mutex_lock(&print_mutex);
	probe_list[nr_probes++] = p;
	pthread_mutex_unlock(&print_mutex);
	pcmd_free(&c);
	return 0;
err:
	pcmd_free(&c);
	if (p)
		probe_free(p);
	return ret;
}

/* --- deletion ------------------------------------------------------------------------------ */

struct busy_arg {
	struct evt_event *ev;
	bool busy;
};

static int busy_one(struct evt_instance *inst, void *a)
{
	struct busy_arg *b = a;
	struct trace_event_file *file = event_file_locked(inst, b->ev);

	if (file && (ld_relaxed(&file->flags) & (EVT_FILE_ENABLED | EVT_FILE_SOFT_MODE)))
		b->busy = true;
	return 0;
}

static bool busy_locked(struct probe *p)
{
	struct busy_arg b = { p->def.event, false };

	event_assert_locked();
	if (!b.ev)
		return false;
	busy_one(instance_top_locked(), &b);
	instance_foreach_locked(busy_one, &b);
	return b.busy;
}

/* Is our jump still at the site (the object not unloaded or replaced under it)? */
static bool still_ours(struct probe *p)
{
	if (!probe_obj_alive(p->sym.obj, p->sym.base))
		return false;
	return *(const volatile uint8_t *)(uintptr_t)probe_site_addr(p->site) == 0xe9;
}

static int probe_destroy_locked(struct probe *p)
{
	struct probe_ghost *g;
	int ret;

	event_assert_locked();
	if (busy_locked(p))
		return -EBUSY;
	ret = probe_site_remove(p->site, still_ours(p));
	if (ret && ret != -EOPNOTSUPP)
		return ret;
	rcu_publish(probe_live[p->slot], NULL);
	g = malloc(sizeof(*g) + p->nargs * sizeof(g->args[0]));
	pthread_mutex_lock(&print_mutex);
	for (unsigned int i = 0; i < nr_probes; i++)
		if (probe_list[i] == p) {
			memmove(&probe_list[i], &probe_list[i + 1],
				(nr_probes - i - 1) * sizeof(*probe_list));
			nr_probes--;
			break;
		}
	if (g) { /* the arguments go to the ghost; without one, the fields print */
		g->ev = p->def.event;
		g->is_return = p->is_return;
		g->nargs = p->nargs;
		memcpy(g->args, p->args, p->nargs * sizeof(g->args[0]));
		p->args_given = true; /* hits in flight still read them: freed never */
		g->next = ghosts;
		ghosts = g;
	}
	pthread_mutex_unlock(&print_mutex);
	event_unregister_locked(&p->def);
	/* hits that found it through the site may still be running */
	event_gc_add(p, probe_free_void);
	return 0;
}

static int probe_release_locked(const char *group, const char *event)
{
	struct probe *p = find_locked(group, event);

	event_assert_locked();
	return p ? probe_destroy_locked(p) : -ENOENT;
}

static int probe_release_all_locked(bool dry_run)
{
	int ret = 0;

	event_assert_locked();
	for (unsigned int i = 0; i < nr_probes; i++)
		if (busy_locked(probe_list[i]))
			return -EBUSY;
	while (!dry_run && nr_probes && !ret)
		ret = probe_destroy_locked(probe_list[nr_probes - 1]);
	return ret;
}

static void probe_show_locked(struct evt_seq *s)
{
	event_assert_locked();
	for (unsigned int i = 0; i < nr_probes; i++) {
		const struct probe *p = probe_list[i];

		evt_seq_putc(s, p->is_return ? 'r' : 'p');
		if (p->is_return && p->maxactive)
			evt_seq_printf(s, "%u", p->maxactive);
		evt_seq_printf(s, ":%s/%s %s", p->group, p->event, p->symbol);
		if (p->offset)
			evt_seq_printf(s, "+%llu", (unsigned long long)p->offset);
		for (unsigned int j = 0; j < p->nargs; j++)
			evt_seq_printf(s, " %s", probe_arg_text(p->args[j]));
		evt_seq_putc(s, '\n');
	}
}

static const struct dyn_event_ops probe_ops = {
	.name = "kprobe",
	.create = probe_create_locked,
	.release = probe_release_locked,
	.release_all = probe_release_all_locked,
	.show = probe_show_locked,
};

/*
 * probe_register() - make `p:`/`r:` lines known to dynamic_events and
 * kprobe_events. The library's start (src/init.c) does it; the API calls it
 * too. Idempotent.
 */
void probe_register(void)
{
	dyn_event_register(&probe_ops);
}

/* The number of probes (tests). event_mutex held. */
unsigned int probe_count_locked(void)
{
	event_assert_locked();
	return nr_probes;
}

/* Look a probe up (tests, the API). event_mutex held. */
struct probe_site *probe_site_of_locked(const char *group, const char *event, uint64_t *addr)
{
	struct probe *p = find_locked(group, event);

	event_assert_locked();
	if (!p)
		return NULL;
	*addr = p->addr;
	return p->site;
}

uint64_t probe_nmissed_locked(const char *group, const char *event)
{
	struct probe *p = find_locked(group, event);

	event_assert_locked();
	return p ? ld_relaxed(&p->nmissed) : 0;
}

/*
 * probe_parse_only() - parse a definition line as a `kprobe_events` write would,
 * with its error_log messages, and lay out its record and print format, but look no
 * symbol up and patch nothing (the fuzz target of the grammar).
 * Return: 0 (it parses; an empty line too), -ECANCELED (not a p:/r: line), -EINVAL,
 * -E2BIG, -ENOMEM. Context: takes event_mutex.
 */
int probe_parse_only(const char *line)
{
	struct probe *p;
	struct pcmd c;
	int ret;

	events_init();
	event_lock();
	ret = probe_parse(line, &c, &p, false);
	if (!ret && p)
		ret = probe_setup_event(p);
	event_unlock();
	pcmd_free(&c);
	probe_free(p);
	return ret;
}
