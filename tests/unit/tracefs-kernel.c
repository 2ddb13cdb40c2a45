// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-kernel: the same writes to the kernel's tracefs (an instance of our
 * own, instances/tfs-<pid>, removed at the end) and to our tree (the fake
 * backend, whose sched and irq events have the kernel's names and the fields
 * the filters below use): the write's result and the files' read-backs must
 * agree. Skips without root or tracefs.
 *
 * Compared: set_event in every form (the enable files of four events both
 * have), the per-event enable files, filter read-backs and errnos, the
 * error_log's text without time stamps, tracing_on, trace_clock's answer to
 * a bad clock, buffer_size_kb's to bad sizes, set_event_pid's to bad ids.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "tracefs-fake.h"

static char kdir[256];

static const char *const evs[] = {
	"sched/sched_switch", "sched/sched_wakeup", "irq/irq_handler_entry", "irq/softirq_entry",
};

/*
 * Write to the kernel's file as the shell does: write(2) again after a short
 * count (set_event takes one word per call). Return: bytes or -errno.
 */
static ssize_t kwrite(const char *file, const char *text, unsigned int flags)
{
	size_t len = strlen(text), done = 0;
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", kdir, file);
	fd = open(path, O_WRONLY | (flags & GT ? O_TRUNC : 0) | (flags & GGT ? O_APPEND : 0));
	if (fd < 0)
		return -errno;
	while (done < len) {
		n = write(fd, text + done, len - done);
		if (n <= 0) {
			done = n < 0 ? (size_t)-errno : done;
			break;
		}
		done += (size_t)n;
	}
	close(fd);
	return (ssize_t)done;
}

static const char *kread(const char *file)
{
	static char buf[1 << 16];
	char path[512];
	ssize_t n, len = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", kdir, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return "<open error>";
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* error_log without "[  sec.usec] " */
static char *strip(const char *text)
{
	char *out = strdup(text), *w = out;

	for (const char *r = text; *r;) {
		if (*r == '[' && (r == text || r[-1] == '\n') && strstr(r, "] ")) {
			r = strstr(r, "] ") + 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
	return out;
}

static int failures;

static void same(const char *file, const char *text, unsigned int flags)
{
	ssize_t k = kwrite(file, text, flags);
	ssize_t o = fake_echo_sh(NULL, text, flags, file);

	if (k != o) {
		fprintf(stderr, "write '%s' %s %s: kernel %zd, ours %zd\n", text,
			flags & GT ? ">" : ">>", file, k, o);
		failures++;
	}
}

static void same_read(const char *file)
{
	char *k = strdup(kread(file));
	const char *o = fake_cat(NULL, file);

	if (strcmp(k, o)) {
		fprintf(stderr, "read %s:\n--- kernel:\n%s--- ours:\n%s---\n", file, k, o);
		failures++;
	}
	free(k);
}

static void same_enables(void)
{
	char path[128];

	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		snprintf(path, sizeof(path), "events/%s/enable", evs[i]);
		same_read(path);
	}
}

static void cleanup(void)
{
	if (!kdir[0])
		return;
	kwrite("set_event", "", GT);
	kwrite("events/sched/filter", "0", GT);
	kwrite("events/irq/filter", "0", GT);
	kwrite("set_event_pid", "", GT);
	if (rmdir(kdir))
		perror(kdir);
	kdir[0] = '\0';
}

int main(void)
{
	static const char *const set_event_words[] = {
		"sched:sched_switch", "sched_wakeup", "!sched_wakeup", "irq:*", "sched:",
		"\n", "irq", "sched:*", "!sched:*", "sched:sched_switch irq:irq_handler_entry",
		"nosuch:event", "nosuchevent", "*:sched_switch", "sched:sched_sw*",
		"!sched:sched_switch", "# foo", "  sched:sched_switch \n\n irq:softirq_entry\n",
		"!irq:*", "!sched_switch",
	};
	static const char *const filters[] = {
		"prev_pid == 1", "prev_pid == 1 && next_pid > 3", "nosuch == 1", "(prev_pid == 1",
		"prev_comm == 1", "prev_pid ~ \"a\"", "0", "\n", "prev_pid == abc", "prev_pid ==",
		"prev_comm ~ \"ba*sh\" || prev_pid < 0", "((prev_pid > 1) && (next_pid < 2))",
		"prev_pid == 1 ||", "prev_pid & 3", "prev_comm != \"x\"", "0",
	};
	char *k, *o;

	if (geteuid() != 0)
		t_skip("not root");
	if (access("/sys/kernel/tracing/instances", W_OK))
		t_skip("no tracefs at /sys/kernel/tracing");
	snprintf(kdir, sizeof(kdir), "/sys/kernel/tracing/instances/tfs-%d", (int)getpid());
	if (mkdir(kdir, 0755)) {
		kdir[0] = '\0';
		t_skip("cannot make a kernel instance: %s", strerror(errno));
	}
	atexit(cleanup);
	fake_install();

	/* set_event, both '>' and '>>' for each form */
	for (size_t i = 0; i < sizeof(set_event_words) / sizeof(set_event_words[0]); i++) {
		same("set_event", set_event_words[i], GGT);
		same_enables();
		same("set_event", set_event_words[i], GT);
		same_enables();
	}
	same("set_event", "", GT);
	for (const char *v = "1\0" "0\0" "2\0" "x\0" "\n\0"; *v; v += strlen(v) + 1) {
		same("events/sched/sched_switch/enable", v, GT);
		same_enables();
	}

	/* filters: result, read-back and error_log */
	kwrite("error_log", "", GT);
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		same("events/sched/sched_switch/filter", filters[i], GT);
		/*
		 * After a rejection both show the kernel's display; after a success
		 * both show the filter (we keep the previous filter in force, which
		 * the display does not show, as in the kernel).
		 */
		same_read("events/sched/sched_switch/filter");
	}
	k = strip(kread("error_log"));
	o = strip(fake_cat(NULL, "error_log"));
	if (strcmp(k, o)) {
		fprintf(stderr, "error_log:\n--- kernel:\n%s--- ours:\n%s---\n", k, o);
		failures++;
	}
	free(k);
	free(o);

	/* the controls' answers to bad writes */
	same_read("current_tracer");
	same("current_tracer", "nosuch", GT);
	same("current_tracer", "nop", GT);
	same("tracing_on", "x", GT);
	same("tracing_on", "0", GT);
	same_read("tracing_on");
	same("tracing_on", "1", GT);
	same("trace_clock", "nosuch", GT);
	same("buffer_size_kb", "0", GT);
	same("buffer_size_kb", "abc", GT);
	same("set_event_pid", "abc", GT);
	same("set_event_pid", "1,2", GGT);
	same("set_event_pid", "!5", GGT);
	same("set_event_pid", "  3   4 \n", GT);
	same("set_event_pid", "5\n6\n", GGT);
	same_read("set_event_pid");
	same("set_event_pid", "\n", GT);
	same_read("set_event_pid");
	same("error_log", "x", GT);
	same_read("error_log");

	cleanup();
	if (failures)
		t_fail("%d differences from the kernel", failures);
	return T_PASS;
}
