/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/dynevent.h - the "dynevent_cmd" low-level API (events.rst 7.4):
 * build a dynamic event command string piece by piece, then run it.
 *
 *	char buf[EVT_MAX_DYNEVENT_CMD_LEN];
 *	struct evt_dynevent_cmd cmd;
 *	struct evt_dynevent_arg_pair pair;
 *
 *	evt_dynevent_cmd_init(&cmd, buf, sizeof(buf), EVT_DYNEVENT_TYPE_RAW, NULL);
 *	evt_dynevent_str_add(&cmd, "s:myevent");
 *	evt_dynevent_arg_pair_init(&pair, NULL, 0, ';');
 *	pair.lhs = "u64";
 *	pair.rhs = "lat";
 *	evt_dynevent_arg_pair_add(&cmd, &pair);
 *	ret = evt_dynevent_create(&cmd);	// runs "s:myevent u64 lat;"
 *
 * The command text is what the `dynamic_events` file accepts; a command
 * type's own run_command callback may run it differently (the synthetic
 * event API, evtrace/synth.h, is built on this and runs its commands as
 * `synthetic_events` lines).
 *
 * Synchronization: the cmd, arg and arg_pair objects belong to their caller;
 * evt_dynevent_create() takes the library's event mutex. Not from a signal
 * handler. Errors: negative errno values; errno is never touched.
 */
#ifndef EVTRACE_DYNEVENT_H
#define EVTRACE_DYNEVENT_H

#include <stdbool.h>
#include <stddef.h>

#include <evtrace/error.h>	/* evt_error_detail() */

#ifdef __cplusplus
extern "C" {
#endif

/* The longest command evt_dynevent_create() runs, its NUL included (the kernel's 2k). */
#define EVT_MAX_DYNEVENT_CMD_LEN 2048

/* What kind of command a cmd builds; the type-specific calls check it. */
enum evt_dynevent_type {
	EVT_DYNEVENT_TYPE_SYNTH = 1, /* synthetic event (evtrace/synth.h) */
	EVT_DYNEVENT_TYPE_RAW,	     /* a `dynamic_events` line, any kind */
	EVT_DYNEVENT_TYPE_KPROBE,    /* probe event (evtrace/kprobe.h) */
};

struct evt_dynevent_cmd;

/* Runs the finished command; 0 or a negative errno. */
typedef int (*evt_dynevent_create_fn_t)(struct evt_dynevent_cmd *cmd);
/* Checks an evt_dynevent_arg or evt_dynevent_arg_pair before it is added. */
typedef int (*evt_dynevent_check_arg_fn_t)(void *arg);

/*
 * struct evt_dynevent_cmd - a command being built into the caller's buffer.
 * Fill it with evt_dynevent_cmd_init(); the fields are read-only for users.
 */
struct evt_dynevent_cmd {
	char *buf;	     /* the text, always NUL-terminated */
	unsigned int maxlen; /* bytes of buf */
	unsigned int len;    /* bytes of text */
	bool overflow;	     /* an add did not fit: evt_dynevent_create() refuses */
	enum evt_dynevent_type type;
	const char *event_name; /* set by the type's start call */
	unsigned int n_fields;	/* fields added (synthetic and probe events) */
	void *private_data;
	evt_dynevent_create_fn_t run_command;
};

/* One whitespace-separated argument, followed by its separator. */
struct evt_dynevent_arg {
	const char *str;
	char separator;			       /* appended after str (' ' if 0 at init) */
	evt_dynevent_check_arg_fn_t check_arg; /* NULL: no check */
};

/* lhs, operator, rhs, separator: "u64 lat;" or "flags=%cx". */
struct evt_dynevent_arg_pair {
	const char *lhs;
	const char *rhs;
	char op;			       /* between lhs and rhs (' ' if 0 at init) */
	char separator;			       /* after rhs (' ' if 0 at init) */
	evt_dynevent_check_arg_fn_t check_arg; /* NULL: no check */
};

/**
 * evt_dynevent_cmd_init() - start a command in @buf (@maxlen bytes).
 * @run_command: what evt_dynevent_create() calls; NULL runs the text as one
 * line written to the top instance's `dynamic_events` file.
 */
void evt_dynevent_cmd_init(struct evt_dynevent_cmd *cmd, char *buf, int maxlen,
			   enum evt_dynevent_type type, evt_dynevent_create_fn_t run_command);

/* Clear @arg and set its check function and separator (0: a space). */
void evt_dynevent_arg_init(struct evt_dynevent_arg *arg, evt_dynevent_check_arg_fn_t check_arg,
			   char separator);

/**
 * evt_dynevent_arg_add() - append " <str><separator>" after checking @arg.
 * Return: 0, the check's error, -EINVAL (NULL str), -E2BIG (does not fit:
 * the cmd is marked overflowed and the text is left as it was).
 */
int evt_dynevent_arg_add(struct evt_dynevent_cmd *cmd, struct evt_dynevent_arg *arg);

/* Clear @pair and set its check function, operator and separator (0: a space). */
void evt_dynevent_arg_pair_init(struct evt_dynevent_arg_pair *pair,
				evt_dynevent_check_arg_fn_t check_arg, char op, char separator);

/* Append " <lhs><operator><rhs><separator>"; errors as evt_dynevent_arg_add(). */
int evt_dynevent_arg_pair_add(struct evt_dynevent_cmd *cmd, struct evt_dynevent_arg_pair *pair);

/* Append @str as it is (no space, no separator, no check). 0, -EINVAL, -E2BIG. */
int evt_dynevent_str_add(struct evt_dynevent_cmd *cmd, const char *str);

/**
 * evt_dynevent_create() - run the command.
 * Return: what the command gives (0: the event exists), -EINVAL (no cmd, no
 * buffer, empty command), -E2BIG (an add overflowed the buffer, or the text
 * is EVT_MAX_DYNEVENT_CMD_LEN bytes or more).
 */
int evt_dynevent_create(struct evt_dynevent_cmd *cmd);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_DYNEVENT_H */
