// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-fork: a fork() child has a copy of the channel but no
 * flusher, so what it recorded would never reach the pipe. Instead:
 *  - evt_tracepipe_event() returns -ECHILD in the child (with a reader
 *    attached in the parent), evt_tracepipe_reserve() NULL,
 *    evt_tracepipe_flush() -ECHILD, evt_tracepipe_readers() 0;
 *  - evt_tracepipe_remove_channel() in the child frees its copy and
 *    returns 0, and the FIFO stays;
 *  - the parent goes on: its events arrive, the child's do not.
 */
#include <sys/stat.h>

#include "tracepipe-util.h"

static struct evt_tracepipe_channel *chan;
static int nrec, bad;

static int child(void)
{
	struct evt_tracepipe_reservation res;
	uint32_t v = 0xc0ffee;
	struct stat st;

	T_ASSERT_EQ(evt_tracepipe_event(chan, &v, sizeof(v)), -ECHILD);
	T_ASSERT(evt_tracepipe_reserve(chan, sizeof(v), &res) == NULL);
	T_ASSERT_EQ(evt_tracepipe_flush(chan), -ECHILD);
	T_ASSERT_EQ(evt_tracepipe_readers(chan), 0);
	T_ASSERT_EQ(stat(evt_tracepipe_path(chan), &st), 0);
	{
		char path[256];

		snprintf(path, sizeof(path), "%s", evt_tracepipe_path(chan));
		T_ASSERT_OK(evt_tracepipe_remove_channel(chan));
		T_ASSERT_EQ(stat(path, &st), 0);
	}
	return T_PASS;
}

static void count(const struct evt_tracepipe_page *pg, const struct evt_tracepipe_record *rec,
		  void *arg)
{
	uint32_t v;

	(void)pg;
	(void)arg;
	memcpy(&v, rec->payload, sizeof(v));
	if (rec->len != sizeof(v) || v >= 100)
		bad++;
	nrec++;
}

int main(void)
{
	const char *dir = tpt_mkdir();
	struct evt_tracepipe_opts o = { .dir = dir };
	struct tpt_reader r;
	char out[128];
	unsigned char *b;
	size_t len;
	int st;
	pid_t pid;

	T_ASSERT_OK(evt_tracepipe_create_channel_opts("fork", &o, &chan));
	snprintf(out, sizeof(out), "%s/out", dir);
	r = tpt_reader_start(evt_tracepipe_path(chan), out, 0);
	tpt_wait_attached(chan);
	for (uint32_t i = 0; i < 50; i++)
		T_ASSERT_OK(evt_tracepipe_event(chan, &i, sizeof(i)));
	fflush(NULL);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		_exit(child());
	T_ASSERT_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (uint32_t i = 50; i < 100; i++)
		T_ASSERT_OK(evt_tracepipe_event(chan, &i, sizeof(i)));
	T_ASSERT_OK(evt_tracepipe_flush(chan));
	tpt_reader_finish(&r);
	while (evt_tracepipe_remove_channel(chan) == -EBUSY)
		usleep(1000);

	b = tpt_slurp(out, &len);
	tpt_walk(b, len, count, NULL);
	free(b);
	T_ASSERT_EQ(bad, 0);
	T_ASSERT_EQ(nrec, 100);
	return T_PASS;
}
