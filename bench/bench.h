/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/bench.h - what every benchmark prints about the machine.
 */
#ifndef EVT_BENCH_H
#define EVT_BENCH_H

#include <stdio.h>
#include <string.h>

/*
 * The CPU model from /proc/cpuinfo ("model name" on x86, "CPU part" on
 * arm64), or "?".
 */
static inline void bench_cpu_model(char *model, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(model, len, "?");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (colon && (!strncmp(line, "model name", 10) || !strncmp(line, "CPU part", 8))) {
			snprintf(model, len, "%s", colon + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

#endif /* EVT_BENCH_H */
