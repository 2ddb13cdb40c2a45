/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/unit/synth-hook.c: an event whose assignment traces a synthetic event, as a hist
 * action does from inside the writer. */
/* TRACE_EVENT() layout and file names: */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM synthhook

#if !defined(SYNTH_HOOK_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define SYNTH_HOOK_TP_H
#include <evtrace/trace_event.h>

int synth_hook_fire(int v);

TRACE_EVENT(hook_outer,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = synth_hook_fire(v);
	),
	TP_printk("v=%d", __entry->v)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../tests/unit
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE synth-hook-tp
#include <evtrace/define_trace.h>
/* clang-format on */
