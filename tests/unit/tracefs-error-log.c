// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-error-log: events/error_log.c keeps the last 8 errors and shows each
 * as the kernel's error_log does (tests/data/tracefs/error_log.txt is the
 * kernel's text for the same commands).
 */
#include <regex.h>
#include <string.h>

#include "helpers.h"
#include "events/error_log.h"

/* @text without its "[  sec.usec] " stamps, which differ from the kernel's */
static void strip_stamps(char *text)
{
	char *r = text, *w = text;

	while (*r) {
		if (*r == '[' && (r == text || r[-1] == '\n')) {
			char *end = strstr(r, "] ");

			T_ASSERT(end);
			r = end + 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

int main(void)
{
	const char *want =
		"event filter parse error: error: Field not found\n"
		"  Command: nosuch == 1\n"
		"                  ^\n"
		"event filter parse error: error: Too many '('\n"
		"  Command: (prev_pid == 1\n"
		"           ^\n"
		"event filter parse error: error: Error\n"
		"  Command: \n"
		"           ^\n"
		"event filter parse error: error: Invalid value (did you forget quotes)?\n"
		"  Command: prev_pid ==\n"
		"                        ^\n";
	struct error_log *log;
	char buf[4096], small[10];
	regex_t re;
	size_t n;

	T_ASSERT_OK(error_log_alloc(&log));
	T_ASSERT_EQ(error_log_format(log, buf, sizeof(buf)), 0);
	T_ASSERT_EQ(buf[0], '\0');

	T_ASSERT_OK(error_log_add(log, "event filter parse error", "Field not found",
				  "nosuch == 1", 7));
	T_ASSERT_OK(error_log_add(log, "event filter parse error", "Too many '('",
				  "(prev_pid == 1", 0));
	T_ASSERT_OK(error_log_add(log, "event filter parse error", "Error", NULL, 0));
	/* a position far past the end is bounded at two past it (the farthest the
	 * kernel's filter parser puts one: "CPU == CPUS") */
	T_ASSERT_OK(error_log_add(log, "event filter parse error",
				  "Invalid value (did you forget quotes)?", "prev_pid ==", 99));
	n = error_log_format(log, buf, sizeof(buf));
	T_ASSERT_EQ(n, strlen(buf));

	/* each entry starts with the kernel's "[%5llu.%06u] " */
	T_ASSERT_EQ(regcomp(&re, "^\\[ *[0-9]+\\.[0-9]{6}\\] event filter", REG_EXTENDED), 0);
	T_ASSERT_EQ(regexec(&re, buf, 0, NULL, 0), 0);
	regfree(&re);
	strip_stamps(buf);
	if (strcmp(buf, want))
		t_fail("error_log text:\n%s\nwant:\n%s", buf, want);

	/* snprintf-like: the length of the whole, a cut text in a small buffer */
	T_ASSERT_EQ(error_log_format(log, small, sizeof(small)), n);
	T_ASSERT_EQ(strlen(small), sizeof(small) - 1);

	/* 8 kept: the 9th pushes the first out */
	for (int i = 0; i < 8; i++) {
		char cmd[32];

		snprintf(cmd, sizeof(cmd), "cmd %d", i);
		T_ASSERT_OK(error_log_add(log, "loc", "msg", cmd, 0));
	}
	T_ASSERT_EQ(error_log_count(log), ERROR_LOG_MAX);
	error_log_format(log, buf, sizeof(buf));
	T_ASSERT(!strstr(buf, "nosuch"));
	T_ASSERT(strstr(buf, "Command: cmd 0\n"));
	T_ASSERT(strstr(buf, "Command: cmd 7\n"));

	/* a command longer than the cap is cut, the caret stays within it */
	{
		static char huge[ERROR_LOG_CMD_MAX * 2];

		memset(huge, 'a', sizeof(huge) - 1);
		T_ASSERT_OK(error_log_add(log, "loc", "msg", huge, sizeof(huge)));
		T_ASSERT(error_log_format(log, NULL, 0) < 8 * 64 + 3 * ERROR_LOG_CMD_MAX);
	}

	error_log_clear(log);
	T_ASSERT_EQ(error_log_count(log), 0);
	T_ASSERT_EQ(error_log_format(log, buf, sizeof(buf)), 0);
	error_log_free(log);
	error_log_free(NULL);
	return T_PASS;
}
