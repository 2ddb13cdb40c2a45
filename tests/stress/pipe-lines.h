/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pipe-lines.h - the torture tests' trace_pipe reader: drain the top
 * instance's trace_pipe without blocking and hand over whole lines.
 */
#ifndef EVT_TESTS_PIPE_LINES_H
#define EVT_TESTS_PIPE_LINES_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>
#include <unistd.h>

#include <evtrace/tracefs.h>

/*
 * Read trace_pipe, giving each line (without its newline; a line longer than
 * 4 KiB is cut) to @on_line. Each time the pipe is empty, @on_empty says
 * whether to stop (true) or wait 200 us and read again. 0, or the negative
 * errno of the open or of a read.
 */
static inline int t_pipe_lines(bool (*on_empty)(void), void (*on_line)(const char *line))
{
	static char buf[1 << 16];
	struct evt_tracefs_file *f;
	char line[4096];
	size_t ll = 0;
	ssize_t n;
	int ret;

	ret = evt_tracefs_open(NULL, "trace_pipe", EVT_TRACEFS_READ | EVT_TRACEFS_NONBLOCK, &f);
	if (ret)
		return ret;
	for (;;) {
		n = evt_tracefs_file_read(f, buf, sizeof(buf));
		if (n == -EAGAIN) {
			if (on_empty())
				break;
			usleep(200);
			continue;
		}
		if (n < 0) {
			ret = (int)n;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (ll < sizeof(line) - 1)
					line[ll++] = buf[i];
				continue;
			}
			line[ll] = '\0';
			on_line(line);
			ll = 0;
		}
	}
	evt_tracefs_close(f);
	return ret;
}

#endif /* EVT_TESTS_PIPE_LINES_H */
