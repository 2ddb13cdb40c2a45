// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dlopen-tls: libevtrace.so can be dlopen()ed by a program that does not
 * link it, after other modules took thread-local storage (three with 64 KiB
 * of dynamic TLS, one with initial-exec TLS from glibc's static surplus), and
 * works there: a ring buffer written and read back, from the main thread and
 * from a thread started after the load.
 *
 * usage: dlopen-tls [LIBEVTRACE.so MODULE.so...]; without arguments, the
 * build tree's, found from the program's own path (tests/unit/ of the tree).
 *
 * Before the fix the library held 18 KiB of static TLS (a 16 KiB trigger
 * scratch and a 1.5 KiB hist key pad) and dlopen() failed with "cannot
 * allocate memory in static TLS block". It does not link libevtrace and
 * includes only its public header (for the prototypes it looks up).
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/ring_buffer.h>

struct api {
	int (*alloc)(unsigned long, unsigned int, struct evt_ring_buffer **);
	int (*write)(struct evt_ring_buffer *, unsigned long, const void *);
	struct evt_ring_buffer_event *(*consume)(struct evt_ring_buffer *, int, uint64_t *,
						 unsigned long *);
	void *(*data)(struct evt_ring_buffer_event *);
	int (*nr_cpus)(const struct evt_ring_buffer *);
	void (*free)(struct evt_ring_buffer *);
};

static struct api api;
static struct evt_ring_buffer *rb;

static void *writer(void *arg)
{
	unsigned int v = 2;

	(void)arg;
	return (void *)(long)api.write(rb, sizeof(v), &v);
}

static int lookup(void *lib)
{
	void **slots[] = { (void **)&api.alloc, (void **)&api.write, (void **)&api.consume,
			   (void **)&api.data, (void **)&api.nr_cpus, (void **)&api.free };
	const char *names[] = { "evt_ring_buffer_alloc", "evt_ring_buffer_write",
				"evt_ring_buffer_consume", "evt_ring_buffer_event_data",
				"evt_ring_buffer_nr_cpus", "evt_ring_buffer_free" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		*slots[i] = dlsym(lib, names[i]);
		if (!*slots[i]) {
			fprintf(stderr, "FAIL: dlsym(%s): %s\n", names[i], dlerror());
			return -1;
		}
	}
	return 0;
}

/* The build tree's library and modules, from /proc/self/exe (BUILD/tests/unit/dlopen-tls). */
static char **default_args(int *argc)
{
	static const char *const rel[] = { "../../libevtrace.so", "../dso/tls-heavy-gd1.so",
					   "../dso/tls-heavy-gd2.so", "../dso/tls-heavy-gd3.so",
					   "../dso/tls-heavy-ie.so" };
	static char paths[5][PATH_MAX + 32], *argv[7] = { "dlopen-tls" };
	char self[PATH_MAX], *dir;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = 0;
	dir = dirname(self);
	for (int i = 0; i < 5; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, rel[i]);
		argv[i + 1] = paths[i];
	}
	*argc = 6;
	return argv;
}

int main(int argc, char **argv)
{
	unsigned int v = 1, sum = 0, n = 0;
	struct evt_ring_buffer_event *ev;
	pthread_t th;
	void *lib, *ret;

	if (argc < 2)
		argv = default_args(&argc);
	if (!argv) {
		fprintf(stderr, "FAIL: cannot find the build tree from /proc/self/exe\n");
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		void *m = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		unsigned long (*touch)(unsigned char);

		if (!m) {
			/* the host's surplus is smaller than our module's: not our failure */
			printf("SKIP: %s\n", dlerror());
			return 77;
		}
		touch = (unsigned long (*)(unsigned char))dlsym(m, "tls_heavy_touch");
		if (touch)
			touch(1);
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "FAIL: dlopen(%s): %s\n", argv[1], dlerror());
		return 1;
	}
	if (lookup(lib) < 0)
		return 1;
	if (api.alloc(64 * 1024, 0, &rb) < 0 || api.write(rb, sizeof(v), &v) < 0) {
		fprintf(stderr, "FAIL: a ring buffer in the dlopen()ed library\n");
		return 1;
	}
	if (pthread_create(&th, NULL, writer, NULL) || pthread_join(th, &ret) || ret) {
		fprintf(stderr, "FAIL: a write from a thread started after the load\n");
		return 1;
	}
	for (int cpu = 0; cpu < api.nr_cpus(rb); cpu++)
		while ((ev = api.consume(rb, cpu, NULL, NULL))) {
			memcpy(&v, api.data(ev), sizeof(v));
			sum += v;
			n++;
		}
	api.free(rb);
	if (n != 2 || sum != 3) {
		fprintf(stderr, "FAIL: read back %u events (sum %u), wrote 2 (sum 3)\n", n, sum);
		return 1;
	}
	printf("dlopen-tls: %s loaded after %d TLS modules, 2 events written and read\n", argv[1],
	       argc - 2);
	return 0;
}
