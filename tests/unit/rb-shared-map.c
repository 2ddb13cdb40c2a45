// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-shared-map: a consumer in another process. The parent allocates
 * and writes; a forked child maps the buffer's memfd with
 * evt_ring_buffer_map() and consumes: peek/consume, iterators,
 * read_page, statistics, following a resize, and live consumption while
 * the parent writes. Writing and control calls on the mapped handle are
 * refused. The two talk over pipes; the child reports by exit status.
 */
#include "rb-test.h"

#include <poll.h>
#include <stdatomic.h>

#define PAGES	16

enum { CMD_READY = 1, CMD_STAGE, CMD_DONE, CMD_ACK };

struct msg {
	uint32_t cmd;
	uint32_t stage;
	uint64_t arg;
	uint64_t arg2;
};

static int to_child[2], to_parent[2];
static int all_cpus[CPU_SETSIZE], n_all;	/* where we may run, before pinning */

static void send_msg(int fd, uint32_t cmd, uint32_t stage, uint64_t arg, uint64_t arg2)
{
	struct msg m = { .cmd = cmd, .stage = stage, .arg = arg, .arg2 = arg2 };

	RBT_ASSERT(write(fd, &m, sizeof(m)) == (ssize_t)sizeof(m));
}

/* Wait up to @ms for a message; false on timeout. */
static bool recv_msg(int fd, struct msg *m, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) <= 0)
		return false;
	return read(fd, m, sizeof(*m)) == (ssize_t)sizeof(*m);
}

/* ---- the child ------------------------------------------------------------ */

static struct evt_ring_buffer *m;

/* Consume @n events of (tag, len 48) on @cpu starting at seq @from, within 10 s. */
static void child_consume(int cpu, uint32_t tag, uint64_t from, uint64_t n)
{
	uint64_t deadline = rbt_now_ns() + 10000000000ull, got = 0, ts, prev = 0;
	unsigned long lost;

	while (got < n) {
		struct evt_ring_buffer_event *ev = evt_ring_buffer_consume(m, cpu, &ts, &lost);

		if (!ev) {
			RBT_ASSERTF(rbt_now_ns() < deadline, "child: only %" PRIu64 " of %" PRIu64
				    " events arrived", got, n);
			rbt_sleep_ns(100000);
			continue;
		}
		RBT_EQ_U(rbt_rec_check(ev, tag, 48), from + got);
		RBT_EQ_U(lost, 0);
		RBT_ASSERT(ts >= prev);
		prev = ts;
		got++;
	}
}

static int child(int fd, int cpu, unsigned int flags)
{
	struct evt_ring_buffer *other;
	struct msg msg;
	int ret;

	alarm(60);	/* never hang the test suite */
	ret = evt_ring_buffer_map(fd, &m);
	RBT_ASSERTF(ret == 0 && m, "map: %d", ret);

	/* the geometry is the owner's */
	RBT_EQ_U(evt_ring_buffer_page_size(m), 4096);
	RBT_EQ_U(evt_ring_buffer_size(m, cpu), PAGES * 4096);
	RBT_EQ_I(evt_ring_buffer_overwrite(m), !!flags);
	RBT_EQ_I(evt_ring_buffer_clock(m), EVT_CLOCK_LOCAL);
	RBT_ASSERT(evt_ring_buffer_nr_cpus(m) > cpu);
	RBT_ASSERT(evt_ring_buffer_empty(m));

	/* a consumer handle does not write or control */
	RBT_EQ_I(evt_ring_buffer_write(m, 8, "abcdefgh"), -EPERM);
	RBT_ASSERT(evt_ring_buffer_lock_reserve(m, 8) == NULL);
	RBT_EQ_I(evt_ring_buffer_reset(m), -EPERM);
	RBT_EQ_I(evt_ring_buffer_reset_cpu(m, cpu), -EPERM);
	RBT_EQ_I(evt_ring_buffer_resize(m, 8192, cpu), -EPERM);
	RBT_EQ_I(evt_ring_buffer_set_clock(m, EVT_CLOCK_MONO), -EPERM);
	other = rbt_alloc(PAGES * 4096, flags);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(m, other, cpu), -EPERM);
	RBT_EQ_I(evt_ring_buffer_swap_cpu(other, m, cpu), -EPERM);
	evt_ring_buffer_free(other);
	RBT_ASSERT(evt_ring_buffer_fd(m) >= 0);
	RBT_ASSERT(evt_ring_buffer_empty(m));

	send_msg(to_parent[1], CMD_READY, 0, 0, 0);

	while (recv_msg(to_child[0], &msg, 30000) && msg.cmd == CMD_STAGE) {
		switch (msg.stage) {
		case 1:	/* plain consumption */
			child_consume(cpu, 1, 0, msg.arg);
			RBT_ASSERT(evt_ring_buffer_peek(m, cpu, NULL, NULL) == NULL);
			RBT_EQ_U(evt_ring_buffer_read_events_cpu(m, cpu), msg.arg);
			RBT_EQ_U(evt_ring_buffer_entries_cpu(m, cpu), 0);
			break;
		case 2: {	/* iterator, then read_page */
			struct evt_ring_buffer_iter *it;
			struct evt_ring_buffer_event *ev;
			unsigned char page[4096];
			uint64_t k = 0;

			RBT_EQ_U(evt_ring_buffer_entries_cpu(m, cpu), msg.arg);
			RBT_EQ_I(evt_ring_buffer_read_start(m, cpu, &it), 0);
			while ((ev = evt_ring_buffer_read(it, NULL)))
				RBT_EQ_U(rbt_rec_check(ev, 2, 48), k++);
			RBT_EQ_U(k, msg.arg);
			evt_ring_buffer_iter_reset(it);
			RBT_EQ_U(rbt_rec_check(evt_ring_buffer_iter_peek(it, NULL), 2, 48), 0);
			evt_ring_buffer_read_finish(it);
			k = 0;
			while ((ret = evt_ring_buffer_read_page(m, cpu, page, sizeof(page))) > 0) {
				struct evt_rb_page_iter pit;
				const struct evt_ring_buffer_event *e;

				RBT_EQ_I(evt_rb_page_iter_init(&pit, page, sizeof(page)), 0);
				while (evt_rb_page_iter_next(&pit, &e, NULL) == 1)
					RBT_EQ_U(rbt_rec_check((struct evt_ring_buffer_event *)e, 2,
							       48), k++);
			}
			RBT_EQ_I(ret, -EAGAIN);
			RBT_EQ_U(k, msg.arg);
			break;
		}
		case 3:	/* the owner resized in between */
			child_consume(cpu, 3, 0, msg.arg);
			RBT_EQ_U(evt_ring_buffer_size(m, cpu), msg.arg2);
			RBT_ASSERT(evt_ring_buffer_consume(m, cpu, NULL, NULL) == NULL);
			break;
		case 4: {	/* live: consume while the parent writes, until it says done */
			uint64_t expect = 0, got = 0, lost_sum = 0, total = UINT64_MAX;
			unsigned long lost;

			for (;;) {
				struct evt_ring_buffer_event *ev;
				struct msg d;

				ev = evt_ring_buffer_consume(m, cpu, NULL, &lost);
				if (ev) {
					uint64_t s = rbt_rec_check(ev, 4, 48);

					RBT_ASSERTF(s >= expect, "live: %" PRIu64 " after %" PRIu64,
						    s, expect);
					/* PC: the owner numbers only committed events */
					if (!flags)
						RBT_EQ_U(s, expect);
					lost_sum += lost;
					expect = s + 1;
					got++;
					continue;
				}
				if (total != UINT64_MAX)
					break;
				if (recv_msg(to_child[0], &d, 0)) {
					RBT_EQ_U(d.cmd, CMD_DONE);
					total = d.arg;	/* then drain what is left */
					continue;
				}
				rbt_sleep_ns(20000);
			}
			RBT_EQ_U(expect, total);
			if (flags)
				RBT_EQ_U(got + evt_ring_buffer_overrun_cpu(m, cpu), total);
			else
				RBT_EQ_U(got, total);
			send_msg(to_parent[1], CMD_ACK, 4, got, lost_sum);
			continue;
		}
		default:
			RBT_FAILF("bad stage %u", msg.stage);
		}
		send_msg(to_parent[1], CMD_ACK, msg.stage, 0, 0);
	}
	evt_ring_buffer_free(m);
	return RBT_PASS;
}

/* ---- the parent ------------------------------------------------------------- */

static void expect_ack(uint32_t stage, struct msg *out)
{
	struct msg msg;

	RBT_ASSERTF(recv_msg(to_parent[0], &msg, 30000), "no answer from the child (stage %u)",
		    stage);
	RBT_EQ_U(msg.cmd, stage ? CMD_ACK : CMD_READY);
	RBT_EQ_U(msg.stage, stage);
	if (out)
		*out = msg;
}

static void run(unsigned int flags, int cpu, double live_secs)
{
	struct evt_ring_buffer *rb = rbt_alloc(PAGES * 4096, flags);
	uint64_t consumed = 0, seq;
	struct msg msg;
	pid_t pid;
	int status;

	RBT_EQ_I(pipe(to_child), 0);
	RBT_EQ_I(pipe(to_parent), 0);
	fflush(NULL);
	pid = fork();
	RBT_ASSERT(pid >= 0);
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		/* the consumer runs on another CPU when there is one */
		for (int i = 0; i < n_all; i++)
			if (all_cpus[i] != cpu && rbt_pin(all_cpus[i]) == 0)
				break;
		_exit(child(evt_ring_buffer_fd(rb), cpu, flags));
	}
	close(to_child[0]);
	close(to_parent[1]);
	expect_ack(0, NULL);

	/* stage 1 */
	for (uint64_t i = 0; i < 500; i++)
		RBT_EQ_I(rbt_write_rec(rb, 48, 1, i), 0);
	send_msg(to_child[1], CMD_STAGE, 1, 500, 0);
	expect_ack(1, NULL);
	consumed += 500;
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), consumed);
	RBT_EQ_U(evt_ring_buffer_entries_cpu(rb, cpu), 0);

	/* stage 2 */
	for (uint64_t i = 0; i < 300; i++)
		RBT_EQ_I(rbt_write_rec(rb, 48, 2, i), 0);
	send_msg(to_child[1], CMD_STAGE, 2, 300, 0);
	expect_ack(2, NULL);
	consumed += 300;
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), consumed);

	/* stage 3: write, resize (grow), write more */
	for (uint64_t i = 0; i < 10; i++)
		RBT_EQ_I(rbt_write_rec(rb, 48, 3, i), 0);
	RBT_EQ_I(evt_ring_buffer_resize(rb, 4 * PAGES * 4096, cpu), 0);
	for (uint64_t i = 10; i < 400; i++)
		RBT_EQ_I(rbt_write_rec(rb, 48, 3, i), 0);
	send_msg(to_child[1], CMD_STAGE, 3, 400, 4 * PAGES * 4096);
	expect_ack(3, NULL);
	consumed += 400;
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), consumed);

	/*
	 * stage 4: live. (Not in overwrite mode under ThreadSanitizer: it runs
	 * 16-byte atomics under a lock of its own in each process, so a writer
	 * pushing the reader here and the consumer there would race.)
	 */
	if (RBT_TSAN && flags)
		live_secs = 0;
	send_msg(to_child[1], CMD_STAGE, 4, 0, 0);
	{
		uint64_t deadline = rbt_now_ns() + (uint64_t)(live_secs * 1e9), refused = 0;

		seq = 0;
		while (rbt_now_ns() < deadline) {
			int ret = rbt_write_rec(rb, 48, 4, seq);

			if (ret == 0)
				seq++;
			else if (ret == -ENOBUFS)
				refused++;
			else
				RBT_FAILF("live write: %d", ret);
			if (!(seq % 256))
				sched_yield();
		}
		RBT_EQ_U(evt_ring_buffer_dropped_events_cpu(rb, cpu), refused);
	}
	send_msg(to_child[1], CMD_DONE, 4, seq, 0);
	expect_ack(4, &msg);
	printf("%s: live stage: %" PRIu64 " written, %" PRIu64 " consumed by the child, %lu"
	       " overruns, %lu dropped\n", flags ? "overwrite" : "pc", seq, msg.arg,
	       evt_ring_buffer_overrun_cpu(rb, cpu), evt_ring_buffer_dropped_events_cpu(rb, cpu));
	consumed += msg.arg;
	RBT_EQ_U(evt_ring_buffer_read_events_cpu(rb, cpu), consumed);
	RBT_EQ_U(evt_ring_buffer_entries(rb), 0);
	/* losses reported to the child are the owner's counters */
	RBT_ASSERT(msg.arg2 <= evt_ring_buffer_overrun_cpu(rb, cpu) +
				evt_ring_buffer_dropped_events_cpu(rb, cpu));

	close(to_child[1]);	/* the child's loop ends */
	status = rbt_wait_child(pid, 30);
	RBT_ASSERTF(status == 0, "child exit status %d", status);
	close(to_parent[0]);

	/* the owner still works, and its own consumer picks up where the child left */
	RBT_EQ_I(rbt_write_rec(rb, 48, 5, 0), 0);
	RBT_EQ_U(rbt_rec_check(evt_ring_buffer_consume(rb, cpu, NULL, NULL), 5, 48), 0);
	evt_ring_buffer_free(rb);
}

int main(int argc, char **argv)
{
	double secs = rbt_duration(argc, argv, 0.3);
	int cpu;

	n_all = rbt_allowed_cpus(all_cpus, CPU_SETSIZE);
	cpu = rbt_pin_first();

	signal(SIGPIPE, SIG_IGN);
	run(0, cpu, secs);
	run(EVT_RB_FL_OVERWRITE, cpu, secs);

	/* bad descriptors */
	RBT_EQ_I(evt_ring_buffer_map(-1, &m), -EINVAL);
	{
		struct evt_ring_buffer *rb = rbt_alloc(0, 0);

		RBT_EQ_I(evt_ring_buffer_map(evt_ring_buffer_fd(rb), NULL), -EINVAL);
		evt_ring_buffer_free(rb);
	}
	printf("rb-shared-map: PASS\n");
	return RBT_PASS;
}
