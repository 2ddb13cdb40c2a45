// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events/output.c - the `trace`, `trace_pipe` and per_cpu/cpuN/trace text.
 *
 * An iterator holds one ring-buffer cursor per CPU it reads: a
 * non-consuming iterator (evt_ring_buffer_read_start) for `trace`, the
 * consumer (peek/consume) for `trace_pipe`. Each line takes the record
 * with the smallest time stamp among the CPUs (the kernel's
 * __find_next_entry), formats it in the kernel's layout:
 *
 *   "%16s-%-7d [%03d] %c%c%c%c%c %5lu.%06lu: %s: <print fmt output>\n"
 *
 * and only then moves past it, so a line that does not fit in the
 * caller's builder is formatted again on the next call (unless the builder
 * was empty: then the line is "[LINE TOO BIG]", as in the kernel).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/clock.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/seq.h>

#include "compat/atomic.h"
#include "compat/compiler.h"
#include "compat/rcu.h"
#include "events/event_internal.h"

struct evt_trace_iter {
	struct evt_instance *inst;
	struct evt_ring_buffer *rb;
	unsigned int flags;
	int cpu;			/* -1: all */
	int nr_cpus;
	struct evt_ring_buffer_iter **iters;	/* non-consuming: one per CPU */
	unsigned long *lost;		/* consuming: lost events shown before the next
					 * record (from peek), per CPU */
	unsigned long *pending;		/* consuming: lost events the consume reported
					 * beyond those shown, still to show, per CPU */
	bool *lost_done;
	/*
	 * Non-consuming: the buffer's clock when the iterator was opened. A CPU
	 * whose next record is younger counts as empty, so reading `trace` ends
	 * even while writers outrun the reader (the kernel's iterator follows
	 * the writers; its pause-on-trace option, off by default, would stop
	 * recording instead).
	 */
	uint64_t stop_ts;
	/* The `snapshot` file: rb is the snapshot buffer, NULL when none is allocated. */
	bool snapshot;
};

static int iter_open(struct evt_instance *inst, int cpu, unsigned int flags, bool snapshot,
		     struct evt_trace_iter **iterp)
{
	struct evt_trace_iter *it;
	int nr, ret = 0;

	if (!inst || !iterp || (flags & ~EVT_ITER_CONSUME))
		return -EINVAL;
	nr = evt_ring_buffer_nr_cpus(instance_live_rb(inst));
	if (cpu < -1 || cpu >= nr)
		return -EINVAL;
	it = calloc(1, sizeof(*it));
	if (!it)
		return -ENOMEM;
	/* The buffer is chosen with the reader counted: a snapshot buffer is not
	 * freed while an instance has readers (instance_snapshot_write). */
	event_lock();
	if (inst->dead) {
		event_unlock();
		free(it);
		return -ENOENT;
	}
	inst->readers++;
	it->rb = snapshot ? instance_snapshot_buffer_locked(inst) : instance_live_rb(inst);
	event_unlock();
	it->inst = inst;
	it->snapshot = snapshot;
	it->flags = flags;
	it->cpu = cpu;
	it->nr_cpus = nr;
	it->iters = calloc((size_t)nr, sizeof(*it->iters));
	it->lost = calloc((size_t)nr, sizeof(*it->lost));
	it->pending = calloc((size_t)nr, sizeof(*it->pending));
	it->lost_done = calloc((size_t)nr, sizeof(*it->lost_done));
	if (!it->iters || !it->lost || !it->pending || !it->lost_done) {
		ret = -ENOMEM;
		goto fail;
	}
	if (!(flags & EVT_ITER_CONSUME) && it->rb) {
		it->stop_ts = evt_ring_buffer_time_stamp(it->rb);
		for (int c = 0; c < nr; c++) {
			if (cpu >= 0 && c != cpu)
				continue;
			ret = evt_ring_buffer_read_start(it->rb, c, &it->iters[c]);
			if (ret)
				goto fail;
		}
	}
	*iterp = it;
	return 0;
fail:
	event_lock();
	inst->readers--;
	event_unlock();
	if (it->iters)
		for (int c = 0; c < nr; c++)
			if (it->iters[c])
				evt_ring_buffer_read_finish(it->iters[c]);
	free(it->iters);
	free(it->lost);
	free(it->pending);
	free(it->lost_done);
	free(it);
	return ret;
}

int evt_trace_iter_open(struct evt_instance *inst, int cpu, unsigned int flags,
			struct evt_trace_iter **iterp)
{
	return iter_open(inst, cpu, flags, false, iterp);
}

int event_snapshot_iter_open(struct evt_instance *inst, int cpu, struct evt_trace_iter **iterp)
{
	return iter_open(inst, cpu, 0, true, iterp);
}

void evt_trace_iter_close(struct evt_trace_iter *it)
{
	if (!it)
		return;
	for (int c = 0; c < it->nr_cpus; c++)
		if (it->iters[c])
			evt_ring_buffer_read_finish(it->iters[c]);
	event_lock();
	it->inst->readers--;
	event_unlock();
	free(it->iters);
	free(it->lost);
	free(it->pending);
	free(it->lost_done);
	free(it);
}

/* --- header ------------------------------------------------------------------------------- */

static const char trace_columns[] =
	"#\n"
	"#                                _-----=> irqs-off/BH-disabled\n"
	"#                               / _----=> need-resched\n"
	"#                              | / _---=> hardirq/softirq\n"
	"#                              || / _--=> preempt-depth\n"
	"#                              ||| / _-=> migrate-disable\n"
	"#                              |||| /     delay\n"
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"#              | |         |   |||||     |         |\n";

/* The kernel's print_snapshot_help(), for a snapshot that is empty or not allocated. */
static const char snapshot_help_all[] =
	"# echo 0 > snapshot : Clears and frees snapshot buffer\n"
	"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
	"#                      Takes a snapshot of the main buffer.\n"
	"# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
	"#                      (Doesn't have to be '2' works with any number that\n"
	"#                       is not a '0' or '1')\n";
static const char snapshot_help_cpu[] =
	"# echo 0 > snapshot : Invalid for per_cpu snapshot file.\n"
	"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
	"#                      Takes a snapshot of the main buffer for this cpu.\n"
	"# echo 2 > snapshot : Clears this cpu's snapshot buffer (but does not allocate)\n"
	"#                      (Doesn't have to be '2' works with any number that\n"
	"#                       is not a '0' or '1')\n";

static void print_snapshot_help(struct evt_trace_iter *it, struct evt_seq *s)
{
	if (it->rb)
		evt_seq_puts(s, "#\n# * Snapshot is allocated *\n#\n");
	else
		evt_seq_puts(s, "#\n# * Snapshot is freed *\n#\n");
	evt_seq_puts(s, "# Snapshot commands:\n");
	evt_seq_puts(s, it->cpu < 0 ? snapshot_help_all : snapshot_help_cpu);
}

int evt_trace_iter_print_header(struct evt_trace_iter *it, struct evt_seq *s)
{
	unsigned long entries = 0, written = 0;
	size_t start = s->len;

	if (it->snapshot) {
		for (int c = 0; it->rb && c < it->nr_cpus; c++)
			if (it->cpu < 0 || c == it->cpu)
				entries += evt_ring_buffer_entries_cpu(it->rb, c);
		if (!entries) {
			evt_seq_puts(s, "# tracer: nop\n#\n");
			print_snapshot_help(it, s);
			goto out;
		}
		entries = 0;
	}
	for (int c = 0; c < it->nr_cpus; c++) {
		unsigned long e;

		if (it->cpu >= 0 && c != it->cpu)
			continue;
		e = evt_ring_buffer_entries_cpu(it->rb, c);
		entries += e;
		written += e + evt_ring_buffer_overrun_cpu(it->rb, c);
	}
	evt_seq_puts(s, "# tracer: nop\n#\n");
	evt_seq_printf(s, "# entries-in-buffer/entries-written: %lu/%lu   #P:%d\n", entries,
		       written, it->nr_cpus);
	evt_seq_puts(s, trace_columns);
out:
	if (s->full) {
		evt_seq_truncate(s, start);
		s->full = true;
		return -ENOSPC;
	}
	return 0;
}

/* --- one line ----------------------------------------------------------------------------- */

static void print_context(struct evt_trace_iter *it, struct evt_seq *s,
			  const struct evt_trace_entry *ent, int cpu, uint64_t ts)
{
	char comm[16];
	unsigned int pc = ent->common_preempt_count;
	char fl[6];

	evt_saved_cmdline(ent->common_pid, comm);
	evt_seq_printf(s, "%16s-%-7d ", comm, (int)ent->common_pid);
	evt_seq_printf(s, "[%03d] ", cpu);
	/* The kernel's trace_print_lat_fmt(): irqs-off, need-resched, hardirq/softirq,
	 * preempt-depth, migrate-disable. */
	fl[0] = ent->common_flags & EVT_TRACE_FLAG_IRQS_OFF ? 'd' : '.';
	fl[1] = ent->common_flags & EVT_TRACE_FLAG_NEED_RESCHED ? 'N' : '.';
	fl[2] = (ent->common_flags & EVT_TRACE_FLAG_HARDIRQ) ?
		((ent->common_flags & EVT_TRACE_FLAG_SOFTIRQ) ? 'H' : 'h') :
		((ent->common_flags & EVT_TRACE_FLAG_SOFTIRQ) ? 's' : '.');
	fl[3] = (pc & 0xf) ? "0123456789abcdef"[pc & 0xf] : '.';
	fl[4] = (pc >> 4) ? "0123456789abcdef"[(pc >> 4) & 0xf] : '.';
	fl[5] = '\0';
	evt_seq_puts(s, fl);
	if (evt_clock_is_ns(evt_ring_buffer_clock(it->rb))) {
		uint64_t ns = ts;
		unsigned long long usecs;

		evt_ring_buffer_normalize_time_stamp(it->rb, cpu, &ns);
		usecs = (ns + 500) / 1000;
		evt_seq_printf(s, " %5llu.%06llu: ", usecs / 1000000, usecs % 1000000);
	} else {
		evt_seq_printf(s, " %12llu: ", (unsigned long long)ts);
	}
}

/*
 * One frame of a stack record as the kernel's seq_print_ip_sym() with
 * sym-offset: "symbol+0xoff/0xsize", " [object]" for a shared object (the
 * kernel's module), the bare address when no symbol covers it. Symbols come
 * from dladdr1() at print time (the dynamic symbol table: a program's own
 * functions need -rdynamic), never in the writer.
 */
static bool frame_sym(uint64_t at, Dl_info *info, const ElfW(Sym) **sym)
{
	*sym = NULL;
	return dladdr1((void *)(uintptr_t)at, info, (void **)sym, RTLD_DL_SYMENT) &&
	       info->dli_sname && info->dli_saddr &&
	       (!*sym || !(*sym)->st_size || at - (uintptr_t)info->dli_saddr < (*sym)->st_size);
}

static void print_stack_ip(struct evt_seq *s, uint64_t ip)
{
	const ElfW(Sym) *sym;
	Dl_info info;

	/* A return address: the call is the byte before it (a noreturn call may
	 * be the last instruction of its function). An exact pc, a function's
	 * first byte (a probed function's frame, from its trampoline), is named
	 * by no symbol at the byte before: then by its own. */
	if (ip && (frame_sym(ip - 1, &info, &sym) || frame_sym(ip, &info, &sym))) {
		const char *obj = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;

		obj = obj ? obj + 1 : info.dli_fname;
		evt_seq_printf(s, "%s+0x%llx/0x%llx", info.dli_sname,
			       (unsigned long long)(ip - (uintptr_t)info.dli_saddr),
			       (unsigned long long)(sym ? sym->st_size : 0));
		if (obj && strstr(obj, ".so"))
			evt_seq_printf(s, " [%s]", obj);
		return;
	}
	evt_seq_printf(s, "0x%llx", (unsigned long long)ip);
}

/* ftrace:kernel_stack as the kernel's trace_stack_print(). */
static void print_stack(struct evt_seq *s, const void *data, size_t len)
{
	int32_t nr = 0;

	evt_seq_puts(s, "<stack trace>\n");
	if (len >= EVENT_STACK_CALLER_OFF)
		memcpy(&nr, (const char *)data + sizeof(struct evt_trace_entry), 4);
	for (int32_t i = 0; i < nr; i++) {
		size_t off = EVENT_STACK_CALLER_OFF + (size_t)i * 8;
		uint64_t ip;

		if (off + 8 > len)
			break;
		memcpy(&ip, (const char *)data + off, 8);
		if (ip == UINT64_MAX)
			break;
		evt_seq_puts(s, " => ");
		print_stack_ip(s, ip);
		evt_seq_putc(s, '\n');
	}
}

/* Format the record @data (@len bytes) of CPU @cpu at @ts as one line. */
static void print_line(struct evt_trace_iter *it, struct evt_seq *s, const void *data,
		       size_t len, int cpu, uint64_t ts)
{
	const struct evt_trace_entry *ent = data;
	struct evt_trace_entry zero = { 0 };
	struct evt_event *ev;

	if (len < sizeof(*ent)) {
		print_context(it, s, &zero, cpu, ts);
		evt_seq_puts(s, "<short record>\n");
		return;
	}
	print_context(it, s, ent, cpu, ts);
	rcu_lock();
	ev = event_find_id_rcu(ent->common_type);
	if (!ev) {
		evt_seq_printf(s, "Unknown type %u\n", ent->common_type);
	} else if (ent->common_type == EVENT_ID_KERNEL_STACK) {
		print_stack(s, data, len);
	} else if (ent->common_type == EVENT_ID_PRINT) {
		const char *text = (const char *)data + sizeof(*ent) + 8;
		size_t max = len > sizeof(*ent) + 8 ? len - sizeof(*ent) - 8 : 0;
		size_t n = max ? strnlen(text, max) : 0;

		/* The kernel prints the ip's symbol: tracing_mark_write for trace_marker. */
		evt_seq_printf(s, "tracing_mark_write: %.*s", (int)n, text);
		if (!n || text[n - 1] != '\n')
			evt_seq_putc(s, '\n');
	} else {
		evt_seq_printf(s, "%s: ", ev->name);
		event_print_record(ev, data, len, s);
		evt_seq_putc(s, '\n');
	}
	rcu_unlock();
}

/* The CPU whose next record is the oldest, with that record; -1 if none. */
static int next_cpu(struct evt_trace_iter *it, struct evt_ring_buffer_event **evp,
		    uint64_t *tsp, unsigned long *lostp)
{
	int best = -1, lo = it->cpu >= 0 ? it->cpu : 0;
	int hi = it->cpu >= 0 ? it->cpu + 1 : it->nr_cpus;
	uint64_t best_ts = 0;
	struct evt_ring_buffer_event *best_ev = NULL;

	*evp = NULL;
	*lostp = 0;
	if (it->flags & EVT_ITER_CONSUME) {
		/* the oldest record of all, each writer's in its order (across migrations) */
		best = evt_ring_buffer_peek_oldest(it->rb, lo, hi, evp, tsp, lostp);
		return best < 0 ? -1 : best;
	}
	for (int c = lo; c < hi; c++) {
		struct evt_ring_buffer_event *e;
		uint64_t ts;

		e = evt_ring_buffer_iter_peek(it->iters[c], &ts);
		if (!e)
			continue;
		if (ts > it->stop_ts)
			continue;	/* written after the reader came: not this read's */
		if (best < 0 || ts < best_ts) {
			best = c;
			best_ts = ts;
			best_ev = e;
		}
	}
	*evp = best_ev;
	*tsp = best_ts;
	return best;
}

int evt_trace_iter_next_line(struct evt_trace_iter *it, struct evt_seq *s)
{
	struct evt_ring_buffer_event *e;
	unsigned long lost;
	size_t start = s->len;
	uint64_t ts;
	int cpu;

	if (!it || !s)
		return -EINVAL;
	if (!it->rb)
		return 0; /* a snapshot that is not allocated */
	/* trace_pipe follows the live buffer across snapshots, as the kernel's
	 * (its iterator names the array_buffer whose buffer is swapped). */
	if ((it->flags & EVT_ITER_CONSUME) && !it->snapshot)
		it->rb = instance_live_rb(it->inst);
	cpu = next_cpu(it, &e, &ts, &lost);
	/*
	 * Consuming: writers may overwrite more between our peek and our consume;
	 * what the consume reported beyond the line shown is shown now, before
	 * anything else of that CPU (or at the end), so the LOST lines add up.
	 */
	for (int c = 0; c < it->nr_cpus; c++) {
		unsigned long n = it->pending[c];

		if (!n || (cpu >= 0 && c != cpu))
			continue;
		if (evt_seq_printf(s, "CPU:%d [LOST %lu EVENTS]\n", c, n)) {
			evt_seq_truncate(s, start);
			s->full = true;
			return -ENOSPC;
		}
		it->pending[c] = 0;
		return 1;
	}
	if (cpu < 0)
		return 0;
	if (lost && !it->lost_done[cpu]) {
		/* The kernel's "CPU:%d [LOST %lu EVENTS]" line, once per batch. */
		if (evt_seq_printf(s, "CPU:%d [LOST %lu EVENTS]\n", cpu, lost)) {
			evt_seq_truncate(s, start);
			s->full = true;
			return -ENOSPC;
		}
		it->lost_done[cpu] = true;
		it->lost[cpu] = lost;
		return 1;
	}
	print_line(it, s, evt_ring_buffer_event_data(e), evt_ring_buffer_event_length(e), cpu,
		   ts);
	if (s->full) {
		evt_seq_truncate(s, start);
		/* A line that cannot fit even an empty builder would stall the reader:
		 * the kernel's answer, "[LINE TOO BIG]", and on to the next record. */
		if (start != 0 || evt_seq_puts(s, "[LINE TOO BIG]\n")) {
			s->full = true;
			return -ENOSPC;
		}
	}
	if (it->flags & EVT_ITER_CONSUME) {
		unsigned long seen = 0, shown = it->lost_done[cpu] ? it->lost[cpu] : 0;

		/* Asking for the loss count is what marks it reported (the ring buffer's rule). */
		evt_ring_buffer_consume(it->rb, cpu, NULL, &seen);
		if (seen > shown)
			it->pending[cpu] += seen - shown;
		it->lost[cpu] = 0;
		it->lost_done[cpu] = false;
	} else {
		it->lost_done[cpu] = false;
		evt_ring_buffer_read(it->iters[cpu], NULL);
	}
	return 1;
}

int evt_instance_trace_text(struct evt_instance *inst, int cpu, char *buf, size_t size)
{
	struct evt_trace_iter *it;
	struct evt_seq s;
	char line[8192];
	size_t len = 0;
	int ret;

	ret = evt_trace_iter_open(inst, cpu, 0, &it);
	if (ret)
		return ret;
	if (size)
		buf[0] = '\0';
	evt_seq_init(&s, line, sizeof(line));
	evt_trace_iter_print_header(it, &s);
	for (;;) {
		size_t n = s.len;

		if (buf && len < size) {
			size_t c = n < size - 1 - len ? n : size - 1 - len;

			memcpy(buf + len, line, c);
			buf[len + c] = '\0';
		}
		len += n;
		evt_seq_reset(&s);
		ret = evt_trace_iter_next_line(it, &s);
		if (ret <= 0)
			break;
	}
	evt_trace_iter_close(it);
	return ret < 0 ? ret : (int)len;
}
