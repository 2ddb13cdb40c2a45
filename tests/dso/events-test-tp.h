/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/dso/events-test-tp.h - events of the events-* tests: every field kind.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM evtest

#if !defined(EVENTS_TEST_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVENTS_TEST_TP_H

#include <stdint.h>
#include <sys/types.h>

#include <evtrace/trace_event.h>

TRACE_EVENT(evtest_ints,
	TP_PROTO(int64_t v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int8_t, s8)
		__field(uint8_t, u8)
		__field(int16_t, s16)
		__field(uint16_t, u16)
		__field(int32_t, s32)
		__field(uint32_t, u32)
		__field(int64_t, s64)
		__field(uint64_t, u64)
		__field(bool, b)
		__field(char, c)
		__field(long, l)
		__field(unsigned long, ul)
		__field(const void *, ptr)
	),
	TP_fast_assign(
		__entry->s8 = (int8_t)v;
		__entry->u8 = (uint8_t)v;
		__entry->s16 = (int16_t)v;
		__entry->u16 = (uint16_t)v;
		__entry->s32 = (int32_t)v;
		__entry->u32 = (uint32_t)v;
		__entry->s64 = v;
		__entry->u64 = (uint64_t)v;
		__entry->b = v != 0;
		__entry->c = 'A';
		__entry->l = (long)v;
		__entry->ul = (unsigned long)v;
		__entry->ptr = (const void *)(uintptr_t)0x1234;
	),
	TP_printk("s8=%d u8=%u s16=%d u16=%u s32=%d u32=%u s64=%lld u64=%llu b=%d c=%c "
		  "l=%ld ul=%lu",
		  __entry->s8, __entry->u8, __entry->s16, __entry->u16, __entry->s32, __entry->u32,
		  __entry->s64, __entry->u64, __entry->b, __entry->c, __entry->l, __entry->ul)
);

TRACE_EVENT(evtest_arrays,
	TP_PROTO(const char *name, const int *vals, int n, const uint8_t *bytes, int nb),
	TP_ARGS(name, vals, n, bytes, nb),
	TP_STRUCT__entry(
		__array(char, comm, 16)
		__array(short, fixed, 3)
		__string(name, name)
		__dynamic_array(int, vals, n)
		__dynamic_array(uint8_t, bytes, nb)
	),
	TP_fast_assign(
		strncpy(__entry->comm, "evtest", sizeof(__entry->comm));
		__entry->fixed[0] = -1;
		__entry->fixed[1] = 2;
		__entry->fixed[2] = -3;
		__assign_str(name);
		memcpy(__get_dynamic_array(vals), vals, __get_dynamic_array_len(vals));
		memcpy(__get_dynamic_array(bytes), bytes, __get_dynamic_array_len(bytes));
	),
	TP_printk("comm=%s name=%s vals=%s bytes=%s n=%u", __entry->comm, __get_str(name),
		  __print_array(__get_dynamic_array(vals), __get_dynamic_array_len(vals) / 4, 4),
		  __print_hex(__get_dynamic_array(bytes), __get_dynamic_array_len(bytes)),
		  __get_dynamic_array_len(vals))
);

/* The same fields as the kernel's sched:sched_process_exec, for events-format. */
TRACE_EVENT(evtest_exec,
	TP_PROTO(const char *filename, pid_t pid, pid_t old_pid),
	TP_ARGS(filename, pid, old_pid),
	TP_STRUCT__entry(
		__string(filename, filename)
		__field(pid_t, pid)
		__field(pid_t, old_pid)
	),
	TP_fast_assign(
		__assign_str(filename);
		__entry->pid = pid;
		__entry->old_pid = old_pid;
	),
	TP_printk("filename=%s pid=%d old_pid=%d", __get_str(filename), __entry->pid,
		  __entry->old_pid)
);

/* The torture test's event: a sequence number and a writer id. */
TRACE_EVENT(evtest_seq,
	TP_PROTO(uint32_t writer, uint64_t seq, uint32_t check),
	TP_ARGS(writer, seq, check),
	TP_STRUCT__entry(
		__field(uint32_t, writer)
		__field(uint64_t, seq)
		__field(uint32_t, check)
	),
	TP_fast_assign(
		__entry->writer = writer;
		__entry->seq = seq;
		__entry->check = check;
	),
	TP_printk("writer=%u seq=%llu check=%x", __entry->writer, __entry->seq, __entry->check)
);

/* The benchmark's event: 16 bytes of fields. */
TRACE_EVENT(evtest_bench,
	TP_PROTO(uint32_t a, uint32_t b, uint64_t c),
	TP_ARGS(a, b, c),
	TP_STRUCT__entry(
		__field(uint32_t, a)
		__field(uint32_t, b)
		__field(uint64_t, c)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),
	TP_printk("a=%u b=%u c=%llu", __entry->a, __entry->b, __entry->c)
);

#endif /* EVENTS_TEST_TP_H */

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE events-test-tp
#include <evtrace/define_trace.h>
