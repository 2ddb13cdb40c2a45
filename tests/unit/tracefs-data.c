// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-data: replay the writes recorded from the kernel in
 * tests/data/tracefs/ (collect.sh) on our tree (the fake backend, whose
 * sched_switch has the fields the filters use) and compare with what the
 * kernel answered. Runs everywhere: the kernel's answers are in the files.
 *
 *   filter.txt     each write to events/sched/sched_switch/filter: success or
 *                  the errno, and the filter file's text after it, byte for byte
 *   set_event.txt  each set_event step: success or not, and sched_switch/enable
 */
#include "tracefs-fake.h"

/* tests/data/tracefs/@name, from this file's directory */
static char *slurp(const char *name)
{
	const char *slash = strrchr(__FILE__, '/');
	static char buf[1 << 20];
	char path[1024];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%.*s../data/tracefs/%s",
		 slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__, name);
	f = fopen(path, "r");
	if (!f)
		t_fail("%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

/* the errno a shell's "write error: <text>" names */
static int errno_of(const char *block)
{
	if (strstr(block, "write error: Invalid argument"))
		return -EINVAL;
	if (strstr(block, "write error: No such file or directory"))
		return -ENOENT;
	if (strstr(block, "write error: "))
		return -EIO;
	return 0;
}

static int failures;

static void replay_filters(void)
{
	char *text = slurp("filter.txt"), *p = text;
	const char *sw = "events/sched/sched_switch/filter";
	int n = 0;

	while ((p = strstr(p, "## write '"))) {
		char *expr = p + 10, *q = strstr(expr, "' to "), *file, *next, *read;
		char want[4096], cmd[1024];
		int want_err;
		ssize_t got;

		if (!q)
			break;
		file = q + 5;
		next = strstr(file, "\n## ");
		if (next)
			*next = '\0';
		if (strncmp(file, sw, strlen(sw))) {	/* subsystem writes: ours differ (docs) */
			p = next ? next + 1 : file + strlen(file);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "%.*s\n", (int)(q - expr), expr);
		want_err = errno_of(file);
		read = strstr(file, "-- read:\n");
		/* the block was cut before the "\n" that ends its last line */
		snprintf(want, sizeof(want), "%s%s", read ? read + 9 : "", next ? "\n" : "");
		got = fake_echo(NULL, cmd, GT, sw);
		if ((want_err && got != want_err) || (!want_err && got != (ssize_t)strlen(cmd))) {
			fprintf(stderr, "filter '%s': kernel %d, ours %zd\n", cmd, want_err, got);
			failures++;
		}
		/* the record ends each block with the file's text and nothing else */
		if (strcmp(fake_cat(NULL, sw), want)) {
			fprintf(stderr, "filter '%s' read back:\n--- kernel:\n%s--- ours:\n%s---\n",
				cmd, want, fake_cat(NULL, sw));
			failures++;
		}
		n++;
		p = next ? next + 1 : file + strlen(file);
	}
	free(text);
	if (n < 10)
		t_fail("filter.txt: only %d writes found", n);
}

static void replay_set_event(void)
{
	char *text = slurp("set_event.txt"), *p = text;
	int n = 0;

	fake_echo(NULL, "", GT, "set_event");
	while ((p = strstr(p, "## "))) {
		char *title = p + 3, *end = strchr(title, '\n'), *next, *en;
		char sw[8];
		bool failed;

		if (!end)
			break;
		*end = '\0';
		next = strstr(end + 1, "\n## ");
		if (next)
			*next = '\0';
		failed = strstr(end + 1, "rc=1") != NULL;
		en = strstr(end + 1, "sched_switch=");
		snprintf(sw, sizeof(sw), "%c\n", en ? en[13] : '?');
		/* the steps, as collect.sh made them */
		struct step {
			const char *title, *text;
			unsigned int flags;
			const char *text2;	/* a second write, or NULL */
		} steps[] = {
			{ "append sched:sched_switch", "sched:sched_switch\n", GGT, NULL },
			{ "append sched_wakeup (no system)", "sched_wakeup\n", GGT, NULL },
			{ "append !sched_wakeup", "!sched_wakeup\n", GGT, NULL },
			{ "trunc irq:*", "irq:*\n", GT, NULL },
			{ "append sched:", "sched:\n", GGT, NULL },
			{ "empty write clears", "\n", GT, NULL },
			{ "append irq", "irq\n", GGT, NULL },
			{ "empty", "\n", GT, NULL },
			{ "append !sched:*", "sched:*\n", GGT, "!sched:*\n" },
			{ "append two words", "sched:sched_switch irq:irq_handler_entry\n", GGT, NULL },
			{ "append no such", "nosuch:event\n", GGT, NULL },
			{ "append no such plain", "nosuchevent\n", GGT, NULL },
			{ "append *:sched_switch", "\n", GT, "*:sched_switch\n" },
			{ "append sched:sched_sw*", "\n", GT, "sched:sched_sw*\n" },
			{ "trunc via !", "sched:sched_switch\n", GT, "!sched:sched_switch\n" },
			{ "clear", "\n", GT, NULL },
			{ "printf no newline", "sched:sched_switch", GGT, NULL },
			{ "spaces and newlines", "  sched:sched_switch \n\n irq:softirq_entry\n", GGT, NULL },
			{ "colon only", "\n", GT, ":\n" },
			{ "comment", "\n", GT, "# foo\n" },
		};
		struct step *st = NULL;

		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			if (!strcmp(steps[i].title, title))
				st = &steps[i];
		if (st) {
			ssize_t r = fake_echo(NULL, st->text, st->flags, "set_event");

			if (st->text2 && r >= 0)
				r = fake_echo(NULL, st->text2, GGT, "set_event");
			if ((r < 0) != failed) {
				fprintf(stderr, "set_event step '%s': kernel %s, ours %zd\n", title,
					failed ? "failed" : "succeeded", r);
				failures++;
			}
			if (strcmp(fake_cat(NULL, "events/sched/sched_switch/enable"), sw)) {
				fprintf(stderr, "set_event step '%s': sched_switch/enable %s, want %s",
					title, fake_cat(NULL, "events/sched/sched_switch/enable"), sw);
				failures++;
			}
			n++;
		}
		p = next ? next + 1 : end + 1;
	}
	free(text);
	if (n < 15)
		t_fail("set_event.txt: only %d steps replayed", n);
}

int main(void)
{
	fake_install();
	replay_filters();
	replay_set_event();
	if (failures)
		t_fail("%d differences from the recorded kernel", failures);
	return T_PASS;
}
