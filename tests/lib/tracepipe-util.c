// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/tracepipe-util.c - what the trace_pipe tests share
 */
#include "tracepipe-util.h"

char tpt_dir[64];

void tpt_cleanup_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tpt_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tpt_dir);
}

const char *tpt_mkdir(void)
{
	strcpy(tpt_dir, "/tmp/evt-tracepipe-XXXXXX");
	if (!mkdtemp(tpt_dir))
		t_fail("mkdtemp: %s", strerror(errno));
	atexit(tpt_cleanup_dir);
	return tpt_dir;
}

struct tpt_reader tpt_reader_start(const char *fifo, const char *out, int how)
{
	struct tpt_reader r;
	int ctl[2];

	if (pipe(ctl))
		t_fail("pipe: %s", strerror(errno));
	r.pid = fork();
	if (r.pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (r.pid == 0) {
		static char buf[1 << 16];
		int reading = !(how & TPT_WAIT), done = 0;
		int fd, ofd;

		close(ctl[1]);
		fd = open(fifo, O_RDONLY | O_NONBLOCK);
		ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ofd < 0)
			_exit(3);
		for (;;) {
			struct pollfd p[2] = { { fd, reading ? POLLIN : 0, 0 },
					       { ctl[0], POLLIN, 0 } };
			ssize_t n;

			if (!done && poll(p, 2, -1) < 0 && errno != EINTR)
				_exit(4);
			if (!done && (p[1].revents & (POLLIN | POLLHUP))) {
				char c = 'd';

				if (read(ctl[0], &c, 1) <= 0 || c == 'd')
					done = 1;
				reading = 1;
			}
			if (!reading)
				continue;
			if (how & TPT_SPLICE)
				n = splice(fd, NULL, ofd, NULL, 1 << 20, SPLICE_F_NONBLOCK);
			else
				n = read(fd, buf, sizeof(buf));
			if (n > 0) {
				if (!(how & TPT_SPLICE) && write(ofd, buf, (size_t)n) != n)
					_exit(5);
				continue;
			}
			if (n == 0 && !done) {
				usleep(1000); /* no writer yet (or between sessions) */
				continue;
			}
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				_exit(6);
			if (done)
				break;
		}
		close(ofd);
		close(fd);
		_exit(0);
	}
	close(ctl[0]);
	r.ctl = ctl[1];
	return r;
}

void tpt_reader_finish(struct tpt_reader *r)
{
	int st;

	tpt_reader_send(r, 'd');
	close(r->ctl);
	if (waitpid(r->pid, &st, 0) != r->pid || !WIFEXITED(st) || WEXITSTATUS(st))
		t_fail("reader exited with %#x", st);
}

unsigned char *tpt_slurp(const char *path, size_t *len)
{
	unsigned char *buf = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		t_fail("open %s: %s", path, strerror(errno));
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		t_fail("malloc");
	*len = 0;
	while (*len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + *len, (size_t)st.st_size - *len);

		if (n <= 0)
			t_fail("read %s", path);
		*len += (size_t)n;
	}
	close(fd);
	return buf;
}

size_t tpt_walk(const unsigned char *buf, size_t len,
			      void (*fn)(const struct evt_tracepipe_page *,
					 const struct evt_tracepipe_record *, void *),
			      void *arg)
{
	size_t off = 0, pages = 0;

	while (off < len) {
		struct evt_tracepipe_page pg;
		struct evt_tracepipe_record rec;
		int n = evt_tracepipe_page_parse(buf + off, len - off, &pg), r;

		if (n <= 0)
			t_fail("page at %zu: %d", off, n);
		while ((r = evt_tracepipe_record_next(&pg, &rec)) == 1)
			if (fn)
				fn(&pg, &rec, arg);
		if (r < 0)
			t_fail("record in page at %zu: %d", off, r);
		off += (size_t)n;
		pages++;
	}
	return pages;
}

unsigned long long tpt_missed_file(struct evt_tracepipe_channel *chan)
{
	char path[4200], buf[64] = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "%s.missed", evt_tracepipe_path(chan));
	f = fopen(path, "r");
	if (!f)
		t_fail("open %s: %s", path, strerror(errno));
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtoull(buf, NULL, 10);
}
