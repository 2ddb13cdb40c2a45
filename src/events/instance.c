// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events/instance.c - tracing instances (evtrace/instance.h).
 *
 * Instances live in a small array under event_mutex: slot 0 is the top
 * instance. Each holds one trace_event_file per event ID (zombie events
 * included, so a library loaded again finds its files). Writers never
 * look at this array: they reach an instance through an event's active
 * set, under rcu_read_lock(); destroying an instance first takes it out
 * of every active set, then waits for a grace period (event_unlock())
 * before freeing the buffer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/clock.h>
#include <evtrace/ring_buffer.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/rcu.h"
#include "events/error_log.h"
#include "events/event_internal.h"
#include "filter/filter.h"
#include "ringbuf/rb_internal.h"

#define INSTANCE_DEFAULT_KB	1408	/* the kernel's default buffer_size_kb */

static struct evt_instance *instances[INSTANCE_MAX];	/* [0] = top; event_mutex */

static unsigned long instance_default_kb(void)
{
	const char *s = secure_getenv("EVTRACE_BUFFER_SIZE_KB");
	char *end;
	unsigned long kb;

	if (!s || !*s)
		return INSTANCE_DEFAULT_KB;
	kb = strtoul(s, &end, 10);
	if (*end || kb == 0 || kb > (1ul << 22))
		return INSTANCE_DEFAULT_KB;
	return kb;
}

static void file_free(struct trace_event_file *file)
{
	if (!file)
		return;
	filter_free(file->filter);
	free(file->filter_shown);
	for (unsigned int i = 0; i < EVENT_FILE_EXT_MAX; i++)
		if (file->ext[i].ops && file->ext[i].ops->free)
			file->ext[i].ops->free(file, file->ext[i].data);
	free(file->self);
	free(file);
}

void event_file_ext_set_locked(struct trace_event_file *file, enum event_file_ext_id id,
			       const struct event_file_ext_ops *ops, void *data)
{
	event_assert_locked();
	file->ext[id].ops = ops;
	/* Release: @data is complete before it is seen (pairs with event_file_ext_get()). */
	st_release(&file->ext[id].data, data);
}

static struct trace_event_file *file_new(struct evt_instance *inst, struct evt_event *ev)
{
	struct trace_event_file *file = calloc(1, sizeof(*file));

	if (!file)
		return NULL;
	file->self = malloc(sizeof(*file->self) + sizeof(file->self->files[0]));
	if (!file->self) {
		free(file);
		return NULL;
	}
	file->self->nr = 1;
	file->self->files[0] = file;
	file->inst = inst;
	file->event = ev;
	return file;
}

static void instance_free(struct evt_instance *inst)
{
	if (!inst)
		return;
	for (unsigned int i = 0; i < inst->nr_files; i++)
		file_free(inst->files[i]);
	free(inst->files);
	free(inst->pids);
	if (inst->snap_bufs[0]) {
		evt_ring_buffer_free(inst->snap_bufs[0]);
		evt_ring_buffer_free(inst->snap_bufs[1]);
	} else if (inst->rb) {
		evt_ring_buffer_free(inst->rb);
	}
	error_log_free(inst->elog);
	free(inst);
}

/* Grow @inst's files[] to @nr and give it a file for every known event. */
static int instance_fill_files_locked(struct evt_instance *inst, unsigned int nr)
{
	event_assert_locked();
	if (nr > inst->nr_files) {
		struct trace_event_file **n = realloc(inst->files, nr * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + inst->nr_files, 0, (nr - inst->nr_files) * sizeof(*n));
		inst->files = n;
		inst->nr_files = nr;
	}
	for (unsigned int id = 0; id < inst->nr_files; id++) {
		struct evt_event *ev = event_find_id_locked(id);

		if (ev && !inst->files[id]) {
			inst->files[id] = file_new(inst, ev);
			if (!inst->files[id])
				return -ENOMEM;
		}
	}
	return 0;
}

/* An instance's buffer: the live one, or the snapshot buffer made like it. */
static int instance_rb_alloc(unsigned long kb, enum evt_clock_id clock,
			     struct evt_ring_buffer **rbp)
{
	struct evt_ring_buffer_opts opts = { 0 };

	opts.size = kb * 1024;
	opts.flags = EVT_RB_FL_OVERWRITE;
	opts.clock = clock;
	return evt_ring_buffer_alloc_opts(&opts, rbp);
}

static struct evt_instance *instance_new(const char *name)
{
	struct evt_instance *inst = calloc(1, sizeof(*inst));
	int ret;

	if (!inst)
		return NULL;
	snprintf(inst->name, sizeof(inst->name), "%s", name);
	if (error_log_alloc(&inst->elog)) {
		free(inst);
		return NULL;
	}
	inst->buffer_kb = instance_default_kb();
	ret = instance_rb_alloc(inst->buffer_kb, EVT_CLOCK_LOCAL, &inst->rb);
	if (ret == -ENOMEM && inst->buffer_kb != INSTANCE_DEFAULT_KB) {
		/* EVTRACE_BUFFER_SIZE_KB beyond the cap (ring buffer's rb_mem.c) */
		inst->buffer_kb = INSTANCE_DEFAULT_KB;
		ret = instance_rb_alloc(inst->buffer_kb, EVT_CLOCK_LOCAL, &inst->rb);
	}
	if (ret) {
		error_log_free(inst->elog);
		free(inst);
		return NULL;
	}
	inst->tracing_on = 1;
	if (instance_fill_files_locked(inst, event_id_limit_locked())) {
		instance_free(inst);
		return NULL;
	}
	return inst;
}

struct evt_instance *instance_top_locked(void)
{
	event_assert_locked();
	if (!instances[0])
		instances[0] = instance_new("");
	return instances[0];
}

struct evt_instance *evt_instance_top(void)
{
	struct evt_instance *inst;

	events_init();
	event_lock();
	inst = instance_top_locked();
	event_unlock();
	return inst;
}

static bool instance_name_ok(const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (len == 0 || len >= INSTANCE_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *s = name; *s; s++)
		if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

struct evt_instance *instance_lookup_locked(const char *name)
{
	event_assert_locked();
	if (!name || !*name)
		return instance_top_locked();
	for (int i = 1; i < INSTANCE_MAX; i++)
		if (instances[i] && !strcmp(instances[i]->name, name))
			return instances[i];
	return NULL;
}

int evt_instance_create(const char *name, struct evt_instance **instp)
{
	struct evt_instance *inst;
	int slot = -1, ret = 0;

	if (!instance_name_ok(name))
		return -EINVAL;
	events_init();
	event_lock();
	if (instance_lookup_locked(name)) {
		ret = -EEXIST;
		goto out;
	}
	for (int i = 1; i < INSTANCE_MAX; i++)
		if (!instances[i]) {
			slot = i;
			break;
		}
	if (slot < 0) {
		ret = -ENOSPC;
		goto out;
	}
	inst = instance_new(name);
	if (!inst) {
		ret = -ENOMEM;
		goto out;
	}
	instances[slot] = inst;
	if (instp)
		*instp = inst;
out:
	event_unlock();
	return ret;
}

int evt_instance_get(const char *name, struct evt_instance **instp)
{
	struct evt_instance *inst;

	if (!instp)
		return -EINVAL;
	*instp = NULL;
	events_init();
	event_lock();
	inst = instance_lookup_locked(name);
	if (inst)
		inst->refs++;
	event_unlock();
	if (!inst)
		return -ENOENT;
	*instp = inst;
	return 0;
}

void evt_instance_put(struct evt_instance *inst)
{
	if (!inst)
		return;
	event_lock();
	if (inst->refs > 0)
		inst->refs--;
	event_unlock();
}

struct evt_instance *evt_instance_lookup(const char *name)
{
	struct evt_instance *inst;

	events_init();
	event_lock();
	inst = instance_lookup_locked(name);
	event_unlock();
	return inst;
}

int evt_instance_destroy(struct evt_instance *inst)
{
	int slot = -1;

	if (!inst)
		return -EINVAL;
	event_lock();
	for (int i = 1; i < INSTANCE_MAX; i++)
		if (instances[i] == inst)
			slot = i;
	if (slot < 0) {
		event_unlock();
		return -EINVAL;
	}
	if (inst->readers || inst->refs) {
		event_unlock();
		return -EBUSY;
	}
	inst->dead = 1;
	st_relaxed(&inst->tracing_on, 0);
	instances[slot] = NULL;
	for (unsigned int id = 0; id < inst->nr_files; id++) {
		struct trace_event_file *file = inst->files[id];

		if (file && (ld_relaxed(&file->flags) & (EVT_FILE_ENABLED | EVT_FILE_SOFT_MODE))) {
			st_relaxed(&file->flags, 0u);
			event_update_active_locked(file->event);
		}
	}
	/* No active set names the instance any more; wait out the writers that saw one. */
	rcu_sync();
	event_unlock();
	instance_free(inst);
	return 0;
}

struct error_log *instance_error_log(struct evt_instance *inst)
{
	return inst ? inst->elog : NULL;
}

const char *evt_instance_name(const struct evt_instance *inst)
{
	return inst ? inst->name : "";
}

int instance_foreach_locked(int (*fn)(struct evt_instance *inst, void *arg), void *arg)
{
	struct evt_instance *list[INSTANCE_MAX];
	int n = 0;

	event_assert_locked();
	for (int i = 1; i < INSTANCE_MAX; i++)
		if (instances[i])
			list[n++] = instances[i];
	/* sorted by name (insertion sort: at most 63) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(list[j - 1]->name, list[j]->name) > 0; j--) {
			struct evt_instance *t = list[j];

			list[j] = list[j - 1];
			list[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		int ret = fn(list[i], arg);

		if (ret)
			return ret;
	}
	return 0;
}

int evt_instance_foreach(int (*fn)(struct evt_instance *inst, void *arg), void *arg)
{
	int ret;

	if (!fn)
		return -EINVAL;
	events_init();
	event_lock();
	ret = instance_foreach_locked(fn, arg);
	event_unlock();
	return ret;
}

/* --- the registry's hooks ------------------------------------------------------------- */

unsigned int instance_active_files_locked(struct evt_event *ev,
					  struct trace_event_file **files, unsigned int max)
{
	unsigned int n = 0;

	event_assert_locked();
	for (int i = 0; i < INSTANCE_MAX && n < max; i++) {
		struct evt_instance *inst = instances[i];
		struct trace_event_file *file;

		if (!inst || inst->dead || ev->id >= inst->nr_files)
			continue;
		file = inst->files[ev->id];
		if (file && (ld_relaxed(&file->flags) & (EVT_FILE_ENABLED | EVT_FILE_SOFT_MODE)))
			files[n++] = file;
	}
	return n;
}

int instance_grow_files_locked(unsigned int nr_ids)
{
	event_assert_locked();
	for (int i = 0; i < INSTANCE_MAX; i++)
		if (instances[i]) {
			int ret = instance_fill_files_locked(instances[i], nr_ids);

			if (ret)
				return ret;
		}
	return 0;
}

int instance_add_event_locked(struct evt_event *ev)
{
	event_assert_locked();
	for (int i = 0; i < INSTANCE_MAX; i++) {
		struct evt_instance *inst = instances[i];

		if (!inst)
			continue;
		if (ev->id >= inst->nr_files) {
			int ret = instance_fill_files_locked(inst, event_id_limit_locked());

			if (ret)
				return ret;
		}
		if (!inst->files[ev->id]) {
			inst->files[ev->id] = file_new(inst, ev);
			if (!inst->files[ev->id])
				return -ENOMEM;
		}
	}
	return 0;
}

void instance_remove_event_locked(struct evt_event *ev)
{
	event_assert_locked();
	for (int i = 0; i < INSTANCE_MAX; i++) {
		struct evt_instance *inst = instances[i];
		struct trace_event_file *file;

		if (!inst || ev->id >= inst->nr_files || !(file = inst->files[ev->id]))
			continue;
		st_relaxed(&file->flags, 0u);
		if (file->filter)
			event_file_set_filter_locked(file, NULL);
	}
}

struct trace_event_file *event_file_locked(struct evt_instance *inst, struct evt_event *ev)
{
	event_assert_locked();
	if (!inst || !ev || ev->id >= inst->nr_files)
		return NULL;
	return inst->files[ev->id];
}

/* --- settings ------------------------------------------------------------------------- */

int evt_instance_tracing_on(struct evt_instance *inst, bool on)
{
	if (!inst)
		return -EINVAL;
	/* Writers test it with a relaxed load: one in flight may still write, as in ftrace. */
	st_relaxed(&inst->tracing_on, (uint8_t)on);
	return 0;
}

bool evt_instance_tracing_is_on(const struct evt_instance *inst)
{
	return inst && ld_relaxed(&inst->tracing_on);
}

int evt_instance_nr_cpus(const struct evt_instance *inst)
{
	return inst ? evt_ring_buffer_nr_cpus(instance_live_rb(inst)) : -EINVAL;
}

struct evt_ring_buffer *evt_instance_ring_buffer(struct evt_instance *inst)
{
	return inst ? instance_live_rb(inst) : NULL;
}

int evt_instance_buffer_size_kb(struct evt_instance *inst, int cpu, unsigned long *kb)
{
	int nr;

	struct evt_ring_buffer *rb;

	if (!inst || !kb)
		return -EINVAL;
	rb = instance_live_rb(inst);
	nr = evt_ring_buffer_nr_cpus(rb);
	if (cpu >= nr || cpu < -1)
		return -EINVAL;
	if (cpu >= 0) {
		*kb = evt_ring_buffer_size(rb, cpu) / 1024;
		return 0;
	}
	*kb = evt_ring_buffer_size(rb, 0) / 1024;
	for (int c = 1; c < nr; c++)
		if (evt_ring_buffer_size(rb, c) / 1024 != *kb)
			return -EAGAIN;
	return 0;
}

/*
 * A ring buffer's control operation (resize, clock, reset) gives up with
 * -EBUSY when a writer stays in the middle of an event for the quiesce's
 * 20 ms (preempted on a loaded machine, or the code a signal handler
 * interrupted) and changes nothing. The kernel's buffer_size_kb,
 * trace_clock and trace writes wait for their writers instead; so do these,
 * for INSTANCE_BUSY_TRIES attempts (about a second), before -EBUSY reaches
 * the user. Every attempt is whole: a resize or clock change already done
 * on some CPUs is done again as a no-op.
 */
#define INSTANCE_BUSY_TRIES 50

static bool busy_again(int ret, int *tries)
{
	return ret == -EBUSY && ++*tries < INSTANCE_BUSY_TRIES;
}

/*
 * Both buffers of a snapshot pair, or neither: when the second refuses (the
 * memory cap, -EBUSY), the first goes back to its sizes, CPU by CPU. Going
 * back needs new pages too and may itself be refused; then the pair's sizes
 * differ, as the kernel's may after a failed resize of max_buffer.
 */
static int instance_resize_pair_locked(struct evt_instance *inst, int cpu, unsigned long kb)
{
	struct evt_ring_buffer *a = inst->snap_bufs[0], *b = inst->snap_bufs[1];
	int nr = evt_ring_buffer_nr_cpus(a), ret;
	unsigned long *old = calloc((size_t)nr, sizeof(*old));

	event_assert_locked();
	if (!old)
		return -ENOMEM;
	for (int c = 0; c < nr; c++)
		old[c] = evt_ring_buffer_size(a, c);
	ret = evt_ring_buffer_resize(a, kb * 1024, cpu < 0 ? EVT_RB_ALL_CPUS : cpu);
	if (!ret) {
		ret = evt_ring_buffer_resize(b, kb * 1024, cpu < 0 ? EVT_RB_ALL_CPUS : cpu);
		for (int c = 0; ret && c < nr; c++)
			if (evt_ring_buffer_size(a, c) != old[c])
				evt_ring_buffer_resize(a, old[c], c);
	}
	free(old);
	return ret;
}

int evt_instance_resize_kb(struct evt_instance *inst, int cpu, unsigned long kb)
{
	int ret, tries = 0;

	if (!inst || kb == 0 || kb > (1ul << 22))
		return -EINVAL;
	/* event_mutex: the snapshot buffer, when there is one, is resized too (as
	 * the kernel resizes max_buffer) and cannot be freed meanwhile. */
	event_lock();
	do {
		if (inst->snap_bufs[0]) {
			ret = instance_resize_pair_locked(inst, cpu, kb);
		} else {
			ret = evt_ring_buffer_resize(inst->rb, kb * 1024,
						     cpu < 0 ? EVT_RB_ALL_CPUS : cpu);
		}
	} while (busy_again(ret, &tries));
	if (!ret && cpu < 0)
		inst->buffer_kb = kb;
	event_unlock();
	return ret;
}

unsigned long evt_instance_buffer_total_size_kb(struct evt_instance *inst)
{
	unsigned long total = 0;
	int nr;

	struct evt_ring_buffer *rb;

	if (!inst)
		return 0;
	rb = instance_live_rb(inst);
	nr = evt_ring_buffer_nr_cpus(rb);
	for (int c = 0; c < nr; c++)
		total += evt_ring_buffer_size(rb, c) / 1024;
	return total;
}

const char *evt_instance_clock(const struct evt_instance *inst)
{
	return inst ? evt_clock_name(evt_ring_buffer_clock(ld_acquire(&inst->rb))) : NULL;
}

int evt_instance_set_clock(struct evt_instance *inst, const char *name)
{
	int id, ret, tries = 0;

	if (!inst || !name)
		return -EINVAL;
	id = evt_clock_by_name(name);
	if (id < 0)
		return -EINVAL;
	/* Both buffers of a snapshot keep one clock (as the kernel sets max_buffer's). */
	event_lock();
	do {
		ret = 0;
		if (inst->snap_bufs[0]) {
			for (int i = 0; i < 2 && !ret; i++)
				ret = evt_ring_buffer_set_clock(inst->snap_bufs[i],
								(enum evt_clock_id)id);
		} else {
			ret = evt_ring_buffer_set_clock(inst->rb, (enum evt_clock_id)id);
		}
	} while (busy_again(ret, &tries));
	event_unlock();
	return ret;
}

int evt_instance_clock_list(const struct evt_instance *inst, char *buf, size_t size)
{
	enum evt_clock_id cur;
	size_t len = 0;

	if (!inst)
		return -EINVAL;
	cur = evt_ring_buffer_clock(ld_acquire(&inst->rb));
	for (int id = 0; id < EVT_CLOCK__COUNT; id++) {
		const char *name = evt_clock_name((enum evt_clock_id)id);
		int n;

		if (!name)
			continue;
		n = snprintf(buf ? buf + min_t(size_t, len, size) : NULL,
			     len < size ? size - len : 0, id == (int)cur ? "%s[%s]" : "%s%s",
			     len ? " " : "", name);
		len += (size_t)n;
	}
	{
		int n = snprintf(buf ? buf + min_t(size_t, len, size) : NULL,
				 len < size ? size - len : 0, "\n");

		len += (size_t)n;
	}
	return (int)len;
}

int instance_reset_cpu(struct evt_instance *inst, int cpu)
{
	struct evt_ring_buffer *rb;
	int ret, tries = 0;

	if (!inst)
		return -EINVAL;
	rb = instance_live_rb(inst);
	do
		ret = cpu >= 0 ? evt_ring_buffer_reset_cpu(rb, cpu) : evt_ring_buffer_reset(rb);
	while (busy_again(ret, &tries));
	return ret;
}

int evt_instance_reset(struct evt_instance *inst)
{
	return instance_reset_cpu(inst, -1);
}

/* --- snapshot (ftrace.rst "Snapshot") --------------------------------------------------- */

int instance_snapshot_swap(struct evt_instance *inst)
{
	struct evt_ring_buffer *live, *spare;

	/* Acquire: snap_bufs[] are set before the flag (pairs with the release in
	 * instance_snapshot_alloc_locked()); they stay until a grace period after
	 * the flag is cleared, and the caller is a writer inside rcu_lock(). */
	if (!ld_acquire(&inst->snap_allocated))
		return -ENODEV;
	live = ld_relaxed(&inst->rb);
	spare = live == ld_relaxed(&inst->snap_bufs[0]) ? ld_relaxed(&inst->snap_bufs[1]) :
							   ld_relaxed(&inst->snap_bufs[0]);
	/*
	 * Release: pairs with instance_live_rb()'s acquire (the spare's pages are
	 * complete before writers reserve in it). A failed CAS means another
	 * snapshot swapped first: that one is the snapshot (two at once make one).
	 */
	cas_release(&inst->rb, &live, spare);
	return 0;
}

struct evt_ring_buffer *instance_rb_of(struct evt_instance *inst, const void *rbe)
{
	struct evt_ring_buffer *rb = instance_live_rb(inst), *b0;

	/*
	 * After the acquire of rb: a swap since the reservation is seen there, and
	 * it happened after snap_bufs[] were set (alloc's release, the swapper's
	 * acquire, its CAS release), so b0 is not NULL then. snap_bufs[] outlive
	 * every writer that reserved while they existed (cleared a grace period
	 * after the last swap could happen).
	 */
	b0 = ld_relaxed(&inst->snap_bufs[0]);
	if (likely(!b0) || rb_owns_event(rb, rbe))
		return rb;
	return rb == b0 ? ld_relaxed(&inst->snap_bufs[1]) : b0;
}

struct evt_ring_buffer *instance_snapshot_buffer_locked(struct evt_instance *inst)
{
	struct evt_ring_buffer *live = ld_relaxed(&inst->rb);

	event_assert_locked();
	if (!inst->snap_bufs[0])
		return NULL;
	return live == inst->snap_bufs[0] ? inst->snap_bufs[1] : inst->snap_bufs[0];
}

int instance_snapshot_alloc_locked(struct evt_instance *inst)
{
	struct evt_ring_buffer *live = inst->rb, *spare;
	int nr = evt_ring_buffer_nr_cpus(live), ret;

	event_assert_locked();
	if (inst->snap_bufs[0])
		return 0;
	ret = instance_rb_alloc(inst->buffer_kb, evt_ring_buffer_clock(live), &spare);
	if (ret)
		return ret;
	/* per-CPU sizes as the live buffer's (the kernel's resize_buffer_duplicate_size) */
	for (int c = 0; c < nr && !ret; c++)
		if (evt_ring_buffer_size(spare, c) != evt_ring_buffer_size(live, c))
			ret = evt_ring_buffer_resize(spare, evt_ring_buffer_size(live, c), c);
	if (ret) {
		evt_ring_buffer_free(spare);
		return ret;
	}
	/* Relaxed: writers read them (instance_rb_of) only after seeing a swap, which
	 * the release below orders after these stores. */
	st_relaxed(&inst->snap_bufs[0], live);
	st_relaxed(&inst->snap_bufs[1], spare);
	/* Release: snap_bufs[] before the flag (instance_snapshot_swap's acquire). */
	st_release(&inst->snap_allocated, 1);
	return 0;
}

static int instance_snapshot_free_locked(struct evt_instance *inst)
{
	struct evt_ring_buffer *spare;

	event_assert_locked();
	if (!inst->snap_bufs[0])
		return 0;
	/* A snapshot trigger needs it; a reader may be reading either buffer. */
	if (inst->snap_ref || inst->readers)
		return -EBUSY;
	st_release(&inst->snap_allocated, 0);
	/* Every swap that saw the flag set, and every writer that reserved in either
	 * buffer, is done after this: the live buffer stays the live one. */
	rcu_sync();
	spare = instance_snapshot_buffer_locked(inst);
	st_relaxed(&inst->snap_bufs[0], NULL);
	st_relaxed(&inst->snap_bufs[1], NULL);
	/* No writer can hold the spare: the last that could was waited for above. */
	evt_ring_buffer_free(spare);
	return 0;
}

int instance_snapshot_get_locked(struct evt_instance *inst)
{
	int ret = instance_snapshot_alloc_locked(inst);

	event_assert_locked();
	if (!ret)
		inst->snap_ref++;
	return ret;
}

void instance_snapshot_put_locked(struct evt_instance *inst)
{
	event_assert_locked();
	if (inst->snap_ref)
		inst->snap_ref--;
}

int instance_snapshot_write(struct evt_instance *inst, int cpu, unsigned long val)
{
	struct evt_ring_buffer *spare;
	int ret = 0;

	if (!inst || cpu < -1 || cpu >= evt_ring_buffer_nr_cpus(ld_acquire(&inst->rb)))
		return -EINVAL;
	event_lock();
	switch (val) {
	case 0:
		/* the kernel: freeing is for the whole buffer only */
		ret = cpu < 0 ? instance_snapshot_free_locked(inst) : -EINVAL;
		break;
	case 1:
		ret = instance_snapshot_alloc_locked(inst);
		if (ret)
			break;
		if (cpu < 0) {
			instance_snapshot_swap(inst);
			break;
		}
		/* one CPU: its contents (the kernel's update_max_tr_single) */
		spare = instance_snapshot_buffer_locked(inst);
		if (evt_ring_buffer_size(spare, cpu) != evt_ring_buffer_size(inst->rb, cpu))
			ret = evt_ring_buffer_resize(spare, evt_ring_buffer_size(inst->rb, cpu),
						     cpu);
		if (!ret)
			ret = evt_ring_buffer_swap_cpu(inst->rb, spare, cpu);
		break;
	default:
		/* clear, when allocated (the kernel's tracing_reset_*), else nothing */
		spare = instance_snapshot_buffer_locked(inst);
		if (spare)
			ret = cpu < 0 ? evt_ring_buffer_reset(spare) :
					evt_ring_buffer_reset_cpu(spare, cpu);
		break;
	}
	event_unlock();
	return ret;
}

/* --- set_event_pid ---------------------------------------------------------------------- */

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static size_t pid_uniq(pid_t *v, size_t n)
{
	size_t out = 0;

	qsort(v, n, sizeof(*v), pid_cmp);
	for (size_t i = 0; i < n; i++)
		if (!out || v[out - 1] != v[i])
			v[out++] = v[i];
	return out;
}

int evt_instance_set_event_pid(struct evt_instance *inst, const pid_t *pids, size_t n,
			       unsigned int flags)
{
	struct pid_list *old, *list = NULL;
	size_t nr_tid = 0, nr_tgid = 0, cap;
	pid_t *tids, *tgids;

	if (!inst || (n && !pids) || (flags & ~(EVT_PID_APPEND | EVT_PID_PROCESS)))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (pids[i] <= 0)
			return -EINVAL;
	event_lock();
	old = inst->pids;
	cap = n + (old && (flags & EVT_PID_APPEND) ? old->nr_tid + old->nr_tgid : 0);
	tids = malloc((cap + 1) * sizeof(pid_t));
	tgids = malloc((cap + 1) * sizeof(pid_t));
	if (!tids || !tgids) {
		free(tids);
		free(tgids);
		event_unlock();
		return -ENOMEM;
	}
	if (old && (flags & EVT_PID_APPEND)) {
		memcpy(tids, old->ids, old->nr_tid * sizeof(pid_t));
		nr_tid = old->nr_tid;
		memcpy(tgids, old->ids + old->nr_tid, old->nr_tgid * sizeof(pid_t));
		nr_tgid = old->nr_tgid;
	}
	for (size_t i = 0; i < n; i++) {
		if (flags & EVT_PID_PROCESS)
			tgids[nr_tgid++] = pids[i];
		else
			tids[nr_tid++] = pids[i];
	}
	nr_tid = pid_uniq(tids, nr_tid);
	nr_tgid = pid_uniq(tgids, nr_tgid);
	if (nr_tid + nr_tgid) {
		list = malloc(sizeof(*list) + (nr_tid + nr_tgid) * sizeof(pid_t));
		if (!list) {
			free(tids);
			free(tgids);
			event_unlock();
			return -ENOMEM;
		}
		list->nr_tid = (uint32_t)nr_tid;
		list->nr_tgid = (uint32_t)nr_tgid;
		memcpy(list->ids, tids, nr_tid * sizeof(pid_t));
		memcpy(list->ids + nr_tid, tgids, nr_tgid * sizeof(pid_t));
	}
	free(tids);
	free(tgids);
	/* Release: the list before the pointer (the writer's rcu_deref acquires it). */
	rcu_publish(inst->pids, list);
	event_gc_free(old);
	event_unlock();
	return 0;
}

static bool pid_in(const pid_t *v, uint32_t n, pid_t pid)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == pid;
}

/* Under rcu_lock(): the writer's check. */
bool instance_pid_allowed_rcu(struct evt_instance *inst, pid_t tid, pid_t tgid)
{
	struct pid_list *list = rcu_deref(inst->pids);

	if (!list)
		return true;
	return pid_in(list->ids, list->nr_tid, tid) ||
	       pid_in(list->ids + list->nr_tid, list->nr_tgid, tgid);
}

bool evt_instance_pid_allowed(struct evt_instance *inst, pid_t tid, pid_t tgid)
{
	bool ok;

	if (!inst)
		return false;
	rcu_lock();
	ok = instance_pid_allowed_rcu(inst, tid, tgid);
	rcu_unlock();
	return ok;
}

int evt_instance_event_pid_text(struct evt_instance *inst, char *buf, size_t size)
{
	struct pid_list *list;
	size_t len = 0;

	if (!inst)
		return -EINVAL;
	event_lock();
	list = inst->pids;
	if (size)
		buf[0] = '\0';
	for (uint32_t i = 0; list && i < list->nr_tid + list->nr_tgid; i++) {
		int n = snprintf(buf ? buf + min_t(size_t, len, size) : NULL,
				 len < size ? size - len : 0, "%d\n", (int)list->ids[i]);

		len += (size_t)n;
	}
	event_unlock();
	return (int)len;
}
