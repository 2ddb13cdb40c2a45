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
	/* directories: a static table of children, or lookup + readdir, or both */
	const struct tfs_ops *const *children;
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
