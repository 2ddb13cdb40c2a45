// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-trace-kernel: the `trace` text against the kernel's own, live.
 * A kernel instance of ours (instances/events-<pid>) gets a trace_marker
 * write; evtrace's instance gets the same. Both texts must have the same
 * header, byte for byte apart from the numbers, and lines of the same shape
 * (field widths and positions). Skips without root or tracefs; removes the
 * kernel instance it made.
 */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "events-util.h"

static char kdir[256];

static void cleanup(void)
{
	if (kdir[0])
		rmdir(kdir);
}

static int kwrite(const char *file, const char *text)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", kdir, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -EIO;
}

static char *kread(const char *file)
{
	static char buf[65536];
	char path[512];
	ssize_t n, len = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", kdir, file);
	fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0);
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* The text with every run of digits replaced by "N". */
static void mask_digits(const char *in, char *out, size_t size)
{
	size_t o = 0;

	for (const char *p = in; *p && o + 2 < size; p++) {
		if (*p >= '0' && *p <= '9') {
			out[o++] = 'N';
			while (p[1] >= '0' && p[1] <= '9')
				p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

/* The line of @text after the header that contains @needle. */
static const char *line_with(const char *text, const char *needle, char *out, size_t size)
{
	const char *p = strstr(text, needle), *s, *e;

	T_ASSERT(p);
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	e = strchr(p, '\n');
	snprintf(out, size, "%.*s", (int)(e ? e - s : (long)strlen(s)), s);
	return out;
}

int main(void)
{
	static char ours_m[65536], kern_m[65536];
	char kl[512], ol[512], *hdr_end_k, *hdr_end_o;
	struct evt_instance *inst;
	const char *ours;
	char *kern;

	if (geteuid() != 0 || access("/sys/kernel/tracing/instances", W_OK))
		t_skip("needs root and tracefs at /sys/kernel/tracing");
	snprintf(kdir, sizeof(kdir), "/sys/kernel/tracing/instances/events-%d", (int)getpid());
	if (mkdir(kdir, 0755))
		t_skip("mkdir %s: %s", kdir, strerror(errno));
	atexit(cleanup);
	prctl(PR_SET_NAME, "evt-kcompare", 0, 0, 0);

	T_ASSERT_OK(kwrite("trace_marker", "hello marker"));
	kern = kread("trace");
	inst = t_instance("kernel");
	T_ASSERT_EQ(evt_instance_trace_marker(inst, "hello marker", 12), 12);
	ours = t_trace_text(inst, -1);

	/* headers: identical but for the numbers */
	hdr_end_k = strstr(kern, "#              | |");
	hdr_end_o = strstr(ours, "#              | |");
	T_ASSERT(hdr_end_k && hdr_end_o);
	*strchr(hdr_end_k, '\n') = '\0';
	{
		char *nl = strchr(hdr_end_o, '\n');
		size_t olen = (size_t)(nl - ours);
		char *ohdr = strndup(ours, olen);

		mask_digits(kern, kern_m, sizeof(kern_m));
		mask_digits(ohdr, ours_m, sizeof(ours_m));
		free(ohdr);
		if (strcmp(kern_m, ours_m))
			t_fail("headers differ:\nkernel:\n%s\nours:\n%s", kern_m, ours_m);
	}

	/* the marker line: same shape once the numbers and the flags are masked */
	kern = kread("trace");
	line_with(kern, "tracing_mark_write: hello marker", kl, sizeof(kl));
	line_with(ours, "tracing_mark_write: hello marker", ol, sizeof(ol));
	{
		regex_t re;
		/* the kernel may print "<...>" as the comm: this instance saves no cmdlines */
		const char *pat = "^ +[^ ]+-[0-9]+ +\\[[0-9]{3}\\] [.dDXNnpHhsZz0-9]{5} +"
				  "[0-9]+\\.[0-9]{6}: tracing_mark_write: hello marker$";

		T_ASSERT(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0);
		if (regexec(&re, kl, 0, NULL, 0))
			t_fail("the kernel's line [%s] does not match [%s]", kl, pat);
		if (regexec(&re, ol, 0, NULL, 0))
			t_fail("our line [%s] does not match [%s]", ol, pat);
		regfree(&re);
	}
	/* the columns: "comm-pid" ends and "[cpu]" starts at the same offsets */
	{
		const char *kb = strchr(kl, '['), *ob = strchr(ol, '[');

		T_ASSERT_EQ(kb - kl, ob - ol);
		T_ASSERT_EQ(strchr(kl, ':') - kl, strchr(ol, ':') - ol);
	}
	printf("kernel: %s\nours:   %s\n", kl, ol);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
