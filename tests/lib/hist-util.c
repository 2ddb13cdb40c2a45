// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/hist-util.c - what the hist-* tests share (hist-util.h)
 */
#include "hist-util.h"

const char *elog(void)
{
	static char out[8192];
	const char *s = cat("error_log");
	size_t n = 0;

	for (const char *l = s; *l;) {
		const char *e = strchr(l, '\n');
		const char *end = e ? e + 1 : l + strlen(l);

		if (*l == '[' && strstr(l, "] ") && strstr(l, "] ") < end)
			l = strstr(l, "] ") + 2;
		if ((size_t)(end - l) < sizeof(out) - n) {
			memcpy(out + n, l, (size_t)(end - l));
			n += (size_t)(end - l);
		}
		l = end;
	}
	out[n] = '\0';
	return out;
}

void golden(const char *name, const char *text)
{
	static char want[1 << 16];
	char path[4096];
	size_t n;
	FILE *f;

	/* tests/lib/../data/hist/@name.txt */
	snprintf(path, sizeof(path), "%s", __FILE__);
	*strrchr(path, '/') = '\0';
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/../data/hist/%s.txt", name);
	if (getenv("HIST_GOLDEN_WRITE")) {
		f = fopen(path, "w");
		T_ASSERT(f != NULL);
		fputs(text, f);
		fclose(f);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		t_fail("%s: %s missing", name, path);
	n = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[n] = '\0';
	if (strcmp(text, want))
		t_fail("%s: hist text differs from %s:\n--- got:\n%s--- want:\n%s---", name, path,
		       text, want);
}
