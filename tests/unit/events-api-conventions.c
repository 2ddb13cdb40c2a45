// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-api-conventions - the public API's conventions (CONTRIBUTING.md, "API conventions"):
 *   - predicates return bool (checked at compile time);
 *   - a failure's detail comes from evt_error_detail(), per thread: set by the function that
 *     failed (trace.dat open and read, filters, tracefs writes that log to error_log),
 *     forgotten by the next call of such a function, never seen by another thread;
 *   - evt_instance_get() holds an instance: its destroy is -EBUSY until evt_instance_put().
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"

#include <evtrace/evtrace.h>

#include "helpers.h"

#define IS_BOOL(expr) __builtin_types_compatible_p(__typeof__(expr), bool)
_Static_assert(IS_BOOL(evt_clock_is_ns(EVT_CLOCK_LOCAL)), "evt_clock_is_ns() returns bool");
_Static_assert(IS_BOOL(evt_trace_running(NULL)), "evt_trace_running() returns bool");
_Static_assert(IS_BOOL(evt_relay_buf_full(NULL)), "evt_relay_buf_full() returns bool");
_Static_assert(IS_BOOL(evt_instance_tracing_is_on(NULL)), "tracing_is_on returns bool");
_Static_assert(IS_BOOL(evt_ring_buffer_empty(NULL)), "evt_ring_buffer_empty() returns bool");

static void *other_thread(void *arg)
{
	(void)arg;
	/* the main thread's detail is its own */
	T_ASSERT(!strcmp(evt_error_detail(), ""));
	T_ASSERT_EQ(evt_tracedat_open_mem("not a trace.dat file", 20, &(struct evt_tracedat *){ 0 }),
		    -EBADMSG);
	T_ASSERT(!strncmp(evt_error_detail(), "offset 0:", 9));
	return NULL;
}

static void check_tracedat(void)
{
	struct evt_tracedat *td;
	pthread_t th;

	T_ASSERT(evt_error_detail() != NULL && !strcmp(evt_error_detail(), ""));
	T_ASSERT_EQ(evt_tracedat_open("/nonexistent/evtrace-api-conventions.dat", &td), -ENOENT);
	printf("detail: %s\n", evt_error_detail());
	T_ASSERT(strstr(evt_error_detail(), "/nonexistent/evtrace-api-conventions.dat"));
	T_ASSERT(strstr(evt_error_detail(), "No such file"));

	/* another thread's failure leaves this thread's detail alone */
	T_ASSERT_OK(pthread_create(&th, NULL, other_thread, NULL));
	T_ASSERT_OK(pthread_join(th, NULL));
	T_ASSERT(strstr(evt_error_detail(), "/nonexistent/evtrace-api-conventions.dat"));

	/* a failure with nothing to add forgets the old detail */
	T_ASSERT_EQ(evt_tracedat_open(NULL, &td), -EINVAL);
	T_ASSERT(!strcmp(evt_error_detail(), ""));
	T_ASSERT_EQ(evt_tracedat_open_mem("\x17\x08\x44tracing", 10, &td), -EBADMSG);
	printf("detail: %s\n", evt_error_detail());
	T_ASSERT(!strncmp(evt_error_detail(), "offset ", 7));
}

static void check_filters(void)
{
	struct evt_instance *top = evt_instance_top();
	ssize_t n;

	T_ASSERT(top);
	T_ASSERT(evt_instance_event_filter(top, "evtest", "evtest_seq", "nosuchfield == 1") < 0);
	printf("detail: %s\n", evt_error_detail());
	T_ASSERT(strstr(evt_error_detail(), "(at "));
	/* success forgets it */
	T_ASSERT_EQ(evt_instance_event_filter(top, "evtest", "evtest_seq", "seq > 1"), 1);
	T_ASSERT(!strcmp(evt_error_detail(), ""));
	T_ASSERT_EQ(evt_instance_event_filter(top, "evtest", "evtest_seq", "0"), 1);

	/* a tracefs write that logs to error_log leaves the same words */
	n = evt_tracefs_write(top, "events/evtest/evtest_seq/filter", "seq >>> 1", 9, 0);
	T_ASSERT(n < 0);
	printf("detail: %s\n", evt_error_detail());
	T_ASSERT(strstr(evt_error_detail(), "error:"));
	T_ASSERT(strstr(evt_error_detail(), "seq >>> 1"));
	n = evt_tracefs_write(top, "events/evtest/evtest_seq/filter", "0", 1, 0);
	T_ASSERT_EQ(n, 1);
	T_ASSERT(!strcmp(evt_error_detail(), ""));
}

static void check_instance_ref(void)
{
	struct evt_instance *inst, *got;

	T_ASSERT_EQ(evt_instance_get("api-conv-none", &got), -ENOENT);
	T_ASSERT(got == NULL);
	T_ASSERT_EQ(evt_instance_get("x", NULL), -EINVAL);
	T_ASSERT_OK(evt_instance_create("api-conv", &inst));
	T_ASSERT_OK(evt_instance_get("api-conv", &got));
	T_ASSERT(got == inst);
	T_ASSERT_EQ(evt_instance_destroy(inst), -EBUSY);
	T_ASSERT(evt_instance_lookup("api-conv") == inst);
	evt_instance_put(got);
	T_ASSERT_OK(evt_instance_destroy(inst));
	T_ASSERT(evt_instance_lookup("api-conv") == NULL);
	evt_instance_put(NULL);
}

int main(void)
{
	check_tracedat();
	check_filters();
	check_instance_ref();
	printf("PASS\n");
	return 0;
}
