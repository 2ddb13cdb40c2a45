// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/synth-util.c - what the synth-* tests share (synth-util.h)
 */
#include "synth-util.h"

char *slurp(const char *name)
{
	const char *slash = strrchr(__FILE__, '/');
	static char bufs[4][1 << 16];
	static unsigned int turn;
	char *buf = bufs[turn++ % 4];
	char path[1024];
	size_t n;
	FILE *f;

	/* tests/lib/../data/synth/@name */
	snprintf(path, sizeof(path), "%.*s../data/synth/%s",
		 slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__, name);
	f = fopen(path, "r");
	if (!f)
		t_fail("%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(bufs[0]) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}
