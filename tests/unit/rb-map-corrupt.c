// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb-map-corrupt: evt_ring_buffer_map() on a memfd that is empty,
 * garbage, truncated, or a real buffer with a hostile header, hostile
 * per-CPU control words or scribbled pages. Mapping must fail cleanly
 * (-EBADMSG, -EPROTO for a version mismatch), or succeed and every read
 * call must return without crashing, hanging or reading out of bounds
 * (corrupt pages are skipped). Each case runs in a child process that
 * must exit normally; a signal or a hang fails the test.
 *
 * White-box: the header layout comes from src/ringbuf/rb_internal.h so
 * that targeted corruptions hit the field they mean to.
 */
#include "rb-test.h"

#include <stddef.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ringbuf/rb_internal.h"

static unsigned char *image;	/* a real buffer's memfd contents */
static size_t image_len;
static size_t cpu_off;		/* from the header */
static int image_cpus;

/*
 * A memfd holding @len bytes (@bytes, or zeros). Sealed against
 * shrinking, as an owner that wants to be mappable safely would do,
 * unless @unsealed.
 */
static int memfd_with_seal(const void *bytes, size_t len, bool unsealed)
{
	int fd = memfd_create("rb-map-corrupt", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	RBT_ASSERT(fd >= 0);
	if (len) {
		RBT_EQ_I(ftruncate(fd, (off_t)len), 0);
		if (bytes)
			RBT_EQ_I(pwrite(fd, bytes, len, 0), (ssize_t)len);
	}
	if (!unsealed)
		RBT_EQ_I(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	return fd;
}

static int memfd_with(const void *bytes, size_t len)
{
	return memfd_with_seal(bytes, len, false);
}

/* Touch every byte of an event the library hands out. */
static unsigned int touch(struct evt_ring_buffer_event *ev)
{
	const unsigned char *p = evt_ring_buffer_event_data(ev);
	unsigned int len = evt_ring_buffer_event_length(ev), sum = 0;

	for (unsigned int i = 0; i < len; i++)
		sum += p[i];
	return sum + evt_ring_buffer_time_delta(ev);
}

/* Every read-side call, bounded. */
static void exercise(struct evt_ring_buffer *m)
{
	int nr = evt_ring_buffer_nr_cpus(m);
	unsigned int ps = evt_ring_buffer_page_size(m);
	unsigned char *page = malloc(ps);
	volatile unsigned int sink = 0;

	RBT_ASSERT(page);
	for (int cpu = 0; cpu < nr && cpu < 64; cpu++) {
		struct evt_ring_buffer_iter *it;
		struct evt_ring_buffer_event *ev;
		unsigned long lost;
		uint64_t ts;

		sink += (unsigned int)evt_ring_buffer_entries_cpu(m, cpu);
		sink += evt_ring_buffer_empty_cpu(m, cpu);
		sink += (unsigned int)evt_ring_buffer_overrun_cpu(m, cpu);
		sink += (unsigned int)evt_ring_buffer_dropped_events_cpu(m, cpu);
		sink += (unsigned int)evt_ring_buffer_read_events_cpu(m, cpu);
		sink += (unsigned int)evt_ring_buffer_size(m, cpu);
		if (evt_ring_buffer_read_start(m, cpu, &it) == 0) {
			for (int i = 0; i < 5000 && (ev = evt_ring_buffer_read(it, &ts)); i++)
				sink += touch(ev);
			evt_ring_buffer_iter_reset(it);
			if ((ev = evt_ring_buffer_iter_peek(it, &ts)))
				sink += touch(ev);
			sink += evt_ring_buffer_iter_empty(it);
			sink += (unsigned int)evt_ring_buffer_iter_lost(it);
			evt_ring_buffer_read_finish(it);
		}
		if ((ev = evt_ring_buffer_peek(m, cpu, &ts, &lost)))
			sink += touch(ev);
		for (int i = 0; i < 5000 && (ev = evt_ring_buffer_consume(m, cpu, &ts, &lost)); i++)
			sink += touch(ev);
		for (int i = 0; i < 200; i++) {
			int ret = evt_ring_buffer_read_page(m, cpu, page, ps);
			struct evt_rb_page_iter pit;
			const struct evt_ring_buffer_event *e;

			if (ret <= 0) {
				RBT_ASSERTF(ret == -EAGAIN || ret == -EBADMSG || ret == -ENOMEM ||
					    ret == -EINVAL, "read_page: %d", ret);
				break;
			}
			RBT_ASSERT((unsigned int)ret <= ps - EVT_RB_PAGE_HDR_SIZE);
			/* what read_page hands out is a well-formed page */
			RBT_EQ_I(evt_rb_page_iter_init(&pit, page, ps), 0);
			while (evt_rb_page_iter_next(&pit, &e, &ts) == 1)
				sink += touch((struct evt_ring_buffer_event *)e);
		}
	}
	sink += (unsigned int)evt_ring_buffer_entries(m);
	sink += (unsigned int)evt_ring_buffer_overruns(m);
	sink += evt_ring_buffer_empty(m);
	(void)sink;
	free(page);
}

/*
 * Run @fn(arg) in a child; it must finish within 20 s and exit normally.
 * Returns what @fn returned: 0 = mapped ok, 10 + errno = refused. The
 * value travels through shared memory, not the exit status, so that a
 * sanitizer runtime dying with its own exit code is never mistaken for
 * a refusal.
 */
typedef int (*case_fn)(void *arg);

struct case_result {
	volatile int done;
	volatile int value;
};

static struct case_result *result;
static int cases, mapped;

static int run_case(const char *name, case_fn fn, void *arg)
{
	pid_t pid;
	int st;

	cases++;
	if (!result) {
		result = mmap(NULL, sizeof(*result), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		RBT_ASSERT(result != MAP_FAILED);
	}
	result->done = 0;
	result->value = -1;
	fflush(NULL);
	pid = fork();
	RBT_ASSERT(pid >= 0);
	if (pid == 0) {
		int v;

		alarm(20);
		v = fn(arg);
		result->value = v;
		__atomic_store_n(&result->done, 1, __ATOMIC_RELEASE);
		_exit(0);
	}
	st = rbt_wait_child(pid, 90);
	RBT_ASSERTF(st >= 0, "case '%s': the child crashed or hung (SIGALRM = hung in the"
		    " library)", name);
	RBT_ASSERTF(st != RBT_FAIL, "case '%s': the child failed a check", name);
	RBT_ASSERTF(st == 0 && __atomic_load_n(&result->done, __ATOMIC_ACQUIRE),
		    "case '%s': the child died (exit status %d)", name, st);
	mapped += result->value == 0;
	return result->value;
}

/* map the fd, exercise if mapped; exit code: 0 mapped, 10 + errno refused */
static int map_and_exercise(int fd)
{
	struct evt_ring_buffer *m = NULL;
	int ret = evt_ring_buffer_map(fd, &m);

	if (ret < 0) {
		RBT_ASSERT(m == NULL);
		return 10 + (-ret & 0x7f);
	}
	RBT_ASSERT(m);
	exercise(m);
	exercise(m);
	evt_ring_buffer_free(m);
	return 0;
}

struct blob {
	const unsigned char *bytes;
	size_t len;		/* file size */
	size_t copy;		/* bytes of @bytes to put in (rest zero) */
};

static int case_blob(void *arg)
{
	struct blob *b = arg;
	int fd = memfd_with(NULL, b->len);

	if (b->copy)
		RBT_EQ_I(pwrite(fd, b->bytes, b->copy, 0), (ssize_t)b->copy);
	return map_and_exercise(fd);
}

static int map_blob(const char *name, const unsigned char *bytes, size_t len, size_t copy)
{
	struct blob b = { bytes, len, copy < len ? copy : len };

	return run_case(name, case_blob, &b);
}

static void expect_refused(const char *name, int st, int err)
{
	if (err)
		RBT_ASSERTF(st == 10 + err, "case '%s': exit %d, want refusal with -%d", name, st,
			    err);
	else
		RBT_ASSERTF(st >= 10, "case '%s': mapped, want a refusal", name);
}

/* A copy of the image with @len bytes at @off replaced by @val (little endian). */
static unsigned char *mutated(size_t off, uint64_t val, size_t len)
{
	unsigned char *c = malloc(image_len);

	RBT_ASSERT(c && off + len <= image_len);
	memcpy(c, image, image_len);
	memcpy(c + off, &val, len);
	return c;
}

static void hdr_case(const char *name, size_t off, size_t len, uint64_t val, int err)
{
	unsigned char *c = mutated(off, val, len);
	int st = map_blob(name, c, image_len, image_len);

	if (err >= 0)
		expect_refused(name, st, err);
	free(c);
}

/* ---- live scribbling: the child maps, then scribbles, reads, scribbles... ---- */

struct scribble {
	uint64_t seed;
	int rounds;
	int where;	/* 0 anywhere, 1 control region, 2 pages */
	bool truncate_after;	/* an unsealed memfd, shrunk after mapping */
};

static int case_scribble(void *arg)
{
	struct scribble *s = arg;
	int fd = memfd_with_seal(image, image_len, s->truncate_after);
	struct evt_ring_buffer *m = NULL;
	uint64_t rnd = s->seed;
	unsigned char *w;
	size_t lo = 0, hi = image_len;
	int ret;

	ret = evt_ring_buffer_map(fd, &m);
	if (s->truncate_after && ret < 0)
		return 0;	/* refusing a memfd that can shrink under us is fine */
	RBT_ASSERTF(ret == 0, "mapping an intact copy: %d", ret);
	w = mmap(NULL, image_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	RBT_ASSERT(w != MAP_FAILED);
	if (s->where == 1)
		hi = cpu_off + (size_t)image_cpus * sizeof(struct rb_cpu_shm);
	else if (s->where == 2)
		lo = ALIGN_UP(cpu_off + (size_t)image_cpus * sizeof(struct rb_cpu_shm), 4096);
	for (int r = 0; r < s->rounds; r++) {
		int n = 1 + (int)(rbt_rand(&rnd) % 16);

		for (int i = 0; i < n; i++) {
			size_t off = lo + (size_t)(rbt_rand(&rnd) % (hi - lo - 8));
			uint64_t v = rbt_rand(&rnd);

			switch (rbt_rand(&rnd) % 4) {
			case 0:	/* a random byte */
				w[off] = (unsigned char)v;
				break;
			case 1:	/* a random word */
				memcpy(w + (off & ~(size_t)7), &v, 8);
				break;
			case 2:	/* a small number */
				v %= 70000;
				memcpy(w + (off & ~(size_t)7), &v, 8);
				break;
			default:	/* all ones */
				memset(w + (off & ~(size_t)7), 0xff, 8);
				break;
			}
		}
		exercise(m);
	}
	if (s->truncate_after) {
		/* the owner (or an attacker) shrinks the file under the mapping */
		RBT_EQ_I(ftruncate(fd, (off_t)(cpu_off + 64)), 0);
		exercise(m);
	}
	munmap(w, image_len);
	evt_ring_buffer_free(m);
	return 0;
}

int main(int argc, char **argv)
{
	struct evt_ring_buffer *rb;
	struct rb_shm_hdr h;
	struct stat st;
	uint64_t rnd = 12345;
	int cpus[CPU_SETSIZE], n = rbt_allowed_cpus(cpus, CPU_SETSIZE);
	bool with_truncate = !(argc > 1 && !strcmp(argv[1], "--no-truncate"));

	/* the source image: a real buffer with data on every CPU we can run on */
	rb = rbt_alloc(8 * 4096, 0);
	for (int k = 0; k < n && k < 8; k++) {
		RBT_EQ_I(rbt_pin(cpus[k]), 0);
		for (int i = 0; i < 300; i++)
			rbt_write_rec(rb, 16 + (size_t)(i * 37) % 250, (uint32_t)k, (uint64_t)i);
	}
	RBT_ASSERT(evt_ring_buffer_consume(rb, cpus[0], NULL, NULL));
	RBT_EQ_I(fstat(evt_ring_buffer_fd(rb), &st), 0);
	image_len = (size_t)st.st_size;
	image = malloc(image_len);
	RBT_ASSERT(image);
	RBT_EQ_I(pread(evt_ring_buffer_fd(rb), image, image_len, 0), (ssize_t)image_len);
	memcpy(&h, image, sizeof(h));
	cpu_off = h.cpu_off;
	image_cpus = (int)h.nr_cpus;
	RBT_EQ_I(image_cpus, evt_ring_buffer_nr_cpus(rb));

	/* the intact copy maps and reads */
	RBT_EQ_I(map_blob("intact copy", image, image_len, image_len), 0);

	/* empty, zeros, garbage, too short */
	expect_refused("empty", map_blob("empty", NULL, 0, 0), EBADMSG);
	expect_refused("zeros", map_blob("zeros", NULL, 4096, 0), EBADMSG);
	{
		unsigned char *g = malloc(65536);

		RBT_ASSERT(g);
		for (size_t i = 0; i < 65536; i++)
			g[i] = (unsigned char)rbt_rand(&rnd);
		expect_refused("garbage", map_blob("garbage", g, 65536, 65536), EBADMSG);
		free(g);
	}
	expect_refused("header only", map_blob("header only", image, sizeof(h), sizeof(h)), 0);
	expect_refused("8 bytes", map_blob("8 bytes", image, 8, 8), EBADMSG);
	/* truncated before mapping: refused, or mapped with nothing readable out of range */
	map_blob("truncated to the control region", image, cpu_off + 64, cpu_off + 64);
	map_blob("truncated to half", image, image_len / 2, image_len / 2);
	map_blob("truncated by one page", image, image_len - 4096, image_len - 4096);
	map_blob("zero pages", image, image_len, ALIGN_UP(cpu_off + (size_t)image_cpus *
							   sizeof(struct rb_cpu_shm), 4096));

	/* the header, field by field */
	hdr_case("magic", offsetof(struct rb_shm_hdr, magic), 4, 0x12345678, EBADMSG);
	hdr_case("version", offsetof(struct rb_shm_hdr, version), 2, RB_VERSION + 1, EPROTO);
	hdr_case("hdr_size", offsetof(struct rb_shm_hdr, hdr_size), 2, 7, 0);
	hdr_case("page_size 3000", offsetof(struct rb_shm_hdr, page_size), 4, 3000, 0);
	hdr_case("page_size 0", offsetof(struct rb_shm_hdr, page_size), 4, 0, 0);
	hdr_case("page_size 2^31", offsetof(struct rb_shm_hdr, page_size), 4, 1u << 31, 0);
	hdr_case("page_size 128", offsetof(struct rb_shm_hdr, page_size), 4, 128, 0);
	/* a legal but wrong page size: mapped or refused, never a crash */
	hdr_case("page_size 8192", offsetof(struct rb_shm_hdr, page_size), 4, 8192, -1);
	hdr_case("page_size 256", offsetof(struct rb_shm_hdr, page_size), 4, 256, -1);
	hdr_case("page_size 1M", offsetof(struct rb_shm_hdr, page_size), 4, 1u << 20, -1);
	hdr_case("nr_cpus 0", offsetof(struct rb_shm_hdr, nr_cpus), 4, 0, 0);
	hdr_case("nr_cpus huge", offsetof(struct rb_shm_hdr, nr_cpus), 4, 0x7fffffff, 0);
	hdr_case("nr_cpus +1000", offsetof(struct rb_shm_hdr, nr_cpus), 4,
		 (uint64_t)image_cpus + 1000, 0);
	hdr_case("nr_cpus 1", offsetof(struct rb_shm_hdr, nr_cpus), 4, 1, -1);
	hdr_case("flags", offsetof(struct rb_shm_hdr, flags), 4, 0xff00, 0);
	hdr_case("flags overwrite", offsetof(struct rb_shm_hdr, flags), 4, EVT_RB_FL_OVERWRITE, -1);
	hdr_case("clock", offsetof(struct rb_shm_hdr, clock), 4, 99, 0);
	hdr_case("cpu_off huge", offsetof(struct rb_shm_hdr, cpu_off), 8, UINT64_C(1) << 60, 0);
	hdr_case("cpu_off unaligned", offsetof(struct rb_shm_hdr, cpu_off), 8, cpu_off + 1, 0);
	hdr_case("cpu_off 0", offsetof(struct rb_shm_hdr, cpu_off), 8, 0, 0);
	/* cpu_off + nr_cpus * stride must not wrap around to a small size */
	hdr_case("cpu_off -192", offsetof(struct rb_shm_hdr, cpu_off), 8, (uint64_t)-192, 0);
	hdr_case("cpu_off -64", offsetof(struct rb_shm_hdr, cpu_off), 8, (uint64_t)-64, 0);
	hdr_case("cpu_off 2^63", offsetof(struct rb_shm_hdr, cpu_off), 8, UINT64_C(1) << 63, 0);
	hdr_case("cpu_off past end", offsetof(struct rb_shm_hdr, cpu_off), 8, image_len, 0);
	hdr_case("cpu_stride", offsetof(struct rb_shm_hdr, cpu_stride), 4, 8, 0);

	/* each CPU's control words */
	for (int c = 0; c < image_cpus && c < 4; c++) {
		size_t base = cpu_off + (size_t)c * sizeof(struct rb_cpu_shm);
		static const uint64_t vals[] = {
			0, 1, 3, 31, 64, 4095, 4096, 4097, UINT64_C(1) << 20, UINT64_C(1) << 40,
			UINT64_C(1) << 63, ~UINT64_C(0), ~UINT64_C(0) - 4096,
		};
		static const struct {
			const char *name;
			size_t off, len;
		} fields[] = {
			{ "w.lo", offsetof(struct rb_cpu_shm, w) + 0, 8 },
			{ "w.hi", offsetof(struct rb_cpu_shm, w) + 8, 8 },
			{ "dropped", offsetof(struct rb_cpu_shm, dropped), 8 },
			{ "overrun", offsetof(struct rb_cpu_shm, overrun), 8 },
			{ "read_pos", offsetof(struct rb_cpu_shm, read_pos), 8 },
			{ "read_events", offsetof(struct rb_cpu_shm, read_events), 8 },
			{ "layout_seq", offsetof(struct rb_cpu_shm, layout_seq), 4 },
			{ "order", offsetof(struct rb_cpu_shm, order), 4 },
			{ "data_off", offsetof(struct rb_cpu_shm, data_off), 8 },
		};

		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
				char name[96];

				snprintf(name, sizeof(name), "cpu %d %s = %#" PRIx64, c,
					 fields[f].name, vals[v]);
				hdr_case(name, base + fields[f].off, fields[f].len, vals[v], -1);
			}
		}
		/* positions: plausible sequence numbers with odd offsets */
		for (int k = 0; k < 40; k++) {
			char name[96];
			uint64_t v = RB_POS(rbt_rand(&rnd) % 100, rbt_rand(&rnd) % 5000);
			size_t off = k & 1 ? offsetof(struct rb_cpu_shm, read_pos) :
					     offsetof(struct rb_cpu_shm, w) + 8;

			snprintf(name, sizeof(name), "cpu %d pos %#" PRIx64, c, v);
			hdr_case(name, base + off, 8, v, -1);
		}
	}

	/*
	 * Each page slot's commit count (the u64 after the page time stamp):
	 * too big, too small, garbage. Readers must skip such a page and
	 * move on - never loop back over pages they already returned.
	 */
	for (int c = 0; c < image_cpus && c < 2; c++) {
		const struct rb_cpu_shm *cs = (const void *)(image + cpu_off +
							     (size_t)c * sizeof(struct rb_cpu_shm));
		static const uint64_t vals[] = { 0, 1, 4079, 4081, 1u << 20, UINT64_C(1) << 40,
						 ~UINT64_C(0) };

		for (uint32_t slot = 0; slot < (1u << cs->order); slot++) {
			size_t off = cs->data_off + (size_t)slot * 4096 + 8;

			for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
				char name[96];

				snprintf(name, sizeof(name), "cpu %d slot %u commit = %#" PRIx64, c,
					 slot, vals[v]);
				hdr_case(name, off, 8, vals[v], -1);
				/* relative to the real count: one lap ahead, one byte more */
				snprintf(name, sizeof(name), "cpu %d slot %u commit + %s", c, slot,
					 v & 1 ? "4080" : "1");
				{
					uint64_t cur;

					memcpy(&cur, image + off, 8);
					hdr_case(name, off, 8, cur + (v & 1 ? 4080 : 1), -1);
				}
			}
		}
	}

	/* random scribbling, in a few hundred rounds per child */
	for (int k = 0; k < 6; k++) {
		struct scribble s = { .seed = 1000 + (uint64_t)k, .rounds = 300, .where = k % 3 };
		char name[64];

		snprintf(name, sizeof(name), "scribble %d (region %d)", k, k % 3);
		RBT_EQ_I(run_case(name, case_scribble, &s), 0);
	}
	/*
	 * The file shrinks under a mapped consumer: the library must refuse
	 * to map a memfd that is not sealed against shrinking (F_SEAL_SHRINK),
	 * or survive the SIGBUS. (--no-truncate leaves this case out.)
	 */
	if (with_truncate) {
		struct scribble s = { .seed = 7, .rounds = 1, .where = 2, .truncate_after = true };

		RBT_EQ_I(run_case("truncated after mapping", case_scribble, &s), 0);
	}

	/* the owner's buffer was never touched by any of this */
	{
		struct evt_ring_buffer_event *ev = evt_ring_buffer_consume(rb, cpus[0], NULL, NULL);

		RBT_ASSERT(ev);
		RBT_EQ_U(rbt_rec_check(ev, 0, 16 + 37), 1);
	}
	evt_ring_buffer_free(rb);
	free(image);
	printf("rb-map-corrupt: PASS (%d cases, %d mapped)\n", cases, mapped);
	return RBT_PASS;
}
