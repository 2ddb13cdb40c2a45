// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat-kallsyms: what trace.dat files say about addresses. A
 * trace_marker record's ip is not 0 and the file's one kallsyms symbol,
 * tracing_mark_write, is at that ip: at 0 it would also name the empty
 * caller slots KernelShark reads from the stacktrace trigger's
 * ftrace:kernel_stack records (tracedat-kshark checks KernelShark itself).
 * Those records, printed by our reader, come out as `trace` shows them:
 * "<stack trace>", then one " => " line per frame the record holds (its
 * `size`), the addresses of the record (the file has no symbols for them).
 */
#include "tracedat-tp.h"
#include "tracedat-net-tp.h"

#include <evtrace/tracefs.h>

#include "tracedat-util.h"

#define STACKS 3

static int count_lines(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, strlen(prefix)))
			n++;
	return n;
}

int main(void)
{
	static char trace[1 << 16];
	struct evt_instance *inst = NULL;
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	struct td_rec *snap;
	char name[64], lbuf[2048], want[2048], ksym[64] = "", *path;
	int nsnap, k = 0, stacks = 0, frames = 0, marks = 0, ret, len;
	struct evt_seq s;

	snprintf(name, sizeof(name), "tracedat-kallsyms-%d", (int)getpid());
	T_ASSERT_OK(evt_instance_create(name, &inst));
	T_ASSERT(evt_instance_event_enable(inst, "tdapp", "td_ints", true) == 1);
	T_ASSERT_EQ(evt_tracefs_write(inst, "events/tdapp/td_ints/trigger", "stacktrace:3\n", 13,
				      EVT_TRACEFS_APPEND),
		    13);
	t_pin_to_cpu(0);
	for (int i = 0; i < 5; i++)
		trace_td_ints(i, i);
	T_ASSERT_EQ(evt_instance_trace_marker(inst, "mark", 4), 4);
	t_unpin();
	nsnap = td_snapshot(inst, &snap);
	T_ASSERT_EQ(nsnap, 5 + STACKS + 1);
	len = evt_instance_trace_text(inst, -1, trace, sizeof(trace));
	T_ASSERT(len > 0 && (size_t)len < sizeof(trace));
	path = td_write_tmp(inst, "kallsyms");

	ret = evt_tracedat_open(path, &td);
	if (ret)
		t_fail("open: %d %s", ret, evt_error_detail());
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		const struct td_rec *r;
		const char *nl;
		int32_t nr;
		size_t wl;

		T_ASSERT(k < nsnap);
		r = &snap[k++]; /* one CPU: the snapshot's order */
		T_ASSERT_EQ(rec.ts, r->ts);
		evt_seq_init(&s, lbuf, sizeof(lbuf));
		T_ASSERT_OK(evt_tracedat_print(td, &rec, &s));
		lbuf[s.len] = '\0';
		if (rec.event && !strcmp(rec.event->name, "print")) {
			uint64_t ip;

			T_ASSERT(rec.size >= 20);
			memcpy(&ip, (const char *)rec.data + 12, 8); /* after the common fields */
			T_ASSERT(ip != 0);
			snprintf(ksym, sizeof(ksym), "%016llx T tracing_mark_write\n",
				 (unsigned long long)ip);
			marks++;
			continue;
		}
		if (!rec.event || strcmp(rec.event->name, "kernel_stack"))
			continue;
		stacks++;
		/* the line after the context columns, built from the record's bytes */
		memcpy(&nr, r->data + 12, 4); /* size, after the common fields */
		T_ASSERT(nr > 0 && nr <= 64 && 16 + (size_t)nr * 8 <= r->len);
		wl = (size_t)snprintf(want, sizeof(want), "<stack trace>\n");
		for (int32_t i = 0; i < nr; i++) {
			uint64_t ip;

			memcpy(&ip, r->data + 16 + (size_t)i * 8, 8);
			wl += (size_t)snprintf(want + wl, sizeof(want) - wl, " => 0x%llx\n",
					       (unsigned long long)ip);
			T_ASSERT(wl < sizeof(want));
		}
		nl = strstr(lbuf, ": <stack trace>\n");
		if (!nl || strcmp(nl + 2, want))
			t_fail("stack printed as:\n%s\nwant (after the context):\n%s", lbuf, want);
		frames += nr;
	}
	T_ASSERT_EQ(ret, 0);
	T_ASSERT_EQ(k, nsnap);
	T_ASSERT_EQ(stacks, STACKS);
	T_ASSERT_EQ(marks, 1);
	{
		/* kallsyms (u32 size, then the text) names the marker's ip */
		static char file[1 << 16];
		FILE *f = fopen(path, "r");
		size_t n;

		T_ASSERT(f);
		n = fread(file, 1, sizeof(file), f);
		fclose(f);
		T_ASSERT(n > 0);
		if (!memmem(file, n, ksym, strlen(ksym)))
			t_fail("no kallsyms line [%.*s] in the file", (int)strlen(ksym) - 1, ksym);
	}
	/* as many frames as `trace` shows (it names them; we print addresses) */
	T_ASSERT_EQ(count_lines(trace, "<stack trace>"), 0); /* not at a line start */
	T_ASSERT_EQ(count_lines(trace, " => "), frames);
	evt_tracedat_close(td);
	if (!getenv("TRACEDAT_KEEP"))
		unlink(path);
	free(path);
	free(snap);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
