/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/unit/trigger-kernel.c: events shaped as the kernel's cgroup:cgroup_remount and two
 * targets, so that its commands replay unchanged. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cgroup

#if !defined(TRIGGER_KERNEL_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRIGGER_KERNEL_TP_H
#include <evtrace/trace_event.h>

TRACE_EVENT(cgroup_remount,
	TP_PROTO(int root, unsigned short ss_mask),
	TP_ARGS(root, ss_mask),
	TP_STRUCT__entry(
		__field(int, root)
		__field(unsigned short, ss_mask)
	),
	TP_fast_assign(
		__entry->root = root;
		__entry->ss_mask = ss_mask;
	),
	TP_printk("root=%d ss_mask=%#x", __entry->root, __entry->ss_mask)
);

TRACE_EVENT(cgroup_destroy_root,
	TP_PROTO(int root),
	TP_ARGS(root),
	TP_STRUCT__entry(
		__field(int, root)
	),
	TP_fast_assign(
		__entry->root = root;
	),
	TP_printk("root=%d", __entry->root)
);

TRACE_EVENT(cgroup_rename,
	TP_PROTO(int root),
	TP_ARGS(root),
	TP_STRUCT__entry(
		__field(int, root)
	),
	TP_fast_assign(
		__entry->root = root;
	),
	TP_printk("root=%d", __entry->root)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trigger-kernel-tp
#include <evtrace/define_trace.h>
