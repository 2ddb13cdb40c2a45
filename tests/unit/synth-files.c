// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth-files: the commands of tests/data/synth/commands.txt written to `synthetic_events`
 * and `dynamic_events`, each with the kernel's errno and error_log entry (message, command,
 * caret); both files read back as the kernel lists them; `>` deletes every synthetic event or,
 * if one is in use, none (-EBUSY); `!name` and `-:name` of an enabled event give -EBUSY.
 */
#include "synth-util.h"

static int errno_named(const char *name)
{
	static const struct {
		const char *name;
		int err;
	} tab[] = { { "0", 0 },
		    { "EINVAL", -EINVAL },
		    { "EEXIST", -EEXIST },
		    { "ENOENT", -ENOENT },
		    { "EBUSY", -EBUSY },
		    { "E2BIG", -E2BIG } };

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(name, tab[i].name))
			return tab[i].err;
	t_fail("unknown errno %s", name);
}

/* The error_log entry after its time stamp: "synthetic_events: error: msg\n  Command: ..." */
static void check_log(const char *msg, int pos, const char *cmd)
{
	const char *log = cat("error_log"), *p = strchr(log, ']');
	char want[8192];

	snprintf(want, sizeof(want), " synthetic_events: error: %s\n  Command: %s\n%*s^\n", msg,
		 cmd, 11 + pos, "");
	T_ASSERT(p);
	T_ASSERT_STR(p + 1, want);
}

int main(void)
{
	char *cmds = strdup(slurp("commands.txt")), *line, *save = NULL;
	int n = 0;

	T_ASSERT(cmds);
	for (line = strtok_r(cmds, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *file = strtok(line, "\t"), *err = strtok(NULL, "\t");
		char *msg = strtok(NULL, "\t"), *pos = strtok(NULL, "\t");
		char *cmd = strtok(NULL, ""), *shown = cmd ? cmd : "";
		long ret;

		T_ASSERT(file && err && msg && pos);
		if (!cmd)
			cmd = "";
		T_ASSERT_EQ(evt_tracefs_write(NULL, "error_log", "", 0, EVT_TRACEFS_TRUNC), 0);
		ret = echo(cmd, file);
		if (ret != (errno_named(err) ? errno_named(err) : (long)strlen(cmd) + 1))
			t_fail("%s << '%s': %ld, want %s", file, cmd, ret, err);
		/* the command as logged: after leading blanks, without a comment */
		while (*shown == ' ' || *shown == '\t')
			shown++;
		if (strcmp(msg, "-"))
			check_log(msg, atoi(pos), shown);
		else
			T_ASSERT_STR(cat("error_log"), "");
		n++;
	}
	T_ASSERT(n > 40);
	T_ASSERT_STR(cat("synthetic_events"), slurp("listing-synthetic_events.txt"));
	T_ASSERT_STR(cat("dynamic_events"), slurp("listing-dynamic_events.txt"));
	/* they are events: available_events, their directory */
	T_ASSERT(strstr(cat("available_events"), "synthetic:dyn2\n"));
	T_ASSERT(strstr(cat("available_events"), "synthetic:wakeup_latency\n"));
	T_ASSERT_STR(cat("events/synthetic/wakeup_latency/enable"), "0\n");
	/* only in the top instance, as in the kernel */
	T_ASSERT_OK(evt_tracefs_mkdir(NULL, "instances/synthfiles"));
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "instances/synthfiles/synthetic_events", NULL), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "instances/synthfiles/dynamic_events", NULL), -ENOENT);

	/* in use: enabled in an instance; deletion fails every way; `>` deletes none */
	T_ECHO("1", "instances/synthfiles/events/synthetic/dyn1/enable");
	T_ASSERT_EQ(echo("!dyn1", "synthetic_events"), -EBUSY);
	T_ASSERT_EQ(echo("-:dyn1", "dynamic_events"), -EBUSY);
	T_ASSERT_EQ(evt_synth_event_delete("dyn1"), -EBUSY);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "", 0, EVT_TRACEFS_TRUNC), -EBUSY);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "dynamic_events", "", 0, EVT_TRACEFS_TRUNC), -EBUSY);
	T_ASSERT_STR(cat("synthetic_events"), slurp("listing-synthetic_events.txt"));
	/* a trigger keeps it in soft mode: still in use */
	T_ECHO("0", "instances/synthfiles/events/synthetic/dyn1/enable");
	T_ECHO("traceoff", "events/synthetic/dyn1/trigger");
	T_ASSERT_EQ(echo("!dyn1", "synthetic_events"), -EBUSY);
	T_ECHO("!traceoff", "events/synthetic/dyn1/trigger");
	T_ASSERT_OK(evt_tracefs_rmdir(NULL, "instances/synthfiles"));

	/* `>` with a command: all gone, then the command runs */
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "fresh u64 a\n", 12,
				      EVT_TRACEFS_TRUNC),
		    12);
	T_ASSERT_STR(cat("synthetic_events"), "fresh\tu64 a\n");
	T_ASSERT(!strstr(cat("available_events"), "synthetic:dyn1\n"));
	T_ASSERT(!strstr(cat("available_events"), "synthetic:wakeup_latency\n"));
	T_ASSERT_EQ(evt_tracefs_write(NULL, "dynamic_events", "", 0, EVT_TRACEFS_TRUNC), 0);
	T_ASSERT_STR(cat("synthetic_events"), "");
	T_ASSERT_STR(cat("dynamic_events"), "");

	/* several lines in one write; the first error stops the write */
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "l1 u64 a\nl2 s32 b\n", 18,
				      EVT_TRACEFS_APPEND),
		    18);
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "l3 u64 a\nl4 bad b\nl5 u8 c\n", 25,
				      EVT_TRACEFS_APPEND),
		    -EINVAL);
	T_ASSERT_STR(cat("synthetic_events"), "l1\tu64 a\nl2\ts32 b\nl3\tu64 a\n");
	/* a line of 4095 bytes or more: -EINVAL (the kernel's WRITE_BUFSIZE) */
	{
		static char big[5000];

		memset(big, ' ', sizeof(big));
		memcpy(big, "big u64 a", 9);
		T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", big, sizeof(big),
					      EVT_TRACEFS_APPEND),
			    -EINVAL);
		big[4095] = '\n'; /* the newline is the 4096th byte */
		T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", big, 4096,
					      EVT_TRACEFS_APPEND),
			    -EINVAL);
		/* 4095 bytes that end the write: one line */
		T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", big, 4095,
					      EVT_TRACEFS_APPEND),
			    4095);
		T_ASSERT_OK(evt_synth_event_delete("big"));
		big[4093] = '\n';
		T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", big, 4094,
					      EVT_TRACEFS_APPEND),
			    4094);
	}
	T_ASSERT_EQ(evt_tracefs_write(NULL, "synthetic_events", "", 0, EVT_TRACEFS_TRUNC), 0);
	free(cmds);
	return T_PASS;
}
