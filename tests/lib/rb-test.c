// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/lib/rb-test.c - the ring buffer tests' helpers (rb-test.h)
 */
#include "rb-test.h"

void rbt_vfail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: FAIL: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	exit(RBT_FAIL);
}

uint64_t rbt_clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void rbt_sleep_ns(uint64_t ns)
{
	struct timespec t = { .tv_sec = (time_t)(ns / 1000000000u),
			      .tv_nsec = (long)(ns % 1000000000u) };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

double rbt_duration(int argc, char **argv, double def)
{
	for (int i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "-d"))
			return atof(argv[i + 1]);
	return def;
}

int rbt_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

int rbt_pin(int cpu)
{
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (ret)
		return -ret;
	/* make sure we are there before the caller writes */
	for (int i = 0; i < 1000 && sched_getcpu() != cpu; i++)
		sched_yield();
	return sched_getcpu() == cpu ? 0 : -EAGAIN;
}

int rbt_pin_first(void)
{
	int cpus[CPU_SETSIZE];
	int n = rbt_allowed_cpus(cpus, CPU_SETSIZE);

	if (n < 1 || rbt_pin(cpus[0]) < 0)
		rbt_skip("cannot pin to a CPU");
	return cpus[0];
}

void rbt_unpin(const int *cpus, int n)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void rbt_rec_fill(void *buf, size_t len, uint32_t tag, uint64_t seq)
{
	struct rbt_rec r = { .tag = tag, .len = (uint32_t)len, .seq = seq };

	memcpy(buf, &r, sizeof(r));
	rbt_fill((unsigned char *)buf + sizeof(r), len - sizeof(r),
		 ((uint64_t)tag << 40) ^ seq);
}

uint64_t rbt_rec_check_(const char *file, int line,
				      struct evt_ring_buffer_event *ev, uint32_t tag, size_t len)
{
	struct rbt_rec r;
	unsigned char *p;

	if (!ev)
		rbt_vfail(file, line, "no event");
	p = evt_ring_buffer_event_data(ev);
	if (evt_ring_buffer_event_length(ev) != RBT_ALIGN4(len))
		rbt_vfail(file, line, "event length %u, want %u",
			  evt_ring_buffer_event_length(ev), (unsigned int)RBT_ALIGN4(len));
	memcpy(&r, p, sizeof(r));
	if (r.tag != tag || r.len != len)
		rbt_vfail(file, line, "record tag %u len %u, want tag %u len %zu",
			  r.tag, r.len, tag, len);
	if (!rbt_check(p + sizeof(r), len - sizeof(r), ((uint64_t)tag << 40) ^ r.seq))
		rbt_vfail(file, line, "payload of record %" PRIu64 " damaged", r.seq);
	return r.seq;
}

int rbt_write_rec(struct evt_ring_buffer *rb, size_t len, uint32_t tag,
				uint64_t seq)
{
	unsigned char buf[8192];

	if (len > sizeof(buf))
		return -E2BIG;
	rbt_rec_fill(buf, len, tag, seq);
	return evt_ring_buffer_write(rb, len, buf);
}

struct evt_ring_buffer *rbt_alloc_opts(size_t size, unsigned int flags,
						     unsigned int page_size, int nr_cpus,
						     enum evt_clock_id clock)
{
	struct evt_ring_buffer_opts o = {
		.size = size, .flags = flags, .page_size = page_size,
		.nr_cpus = nr_cpus, .clock = clock,
	};
	struct evt_ring_buffer *rb = NULL;
	int ret = evt_ring_buffer_alloc_opts(&o, &rb);

	if (ret < 0 || !rb)
		RBT_FAILF("evt_ring_buffer_alloc_opts(size %zu, flags %u, page %u): %d",
			  size, flags, page_size, ret);
	return rb;
}

unsigned long rbt_drain_cpu(struct evt_ring_buffer *rb, int cpu)
{
	unsigned long n = 0;

	while (evt_ring_buffer_consume(rb, cpu, NULL, NULL))
		n++;
	return n;
}

unsigned long rbt_drain(struct evt_ring_buffer *rb)
{
	unsigned long n = 0;

	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++)
		n += rbt_drain_cpu(rb, cpu);
	return n;
}

int rbt_wait_child(pid_t pid, double timeout_s)
{
	uint64_t deadline = rbt_now_ns() + (uint64_t)(timeout_s * 1e9);
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -3;
		if (rbt_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fprintf(stderr, "child %d timed out\n", (int)pid);
			return -2;
		}
		rbt_sleep_ns(1000000);
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "child %d killed by signal %d (%s)\n", (int)pid,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return -1;
	}
	return WEXITSTATUS(status);
}
