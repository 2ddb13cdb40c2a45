// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs/tfs_util.c - bounded text and the small parsers the files share.
 *
 * The set_event token grammar is the kernel's ftrace_set_clr_event()
 * (kernel/trace/trace_events.c): an optional '!', then "system:event" where
 * an empty or "*" side matches anything, or one bare word that matches an
 * event name or a system name. Event names are compared exactly (no glob:
 * the kernel rejects "sched:sched_sw*" as matching nothing).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tfs_internal.h"

void tfs_seq_init(struct tfs_seq *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max ? max : TFS_SEQ_MAX;
}

void tfs_seq_free(struct tfs_seq *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = s->size = 0;
}

void tfs_seq_reset(struct tfs_seq *s)
{
	s->len = 0;
	s->overflow = false;
}

/* Room for @n more bytes and a NUL; false when over the bound or out of memory. */
static bool seq_reserve(struct tfs_seq *s, size_t n)
{
	size_t want = s->len + n + 1, size;
	char *p;

	if (n > s->max || want > s->max + 1) {
		s->overflow = true;
		return false;
	}
	if (want <= s->size)
		return true;
	size = s->size ? s->size : 256;
	while (size < want)
		size *= 2;
	if (size > s->max + 1)
		size = s->max + 1;
	p = realloc(s->buf, size);
	if (!p) {
		s->overflow = true;
		return false;
	}
	s->buf = p;
	s->size = size;
	return true;
}

int tfs_seq_write(struct tfs_seq *s, const void *p, size_t n)
{
	if (!seq_reserve(s, n))
		return -EFBIG;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
	return 0;
}

int tfs_seq_puts(struct tfs_seq *s, const char *str)
{
	return tfs_seq_write(s, str, strlen(str));
}

int tfs_seq_putc(struct tfs_seq *s, char c)
{
	return tfs_seq_write(s, &c, 1);
}

int tfs_seq_printf(struct tfs_seq *s, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof(small))
		return tfs_seq_write(s, small, (size_t)n);
	if (!seq_reserve(s, (size_t)n))
		return -EFBIG;
	va_start(ap, fmt);
	vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
	return 0;
}

int tfs_event_spec_parse(char *tok, struct tfs_event_spec *spec)
{
	char *colon;

	memset(spec, 0, sizeof(*spec));
	spec->enable = true;
	if (*tok == '!') {
		spec->enable = false;
		tok++;
	}
	if (!*tok)
		return -EINVAL;
	colon = strchr(tok, ':');
	if (!colon) {
		spec->match = tok;
		return 0;
	}
	*colon = '\0';
	spec->sys = tok;
	spec->event = colon + 1;
	if (!*spec->sys || !strcmp(spec->sys, "*"))
		spec->sys = NULL;
	if (!*spec->event || !strcmp(spec->event, "*"))
		spec->event = NULL;
	return 0;
}

bool tfs_event_spec_match(const struct tfs_event_spec *spec, const char *sys, const char *event)
{
	if (spec->match && strcmp(spec->match, event) && strcmp(spec->match, sys))
		return false;
	if (spec->sys && strcmp(spec->sys, sys))
		return false;
	if (spec->event && strcmp(spec->event, event))
		return false;
	return true;
}

int tfs_first_word(const char *buf, size_t len, size_t max_word, char *word, size_t *used)
{
	size_t i = 0, start, n;

	while (i < len && (isspace((unsigned char)buf[i]) || !buf[i]))
		i++;
	start = i;
	while (i < len && !isspace((unsigned char)buf[i]) && buf[i])
		i++;
	n = i - start;
	if (n > max_word)
		return -EINVAL;
	memcpy(word, buf + start, n);
	word[n] = '\0';
	/* the separator that ended the word is taken with it */
	*used = n && i < len ? i + 1 : i;
	return 0;
}

int tfs_for_each_word(const char *buf, size_t len, size_t max_word,
		      int (*fn)(void *arg, char *word), void *arg)
{
	char word[TFS_NAME_MAX + 1];
	size_t i = 0, start, n;
	int ret;

	if (max_word > TFS_NAME_MAX)
		max_word = TFS_NAME_MAX;
	while (i < len) {
		while (i < len && (isspace((unsigned char)buf[i]) || !buf[i]))
			i++;
		start = i;
		while (i < len && !isspace((unsigned char)buf[i]) && buf[i])
			i++;
		n = i - start;
		if (!n)
			continue;
		if (n > max_word)
			return -EINVAL;
		memcpy(word, buf + start, n);
		word[n] = '\0';
		ret = fn(arg, word);
		if (ret)
			return ret;
	}
	return 0;
}

char *tfs_strdup_stripped(const char *buf, size_t len)
{
	char *s;

	while (len && (isspace((unsigned char)buf[len - 1]) || !buf[len - 1]))
		len--;
	while (len && isspace((unsigned char)*buf)) {
		buf++;
		len--;
	}
	s = malloc(len + 1);
	if (!s)
		return NULL;
	memcpy(s, buf, len);
	s[len] = '\0';
	/* the text stops at an embedded NUL, as a C string copied from user space would */
	return s;
}

char *tfs_strdup_filter(const char *buf, size_t len)
{
	const char *start;
	size_t n;
	char *s;

	/* a C string, as the kernel's copy of it: up to an embedded NUL */
	n = strnlen(buf, len);
	/* strstrip(): the trailing white space goes in place */
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	start = buf;
	while (start < buf + n && isspace((unsigned char)*start))
		start++;
	/* "0" is tested without the leading white space; any other text keeps it */
	if (buf + n - start == 1 && *start == '0') {
		buf = start;
		n = 1;
	}
	s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, buf, n);
	s[n] = '\0';
	return s;
}

int tfs_parse_ulong(const char *buf, size_t len, unsigned long *val)
{
	unsigned long v = 0, d;
	size_t i = 0;
	int base = 10;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len)
		return -EINVAL;
	if (len > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < len; i++) {
		char c = buf[i];

		if (c >= '0' && c <= '9')
			d = (unsigned long)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned long)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned long)(c - 'A' + 10);
		else
			return -EINVAL;
		if (v > (~0ul - d) / (unsigned long)base)
			return -ERANGE;
		v = v * (unsigned long)base + d;
	}
	*val = v;
	return 0;
}
