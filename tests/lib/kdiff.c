// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/kdiff.c - the kernel-diff harness (kdiff.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "kdiff.h"

ssize_t kd_kernel_write(const char *dir, const char *path, const char *text, int oflags)
{
	char full[512];
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), KD_TRACING "%s%s", dir, path);
	fd = open(full, O_WRONLY | oflags);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

const char *kd_kernel_read(const char *dir, const char *path)
{
	static char buf[1 << 20];
	char full[512];
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), KD_TRACING "%s%s", dir, path);
	fd = open(full, O_RDONLY);
	if (fd < 0)
		t_fail("open %s: %s", full, strerror(errno));
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

int kd_uprobe_write(const char *text)
{
	ssize_t n = kd_kernel_write("", "uprobe_events", text, O_APPEND);

	return n < 0 ? (int)n : 0;
}

/* The file offset of @fn in the file mapped at it (uprobes want file offsets). */
static int file_offset(void *fn, char *file, size_t size, unsigned long *off)
{
	unsigned long addr = (unsigned long)fn, lo, hi, foff;
	char line[1024], perm[8], path[768];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %767s", &lo, &hi, perm, &foff, path) < 4)
			continue;
		if (addr >= lo && addr < hi && path[0] == '/') {
			snprintf(file, size, "%s", path);
			*off = addr - lo + foff;
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

int kd_uprobes_add(const char *group, int n, const char *const *names, void *const *fns,
		   const char *const *args, char *why, size_t size)
{
	char file[768], cmd[1200];
	unsigned long off = 0;

	for (int e = 0; e < n; e++) {
		if (file_offset(fns[e], file, sizeof(file), &off)) {
			snprintf(why, size, "cannot find this program's file mapping");
			return -1;
		}
		snprintf(cmd, sizeof(cmd), "p:%s/%s %s:0x%lx %s\n", group, names[e], file, off,
			 args[e]);
		if (kd_uprobe_write(cmd)) {
			snprintf(why, size, "the kernel refused the uprobe %s/%s", group, names[e]);
			return -1;
		}
	}
	return 0;
}

void kd_uprobes_remove(const char *group, int n, const char *const *names)
{
	char cmd[256];

	for (int e = 0; e < n; e++) {
		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, names[e]);
		kd_uprobe_write(cmd);
	}
}

bool kd_kernel_usable(char *why, size_t size)
{
#ifndef __x86_64__
	snprintf(why, size, "the uprobe arguments (%%di, %%si) are x86-64's");
	return false;
#endif
	if (geteuid() != 0 || access(KD_TRACING "uprobe_events", W_OK) ||
	    access(KD_TRACING "instances", W_OK)) {
		snprintf(why, size, "no writable tracefs with uprobe_events (root)");
		return false;
	}
	return true;
}

void kd_add(char *out, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out + n, cap - n, fmt, ap);
	va_end(ap);
}

const char *kd_esc(const char *s)
{
	static char buf[1024];
	size_t n = 0;

	for (; *s && n < sizeof(buf) - 3; s++) {
		if (*s == '\n' || *s == '\t') {
			buf[n++] = '\\';
			buf[n++] = *s == '\n' ? 'n' : 't';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

void kd_add_text(char *out, size_t cap, const char *t)
{
	for (const char *l = t; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		/* error_log's "[  123.456789] " */
		if (*l == '[' && memchr(l, ']', len)) {
			const char *r = (const char *)memchr(l, ']', len) + 2;

			len -= (size_t)(r - l);
			l = r;
		}
		kd_add(out, cap, "| %.*s\n", (int)len, l);
		l += len + (e ? 1 : 0);
	}
}

void kd_data_path(char *buf, size_t size, const char *rel)
{
	/* tests/lib/../data/@rel */
	snprintf(buf, size, "%s", __FILE__);
	*strrchr(buf, '/') = '\0';
	snprintf(buf + strlen(buf), size - strlen(buf), "/../data/%s", rel);
}

static char *read_golden(const char *path, size_t cap)
{
	char *buf = calloc(1, cap);
	FILE *f = fopen(path, "r");
	size_t n;

	T_ASSERT(buf != NULL);
	if (!f)
		t_fail("%s: %s", path, strerror(errno));
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* 0 if @got is @want; else 1, printing from the first step that differs (or failing). */
static int compare(const char *what, const char *got, const char *want, bool by_step)
{
	const char *g = got, *w = want, *step_g = got, *step_w = want;

	if (!by_step) {
		if (strcmp(got, want))
			t_fail("%s differ:\n--- evtrace:\n%s--- %s:\n%s---", what, got, what, want);
		return 0;
	}
	while (*g && *g == *w) {
		if (*g == '\n' && g[1] != '|') {
			step_g = g + 1;
			step_w = w + 1;
		}
		g++;
		w++;
	}
	if (!*g && !*w)
		return 0;
	fprintf(stderr, "FAIL: evtrace and %s differ at:\n--- evtrace:\n%.600s\n--- %s:\n%.600s\n"
		"---\n", what, step_g, what, step_w);
	return 1;
}

int kd_finish(const char *ours, const char *kern, const char *why, const char *golden,
	      const char *save_env, size_t cap, bool by_step)
{
	char *saved;
	int fails = 0;

	if (kern && getenv(save_env)) {
		FILE *f = fopen(golden, "w");

		T_ASSERT(f != NULL);
		fputs(kern, f);
		fclose(f);
	}
	saved = read_golden(golden, cap);
	if (!kern)
		fprintf(stderr, "SKIP (kernel part): %s; comparing with %s\n", why, golden);
	else if (by_step && strcmp(kern, saved))
		fprintf(stderr, "note: this kernel answers differently from the saved answers "
				"(another version?): comparing with both\n");
	if (kern)
		fails += compare("the kernel's answers now", ours, kern, by_step);
	fails += compare("the kernel's saved answers", ours, saved, by_step);
	free(saved);
	return fails;
}
