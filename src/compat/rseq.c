// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat/rseq.c - deciding, once, whether rseq operations can be used.
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/rseq.h"

int rseq_ops_usable;
static pthread_once_t rseq_once = PTHREAD_ONCE_INIT;

static void rseq_probe(void)
{
#if EVT_HAVE_RSEQ_OPS
	const char *env = secure_getenv("EVTRACE_RSEQ");

	if (env && !strcmp(env, "0"))
		return;
	/* glibc registered an rseq area for every thread */
	if (!&__rseq_size || __rseq_size < 20 || !&__rseq_offset)
		return;
	if ((int32_t)evt_rseq_area()->cpu_id < 0)
		return;
	/* control operations need to restart other threads' sequences */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0) < 0)
		return;
	rseq_ops_usable = 1;
#endif
}

/**
 * rseq_ops_init() - decide whether this process uses rseq operations.
 *
 * Set EVTRACE_RSEQ=0 in the environment to force the CAS fallback.
 *
 * Return: 1 if usable, 0 if not.
 */
int rseq_ops_init(void)
{
	pthread_once(&rseq_once, rseq_probe);
	return rseq_ops_usable;
}

/**
 * rseq_ops_fence() - restart every rseq critical section of this process.
 *
 * After it returns, no sequence that started before it is still running:
 * each has committed or will restart and re-read what it compares.
 *
 * Context: any thread; async-signal-safe (one system call).
 * Return: 0, or a negative errno.
 */
int rseq_ops_fence(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0, 0) < 0)
		return -1;
	return 0;
}
