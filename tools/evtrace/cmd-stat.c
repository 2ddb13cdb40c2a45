// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-stat.c - `evtrace stat [-p PID] [-i INSTANCE]`: a traced process's
 * buffer, per CPU: entries, overruns, commit overruns, dropped events,
 * events read, bytes, size and use, from per_cpu/cpuN/stats (and the
 * times a CPU buffer was found corrupt, when it was) and
 * buffer_size_kb; then tracing_on, the clock and the trace header's
 * entries line. evtrace-stat(1).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/ctl_client.h"
#include "evtrace-cmd.h"

static void stat_usage(FILE *f)
{
	fprintf(f, "usage: evtrace stat [-p PID] [-i INSTANCE]\n"
		   "Per-CPU state of a traced process's ring buffer: entries, overruns, drops,\n"
		   "events read, bytes and buffer use.\n"
		   "  -p, --pid PID            the process (default: the only one traced)\n"
		   "  -i, --instance NAME      an instance's buffer instead of the top one\n");
}

/* The number after "@key: " in @text, or 0. */
static unsigned long long stat_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ':')
			return strtoull(l + kl + 1, NULL, 10);
	return 0;
}

static char *read_or_empty(struct ctl_client *c, const char *path)
{
	char *buf = NULL;

	if (ctl_read(c, path, &buf) < 0) {
		free(buf);
		buf = strdup("");
	}
	return buf;
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "instance", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long tot[7] = { 0 }, corrupt = 0;
	const char *inst = NULL;
	struct ctl_client *c;
	char prefix[128] = "", path[256], *t, esc[CTL_COMM_MAX * 4 + 8];
	struct ctl_ping ping;
	pid_t pid = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "p:i:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (cmd_parse_pid(optarg, &pid))
				return 2;
			break;
		case 'i':
			inst = optarg;
			break;
		case 'h':
			stat_usage(stdout);
			return 0;
		default:
			stat_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		stat_usage(stderr);
		return 2;
	}
	if (inst && (strlen(inst) > 64 || strchr(inst, '/'))) {
		cmd_error("-i: an instance name, not '%s'", inst);
		return 2;
	}
	if (inst)
		snprintf(prefix, sizeof(prefix), "instances/%s/", inst);
	c = cmd_ctl_connect(pid);
	if (!c)
		return 1;
	if (inst) {
		int ret;

		snprintf(path, sizeof(path), "instances/%s", inst);
		ret = ctl_stat(c, path, NULL);
		if (ret) {
			cmd_error("stat: instance '%s' of process %d: %s", inst,
				  (int)ctl_client_info(c)->pid, strerror(-ret));
			ctl_close(c);
			return 1;
		}
	}
	snprintf(path, sizeof(path), "%stracing_on", prefix);
	t = read_or_empty(c, path);
	printf("process %d (%s)%s%s: tracing_on %c", (int)ctl_client_info(c)->pid,
	       cmd_escape(ctl_client_info(c)->comm, esc, sizeof(esc)), inst ? ", instance " : "",
	       inst ? inst : "", *t ? t[0] : '?');
	free(t);
	snprintf(path, sizeof(path), "%strace_clock", prefix);
	t = read_or_empty(c, path);
	t[strcspn(t, "\n")] = '\0';
	printf(", clock %s\n", cmd_escape(t, esc, sizeof(esc)));
	free(t);
	/* the endpoint's own troubles (evt_control_stats(3)) */
	if (ctl_ping(c, &ping) == 0 && (ping.refused || ping.accept_errors || ping.start_failures))
		printf("control: %u connection%s of other users refused, %u accept error%s "
		       "(backed off), %u failed start%s%s%s\n",
		       ping.refused, ping.refused == 1 ? "" : "s", ping.accept_errors,
		       ping.accept_errors == 1 ? "" : "s", ping.start_failures,
		       ping.start_failures == 1 ? "" : "s", ping.last_error ? "; last error: " : "",
		       ping.last_error ? strerror(-ping.last_error) : "");
	printf("%-4s %12s %10s %10s %10s %12s %12s %10s %6s\n", "CPU", "ENTRIES", "OVERRUN",
	       "COMMIT_OVR", "DROPPED", "READ", "BYTES", "SIZE_KB", "USE");
	for (unsigned int cpu = 0; cpu < ctl_client_info(c)->nr_cpus; cpu++) {
		unsigned long long v[7], kb;
		char *st, *sz;

		snprintf(path, sizeof(path), "%sper_cpu/cpu%u/stats", prefix, cpu);
		if (ctl_read(c, path, &st) < 0) {
			cmd_error("%s: cannot read", path);
			ctl_close(c);
			return 1;
		}
		snprintf(path, sizeof(path), "%sper_cpu/cpu%u/buffer_size_kb", prefix, cpu);
		sz = read_or_empty(c, path);
		kb = strtoull(sz, NULL, 10);
		v[0] = stat_value(st, "entries");
		v[1] = stat_value(st, "overrun");
		v[2] = stat_value(st, "commit overrun");
		v[3] = stat_value(st, "dropped events");
		v[4] = stat_value(st, "read events");
		v[5] = stat_value(st, "bytes");
		v[6] = kb;
		corrupt += stat_value(st, "corrupt");
		for (int i = 0; i < 7; i++)
			tot[i] += v[i];
		printf("%-4u %12llu %10llu %10llu %10llu %12llu %12llu %10llu %5.1f%%\n", cpu, v[0],
		       v[1], v[2], v[3], v[4], v[5], v[6],
		       kb ? 100.0 * (double)v[5] / (double)(kb * 1024) : 0.0);
		free(st);
		free(sz);
	}
	printf("%-4s %12llu %10llu %10llu %10llu %12llu %12llu %10llu %5.1f%%\n", "all", tot[0],
	       tot[1], tot[2], tot[3], tot[4], tot[5], tot[6],
	       tot[6] ? 100.0 * (double)tot[5] / (double)(tot[6] * 1024) : 0.0);
	if (corrupt)
		printf("corrupt: %llu (times another process wrote into the shared buffer, "
		       "per_cpu/cpuN/stats; `> trace` rebuilds a corrupt CPU buffer)\n", corrupt);
	ctl_close(c);
	return 0;
}
