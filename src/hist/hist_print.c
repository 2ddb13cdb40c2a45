// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist/hist_print.c - the text of hist triggers: the `trigger` file's line (the kernel's
 * event_hist_trigger_print()) and the `hist` file (hist_show()): the entries sorted by the sort
 * keys, each key with its modifier (.hex, .sym, .execname, .syscall, .log2, .buckets, the
 * stack), the values (.percent, .graph), what onmax()/onchange() saved, the last snapshot() and
 * the totals; the `hist` file itself, which hist_init() registers with the tree.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "compat/atomic.h"
#include "core/text.h"
#include "hist/hist_internal.h"
#include "tracefs/tfs_internal.h"

/**
 * hist_field_flags_str() - the modifier of a field's flags, as a key or value shows it
 * @flags: the field's HF_* flags
 *
 * Context: any.
 * Return: "hex", "sym", ... or NULL when there is none.
 */
const char *hist_field_flags_str(unsigned int flags)
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
	const char *fl = hist_field_flags_str(f->flags);

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

/**
 * hist_spec_print() - "keys=...:vals=...:sort=..." of a histogram
 * @t:  the text it is added to
 * @hd: the histogram
 *
 * Also what name= and a removal compare.
 *
 * Context: event_mutex held (or a histogram not yet published).
 */
void hist_spec_print(struct text *t, const struct hist_data *hd)
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
	hist_spec_print(t, hd);
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

/**
 * hist_show_line() - the `trigger` file's line of a hist trigger, '\n' included
 * @td:   the trigger
 * @buf:  where it goes
 * @size: the size of @buf
 *
 * The kernel's event_hist_trigger_print(), with its filter and its state.
 *
 * Context: event_mutex held (trigger_cmd.show and .print).
 * Return: the length of the whole line, as snprintf(), or a negative errno.
 */
int hist_show_line(const struct trigger_data *td, char *buf, size_t size)
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

/**
 * hist_actions_text() - the actions as the trigger line shows them
 * @hd: the histogram
 *
 * The kernel's print_actions_spec(): ":onmatch(sys.event).trace(...)" and the others.
 *
 * Context: event_mutex held (parse).
 * Return: the malloc'd text ("" when there is none), or NULL when out of memory.
 */
char *hist_actions_text(const struct hist_data *hd)
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

/* --- the `hist` file -------------------------------------------------------------------------- */

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

/* the per-event `hist` file (the kernel's event_hist_fops); another backend's event: empty */
static int hist_file_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	return tfs_event_text_show(f, s, hist_show_text);
}

static const struct tfs_ops hist_file_ops = {
	.name = "hist",
	.mode = TFS_MODE_RO,
	.show = hist_file_show,
};

/**
 * hist_file_register() - add the `hist` file to every event's directory of the tree
 *
 * Context: takes tfs_lock; called by hist_init().
 * Return: 0 or a negative errno of tfs_register_file().
 */
int hist_file_register(void)
{
	return tfs_register_file(TFS_AT_EVENT, &hist_file_ops);
}
