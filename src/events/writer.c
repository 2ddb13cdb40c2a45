// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events/writer.c - the path of a record from a call site to a ring buffer.
 *
 *   trace_<name>(args)            key byte off: one load, one branch, done
 *   __evt_do_trace_<name>()       sizes of the dynamic fields
 *   evt_trace_event_reserve()     rcu_lock; the event's active set; per instance:
 *                                 tracing_on, soft-disable, set_event_pid,
 *                                 lock_reserve in its ring buffer, common fields
 *                                 (one instance, no trigger, no pid list: the
 *                                 same tests inline, trace_event_first(), with
 *                                 the ring buffer's reserve inlined too; with
 *                                 no filter either it marks the write FB_FAST)
 *   TP_fast_assign                the fields
 *   evt_trace_event_commit()      FB_FAST: commit on the reservation's page,
 *                                 rcu_unlock. Else the instance's filter:
 *                                 unlock_commit (on the
 *                                 reservation's CPU, rb_writer.h) or
 *                                 discard_commit (as the kernel's
 *                                 event_trigger_unlock_commit does), then
 *                                 the next instance's record, or NULL at
 *                                 the end: rcu_unlock
 *
 * Nothing here blocks, allocates or makes a system call, except the
 * first event of a thread (gettid, prctl(PR_GET_NAME) for saved_cmdlines),
 * all async-signal-safe. A signal handler may fire events while its
 * thread is inside this path: the RCU read side nests, and the per-thread
 * nesting depth becomes common_preempt_count (with the "hardirq" flag).
 */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/rcu.h"
#include "events/event_internal.h"
#include "filter/filter.h"
#include "ringbuf/rb_writer.h"

/*
 * fb->len: the record's length (at most UINT16_MAX, checked at reserve) in
 * the low 16 bits, the CPU buffer of its reservation (RB_CPU_NONE: unknown,
 * or the scratch record) in the high 16: the commit then skips finding out
 * which CPU the page belongs to (ringbuf/rb_writer.h). The struct is in the
 * public ABI; its fields are the writer's own.
 */
#define FB_LEN(fb)		((fb)->len & 0xffffu)
#define FB_CPU(fb)		((fb)->len >> 16)
#define FB_PACK(len, cpu)	((uint32_t)(len) | (uint32_t)(cpu) << 16)
/* The bytes of its entry in the ring buffer (not read back from the header: rb_payload_off()). */
#define FB_SIZE(fb)		rb_event_size(FB_LEN(fb))
/*
 * A scratch record (fb->rbe NULL) has one of these in its CPU
 * bits. FB_SCRATCH_TEMP: the kernel's temp_buffer (tracing off or the buffer
 * full): only its triggers see it. FB_SCRATCH_BUFFERED: the kernel's
 * trace_buffered_event (the event soft-disabled or filtered when reserved):
 * written to the live buffer at the commit when it is kept then (its
 * triggers enabled the event, or turned tracing on).
 */
#define FB_SCRATCH_TEMP		RB_CPU_NONE
#define FB_SCRATCH_BUFFERED	(RB_CPU_NONE - 1u)
_Static_assert(RB_MAX_CPUS < FB_SCRATCH_BUFFERED, "no CPU index is a scratch mark");

/*
 * fb->idx with FB_FAST set: a record of the fast path (trace_event_first()),
 * whose commit is the whole write's end: the only instance, no trigger, no
 * filter, all tested at the reservation. FB_FAST_RSEQ: the reservation was
 * made with rseq (rb->rseq). The low bits (FB_FAST_SIZE) are the entry's
 * bytes in the ring buffer. fb->set is then the buffer the record was
 * reserved in (not the active set) and fb->rbe the page the entry is in
 * (not the entry); fb->file and fb->entry are not set. Otherwise fb->idx is
 * the next instance of the active set to visit (below INSTANCE_MAX).
 */
#define FB_FAST	     0x80000000u
#define FB_FAST_RSEQ 0x40000000u
#define FB_FAST_SIZE 0x000fffffu

struct writer_tls {
	pid_t tid;		/* 0: not known yet */
	uint8_t depth;		/* writes in progress on this thread (signal nesting) */
	uint8_t nest;		/* of which writes made by a write (event_trace_nest_start) */
	uint8_t comm_saved;
	/*
	 * Return address into the traced program of the write whose triggers
	 * run now (evt_trace_event_reserve/commit's caller): a stack trace
	 * starts above it. Saved and restored around the triggers, so a signal
	 * handler's write in between leaves it as it was.
	 */
	void *caller;
	/*
	 * common_pid and common_tgid as a record holds them, for the fast path
	 * (one 8-byte copy); pid 0 until the general path has learned both ids
	 * and saved the comm (then the fast path may skip those tests).
	 */
	struct {
		int32_t pid;
		int32_t tgid;
	} ids;
};

/*
 * initial-exec: one %fs-relative access instead of a __tls_get_addr() call in
 * the shared library (the kernel of every call site). A library loaded with
 * dlopen() takes these few bytes from glibc's surplus static TLS.
 */
static __thread struct writer_tls wtls __attribute__((tls_model("initial-exec")));
static pid_t cached_tgid;
/*
 * Where a record is built when only filtered triggers want it (soft-disabled
 * event, tracing off, buffer full): a record of the scratch pool (the
 * kernel's temp_buffer, which is per CPU). The record lives from the
 * reservation to the commit, two calls of the traced program, so it cannot
 * be on the stack; it is not thread-local either, which would put 16 KiB of
 * static TLS in the library and make it impossible to dlopen() (the
 * library's initial-exec TLS is the few bytes of wtls, checked by
 * compile/tls-budget). The pool is allocated once, by the first trigger list
 * that needs records (event_scratch_prepare(), event_mutex), never by a
 * writer; a writer claims a record with one CAS on the bitmap below and
 * gives it back at its commit. Nested writes (a signal handler's) claim
 * records of their own, so a handler's write never overwrites the record its
 * interrupted write's triggers are testing. With every record in use the
 * write skips its filtered triggers and counts it (scratch_misses).
 */
#define SCRATCH_SLOTS 64		/* records: bits of scratch_used */
#define SCRATCH_SIZE  4096		/* bytes of one record */
static unsigned char *scratch_pool;	/* set once (release), then read-only */
static uint64_t scratch_used;		/* bit i: record i is claimed by a write */
static unsigned long scratch_misses;	/* writes that found no free record */

int event_scratch_prepare(void)
{
	void *pool;

	if (ld_acquire(&scratch_pool))
		return 0;
	/* aligned: a record is a struct evt_trace_entry followed by its fields */
	if (posix_memalign(&pool, 64, (size_t)SCRATCH_SLOTS * SCRATCH_SIZE))
		return -ENOMEM;
	/* Release: the pool exists before a writer can see its address (scratch_get). */
	st_release(&scratch_pool, (unsigned char *)pool);
	return 0;
}

unsigned long event_scratch_misses(void)
{
	return ld_relaxed(&scratch_misses);
}

/* A free scratch record, or NULL. Writer context: lock-free, bounded, signal safe. */
static void *scratch_get(void)
{
	/* Acquire: pairs with event_scratch_prepare()'s release of the address. */
	unsigned char *pool = ld_acquire(&scratch_pool);
	uint64_t used = ld_relaxed(&scratch_used);

	for (int tries = 0; pool && tries < SCRATCH_SLOTS && ~used; tries++) {
		int i = __builtin_ctzll(~used);

		/* Acquire: the last holder's writes to the record (its release in
		 * scratch_put()) happen before ours. On failure @used is reloaded. */
		if (cas_acq_rel(&scratch_used, &used, used | UINT64_C(1) << i))
			return pool + (size_t)i * SCRATCH_SIZE;
	}
	add_relaxed(&scratch_misses, 1);
	return NULL;
}

/* Give back the scratch record @rec (from scratch_get()). Writer context. */
static void scratch_put(const void *rec)
{
	size_t i = (size_t)((const unsigned char *)rec - ld_relaxed(&scratch_pool)) / SCRATCH_SIZE;

	/* Release: our reads and writes of the record before the next claim of it. */
	and_release(&scratch_used, ~(UINT64_C(1) << i));
}

static void writer_atfork_child(void)
{
	/* Only the forking thread exists in the child: its ids changed. */
	wtls.tid = 0;
	wtls.comm_saved = 0;
	wtls.ids.pid = 0;
	wtls.ids.tgid = 0;
	cached_tgid = 0;
}

/* From events_init(), never from a writer: pthread_atfork() is not async-signal-safe. */
void writer_init(void)
{
	void *frames[4];

	pthread_atfork(NULL, NULL, writer_atfork_child);
	/* The RCU's handlers and membarrier registration, here rather than in a writer. */
	rcu_init();
	/*
	 * glibc's backtrace() loads libgcc_s's unwinder (dlopen, malloc) on its
	 * first call: make that call here, so the stacktrace trigger's calls in
	 * writers allocate nothing.
	 */
	(void)backtrace(frames, 4);
}

static __attribute__((noinline)) pid_t writer_tid_slow(void)
{
	/* gettid(2): async-signal-safe, once per thread */
	wtls.tid = (pid_t)syscall(SYS_gettid);
	return wtls.tid;
}

static inline pid_t writer_tid(void)
{
	pid_t tid = wtls.tid;

	return likely(tid) ? tid : writer_tid_slow();
}

static inline pid_t writer_tgid(void)
{
	pid_t tgid = ld_relaxed(&cached_tgid);

	if (unlikely(!tgid)) {
		tgid = getpid();
		st_relaxed(&cached_tgid, tgid);
	}
	return tgid;
}

pid_t event_current_tid(void)
{
	return writer_tid();
}

pid_t event_current_tgid(void)
{
	return writer_tgid();
}

static __attribute__((noinline)) void writer_save_comm(pid_t tid)
{
	wtls.comm_saved = 1;
	cmdline_save_current(tid);
}

/* The layers above's hooks: set once, before what makes the writer call them. */
static const struct event_trigger_hooks *trigger_hooks;
static void (*hold_hook)(void);
static bool (*stack_skip_hook)(uint64_t pc);
int event_hold_armed; /* see event_internal.h */

void event_set_trigger_hooks(const struct event_trigger_hooks *hooks)
{
	/* Release: the table before the pointer (pairs with the acquire in the
	 * writer; the trigger layer sets it before it publishes a list). */
	st_release(&trigger_hooks, hooks);
}

void event_set_hold_hook(void (*wait)(void))
{
	/* Release: pairs with the acquire in writer_hold(); set before arming. */
	st_release(&hold_hook, wait);
}

void event_set_stack_skip_hook(bool (*is_machinery)(uint64_t pc))
{
	/* Release: pairs with the acquire in stack_above_caller(). */
	st_release(&stack_skip_hook, is_machinery);
}

/* The start-up hold: event_hold_armed was seen set, outside any write. */
static __attribute__((noinline)) void writer_hold(void)
{
	/* Acquire: pairs with the release in event_set_hold_hook(). */
	void (*wait)(void) = ld_acquire(&hold_hook);

	if (wait)
		wait();
}

/*
 * The triggers of @tl for record @rec (NULL: a list that is not cond, run
 * before anything is reserved), for the write called from @caller (see
 * writer_tls.caller): trigger_test(). Return: the post triggers' mask.
 */
static __attribute__((noinline)) unsigned long
writer_triggers_test(const struct trigger_list *tl, const void *rec, size_t len, void *caller)
{
	void *saved = wtls.caller;
	unsigned long mask;

	/* Acquire: pairs with the release in event_set_trigger_hooks(). */
	const struct event_trigger_hooks *hooks = ld_acquire(&trigger_hooks);

	if (unlikely(!hooks))
		return 0;
	wtls.caller = caller;
	mask = hooks->test(tl, rec, len);
	wtls.caller = saved;
	return mask;
}

/* Run @tl's post triggers in @mask for the write called from @caller. */
static __attribute__((noinline)) void writer_triggers(const struct trigger_list *tl,
						      unsigned long mask, void *caller)
{
	void *saved = wtls.caller;

	/* Acquire: pairs with the release in event_set_trigger_hooks(). */
	const struct event_trigger_hooks *hooks = ld_acquire(&trigger_hooks);

	if (unlikely(!hooks))
		return;
	wtls.caller = caller;
	hooks->post(tl, mask);
	wtls.caller = saved;
}

/* The common fields of a record this thread writes (wtls.depth: writes in progress, >= 1). */
static inline void writer_fill_common(struct evt_trace_entry *ent, const struct evt_event *ev,
				      pid_t tid, pid_t tgid)
{
	/* Writes made by a write (a trigger's) do not count as nesting. */
	uint8_t depth = (uint8_t)(wtls.depth - wtls.nest);

	ent->common_type = (uint16_t)ev->id;
	ent->common_flags = depth > 1 ? EVT_TRACE_FLAG_HARDIRQ : 0;
	ent->common_preempt_count = (uint8_t)(depth - 1);
	ent->common_pid = tid;
	ent->common_tgid = tgid;
}

/* The end of a write: no instance left. */
static inline void *trace_event_end(void)
{
	wtls.depth--;
	rcu_unlock();
	return NULL;
}

/* The next instance of the active set that takes the record; NULL ends the write. */
static __attribute__((noinline)) void *trace_event_next(struct evt_trace_event_buffer *fb,
							void *caller)
{
	struct event_active *set = fb->set;
	pid_t tid = writer_tid(), tgid = writer_tgid();

	if (unlikely(!wtls.comm_saved))
		writer_save_comm(tid);
	if (unlikely(!wtls.ids.pid)) {
		/* tgid first: a signal handler that sees pid set finds tgid set too
		 * (compiler order: the handler runs on this thread). */
		wtls.ids.tgid = tgid;
		signal_fence();
		wtls.ids.pid = tid;
	}
	while (fb->idx < set->nr) {
		struct trace_event_file *file = set->files[fb->idx++];
		struct evt_instance *inst = file->inst;
		struct trigger_list *tl = event_file_triggers_rcu(file);
		struct evt_ring_buffer_event *rbe = NULL;
		unsigned int cpu, scratch = FB_SCRATCH_BUFFERED;
		struct evt_trace_entry *ent;

		/*
		 * A list that is not cond (no filter, no post trigger, nothing that
		 * reads the record) runs before anything, record or not (the kernel's
		 * trace_trigger_soft_disabled()); a cond one needs the record and runs
		 * at its commit (the kernel's __event_trigger_test_discard()).
		 */
		if (unlikely(tl) && !tl->cond) {
			writer_triggers_test(tl, NULL, 0, caller);
			tl = NULL;
		}
		if (unlikely(ld_relaxed(&file->flags) & EVT_FILE_SOFT_DISABLED))
			goto scratch;
		if (unlikely(!ld_relaxed(&inst->tracing_on))) {
			/* Acquire: pairs with rcu_publish. A filtered event's record is
			 * the kernel's buffered one, written at the commit if kept. */
			if (!rcu_deref(file->filter))
				scratch = FB_SCRATCH_TEMP;
			goto scratch;
		}
		/* Acquire: a published list is complete (pairs with rcu_publish). */
		if (unlikely(rcu_deref(inst->pids) != NULL) &&
		    !instance_pid_allowed_rcu(inst, tid, tgid))
			continue;
		rbe = rb_lock_reserve_cpu(instance_live_rb(inst), FB_LEN(fb), &cpu);
		if (unlikely(!rbe)) {
			scratch = FB_SCRATCH_TEMP;
			goto scratch;
		}
		/* From the size, not from the header: see rb_payload_off(). */
		ent = (void *)((unsigned char *)rbe + rb_payload_off(rb_event_size(FB_LEN(fb))));
		fb->len = FB_PACK(FB_LEN(fb), cpu);
		goto fill;
scratch:
		/* No record in the buffer, but filtered triggers want one: a scratch
		 * record of the pool (the kernel's temp_buffer). */
		if (likely(!tl) || FB_LEN(fb) > SCRATCH_SIZE)
			continue;
		ent = scratch_get();
		if (!ent)
			continue;
		fb->len = FB_PACK(FB_LEN(fb), scratch);
fill:
		writer_fill_common(ent, file->event, tid, tgid);
		fb->rbe = rbe;
		fb->file = file;
		fb->entry = ent;
		return ent;
	}
	return trace_event_end();
}

/*
 * The fast path of the first instance: the only one, with no trigger, not
 * soft-disabled, tracing on, no pid list, the thread's ids known, no other
 * write of the thread in progress (@depth is 1: the common fields' flags and
 * nesting are 0), and the ring buffer's common case (rb_lock_reserve_try()).
 * It makes the same tests as trace_event_next() in the same order, so taking
 * it changes nothing but the cost. NULL: take the general path (from the
 * start; nothing was reserved, nothing counted).
 *
 * With no filter either, the commit is decided here: fb->idx gets FB_FAST
 * and evt_trace_event_commit() only commits. A trigger or a filter published
 * between this reservation and the commit then does not see this record:
 * the same as if the record had been written just before the publish (the
 * write is one RCU read-side section; an updater that waits for a grace
 * period after publishing waits for this write too). Committing in the
 * buffer of the reservation is what the general commit does after a snapshot
 * swap (instance_rb_of()).
 */
static inline __attribute__((always_inline)) void *
trace_event_first(struct evt_trace_event_buffer *fb, const struct evt_event *ev,
		  struct event_active *set, uint32_t len, uint8_t depth)
{
	struct trace_event_file *file;
	struct evt_ring_buffer_event *rbe;
	struct evt_trace_entry *ent;
	struct evt_ring_buffer *rb;
	struct filter_prog *prog;
	struct evt_instance *inst;
	struct rb_page *page;
	unsigned int cpu;
	uint32_t size;
	bool rseq;

	/* depth 1: no write was in progress, so none made by a write either (nest 0) */
	if (unlikely(set->nr != 1 || depth != 1 || !wtls.ids.pid))
		return NULL;
	file = set->files[0];
	inst = file->inst;
	/* Acquire loads (trigger_list_rcu, rcu_deref): pair with the updaters' publish. */
	if (unlikely(event_file_triggers_rcu(file) != NULL ||
		     (ld_relaxed(&file->flags) & EVT_FILE_SOFT_DISABLED) ||
		     !ld_relaxed(&inst->tracing_on) || rcu_deref(inst->pids) != NULL))
		return NULL;
	/* Acquire: the program is complete before the commit runs it (rcu_publish). */
	prog = rcu_deref(file->filter);
	/*
	 * instance_live_rb(): acquire, a buffer a snapshot swapped in is complete.
	 * The reservation's common case only, with no call (everything above stays
	 * in registers); anything else goes the general way, from the start.
	 */
	rb = instance_live_rb(inst);
	rbe = rb_lock_reserve_try(rb, len, &cpu, &page, &rseq);
	if (unlikely(!rbe))
		return NULL;
	/* From the size, not from the header (rb_payload_off()): the record's
	 * address does not wait for the clock. */
	size = rb_event_size(len);
	ent = (void *)((unsigned char *)rbe + rb_payload_off(size));
	/* The common fields: flags and nesting 0 (depth 1); two stores (4 + 8 bytes). */
	{
		/* common_type, then common_flags and common_preempt_count 0, as one word */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		uint32_t head = (uint16_t)ev->id;
#else
		uint32_t head = (uint32_t)(uint16_t)ev->id << 16;
#endif

		_Static_assert(offsetof(struct evt_trace_entry, common_pid) == sizeof(head),
			       "type, flags, preempt_count: one word");
		memcpy(ent, &head, sizeof(head));
		memcpy(&ent->common_pid, &wtls.ids, sizeof(wtls.ids));
	}
	if (likely(!prog)) {
		uint32_t lo = FB_PACK(len, cpu), hi = FB_FAST | (rseq ? FB_FAST_RSEQ : 0) | size;
		/* fb->len and fb->idx with one store */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		uint64_t len_idx = lo | (uint64_t)hi << 32;
#else
		uint64_t len_idx = (uint64_t)lo << 32 | hi;
#endif

		_Static_assert(offsetof(struct evt_trace_event_buffer, idx) ==
				       offsetof(struct evt_trace_event_buffer, len) + 4,
			       "len and idx: one word");
		memcpy(&fb->len, &len_idx, sizeof(len_idx));
		fb->set = rb;
		fb->rbe = page;
		return ent;
	}
	fb->len = FB_PACK(len, cpu);
	fb->rbe = rbe;
	fb->set = set;
	fb->idx = 1;
	fb->file = file;
	fb->entry = ent;
	return ent;
}

/* The general reservation, from the first instance (trace_event_next() is the call). */
static inline void *trace_event_reserve_slow(struct evt_trace_event_buffer *fb,
					     struct event_active *set, uint32_t len, void *caller)
{
	fb->set = set;
	fb->len = len;
	fb->idx = 0;
	return trace_event_next(fb, caller);
}

void *evt_trace_event_reserve(struct evt_trace_event_buffer *fb, struct evt_event_def *def,
			      size_t len)
{
	struct event_active *set;
	struct evt_event *ev;
	uint8_t depth;
	void *ent;

	if (unlikely(len > UINT16_MAX))
		return NULL;
	/* Acquire: pairs with the release in evt_event_register(). */
	ev = ld_acquire(&def->event);
	if (unlikely(!ev))
		return NULL;
	/* The start-up hold (EVTRACE_CONTROL_HOLD): park before the write starts, never
	 * inside one. Relaxed: a hint, the hold re-reads it with acquire. */
	if (unlikely(ld_relaxed(&event_hold_armed)) && !wtls.depth)
		writer_hold();
	rcu_lock();
	/* Acquire: the set is complete before we read it (pairs with rcu_publish). */
	set = rcu_deref(ev->active);
	if (unlikely(!set)) {
		rcu_unlock();
		return NULL;
	}
	depth = (uint8_t)(wtls.depth + 1);
	wtls.depth = depth;
	/* The depth before anything else of the write: a signal handler nesting here
	 * sees it (the compiler must not sink the store past the reserve). */
	signal_fence();
	ent = trace_event_first(fb, ev, set, (uint32_t)len, depth);
	if (likely(ent != NULL))
		return ent;
	return trace_event_reserve_slow(fb, set, (uint32_t)len, __builtin_return_address(0));
}

void *event_file_trace_reserve(struct evt_trace_event_buffer *fb, struct trace_event_file *file,
			       size_t len)
{
	if (unlikely(len > UINT16_MAX))
		return NULL;
	rcu_lock();
	fb->set = file->self;
	fb->len = (uint32_t)len;
	fb->idx = 0;
	wtls.depth++;
	/* As in evt_trace_event_reserve(): the depth before the reserve. */
	signal_fence();
	return trace_event_next(fb, __builtin_return_address(0));
}

bool event_trace_nest_start(void)
{
	if (!wtls.depth)
		return false;
	wtls.nest++;
	/* Compiler order only: a signal handler on this thread sees the count. */
	signal_fence();
	return true;
}

void event_trace_nest_end(bool nested)
{
	if (!nested)
		return;
	/* Compiler order only: the nested write is over before the count drops. */
	signal_fence();
	wtls.nest--;
}

/*
 * A scratch record kept at its commit (FB_SCRATCH_BUFFERED): into the live
 * buffer now, as the kernel's __buffer_unlock_commit() writes its buffered
 * event, if tracing is on and there is room (else it is lost, as there).
 */
static void trace_event_write_scratch(struct evt_trace_event_buffer *fb, struct evt_instance *inst)
{
	struct evt_ring_buffer_event *rbe;
	struct evt_ring_buffer *rb;
	unsigned int cpu;

	if (!ld_relaxed(&inst->tracing_on))
		return;
	rb = instance_live_rb(inst);
	rbe = rb_lock_reserve_cpu(rb, FB_LEN(fb), &cpu);
	if (!rbe)
		return;
	memcpy((unsigned char *)rbe + rb_payload_off(FB_SIZE(fb)), fb->entry, FB_LEN(fb));
	/* Release: the record is visible before the count that covers it. */
	rb_unlock_commit_cpu(rb, rbe, FB_SIZE(fb), cpu);
}

/*
 * The general commit: triggers, a filter, a snapshot buffer, the scratch
 * record, more instances. As the kernel's trace_event_buffer_commit(): the
 * cond triggers run first (all but the post ones), then the file's
 * soft-disable bit is read afresh and the filter tested (discard or
 * commit), then the post triggers.
 */
static __attribute__((noinline)) void *trace_event_commit_slow(struct evt_trace_event_buffer *fb,
							       void *caller)
{
	struct trace_event_file *file = fb->file;
	struct evt_instance *inst = file->inst;
	struct trigger_list *tl = event_file_triggers_rcu(file);
	struct event_active *set = fb->set;
	struct evt_ring_buffer *rb = NULL;
	struct filter_prog *prog;
	unsigned long fire = 0;
	bool keep;

	if (unlikely(tl) && tl->cond)
		fire = writer_triggers_test(tl, fb->entry, FB_LEN(fb), caller);
	/* Acquire: the program is complete before we run it (pairs with rcu_publish). */
	prog = rcu_deref(file->filter);
	/* Afresh: the triggers just run may have enabled or disabled this event. */
	keep = !(ld_relaxed(&file->flags) & EVT_FILE_SOFT_DISABLED) &&
	       (!prog || filter_match(prog, fb->entry, FB_LEN(fb)));
	if (unlikely(!fb->rbe)) {
		if (keep && FB_CPU(fb) == FB_SCRATCH_BUFFERED)
			trace_event_write_scratch(fb, inst);
	} else {
		/*
		 * A snapshot may have swapped the buffers since the reservation:
		 * instance_rb_of() finds the one holding the record. Without a
		 * snapshot buffer it is the live one (the same loads, inline).
		 */
		rb = instance_live_rb(inst);
		if (unlikely(ld_relaxed(&inst->snap_bufs[0]) != NULL))
			rb = instance_rb_of(inst, fb->rbe);
		if (!keep) {
			/* Release: the padding is visible before the count that covers it. */
			rb_discard_commit_cpu(rb, fb->rbe, FB_SIZE(fb), FB_CPU(fb));
		} else {
			/* Release: the record is visible before the count that covers it. */
			rb_unlock_commit_cpu(rb, fb->rbe, FB_SIZE(fb), FB_CPU(fb));
		}
	}
	if (unlikely(fire))
		writer_triggers(tl, fire, caller);
	if (unlikely(!fb->rbe))
		scratch_put(fb->entry);
	if (likely(fb->idx >= set->nr))
		return trace_event_end();
	return trace_event_next(fb, caller);
}

/* evt_trace_event_commit() of the last instance's record, with a filter and no trigger. */
static __attribute__((noinline)) void *
trace_event_commit_filtered(struct evt_trace_event_buffer *fb, struct evt_ring_buffer *rb,
			    struct filter_prog *prog)
{
	if (!filter_match(prog, fb->entry, FB_LEN(fb))) {
		/* Release: the padding is visible before the count that covers it. */
		rb_discard_commit_cpu(rb, fb->rbe, FB_SIZE(fb), FB_CPU(fb));
	} else {
		/* Release: the record is visible before the count that covers it. */
		rb_unlock_commit_cpu(rb, fb->rbe, FB_SIZE(fb), FB_CPU(fb));
	}
	return trace_event_end();
}

void *evt_trace_event_commit(struct evt_trace_event_buffer *fb)
{
	struct trace_event_file *file;
	struct event_active *set;
	struct evt_instance *inst;
	uint32_t idx = fb->idx;

	if (likely(idx & FB_FAST)) {
		/* trace_event_first() decided: commit in the page of the reservation. */
		/* Release: the record is visible before the count that covers it. */
		rb_commit_kept(fb->set, fb->rbe, idx & FB_FAST_SIZE, FB_CPU(fb),
			       (idx & FB_FAST_RSEQ) != 0);
		return trace_event_end();
	}
	file = fb->file;
	set = fb->set;
	inst = file->inst;

	/*
	 * The common case, in a few registers and no call: a record in the
	 * buffer, the last instance, no trigger, no snapshot buffer, and no
	 * filter (or one, run by a tail call). The same loads and the same commit
	 * as the general path, which reads everything again when one of them is
	 * there. Acquire loads (trigger_list_rcu, instance_live_rb, rcu_deref):
	 * pair with the updaters' publish.
	 */
	if (likely(fb->rbe != NULL && fb->idx >= set->nr && event_file_triggers_rcu(file) == NULL)) {
		struct evt_ring_buffer *rb = instance_live_rb(inst);

		if (likely(ld_relaxed(&inst->snap_bufs[0]) == NULL)) {
			struct filter_prog *prog = rcu_deref(file->filter);

			if (unlikely(prog != NULL))
				return trace_event_commit_filtered(fb, rb, prog);
			/* Release: the record is visible before the count that covers it. */
			rb_unlock_commit_cpu(rb, fb->rbe, FB_SIZE(fb), FB_CPU(fb));
			return trace_event_end();
		}
	}
	return trace_event_commit_slow(fb, __builtin_return_address(0));
}

/* trace_marker: an ftrace:print record, "ip" then the text (NUL-terminated). */
/* The triggers of ftrace:print in @inst (its file is in the event's active set while it
 * has some: soft mode), inside rcu_lock(). */
static struct trigger_list *marker_triggers(struct evt_instance *inst)
{
	/* Acquire: a published set is complete (pairs with rcu_publish). */
	struct event_active *set = event_print ? rcu_deref(event_print->active) : NULL;

	for (unsigned int i = 0; set && i < set->nr; i++)
		if (set->files[i]->inst == inst)
			return event_file_triggers_rcu(set->files[i]);
	return NULL;
}

int evt_instance_trace_marker(struct evt_instance *inst, const char *buf, size_t len)
{
	struct evt_ring_buffer_event *rbe;
	struct trigger_list *tl;
	struct evt_ring_buffer *rb;
	struct evt_trace_entry *ent;
	unsigned long fire = 0;
	size_t max, n;
	char *text;

	if (!inst || (len && !buf))
		return -EINVAL;
	events_init();
	/* As in evt_trace_event_reserve() (through the tracefs API we are under
	 * tfs_lock: the hold does not park then). Relaxed: a hint. */
	if (unlikely(ld_relaxed(&event_hold_armed)) && !wtls.depth)
		writer_hold();
	if (!ld_relaxed(&inst->tracing_on))
		return -EBADF;		/* the kernel: "ring buffer disabled" */
	/* A writer like the others: a snapshot's buffer is freed a grace period
	 * after it stops being the live one. */
	rcu_lock();
	rb = instance_live_rb(inst);
	max = evt_ring_buffer_page_size(rb) - EVT_RB_PAGE_HDR_SIZE - 64;
	n = len < max ? len : max;
	rbe = evt_ring_buffer_lock_reserve(rb, sizeof(*ent) + 8 + n + 2);
	if (!rbe) {
		rcu_unlock();
		return -EBADF;
	}
	ent = evt_ring_buffer_event_data(rbe);
	ent->common_type = EVENT_ID_PRINT;
	ent->common_flags = 0;
	ent->common_preempt_count = 0;
	ent->common_pid = writer_tid();
	ent->common_tgid = writer_tgid();
	if (!wtls.comm_saved)
		writer_save_comm(ent->common_pid);
	/* ip: none in user space, a placeholder trace.dat files name tracing_mark_write */
	memcpy((char *)ent + sizeof(*ent), &(uint64_t){ EVENT_PRINT_IP }, 8);
	text = (char *)ent + sizeof(*ent) + 8;
	memcpy(text, buf, n);
	/* The print event's triggers (histogram.rst 3: "User space creating a
	 * trigger"), as the kernel's tracing_mark_write(): always with the record
	 * (event_triggers_call()), before the commit, on the text before its
	 * newline is added; the post ones after the commit. */
	text[n] = '\0';
	tl = marker_triggers(inst);
	if (unlikely(tl))
		fire = writer_triggers_test(tl, ent, sizeof(*ent) + 8 + n + 1,
					    __builtin_return_address(0));
	/* As the kernel: the text always ends in a newline. */
	if (!n || text[n - 1] != '\n')
		text[n++] = '\n';
	text[n] = '\0';
	evt_ring_buffer_unlock_commit(rb, rbe);
	if (unlikely(fire))
		writer_triggers(tl, fire, __builtin_return_address(0));
	rcu_unlock();
	return (int)(len < max ? len : max);
}

/* --- ftrace:kernel_stack (the stacktrace trigger) ------------------------------------------ */

#define STACK_DEPTH_MAX 64 /* frames taken; those above the traced call site are recorded */
#define STACK_MACHINERY_MAX 6 /* how far above the call site the layers above's frames reach */

/* The frames above the traced call site in frames[*skip..n); returns n. */
static int stack_above_caller(void **frames, int max, int *skip)
{
	bool (*machinery)(uint64_t pc);
	void *caller = wtls.caller;
	int n, from;

	*skip = 0;
	/* No allocation: writer_init() made the unwinder's first call. */
	n = backtrace(frames, max);
	/* Start above the traced program's call into the writer (the kernel skips
	 * its tracing frames the same way); all of it when that is not found. */
	for (int i = 0; caller && i < n; i++) {
		if (frames[i] == caller) {
			*skip = i + 1;
			break;
		}
	}
	/* Acquire: pairs with the release in event_set_stack_skip_hook(). */
	machinery = ld_acquire(&stack_skip_hook);
	from = *skip;
	for (int i = from; machinery && i < n && i < from + STACK_MACHINERY_MAX; i++) {
		if (machinery((uint64_t)(uintptr_t)frames[i]))
			*skip = i + 1; /* a probe's trampoline: the probed function is next */
	}
	return n;
}

int event_stack_frames(uint64_t *ips, int max)
{
	void *frames[STACK_DEPTH_MAX];
	int n, skip, nr;

	n = stack_above_caller(frames, STACK_DEPTH_MAX, &skip);
	nr = n - skip < max ? n - skip : max;
	for (int i = 0; i < nr; i++)
		ips[i] = (uint64_t)(uintptr_t)frames[skip + i];
	return nr;
}

int event_trace_stack(struct evt_instance *inst)
{
	struct evt_ring_buffer_event *rbe;
	struct evt_ring_buffer *rb;
	void *frames[STACK_DEPTH_MAX];
	struct evt_trace_entry *ent;
	int n, skip;
	int32_t nr;

	if (!ld_relaxed(&inst->tracing_on))
		return -EBADF;
	n = stack_above_caller(frames, STACK_DEPTH_MAX, &skip);
	nr = n - skip;
	rb = instance_live_rb(inst);
	rbe = evt_ring_buffer_lock_reserve(rb, EVENT_STACK_CALLER_OFF + (size_t)nr * 8);
	if (!rbe)
		return -ENOBUFS;
	ent = evt_ring_buffer_event_data(rbe);
	ent->common_type = EVENT_ID_KERNEL_STACK;
	ent->common_flags = wtls.depth > 1 ? EVT_TRACE_FLAG_HARDIRQ : 0;
	ent->common_preempt_count = (uint8_t)(wtls.depth ? wtls.depth - 1 : 0);
	ent->common_pid = writer_tid();
	ent->common_tgid = writer_tgid();
	memcpy((char *)ent + sizeof(*ent), &nr, 4);
	for (int i = 0; i < nr; i++) {
		uint64_t ip = (uint64_t)(uintptr_t)frames[skip + i];

		memcpy((char *)ent + EVENT_STACK_CALLER_OFF + (size_t)i * 8, &ip, 8);
	}
	evt_ring_buffer_unlock_commit(rb, rbe);
	return 0;
}
