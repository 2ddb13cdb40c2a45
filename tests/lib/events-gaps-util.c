// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/events-gaps-util.c - what events-bitmask, events-vstring and events-fn share
 * (events-gaps-util.h), and the definitions of their events (events-gaps-tp.h): the test
 * programs include it without CREATE_TRACE_POINTS.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events-gaps-util.h"

#define CREATE_TRACE_POINTS
#include "events-gaps-tp.h"

#include "events-util.h"

#define GAPS_MAX_LINES 64

struct gaps_bodies {
	int n;
	char *b[GAPS_MAX_LINES];
};

int gaps_reg_calls, gaps_unreg_calls, gaps_reg_ret;

int gaps_fn_reg(void)
{
	gaps_reg_calls++;
	return gaps_reg_ret;
}

void gaps_fn_unreg(void)
{
	gaps_unreg_calls++;
}

/* Keep "event: fields" of a line naming a gaps_ event, blanks after the colon squeezed. */
static void gaps_add(struct gaps_bodies *gb, const char *line)
{
	const char *p = strstr(line, ": gaps_"), *colon, *c;
	char buf[4096];

	if (!p)
		return;
	p += 2;
	colon = strchr(p, ':');
	T_ASSERT(colon && gb->n < GAPS_MAX_LINES);
	c = colon + 1;
	while (*c == ' ')
		c++;
	snprintf(buf, sizeof(buf), "%.*s %s", (int)(colon - p), p, c);
	buf[strcspn(buf, "\n")] = '\0';
	gb->b[gb->n++] = strdup(buf);
}

static int gaps_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void gaps_sort(struct gaps_bodies *gb)
{
	qsort(gb->b, (size_t)gb->n, sizeof(gb->b[0]), gaps_cmp);
}

static void gaps_free(struct gaps_bodies *gb)
{
	for (int i = 0; i < gb->n; i++)
		free(gb->b[i]);
	gb->n = 0;
}

static void gaps_from_trace(struct evt_instance *inst, struct gaps_bodies *gb)
{
	char *text = strdup(t_trace_text(inst, -1)), *save = NULL;

	T_ASSERT(text);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		gaps_add(gb, l);
	free(text);
	gaps_sort(gb);
}

static void gaps_from_tracedat(const char *path, struct gaps_bodies *gb)
{
	struct evt_tracedat *td;
	struct evt_tracedat_record rec;
	char line[4096];
	struct evt_seq s;
	int ret;

	ret = evt_tracedat_open(path, &td);
	if (ret)
		t_fail("open %s: %d %s", path, ret, evt_error_detail());
	while (evt_tracedat_next(td, &rec) > 0) {
		evt_seq_init(&s, line, sizeof(line));
		T_ASSERT_OK(evt_tracedat_print(td, &rec, &s));
		line[s.len < sizeof(line) ? s.len : sizeof(line) - 1] = '\0';
		gaps_add(gb, line);
	}
	evt_tracedat_close(td);
	gaps_sort(gb);
}

static bool gaps_have_tracecmd(void)
{
	return system("command -v trace-cmd >/dev/null 2>&1") == 0;
}

static void gaps_from_tracecmd(const char *path, struct gaps_bodies *gb)
{
	char cmd[512], buf[4096];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null", path);
	f = popen(cmd, "r");
	T_ASSERT(f);
	while (fgets(buf, sizeof(buf), f))
		gaps_add(gb, buf);
	T_ASSERT_EQ(pclose(f), 0);
	gaps_sort(gb);
}

static void gaps_same(const char *what, const struct gaps_bodies *a,
		      const struct gaps_bodies *b)
{
	if (a->n != b->n)
		t_fail("%s: %d lines against %d", what, a->n, b->n);
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->b[i], b->b[i]))
			t_fail("%s: line %d differs:\n  [%s]\n  [%s]", what, i, a->b[i], b->b[i]);
}

/*
 * libtraceevent prints __print_array() as decimal numbers separated by
 * spaces ("1 32 65535") where the kernel's trace_print_array_seq() prints
 * "{0x1,0x20,0xffff}": map our (the kernel's) form to its, for the oracle.
 */
static char *gaps_map_array(const char *in)
{
	char *out = malloc(strlen(in) * 4 + 1), *o = out;
	const char *p = in;

	T_ASSERT(out);
	while (*p) {
		const char *e = NULL;

		if (*p == '{' && (p[1] == '}' || !strncmp(p + 1, "0x", 2)))
			e = strchr(p, '}');
		if (!e) {
			*o++ = *p++;
			continue;
		}
		for (p++; p < e;) {
			char *end;
			unsigned long long v = strtoull(p, &end, 16);

			o += sprintf(o, "%s%llu", o[-1] == '=' ? "" : " ", v);
			p = *end == ',' ? end + 1 : end;
		}
		p = e + 1;
	}
	*o = '\0';
	return out;
}

/*
 * libtraceevent prints __get_cpumask() as a CPU list ("0-1,4") where the
 * kernel (__get_cpumask is __get_bitmask there) prints the hex chunks: map
 * "cpumask=<chunks>" of our line to its form, for the oracle.
 */
static char *gaps_map_cpumask(char *in)
{
	char *p = strstr(in, "cpumask="), *out, *o, *e;
	unsigned int chunks[64], n = 0;
	int start = -1, nbits;

	if (!p)
		return in;
	out = malloc(strlen(in) + 4096);
	T_ASSERT(out);
	p += 8;
	memcpy(out, in, (size_t)(p - in));
	o = out + (p - in);
	e = p;
	while (n < 64 && isxdigit((unsigned char)*e)) {
		chunks[n++] = (unsigned int)strtoul(e, &e, 16);
		if (*e == ',')
			e++;
	}
	nbits = (int)n * 32;
	*o = '\0';
	for (int b = 0; b <= nbits; b++) {
		bool set = b < nbits && (chunks[n - 1 - (unsigned int)b / 32] >> (b % 32)) & 1;

		if (set && start < 0)
			start = b;
		if (!set && start >= 0) {
			o += sprintf(o, "%s%d", o[-1] == '=' ? "" : ",", start);
			if (b - 1 > start)
				o += sprintf(o, "-%d", b - 1);
			start = -1;
		}
	}
	strcpy(o, e);
	free(in);
	return out;
}

void gaps_check_all(struct evt_instance *inst, const char *what, const char *const *expect,
		    int nexpect)
{
	struct gaps_bodies tr = { 0 }, ex = { 0 }, rd = { 0 }, tc = { 0 };
	char path[256];

	gaps_from_trace(inst, &tr);
	for (int i = 0; i < nexpect; i++)
		ex.b[ex.n++] = strdup(expect[i]);
	gaps_sort(&ex);
	gaps_same("trace vs expected", &tr, &ex);
	snprintf(path, sizeof(path), "/tmp/evt-gaps-%s-%d.dat", what, (int)getpid());
	T_ASSERT(evt_tracedat_write_file(inst, path, 0) > 0);
	gaps_from_tracedat(path, &rd);
	gaps_same("trace vs our trace.dat reader", &tr, &rd);
	if (gaps_have_tracecmd()) {
		gaps_from_tracecmd(path, &tc);
		for (int i = 0; i < tr.n; i++) {
			char *m = gaps_map_cpumask(gaps_map_array(tr.b[i]));

			free(tr.b[i]);
			tr.b[i] = m;
		}
		gaps_sort(&tr);
		gaps_same("trace (libtraceevent's __print_array, cpumask) vs trace-cmd report", &tr,
			  &tc);
		printf("%s: %d lines, trace-cmd report prints the same\n", what, tr.n);
	} else {
		printf("%s: %d lines (trace-cmd not installed: oracle not run)\n", what, tr.n);
	}
	if (!getenv("GAPS_KEEP"))
		unlink(path);
	gaps_free(&tr);
	gaps_free(&ex);
	gaps_free(&rd);
	gaps_free(&tc);
}

struct evt_event_def *gaps_fn_def(void)
{
	return &__evt_def_gaps_fn;
}
