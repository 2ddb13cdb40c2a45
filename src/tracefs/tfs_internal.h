/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs/tfs_internal.h - the tracing file tree's engine.
 *
 * The tree is not stored: a path is resolved one name at a time, each
 * directory's ops looking the next name up (a static table of children, or
 * a lookup function for the directories whose entries come and go: events/
 * and its systems, per_cpu/, instances/). Resolution ends in a struct
 * tfs_node, a small value naming the file's ops and what it is about (the
 * instance, the event system, the event, the CPU). Opening a node makes a
 * struct evt_tracefs_file, which holds per-open state.
 *
 * A file either has a show() that writes its whole text into a struct
 * tfs_seq (generated at the first read, then read at any offset, as the
 * kernel's seq_file files), or a read() that streams (trace, trace_pipe,
 * trace_pipe_raw). A write() gets the bytes of one write call.
 *
 * Locking: tfs_lock (a recursive-free mutex) serializes every write, open
 * and close, mkdir and rmdir, and every show(); streaming read()s of
 * trace_pipe run without it (they block), holding a reference on the
 * instance instead (the open file count that rmdir checks).
 */
#ifndef EVT_TRACEFS_TFS_INTERNAL_H
#define EVT_TRACEFS_TFS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <evtrace/tracefs.h>

#define TFS_MODE_DIR	(0040000u | 0755u)
#define TFS_MODE_RW	(0100000u | 0644u)
#define TFS_MODE_RO	(0100000u | 0444u)
#define TFS_MODE_WO	(0100000u | 0200u)

/* How much text one show() may generate (the trace file streams instead). */
#define TFS_SEQ_MAX	(64u << 20)
/* The longest write a file takes unless its ops say otherwise (the kernel's PAGE_SIZE). */
#define TFS_WRITE_MAX	4096u
#define TFS_NAME_MAX	255u
#define TFS_PATH_MAX	4096u

/* ---- bounded text ------------------------------------------------------------------------- */
struct tfs_seq {
	char *buf;
	size_t len;
	size_t size;
	size_t max;
	bool overflow;		/* something did not fit in @max: the text is cut */
};

void tfs_seq_init(struct tfs_seq *s, size_t max);
void tfs_seq_free(struct tfs_seq *s);
void tfs_seq_reset(struct tfs_seq *s);
int tfs_seq_write(struct tfs_seq *s, const void *p, size_t n);
int tfs_seq_puts(struct tfs_seq *s, const char *str);
int tfs_seq_putc(struct tfs_seq *s, char c);
int tfs_seq_printf(struct tfs_seq *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- nodes --------------------------------------------------------------------------------- */
struct tfs_node;
struct tfs_ops;

typedef int (*tfs_fill_t)(void *arg, const char *name, unsigned int mode);

#define TFS_SYS_MAX	128

/*
 * A resolved path. Events are kept by ID and systems by name, never by
 * pointer: a file stays open while the library that defined its event is
 * unloaded, and each read or write looks the event up again.
 */
struct tfs_node {
	const struct tfs_ops *ops;
	struct evt_instance *inst;	/* never NULL once resolved */
	int cpu;			/* per_cpu/cpuN/...: N; else -1 */
	int event_id;			/* events/<sys>/<event>/...: its ID; else -1 */
	char sys[TFS_SYS_MAX];		/* events/<sys>/...: the system; else "" */
};

struct tfs_ops {
	const char *name;
	unsigned int mode;		/* TFS_MODE_* */
	/*
	 * directories: a static table of children (in name order: a listing merges it with
	 * the files registered at @at), or lookup + readdir, or both
	 */
	const struct tfs_ops *const *children;
	unsigned int at;		/* directories: TFS_AT_*, the registered files it holds */
	int (*lookup)(const struct tfs_node *dir, const char *name, struct tfs_node *child);
	int (*readdir)(const struct tfs_node *dir, tfs_fill_t fill, void *arg);
	int (*mkdir)(const struct tfs_node *dir, const char *name);
	int (*rmdir)(const struct tfs_node *dir, const char *name);
	/* is this entry of a static table there for this node? (NULL: always) */
	bool (*visible)(const struct tfs_node *dir);
	/* files */
	int (*open)(struct evt_tracefs_file *f);
	int (*show)(struct evt_tracefs_file *f, struct tfs_seq *s);
	ssize_t (*read)(struct evt_tracefs_file *f, char *buf, size_t len);
	ssize_t (*write)(struct evt_tracefs_file *f, const char *buf, size_t len);
	void (*release)(struct evt_tracefs_file *f);
	size_t max_write;		/* 0: TFS_WRITE_MAX; longer writes get -EINVAL */
};

struct evt_tracefs_file {
	struct tfs_node node;
	unsigned int flags;		/* EVT_TRACEFS_* */
	bool shown;			/* @seq holds show()'s text */
	uint64_t pos;			/* next offset of evt_tracefs_file_read() */
	struct tfs_seq seq;
	void *priv;			/* the file's per-open state */
	/*
	 * Set by evt_tracefs_file_interrupt() from any thread, taken (exchanged
	 * back to 0) by a waiting read of the owner: relaxed is enough, the flag
	 * orders nothing else and the reader polls it at each wake-up.
	 */
	int interrupt;
	struct evt_tracefs_file *next;	/* the list of open files (rmdir's check) */
};

/*
 * Files registered by the layers above (the kernel's subsystems create their own tracefs
 * files: trace_events_hist.c its `hist`), from their start (src/init.c): where they appear.
 * TFS_AT_TOP: the root of every instance's tree (ops->visible may keep one to the top
 * instance: tfs_top_only()); TFS_AT_EVENT: every event's directory (events/<sys>/<event>/
 * and events/ftrace/print/).
 */
enum tfs_at {
	TFS_AT_NONE,
	TFS_AT_TOP,
	TFS_AT_EVENT,
	TFS_AT_MAX
};

#define TFS_REGISTERED_MAX	8	/* files per place */

/**
 * tfs_register_file() - add a file to the tree, at every directory of a kind
 * @at:  TFS_AT_TOP or TFS_AT_EVENT
 * @ops: the file (static: kept, never copied); its name is unique among the files
 *	 registered at @at (the tree's own files of the same name come first)
 *
 * The file appears in lookups and listings (in name order with the tree's own files) of
 * every directory of that kind, from now on. The lower layer offers this, the upper one
 * registers its file: tracefs never names trigger, hist or synth.
 *
 * Context: takes tfs_lock.
 * Return: 0 (and 0 again for @ops registered already), -EINVAL (@at or @ops bad), -EEXIST
 * (another file of that name), -ENOSPC (TFS_REGISTERED_MAX already).
 */
int tfs_register_file(enum tfs_at at, const struct tfs_ops *ops);

/* Resolve @path from @inst's root; Return: 0 or -ENOENT/-ENOTDIR/-EINVAL/-ENAMETOOLONG. */
int tfs_resolve(struct evt_instance *inst, const char *path, struct tfs_node *node);

/* Is any file of @inst open? (under tfs_lock) */
bool tfs_inst_busy(const struct evt_instance *inst);

/* A waiting read's check: was it interrupted? (takes the request) */
bool tfs_interrupted(struct evt_tracefs_file *f);

void tfs_lock(void);
void tfs_unlock(void);

/* The root directory of an instance's tree, and the top-level instance (tfs_files.c). */
extern const struct tfs_ops tfs_root_ops;
struct evt_instance *tfs_top_instance(void);

/* Tests of the engine alone: a root of their own and its top instance. */
extern const struct tfs_ops *tfs_test_root;
extern struct evt_instance *tfs_test_top;

/* ---- for the registered files ----------------------------------------------------------------- */

struct error_log;
struct filter_error;

/**
 * tfs_top_only() - a visible() for a file only the top instance's tree has
 * @dir: the directory (the root of an instance's tree)
 *
 * Context: tfs_lock held.
 * Return: true in the top instance's tree.
 */
bool tfs_top_only(const struct tfs_node *dir);

/**
 * tfs_node_event_id() - the event of a file of an event's directory, looked up again
 * @n: the file's node
 *
 * A file stays open while the library that defined its event is unloaded: each read and
 * write asks again.
 *
 * Context: tfs_lock held.
 * Return: the event's ID, or -ENODEV (not an event's file, or the event is gone).
 */
int tfs_node_event_id(const struct tfs_node *n);

/**
 * tfs_event_text_show() - the show() of an event's file whose text a layer above makes
 * @f:    the open file, of an event's directory
 * @s:    where the text goes
 * @text: makes the text of event @event_id in @inst into a malloc'd *@textp: 0, or a
 *	  negative errno (-ENODEV: the layer does not know the event)
 *
 * Context: tfs_lock held.
 * Return: 0 (an event of another backend: an empty file) or a negative errno (-ENODEV: the
 * event is gone).
 */
int tfs_event_text_show(struct evt_tracefs_file *f, struct tfs_seq *s,
			int (*text)(struct evt_instance *inst, unsigned int event_id, char **textp));

/**
 * tfs_error_log() - the error_log of an instance (events/error_log.h)
 * @inst: the instance
 *
 * Context: tfs_lock held.
 * Return: the log (it lives and dies with the instance), or NULL when out of memory.
 */
struct error_log *tfs_error_log(struct evt_instance *inst);

/**
 * tfs_filter_error_log() - log a filter's error as the kernel's event filter does
 * @elog: the instance's error_log (NULL: nothing)
 * @err:  the error the filter layer filled
 * @expr: the filter's text, the entry's command
 *
 * The entry "event filter parse error", the filter layer's message and its caret.
 *
 * Context: tfs_lock held.
 */
void tfs_filter_error_log(struct error_log *elog, const struct filter_error *err,
			  const char *expr);

/* ---- parsers shared by files and tests ------------------------------------------------------ */

/*
 * One set_event token, parsed as the kernel's ftrace_set_clr_event() does:
 * "[!][system:]event", "system:", "system:*", "*:event", "*:*", ":", or a bare
 * word that names an event or a system. NULL fields match anything.
 */
struct tfs_event_spec {
	bool enable;
	const char *match;	/* bare word: event or system name */
	const char *sys;
	const char *event;
};

/* Parse @tok in place (it is cut at ':'). Return: 0 or -EINVAL (empty). */
int tfs_event_spec_parse(char *tok, struct tfs_event_spec *spec);
bool tfs_event_spec_match(const struct tfs_event_spec *spec, const char *sys, const char *event);

/*
 * Split @buf (@len bytes, not NUL-terminated) into whitespace-separated
 * words; call @fn on each (NUL-terminated copy, at most @max_word bytes:
 * longer is -EINVAL). Stops at the first error @fn returns.
 */
/*
 * The first whitespace-separated word of @buf (@len bytes), as the kernel's
 * trace_get_user() reads one per write: leading white space skipped, the
 * word, and the one white space character after it when there is one; *@used
 * is the bytes taken. @word (@max_word + 1 bytes) gets it NUL-terminated ("":
 * only white space). Return: 0, or -EINVAL when the word is longer than @max_word.
 */
int tfs_first_word(const char *buf, size_t len, size_t max_word, char *word, size_t *used);
int tfs_for_each_word(const char *buf, size_t len, size_t max_word,
		      int (*fn)(void *arg, char *word), void *arg);

/* Strip leading and trailing whitespace of a write into a NUL-terminated copy. */
char *tfs_strdup_stripped(const char *buf, size_t len);
/*
 * The text of a `filter` write, as the kernel's apply_event_filter() sees it:
 * the trailing white space stripped, the leading kept (the text reads back as
 * written, carets count it), and "0" with white space around it as "0".
 */
char *tfs_strdup_filter(const char *buf, size_t len);

/* "0\n"/"1\n" style numbers as kstrtoul: decimal (or 0x hex), one trailing '\n'. */
int tfs_parse_ulong(const char *buf, size_t len, unsigned long *val);

#endif /* EVT_TRACEFS_TFS_INTERNAL_H */
