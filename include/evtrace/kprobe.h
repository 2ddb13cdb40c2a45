/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/kprobe.h - creating probe events from the program itself (events.rst 7.3):
 * kprobe and kretprobe events on any function of the program or of a loaded shared
 * library, built with the dynevent_cmd machinery (evtrace/dynevent.h) and run as a
 * line of the `kprobe_events` file (docs/probes.md has the grammar of the location
 * and of the fetch arguments).
 *
 *	char buf[EVT_MAX_DYNEVENT_CMD_LEN];
 *	struct evt_dynevent_cmd cmd;
 *
 *	evt_kprobe_event_cmd_init(&cmd, buf, sizeof(buf));
 *	ret = evt_kprobe_event_gen_cmd_start(&cmd, "gen_kprobe_test", "compute",
 *					     "a=%di:s32", "b=%si:u32");
 *	ret = evt_kprobe_event_add_fields(&cmd, "name=+0(%dx):string");
 *	ret = evt_kprobe_event_gen_cmd_end(&cmd);	// kprobes/gen_kprobe_test exists
 *	...
 *	ret = evt_kprobe_event_delete("gen_kprobe_test");
 *
 * The three variadic calls are macros that end the list with the NULL their
 * functions expect (the kernel's macros do the same); called through a pointer, the
 * functions need that NULL. Enable the event with evt_trace_array_set_clr_event()
 * (evtrace/synth.h) or the tracing tree.
 *
 * Synchronization: the builders touch only the cmd; evt_kprobe_event_gen_cmd_end(),
 * evt_kretprobe_event_gen_cmd_end() and evt_kprobe_event_delete() take the event
 * mutex and patch the program's code (not from a signal handler, nor from a function
 * that a probe is being put on). Errors: negative errno values; errno is never touched.
 */
#ifndef EVTRACE_KPROBE_H
#define EVTRACE_KPROBE_H

#include <evtrace/dynevent.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The group of the events these calls create (the kernel's KPROBE_EVENT_SYSTEM). */
#define EVT_KPROBE_EVENT_SYSTEM "kprobes"

/* Start a probe command in @buf (@maxlen bytes; EVT_MAX_DYNEVENT_CMD_LEN is enough). */
void evt_kprobe_event_cmd_init(struct evt_dynevent_cmd *cmd, char *buf, int maxlen);

/**
 * evt_kprobe_event_gen_cmd_start() - "p:kprobes/@name @loc" and the fetch
 * arguments that follow (const char *, ending at a NULL; the macro adds it).
 * evt_kretprobe_event_gen_cmd_start() starts "r:kprobes/@name @loc" instead.
 * Return: 0, -EINVAL (not a probe cmd, NULL @name or @loc, a name of 64
 * bytes or more, more than 128 arguments), -E2BIG (does not fit).
 */
int evt_kprobe_event_gen_cmd_start(struct evt_dynevent_cmd *cmd, const char *name,
				   const char *loc, ...);
int evt_kretprobe_event_gen_cmd_start(struct evt_dynevent_cmd *cmd, const char *name,
				      const char *loc, ...);

/* Add fetch arguments (const char *, ending at a NULL: the macro adds it). Errors as above. */
int evt_kprobe_event_add_fields(struct evt_dynevent_cmd *cmd, ...);

/*
 * The macros: the same names, with the terminating NULL added, as the kernel's
 * kprobe_event_gen_cmd_start(cmd, name, loc, ...). They come after the declarations.
 */
#define evt_kprobe_event_gen_cmd_start(...) evt_kprobe_event_gen_cmd_start(__VA_ARGS__, (const char *)0)
#define evt_kretprobe_event_gen_cmd_start(...)                                                     \
	evt_kretprobe_event_gen_cmd_start(__VA_ARGS__, (const char *)0)
#define evt_kprobe_event_add_fields(...) evt_kprobe_event_add_fields(__VA_ARGS__, (const char *)0)

/**
 * evt_kprobe_event_gen_cmd_end() - run the command: the event exists (its code
 * patched) after a 0 return. evt_kretprobe_event_gen_cmd_end() is the same.
 * Return: 0, -EINVAL (not a probe cmd; the definition is refused: the reason
 * is in the top instance's error_log), -ENOENT (no such function), -EEXIST,
 * -E2BIG, -ENOMEM, -EPERM (code that is never probed), -EOPNOTSUPP (no probes
 * in this build).
 */
int evt_kprobe_event_gen_cmd_end(struct evt_dynevent_cmd *cmd);
int evt_kretprobe_event_gen_cmd_end(struct evt_dynevent_cmd *cmd);

/**
 * evt_kprobe_event_delete() - delete probe event @name ("EVENT" of any group,
 * or "GROUP/EVENT"), putting the original code back.
 * Return: 0, -ENOENT, -EBUSY (an instance records it), -EINVAL.
 */
int evt_kprobe_event_delete(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_KPROBE_H */
