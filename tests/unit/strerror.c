// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * strerror: evt_strerror() has text for every value a function returns
 * (the C library's wording), "Unknown error" for anything else, never
 * NULL, the same static string every time, from any thread.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include <evtrace/error.h>

#include "helpers.h"

static const struct {
	int err;
	const char *text;
} known[] = {
	{ 0, "Success" },
	{ -EINVAL, "Invalid argument" },
	{ -EBUSY, "Device or resource busy" },
	{ -ENOBUFS, "No buffer space available" },
	{ -ENOMEM, "Cannot allocate memory" },
	{ -EAGAIN, "Resource temporarily unavailable" },
	{ -EDEADLK, "Resource deadlock avoided" },
	{ -EMFILE, "Too many open files" },
	{ -ENOSPC, "No space left on device" },
	{ -EOVERFLOW, "Value too large for defined data type" },
	{ -ERANGE, "Numerical result out of range" },
	{ -ENOTSUP, "Operation not supported" },
	{ 1, "Unknown error" },
	{ EINVAL, "Unknown error" },
	{ INT_MAX, "Unknown error" },
	{ -4095, "Unknown error" },
	{ -4096, "Unknown error" },
	{ -5000, "Unknown error" },
	{ EVT_ERRNO__START, "Unknown error" },
	{ EVT_ERRNO__START - 1, "Unknown error" },
	{ INT_MIN, "Unknown error" },
	{ INT_MIN + 1, "Unknown error" },
};

static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100000; i++) {
		const char *a = evt_strerror(-(i % 200));
		const char *b = evt_strerror(-(i % 200));

		if (!a || a != b)
			return (void *)1;
	}
	return NULL;
}

int main(void)
{
	pthread_t th[4];
	void *ret;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const char *s = evt_strerror(known[i].err);

		if (!s || strcmp(s, known[i].text))
			t_fail("evt_strerror(%d) = \"%s\", want \"%s\"", known[i].err,
			       s ? s : "(null)", known[i].text);
	}
	/* every errno value has some non-empty text, the same pointer each time */
	for (int e = -4200; e <= 200; e++) {
		const char *s = evt_strerror(e);

		T_ASSERT(s && *s);
		T_ASSERT(s == evt_strerror(e));
	}
	for (int i = 0; i < 4; i++)
		T_ASSERT_EQ(pthread_create(&th[i], NULL, hammer, NULL), 0);
	for (int i = 0; i < 4; i++) {
		T_ASSERT_EQ(pthread_join(th[i], &ret), 0);
		T_ASSERT(ret == NULL);
	}
	printf("strerror: PASS\n");
	return T_PASS;
}
