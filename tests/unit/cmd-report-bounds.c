// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-report-bounds: `evtrace report` and `export` on what is not a
 * trace.dat fail at once, with bounded memory and a message that is not
 * empty: /dev/zero, a FIFO fed 256 MB of zeros, an empty file, a
 * directory; and a file whose header_page, header_event or saved cmdlines
 * section (or CPU count) claims more than the file holds is refused
 * before anything is allocated for it (the peak RSS of the command is
 * measured: under 64 MB more than for a valid file). A FIFO fed a valid
 * file is read.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"

static char out[1 << 22], err[1 << 16];

/* Run `evtrace VERB FILE`: its exit status, stderr in err[], peak RSS (KB) in *@rss. */
static int run(const char *verb, const char *file, long *rss)
{
	struct rusage ru;
	int o[2], e[2], st;
	pid_t pid;

	T_ASSERT_OK(pipe(o));
	T_ASSERT_OK(pipe(e));
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]);
		close(e[0]);
		execl(EVT_TOOL, "evtrace", verb, file, (char *)NULL);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	cmdt_read_all(o[0], out, sizeof(out));
	cmdt_read_all(e[0], err, sizeof(err));
	T_ASSERT(wait4(pid, &st, 0, &ru) == pid);
	*rss = ru.ru_maxrss;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* @verb on @file fails (1) with a message after "FILE: " and a peak RSS under @limit KB. */
static void refused(const char *verb, const char *file, long limit, const char *want)
{
	long rss;
	int st = run(verb, file, &rss);
	const char *m = strstr(err, ": ");

	printf("%s %s: exit %d, %ld KB peak, %s", verb, file, st, rss, err);
	T_ASSERT_EQ(st, 1);
	T_ASSERT(m && m[2] && m[2] != '\n');
	T_ASSERT(rss < limit);
	if (want)
		T_ASSERT(strstr(err, want));
}

/* Feed @len bytes of @data (repeated zeros when NULL) into the FIFO @path from a child. */
static pid_t feed(const char *path, const void *data, size_t len)
{
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		static char zero[1 << 16];
		int fd = open(path, O_WRONLY);

		signal(SIGPIPE, SIG_DFL);
		if (data) {
			for (size_t off = 0; off < len;) {
				ssize_t n = write(fd, (const char *)data + off, len - off);

				if (n <= 0)
					_exit(0);
				off += (size_t)n;
			}
		} else {
			for (size_t off = 0; off < len; off += sizeof(zero))
				if (write(fd, zero, sizeof(zero)) <= 0)
					_exit(0);
		}
		_exit(0);
	}
	return pid;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	T_ASSERT(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	T_ASSERT(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	T_ASSERT(f && fwrite(buf, 1, len, f) == len);
	fclose(f);
}

int main(int argc, char **argv)
{
	char tmp[256], self[4096], cmd[700], good[300], bad[300], fifo[300];
	unsigned char *img, *copy;
	size_t len, at;
	long base, rss, limit;
	uint64_t huge = (uint64_t)1 << 40;
	pid_t w;

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(good, sizeof(good), "%s/good.dat", tmp);
	snprintf(bad, sizeof(bad), "%s/bad.dat", tmp);
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmp);
	{
		char *a[] = { "evtrace", "record", "-q", "-e", "ctltest:ctl_tick", "-o", good, "--",
			      self, "--child", "1", "100", NULL };

		T_ASSERT_EQ(crt_tool(out, sizeof(out), a), 0);
	}
	T_ASSERT_EQ(run("report", good, &base), 0);
	T_ASSERT(strstr(out, "ctl_tick: worker=0 seq=99"));
	limit = base + 64 * 1024;
	printf("a valid file: %ld KB peak\n", base);

	refused("report", "/dev/zero", limit, "not a trace.dat");
	refused("export", "/dev/zero", limit, "not a trace.dat");
	refused("report", tmp, limit, NULL);
	spit(bad, "", 0);
	refused("report", bad, limit, "truncated");
	T_ASSERT_OK(mkfifo(fifo, 0600));
	w = feed(fifo, NULL, (size_t)256 << 20);
	refused("report", fifo, limit, "not a trace.dat");
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);

	/* a FIFO with a valid file in it is read */
	img = slurp(good, &len);
	w = feed(fifo, img, len);
	T_ASSERT_EQ(run("report", fifo, &rss), 0);
	T_ASSERT(strstr(out, "ctl_tick: worker=0 seq=99"));
	waitpid(w, NULL, 0);

	/* sections that claim more than the file holds */
	copy = malloc(len);
	T_ASSERT(copy);
	at = 10 + 2 + 1 + 1 + 4 + 12;	/* magic, "6", byte order, long size, page size, name */
	T_ASSERT(!memcmp(img + at - 12, "header_page", 12));
	memcpy(copy, img, len);
	memcpy(copy + at, &huge, 8);
	spit(bad, copy, len);
	refused("report", bad, limit, "runs past the end");
	{
		uint64_t hp;

		memcpy(&hp, img + at, 8);
		at += 8 + (size_t)hp + 13;	/* header_event's size */
		T_ASSERT(!memcmp(img + at - 13, "header_event", 13));
		memcpy(copy, img, len);
		memcpy(copy + at, &huge, 8);
		spit(bad, copy, len);
		refused("report", bad, limit, "runs past the end");
		refused("export", bad, limit, "runs past the end");
	}
	{
		/* the CPU count: u32 right before "options  " */
		unsigned char *o = memmem(img, len, "options  ", 10);
		uint32_t many = 4000;

		T_ASSERT(o);
		memcpy(copy, img, len);
		memcpy(copy + (o - img) - 4, &many, 4);
		spit(bad, copy, len);
		refused("report", bad, limit, NULL);
	}
	free(copy);
	free(img);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	T_ASSERT_EQ(system(cmd), 0);
	printf("PASS\n");
	return 0;
}
