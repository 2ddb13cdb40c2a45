// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: `evtrace export` (evt_tracedat_export_json, src/output/trace_json.c) over
 * untrusted trace.dat bytes.
 *
 * The input is opened with evt_tracedat_open_mem() (from a heap block of
 * exactly its size); when it opens, every record is exported, with and
 * without --durations, to a memory sink. Checks: the export returns 0 or
 * -EBADMSG (a corrupt page), and whatever it wrote is one valid JSON value
 * (RFC 8259: a strict parser below, strings valid UTF-8 with no raw control
 * characters) holding "traceEvents", "displayTimeUnit" and "metadata"; on
 * -EBADMSG metadata holds an "error" naming the offset.
 *
 * Seeds (tests/fuzz/corpus/tracedat-export/): the tracedat-read seeds that
 * open (ours, the kernel's, an instance buffer, unaligned pages, a file cut
 * in its pages).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/tracedat.h>

#include "output/trace_json.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

struct mem {
	char *p;
	size_t len, cap;
};

static int mem_write(void *ctx, const void *buf, size_t len)
{
	struct mem *m = ctx;

	if (m->len + len > m->cap) {
		size_t ncap = (m->len + len) * 2;
		char *np = realloc(m->p, ncap);

		if (!np)
			return -ENOMEM;
		m->p = np;
		m->cap = ncap;
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	return 0;
}

/* --- a strict JSON parser: advances *p past one value, or returns -1 --------------- */

struct js {
	const unsigned char *p, *end;
	int depth;
};

static void js_ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

static int js_lit(struct js *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return -1;
	j->p += n;
	return 0;
}

static int js_string(struct js *j)
{
	if (j->p >= j->end || *j->p++ != '"')
		return -1;
	while (j->p < j->end) {
		unsigned char c = *j->p;

		if (c == '"') {
			j->p++;
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c == '\\') {
			if (++j->p >= j->end)
				return -1;
			c = *j->p++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++, j->p++)
					if (j->p >= j->end ||
					    !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p)
						return -1;
			} else if (!strchr("\"\\/bfnrt", c) || !c) {
				return -1;
			}
			continue;
		}
		if (c < 0x80) {
			j->p++;
			continue;
		}
		/* UTF-8: the well-formed sequences of Unicode's table 3-7 */
		{
			size_t need = c >= 0xc2 && c <= 0xdf ? 1 :
				      c >= 0xe0 && c <= 0xef ? 2 :
				      c >= 0xf0 && c <= 0xf4 ? 3 :
							       0;
			unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
			unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;

			if (!need || (size_t)(j->end - j->p) <= need)
				return -1;
			for (size_t i = 1; i <= need; i++) {
				if (j->p[i] < lo || j->p[i] > hi)
					return -1;
				lo = 0x80;
				hi = 0xbf;
			}
			j->p += need + 1;
		}
	}
	return -1;
}

static int js_digits(struct js *j)
{
	const unsigned char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s ? 0 : -1;
}

static int js_number(struct js *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (js_digits(j))
		return -1;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (js_digits(j))
			return -1;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (js_digits(j))
			return -1;
	}
	return 0;
}

static int js_value(struct js *j);

static int js_container(struct js *j, char close, int object)
{
	if (++j->depth > 64)
		return -1;
	j->p++;
	js_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		js_ws(j);
		if (object) {
			if (js_string(j))
				return -1;
			js_ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return -1;
		}
		if (js_value(j))
			return -1;
		js_ws(j);
		if (j->p >= j->end)
			return -1;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != close)
			return -1;
		j->depth--;
		return 0;
	}
}

static int js_value(struct js *j)
{
	js_ws(j);
	if (j->p >= j->end)
		return -1;
	switch (*j->p) {
	case '{':
		return js_container(j, '}', 1);
	case '[':
		return js_container(j, ']', 0);
	case '"':
		return js_string(j);
	case 't':
		return js_lit(j, "true");
	case 'f':
		return js_lit(j, "false");
	case 'n':
		return js_lit(j, "null");
	default:
		return js_number(j);
	}
}

static void check_json(const struct mem *m, int ret)
{
	struct js j = { (const unsigned char *)m->p, (const unsigned char *)m->p + m->len, 0 };

	check(js_value(&j) == 0);
	js_ws(&j);
	check(j.p == j.end);
	check(!strncmp(m->p, "{\"traceEvents\":[", 16));
	check(memmem(m->p, m->len, "\"displayTimeUnit\":\"ns\"", 22) != NULL);
	check(memmem(m->p, m->len, "\"metadata\":{", 12) != NULL);
	if (ret == -EBADMSG)
		check(memmem(m->p, m->len, "\"error\":\"offset ", 16) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct evt_tracedat *td;

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	if (evt_tracedat_open_mem(buf, size, &td) == 0) {
		for (int durations = 0; durations < 2; durations++) {
			struct evt_json_opts o = { .source = "fuzz\"\x01\xff",
						.durations = durations };
			struct evt_json_sink sink = { mem_write, NULL };
			struct mem m = { 0 };
			int ret;

			sink.ctx = &m;
			evt_tracedat_rewind(td);
			ret = evt_tracedat_export_json(td, &o, &sink, NULL);
			check(ret == 0 || ret == -EBADMSG || ret == -ENOMEM);
			if (ret != -ENOMEM)
				check_json(&m, ret);
			free(m.p);
		}
		evt_tracedat_close(td);
	}
	free(buf);
	return 0;
}
