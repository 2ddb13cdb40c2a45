// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gtsc-fork-shim.so: an LD_PRELOAD probe on fork() and pthread_create()
 * for any dynamically linked program, after the seed's kprobes_gtsc
 * example (shared/seeds/gtsc.txt).
 *
 *   GTSC_SHIM_DIR=/some/dir LD_PRELOAD=.../libgtsc-fork-shim.so program ...
 *
 * makes /some/dir/gtsc_example/do_fork/trace0 (GTSC, one global buffer of
 * 8 x 1024 bytes) and writes "[timestamp] pid" for every fork() and
 * "[timestamp] pid thread" for every pthread_create() the program makes.
 * Only the process that loaded the shim traces (its children inherit the
 * shim's memory, not its trace). At exit the trace is stopped and cleaned
 * up: a consumer that opened trace0 before keeps the buffer and reads it
 * to the end (examples/gtsc-preload.c does).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/evtrace.h>

static struct evt_trace_info *shim_trace;
static pid_t shim_pid;

static void shim_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void shim_printf(const char *format, ...)
{
	char buf[256], *record;
	va_list args;
	int len, n;

	if (!shim_trace || getpid() != shim_pid || !evt_trace_running(shim_trace))
		return;
	len = snprintf(buf, sizeof(buf), "[%llu] ", (unsigned long long)evt_trace_timestamp());
	va_start(args, format);
	n = vsnprintf(buf + len, sizeof(buf) - (size_t)len, format, args);
	va_end(args);
	if (n < 0)
		return;
	len += n;
	if (len > (int)sizeof(buf) - 1)
		len = (int)sizeof(buf) - 1;
	record = evt_relay_reserve(shim_trace->rchan, (size_t)len);
	if (record)
		memcpy(record, buf, (size_t)len);
}

pid_t fork(void)
{
	static pid_t (*real_fork)(void);

	if (!real_fork)
		real_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
	shim_printf("%d\n", (int)getpid());
	return real_fork();
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int ret;

	if (!real_create)
		real_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				       void *))dlsym(RTLD_NEXT, "pthread_create");
	ret = real_create(th, attr, fn, arg);
	if (ret == 0)
		shim_printf("%d thread\n", (int)getpid());
	return ret;
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *dir = getenv("GTSC_SHIM_DIR");
	char root[4096];

	if (!dir || dir[0] != '/')
		return;
	snprintf(root, sizeof(root), "%s/gtsc_example", dir);
	if (evt_trace_setup(root, "do_fork", 1024, 8, EVT_TRACE_GLOBAL_CHANNEL, &shim_trace) < 0) {
		shim_trace = NULL;
		return;
	}
	shim_pid = getpid();
	evt_trace_start(shim_trace);
}

__attribute__((destructor)) static void shim_fini(void)
{
	if (!shim_trace || getpid() != shim_pid)
		return;
	evt_trace_stop(shim_trace);
	evt_trace_cleanup(shim_trace);
	shim_trace = NULL;
}
