// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-tracepipe: `evtrace tracepipe` run as a separate process
 * (build/tools/evtrace) against a channel of this test:
 *  - list shows the channel and its missed count;
 *  - record -c N writes a stream file that parses to the N records;
 *  - cat -c 3 prints the records as text lines, times in seconds.microseconds
 *    converted with the stream page's scale; --ns in ns, --cycles raw;
 *  - with stderr on a terminal (a pty) the live line appears, rewritten
 *    with \r, and SIGINT ends the command with status 0;
 *  - usage errors exit 2, a missing channel 1.
 */
#include <pty.h>
#include <signal.h>
#include <termios.h>

#include "cmd-test.h"
#include "tracepipe-util.h"

static struct evt_tracepipe_channel *chan;

static void events(int n, int first)
{
	for (int i = first; i < first + n; i++)
		T_ASSERT_EQ(evt_tracepipe_event(chan, &i, sizeof(i)), 0);
	T_ASSERT_EQ(evt_tracepipe_flush(chan), 0);
}

static unsigned long long nrec;

static void count(const struct evt_tracepipe_page *pg, const struct evt_tracepipe_record *rec,
		  void *arg)
{
	int v;

	(void)pg;
	(void)arg;
	memcpy(&v, rec->payload, sizeof(v));
	if (rec->len == 4 && v == (int)nrec)
		nrec++;
}

static void wait_detached(void)
{
	while (evt_tracepipe_readers(chan))
		usleep(1000);
	/* and the flusher has noticed: events are refused again */
	while (evt_tracepipe_event(chan, "", 0) != -EPIPE)
		usleep(1000);
}

/* Run @argv (a cat) while @n events from @first are written: its output to @buf; exit 0. */
static void run_cat(char *const argv[], int n, int first, char *buf, size_t cap)
{
	int out;
	pid_t pid = cmdt_run(argv, &out, -1);

	tpt_wait_attached(chan);
	events(n, first);
	cmdt_read_all(out, buf, cap);
	T_ASSERT_EQ(cmdt_wait_status(pid), 0);
}

int main(void)
{
	static char buf[1 << 16];
	char dir[64], file[128];
	int out, status;
	pid_t pid;

	if (access(EVT_TOOL, X_OK))
		t_skip("%s is not built", EVT_TOOL);
	snprintf(dir, sizeof(dir), "%s", tpt_mkdir());
	snprintf(file, sizeof(file), "%s/out.tp", dir);
	T_ASSERT_OK(evt_tracepipe_create_channel_opts(
		"cmdtest", &(struct evt_tracepipe_opts){ .dir = dir }, &chan));

	/* list */
	T_ASSERT_EQ(cmdt_simple((char *[]){ "evtrace", "tracepipe", "list", "-D", dir, NULL }, buf,
				sizeof(buf)),
		    0);
	T_ASSERT(strstr(buf, "cmdtest") && strstr(buf, "missed 0"));

	/* record -c N */
	pid = cmdt_run((char *[]){ "evtrace", "tracepipe", "record", "-D", dir, "-o", file, "-c",
				   "1000", "cmdtest", NULL },
		       &out, -1);
	tpt_wait_attached(chan);
	events(1000, 0);
	T_ASSERT_EQ(cmdt_wait_status(pid), 0);
	close(out);
	{
		size_t len;
		unsigned char *b = tpt_slurp(file, &len);

		tpt_walk(b, len, count, NULL);
		free(b);
		T_ASSERT_EQ(nrec, 1000);
	}
	wait_detached();

	/* cat -c 3: text lines */
	run_cat((char *[]){ "evtrace", "tracepipe", "cat", "-c", "3", "-D", dir, "cmdtest", NULL },
		10, 0x41, buf, sizeof(buf));
	T_ASSERT(strstr(buf, "4: 41 00 00 00\n") && strstr(buf, "4: 43 00 00 00\n"));
	T_ASSERT(!strstr(buf, "4: 44 00 00 00"));
	{
		unsigned int cpu, len;
		unsigned long long s;
		char us[16];

		/* "[cpu] S.UUUUUU len:": six digits after the point, seconds of the local clock */
		T_ASSERT_EQ(sscanf(buf, "[%u] %llu.%15[0-9] %u:", &cpu, &s, us, &len), 4);
		T_ASSERT_EQ(strlen(us), 6);
		T_ASSERT_EQ(len, 4);
		T_ASSERT(s > 0);
	}
	wait_detached();

	/* cat --cycles: the raw counter, one integer */
	run_cat((char *[]){ "evtrace", "tracepipe", "cat", "--cycles", "-c", "1", "-D", dir,
			    "cmdtest", NULL },
		1, 0x41, buf, sizeof(buf));
	{
		unsigned int cpu, len;
		unsigned long long cyc;
		char after;

		T_ASSERT_EQ(sscanf(buf, "[%u] %llu%c", &cpu, &cyc, &after), 3);
		T_ASSERT(after == ' ' && cyc > 0);
		T_ASSERT(sscanf(buf, "[%u] %llu %u:", &cpu, &cyc, &len) == 3 && len == 4);
	}
	wait_detached();

	/* cat --ns: seconds.nanoseconds instead of cycles */
	run_cat((char *[]){ "evtrace", "tracepipe", "cat", "--ns", "-c", "1", "-D", dir, "cmdtest",
			    NULL },
		1, 0x41, buf, sizeof(buf));
	{
		unsigned int cpu, len;
		unsigned long long s, ns;

		T_ASSERT_EQ(sscanf(buf, "[%u] %llu.%9llu %u:", &cpu, &s, &ns, &len), 4);
		T_ASSERT_EQ(len, 4);
		T_ASSERT(s > 0 && ns < 1000000000ull);
	}
	wait_detached();

	/* the live line on a terminal; SIGINT ends it cleanly */
	{
		int master, slave;

		if (openpty(&master, &slave, NULL, NULL, NULL))
			t_skip("no pty: %s", strerror(errno));
		pid = cmdt_run((char *[]){ "evtrace", "tracepipe", "record", "-D", dir, "-o", file,
					   "cmdtest", NULL },
			       &out, slave);
		close(slave);
		tpt_wait_attached(chan);
		events(500, 0);
		/* read the terminal until the line shows the 500 records */
		cmdt_read_until(master, buf, sizeof(buf), "500 records");
		T_ASSERT(strchr(buf, '\r') && strstr(buf, "cmdtest: ") && strstr(buf, "/s"));
		kill(pid, SIGINT);
		status = cmdt_wait_status(pid);
		T_ASSERT_EQ(status, 0);
		close(master);
		close(out);
		wait_detached();
	}

	/* errors */
	T_ASSERT_EQ(cmdt_simple((char *[]){ "evtrace", "tracepipe", "frob", "x", NULL }, buf,
				sizeof(buf)),
		    2);
	T_ASSERT_EQ(cmdt_simple((char *[]){ "evtrace", "tracepipe", "cat", NULL }, buf,
				sizeof(buf)),
		    2);
	T_ASSERT_EQ(
		cmdt_simple((char *[]){ "evtrace", "tracepipe", "cat", "-D", dir, "nosuch", NULL },
			    buf, sizeof(buf)),
		1);
	T_ASSERT_EQ(cmdt_simple((char *[]){ "evtrace", "nosuchverb", NULL }, buf, sizeof(buf)), 2);

	T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), 0);
	return T_PASS;
}
