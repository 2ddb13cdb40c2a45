// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the trace.dat reader (evt_tracedat_open_mem, _next, _print)
 * over untrusted bytes.
 *
 * The input is copied into a heap block of exactly its size (reads past
 * it are caught by AddressSanitizer), opened, and every record read and
 * printed. Checks: an open that fails leaves a message naming the offset;
 * every record lies inside the input; a read ends (0) or fails (-EBADMSG)
 * with a message naming the offset, and stays ended. The same bytes read
 * from a pipe (evt_tracedat_open() of a non-regular file: the stream path)
 * open or fail alike, with a message that is not empty.
 *
 * Under a cap on allocation: RLIMIT_AS at 256 MB above what the process
 * had when it started (the corpus replay of the default build), or, under
 * libFuzzer with AddressSanitizer (which reserves terabytes of address
 * space), -malloc_limit_mb=64 (a single allocation above it is a crash).
 * The inputs are a few KB: a size the file claims and does not hold must
 * be refused, not allocated.
 *
 * Seeds (tests/fuzz/corpus/tracedat-read/): a file evtrace wrote
 * (tracedat-readback's recording: 4 threads, 2 systems, a marker), a
 * kernel-made file (sched_switch/sched_wakeup from `trace-cmd extract`,
 * converted to v6 and cut to 2 pages per CPU, formats of those two events
 * only, no kallsyms), the same with its pages in an instance buffer (a
 * BUFFER option, as `trace-cmd extract -B` writes), and truncated copies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

static void check(int cond)
{
	if (!cond)
		abort();
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FZ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FZ_SANITIZED 1
#endif
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libFuzzer reads its flags after this: one more, a cap on each allocation. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char *nargv[256];
	static char cap[] = "-malloc_limit_mb=64";
	int n = *argc < 254 ? *argc : 254;

	for (int i = 0; i < n; i++)
		nargv[i] = (*argv)[i];
	nargv[n++] = cap;
	nargv[n] = NULL;
	*argc = n;
	*argv = nargv;
	return 0;
}

/* Without a sanitizer: RLIMIT_AS, 256 MB above the address space in use now. */
static void cap_memory(void)
{
#ifndef FZ_SANITIZED
	static int done;
	unsigned long kb = 0;
	char line[256];
	FILE *f;

	if (done++)
		return;
	f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	if (kb) {
		struct rlimit rl = { (kb + 256 * 1024) * 1024, (kb + 256 * 1024) * 1024 };

		setrlimit(RLIMIT_AS, &rl);
	}
#endif
}

/* The same bytes through a pipe: the reader's stream path. */
static void check_stream(const uint8_t *data, size_t size, int mem_ret)
{
	struct evt_tracedat *td;
	char path[64];
	int p[2], ret;

	if (size > 60000 || pipe(p) < 0)
		return;
	if (size && write(p[1], data, size) != (ssize_t)size) {
		close(p[0]);
		close(p[1]);
		return;
	}
	close(p[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	ret = evt_tracedat_open(path, &td);
	close(p[0]);
	if (ret == 0) {
		evt_tracedat_close(td);
	} else {
		check(evt_error_detail()[0] != '\0');
		check(ret == -ENOMEM || mem_ret == -ENOMEM || ret == mem_ret);
	}
	check((ret == 0) == (mem_ret == 0) || ret == -ENOMEM || mem_ret == -ENOMEM);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	char err[200], line[4096];
	struct evt_seq s;
	int ret, n = 0;

	cap_memory();
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	ret = evt_tracedat_open_mem(buf, size, &td);
	snprintf(err, sizeof(err), "%s", evt_error_detail()); /* check_stream() opens again */
	check_stream(data, size, ret);
	if (ret) {
		check(ret == -EBADMSG || ret == -EPROTO || ret == -ENOMEM);
		check(ret == -ENOMEM || !strncmp(err, "offset ", 7));
		free(buf);
		return 0;
	}
	for (int i = 0; i < evt_tracedat_nr_events(td); i++)
		check(evt_tracedat_event(td, i) != NULL);
	while ((ret = evt_tracedat_next(td, &rec)) == 1 && n++ < 100000) {
		/* the record lies in the file (its bytes come from an aligned copy of its page) */
		check(rec.offset >= 0 && (size_t)rec.offset + rec.size <= size);
		check(rec.cpu >= 0 && rec.cpu < evt_tracedat_nr_cpus(td));
		evt_seq_init(&s, line, sizeof(line));
		evt_tracedat_print(td, &rec, &s);
	}
	if (ret < 0) {
		check(ret == -EBADMSG);
		check(!strncmp(evt_error_detail(), "offset ", 7));
		check(evt_tracedat_next(td, &rec) == -EBADMSG);
	}
	evt_tracedat_close(td);
	free(buf);
	return 0;
}
