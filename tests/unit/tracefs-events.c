// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-events: the tree on the real event layer. Events of this program
 * (tracefs-events-tp.h) are listed, enabled through set_event and the enable
 * files, filtered through their filter files (a rejected filter leaves the
 * previous one in force; a subsystem filter leaves the events lacking a
 * field alone), described by format and id, and read back from trace,
 * trace_pipe and an instance of their own.
 */
#include <errno.h>
#include <unistd.h>

#include <evtrace/evtrace.h>
#include <evtrace/tracefs.h>

#include "helpers.h"
#include "tracefs-cat.h"

#define CREATE_TRACE_POINTS
#include "tracefs-events-tp.h"

/* write @text to @path of the top instance (one call); @flags GT or GGT: bytes or -errno */
static ssize_t echo(const char *text, unsigned int flags, const char *path)
{
	return t_tracefs_echo(NULL, path, text, flags);
}

int main(void)
{
	const char *s;
	char want[128];

	s = cat("available_events");
	T_ASSERT(strstr(s, "tfs_test:tfs_req\n"));
	T_ASSERT(strstr(s, "tfs_test:tfs_tick\n"));
	T_ASSERT(strstr(s, "tfs_other:tfs_misc\n"));
	T_ASSERT(!strstr(s, "ftrace:print"));
	T_ASSERT_STR(cat("events/tfs_test/enable"), "0\n");

	/* set_event and the enable files */
	T_ASSERT_EQ(echo("tfs_test:*", GT, "set_event"), 10);
	T_ASSERT_STR(cat("events/tfs_test/enable"), "1\n");
	T_ASSERT_STR(cat("events/tfs_other/enable"), "0\n");
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/enable"), "1\n");
	T_ASSERT(strstr(cat("set_event"), "tfs_test:tfs_req\ntfs_test:tfs_tick\n"));
	T_ASSERT_EQ(echo("tfs_misc", GGT, "set_event"), 8);
	T_ASSERT_STR(cat("events/tfs_other/enable"), "1\n");
	T_ASSERT_EQ(echo("0", GT, "events/tfs_test/tfs_tick/enable"), 1);
	T_ASSERT_STR(cat("events/tfs_test/enable"), "X\n");
	T_ASSERT_EQ(echo("nosuch:event", GGT, "set_event"), -EINVAL);
	T_ASSERT_EQ(echo("1", GT, "events/tfs_test/enable"), 1);

	/* format and id */
	s = cat("events/tfs_test/tfs_req/format");
	T_ASSERT(!strncmp(s, "name: tfs_req\nID: ", 18));
	T_ASSERT(strstr(s, "\tfield:int id;\t"));
	T_ASSERT(strstr(s, "__data_loc char[] path;"));
	T_ASSERT(strstr(s, "print fmt: \"id=%d path=%s\", REC->id, __get_str(path)\n"));
	snprintf(want, sizeof(want), "ID: %d\n", atoi(cat("events/tfs_test/tfs_req/id")));
	T_ASSERT(strstr(cat("events/tfs_test/tfs_req/format"), want));

	/* filters on real fields */
	T_ASSERT_EQ(echo("id > 10 && path ~ \"/api/*\"", GT, "events/tfs_test/tfs_req/filter"),
		    26);
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/filter"), "id > 10 && path ~ \"/api/*\"\n");
	T_ASSERT_EQ(echo("id > ", GT, "events/tfs_test/tfs_req/filter"), -EINVAL);
	T_ASSERT(strstr(cat("events/tfs_test/tfs_req/filter"), "parse_error: "));
	T_ASSERT(strstr(cat("error_log"), "  Command: id >\n"));
	/* the subsystem: tfs_tick has no "id", it keeps its filter in force and
	 * shows the error as the kernel does (unit/tracefs-diff) */
	T_ASSERT_EQ(echo("n < 3", GT, "events/tfs_test/tfs_tick/filter"), 5);
	T_ASSERT_EQ(echo("id != 13", GT, "events/tfs_test/filter"), 8);
	T_ASSERT_STR(cat("events/tfs_test/tfs_req/filter"), "id != 13\n");
	T_ASSERT_STR(cat("events/tfs_test/tfs_tick/filter"),
		     "id != 13\n^\nparse_error: Couldn't find or set field in one of a "
		     "subsystem's events\n\n");
	T_ASSERT_EQ(echo("id > 10 && path ~ \"/api/*\"", GT, "events/tfs_test/tfs_req/filter"),
		    26);
	/* rejected: the filter before stays in force */
	T_ASSERT_EQ(echo("nosuch == 1", GT, "events/tfs_test/tfs_req/filter"), -EINVAL);

	T_ASSERT_EQ(echo("", GT, "trace"), 0);
	for (int i = 0; i < 20; i++) {
		trace_tfs_req(i, i & 1 ? "/api/x" : "/index");
		trace_tfs_tick((unsigned int)i);
		trace_tfs_misc(-i);
	}
	s = cat("trace");
	/* id > 10, odd ids have /api/: 11 13 15 17 19 */
	T_ASSERT_EQ(t_count_overlapping(s, ": tfs_req: "), 5);
	T_ASSERT(strstr(s, ": tfs_req: id=13 path=/api/x\n"));
	T_ASSERT_EQ(t_count_overlapping(s, ": tfs_tick: "), 3);
	T_ASSERT_EQ(t_count_overlapping(s, ": tfs_misc: x="), 20);
	snprintf(want, sizeof(want), "entries-in-buffer/entries-written: 28/28 ");
	T_ASSERT(strstr(s, want));

	/* trace_pipe consumes what trace showed: the same lines, byte for byte */
	{
		char *t = strdup(cat("trace")), *body = t;

		while (*body == '#')
			body = strchr(body, '\n') + 1;
		s = cat("trace_pipe");
		T_ASSERT_EQ(t_count_overlapping(s, "\n"), 28);
		T_ASSERT(!strchr(s, '#'));
		if (strcmp(s, body))
			t_fail("trace_pipe:\n%s\ntrace:\n%s", s, body);
		free(t);
	}
	T_ASSERT_EQ(t_count_overlapping(cat("trace"), ": tfs_"), 0);

	/* an instance: its own events, filters and buffer */
	T_ASSERT_OK(evt_tracefs_mkdir(NULL, "instances/tfs-ev"));
	T_ASSERT_STR(cat("instances/tfs-ev/events/tfs_test/enable"), "0\n");
	T_ASSERT_EQ(echo("tfs_misc", GT, "instances/tfs-ev/set_event"), 8);
	T_ASSERT_EQ(echo("x == -5", GT, "instances/tfs-ev/events/tfs_other/tfs_misc/filter"), 7);
	T_ASSERT_EQ(echo("0", GT, "events/enable"), 1);
	for (int i = 0; i < 10; i++)
		trace_tfs_misc(-i);
	T_ASSERT_EQ(t_count_overlapping(cat("trace"), ": tfs_"), 0);
	s = cat("instances/tfs-ev/trace");
	T_ASSERT_EQ(t_count_overlapping(s, ": tfs_misc: "), 1);
	T_ASSERT(strstr(s, ": tfs_misc: x=-5\n"));
	T_ASSERT_STR(cat("events/tfs_other/tfs_misc/filter"), "none\n");
	T_ASSERT_OK(evt_tracefs_rmdir(NULL, "instances/tfs-ev"));
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "instances/tfs-ev", NULL), -ENOENT);

	/* trace_marker and saved_cmdlines */
	T_ASSERT_EQ(echo("hello\n", GT, "trace_marker"), 6);
	T_ASSERT(strstr(cat("trace"), ": tracing_mark_write: hello\n"));
	snprintf(want, sizeof(want), "%d ", (int)gettid());
	T_ASSERT(strstr(cat("saved_cmdlines"), want));

	T_ASSERT_EQ(echo("", GT, "set_event"), 0);
	T_ASSERT_EQ(echo("0", GT, "events/tfs_test/filter"), 1);
	return T_PASS;
}
