// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-torture: the control socket under many clients while events fire.
 *
 * Writer threads fire ctltest:ctl_tick and ctl_msg; client threads, each
 * with its own connection (reconnecting now and then), do at random: read
 * available_events / set_event / a format / per_cpu stats, write set_event
 * (ctltest:* or ctltest:ctl_msg, so the writers keep something on), write a
 * good or a rejected filter, readdir events/ctltest, stat, a trace_pipe
 * stream read a little then stopped, take and give back the ring buffer
 * (one consumer at a time: EBUSY otherwise), ping; and one client sends
 * garbage frames on a connection of its own. Proven: every answer is a
 * count or the errno expected for it; the garbage never hurts the others;
 * at the end evt_control_stop() returns with every server thread gone, and
 * the socket is removed.
 *
 * Usage: control-torture [-d SECONDS]
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <evtrace/control.h>
#include <evtrace/tracefs.h>

#define CREATE_TRACE_POINTS
#include "control-tp.h"

#include "control/ctl_client.h"
#include "helpers.h"

#define WRITERS 2
#define CLIENTS 4

static atomic_int stop;
static atomic_ulong ops, busy;

static void *writer(void *arg)
{
	int id = (int)(long)arg;

	for (unsigned long long i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		trace_ctl_tick(id, i);
		if (i % 32 == 0)
			trace_ctl_msg(id, "torture");
		if (i % 64 == 63)
			usleep(100);
	}
	return NULL;
}

static int fill_none(void *arg, const char *name, unsigned int mode)
{
	(void)name;
	(void)mode;
	(*(int *)arg)++;
	return 0;
}

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond))                                                               \
			t_fail("client %d op %d: %s (ret %ld)", id, op, #cond, (long)ret); \
	} while (0)

static void *client(void *arg)
{
	int id = (int)(long)arg;
	struct ctl_client *c = NULL;
	struct t_rand r;

	t_rand_init(&r, (uint64_t)id * 7919 + 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int op = (int)(t_rand_next(&r) % 12);
		char *buf = NULL, err[4096];
		long ret = 0;

		if (!c || t_rand_next(&r) % 50 == 0) {
			ctl_close(c);
			ret = ctl_connect_pid(getpid(), &c);
			CHECK(ret == 0);
		}
		switch (op) {
		case 0:
			ret = ctl_read(c, "available_events", &buf);
			CHECK(ret > 0 && strstr(buf, "ctltest:ctl_tick"));
			break;
		case 1:
			ret = ctl_read(c, "set_event", &buf);
			CHECK(ret >= 0);
			break;
		case 2: {
			const char *ev = t_rand_next(&r) & 1 ? "ctltest:*" : "ctltest:ctl_msg";

			ret = ctl_write(c, "set_event", ev, strlen(ev), CTL_WF_TRUNC, err,
					sizeof(err));
			CHECK(ret == (long)strlen(ev));
			break;
		}
		case 3:
			if (t_rand_next(&r) & 1) {
				ret = ctl_write(c, "events/ctltest/ctl_tick/filter", "seq > 10", 8,
						CTL_WF_TRUNC, err, sizeof(err));
				CHECK(ret == 8);
			} else {
				ret = ctl_write(c, "events/ctltest/ctl_tick/filter", "seq >", 5,
						CTL_WF_TRUNC, err, sizeof(err));
				CHECK(ret == -EINVAL && *err);
			}
			break;
		case 4: {
			int n = 0;

			ret = ctl_readdir(c, "events/ctltest", fill_none, &n);
			CHECK(ret == 0 && n >= 2);
			break;
		}
		case 5: {
			unsigned int mode;

			ret = ctl_stat(c, "events/ctltest/ctl_tick/format", &mode);
			CHECK(ret == 0 && S_ISREG(mode));
			break;
		}
		case 6: {
			char sbuf[4096];

			ret = ctl_stream_open(c, "trace_pipe");
			CHECK(ret == 0);
			for (int i = 0; i < 3; i++) {
				ret = ctl_stream_read(c, sbuf, sizeof(sbuf), 20);
				CHECK(ret > 0 || ret == -EAGAIN);
			}
			ret = ctl_stream_stop(c);
			CHECK(ret == 0);
			break;
		}
		case 7: {
			struct ctl_bufinfo bi;
			int fd;

			ret = ctl_get_buffer(c, NULL, &fd, &bi);
			CHECK(ret == 0 || ret == -EBUSY);
			if (ret == 0) {
				close(fd);
				ret = ctl_put_buffer(c);
				CHECK(ret == 0);
			} else {
				atomic_fetch_add(&busy, 1);
			}
			break;
		}
		case 8: {
			struct ctl_ping p;

			ret = ctl_ping(c, &p);
			CHECK(ret == 0 && !p.exiting && p.clients >= 1);
			break;
		}
		case 9:
			ret = ctl_read(c, "per_cpu/cpu0/stats", &buf);
			CHECK(ret > 0 && strstr(buf, "entries:"));
			break;
		case 10:
			ret = ctl_read(c, "events/ctltest/ctl_msg/format", &buf);
			CHECK(ret > 0 && strstr(buf, "name: ctl_msg"));
			break;
		default:
			ret = ctl_read(c, "no/such/file", &buf);
			CHECK(ret == -ENOENT);
			break;
		}
		free(buf);
		atomic_fetch_add(&ops, 1);
	}
	ctl_close(c);
	return NULL;
}

/* Garbage frames, each on a fresh connection: the server answers or closes, never hurts. */
static void *vandal(void *arg)
{
	struct t_rand r;

	(void)arg;
	t_rand_init(&r, 4242);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned char junk[256];
		struct ctl_client *c;
		size_t n = 12 + t_rand_next(&r) % 200;
		struct ctl_req_hdr h = { .magic = CTL_MAGIC, .version = CTL_VERSION };

		if (ctl_connect_pid(getpid(), &c))
			continue;
		for (size_t i = 0; i < n; i++)
			junk[i] = (unsigned char)t_rand_next(&r);
		if (t_rand_next(&r) & 1) {
			/* a plausible header with a wrong length or op */
			h.op = (uint16_t)(t_rand_next(&r) % 16);
			h.len = (uint32_t)(n - 12 + (t_rand_next(&r) % 3) - 1);
			memcpy(junk, &h, sizeof(h));
		}
		if (send(ctl_client_fd(c), junk, n, MSG_NOSIGNAL) < 0) {
			/* refused already */
		}
		shutdown(ctl_client_fd(c), SHUT_WR);
		while (recv(ctl_client_fd(c), junk, sizeof(junk), 0) > 0)
			;
		ctl_close(c);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = t_parse_duration(argc, argv, 3);
	char tmpl[] = "/tmp/evt-ctlt-XXXXXX", dir[256], path[256];
	pthread_t w[WRITERS], cl[CLIENTS], v;

	T_ASSERT(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/sock", tmpl);
	setenv("EVTRACE_CONTROL_DIR", dir, 1);
	T_ASSERT_OK(evt_control_start(0));
	T_ASSERT_OK(evt_control_path(path, sizeof(path)));
	T_ASSERT(evt_tracefs_write(NULL, "set_event", "ctltest:*", 9, EVT_TRACEFS_TRUNC) == 9);
	for (long i = 0; i < WRITERS; i++)
		pthread_create(&w[i], NULL, writer, (void *)i);
	for (long i = 0; i < CLIENTS; i++)
		pthread_create(&cl[i], NULL, client, (void *)i);
	pthread_create(&v, NULL, vandal, NULL);
	usleep((useconds_t)(secs * 1e6));
	atomic_store(&stop, 1);
	for (int i = 0; i < CLIENTS; i++)
		pthread_join(cl[i], NULL);
	pthread_join(v, NULL);
	for (int i = 0; i < WRITERS; i++)
		pthread_join(w[i], NULL);
	T_ASSERT_OK(evt_control_stop());
	T_ASSERT(access(path, F_OK) < 0);
	printf("%lu client operations (%lu buffer requests found it busy) in %.1f s\n",
	       atomic_load(&ops), atomic_load(&busy), secs);
	T_ASSERT(atomic_load(&ops) > 0);
	rmdir(dir);
	rmdir(tmpl);
	printf("PASS\n");
	return 0;
}
