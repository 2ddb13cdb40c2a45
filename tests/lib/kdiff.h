/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/kdiff.h - the kernel-diff harness: the same steps on the kernel's tracefs (root,
 * uprobes on the test program's own functions) and on ours, each side's answers as a
 * transcript, compared with each other and with the kernel's answers kept in
 * tests/data/<area>/<name>.txt (rewritten when the test's SAVE variable is set), so that
 * without root evtrace is still compared with the kernel. Used by tracefs-diff,
 * tracefs-sweep-diff and trigger-diff. Defined in kdiff.c of the test library; names kd_*.
 */
#ifndef EVT_TESTS_KDIFF_H
#define EVT_TESTS_KDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define KD_TRACING "/sys/kernel/tracing/"

/*
 * Write @text to the kernel's @dir@path (@dir: a directory under KD_TRACING with its
 * trailing '/', "" for the top), opened with @oflags (O_TRUNC, O_APPEND or 0) beside
 * O_WRONLY. Return: the bytes written or -errno.
 */
ssize_t kd_kernel_write(const char *dir, const char *path, const char *text, int oflags);

/* The whole of the kernel's @dir@path in a static buffer; fails the test if it cannot open. */
const char *kd_kernel_read(const char *dir, const char *path);

/* Append @text to the kernel's uprobe_events: 0 or -errno. */
int kd_uprobe_write(const char *text);

/*
 * Probe group/@names[i] on this program's function @fns[i] with @args[i] (i < @n), as
 * uprobes. Return: 0, or -1 with the reason in @why (the probes made so far stay: the
 * caller's cleanup removes them with kd_uprobes_remove()).
 */
int kd_uprobes_add(const char *group, int n, const char *const *names, void *const *fns,
		   const char *const *args, char *why, size_t size);

/* Remove uprobes group/@names[i] (i < @n), whether they are there or not. */
void kd_uprobes_remove(const char *group, int n, const char *const *names);

/*
 * Can this run make the kernel's side: x86-64 (the uprobe arguments %di, %si) and a writable
 * tracefs with uprobe_events and instances (root)? If not, false with the reason in @why.
 */
bool kd_kernel_usable(char *why, size_t size);

/* Append printf(@fmt, ...) to the transcript @out of @cap bytes. */
void kd_add(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* @s with its newlines and tabs as \n, \t (a static buffer, at most ~1000 characters). */
const char *kd_esc(const char *s);

/* Append text @t read back as "| line" lines, error_log's "[  123.456789] " stamps dropped. */
void kd_add_text(char *out, size_t cap, const char *t);

/* The path of tests/data/@rel (e.g. "tracefs/kernel-diff.txt") into @buf. */
void kd_data_path(char *buf, size_t size, const char *rel);

/*
 * The end of every kernel-diff test: with the kernel's answers @kern (NULL: not made, @why
 * says why, on stderr as "SKIP (kernel part)") saved to @golden when the environment has
 * @save_env; @ours compared with @kern and with what @golden holds (at most @cap bytes).
 * @by_step: on a difference, print from the first step that differs (a line not starting
 * "|") and go on to the next comparison; else fail at once printing both whole texts.
 * Return: how many comparisons failed.
 */
int kd_finish(const char *ours, const char *kern, const char *why, const char *golden,
	      const char *save_env, size_t cap, bool by_step);

#endif /* EVT_TESTS_KDIFF_H */
