// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/detail.c - the calling thread's error detail (detail.h, evt_error_detail(3)).
 *
 * One buffer per thread that ever had a detail, found through a pthread key
 * and freed by the key's destructor at thread exit. Not __thread: the
 * library's whole TLS is capped (compile/tls-budget) so that dlopen() works.
 * A thread whose buffer cannot be allocated has no detail ("").
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <evtrace/error.h>

#include "core/detail.h"

#define DETAIL_MAX	512

struct detail {
	bool set;		/* a text since the last detail_clear() */
	char text[DETAIL_MAX];
};

static pthread_once_t detail_once = PTHREAD_ONCE_INIT;
static pthread_key_t detail_key;
static bool detail_key_ok;	/* written once under detail_once, read after it */

static void detail_destroy(void *p)
{
	free(p);
}

static void detail_key_create(void)
{
	detail_key_ok = pthread_key_create(&detail_key, detail_destroy) == 0;
}

/* The thread's buffer; allocated when @alloc, else NULL if it has none. */
static struct detail *detail_buf(bool alloc)
{
	struct detail *d;

	pthread_once(&detail_once, detail_key_create);
	if (!detail_key_ok)
		return NULL;
	d = pthread_getspecific(detail_key);
	if (d || !alloc)
		return d;
	d = calloc(1, sizeof(*d));
	if (d && pthread_setspecific(detail_key, d)) {
		free(d);
		d = NULL;
	}
	return d;
}

void detail_clear(void)
{
	struct detail *d = detail_buf(false);

	if (d) {
		d->set = false;
		d->text[0] = '\0';
	}
}

void detail_set(const char *fmt, ...)
{
	struct detail *d = detail_buf(true);
	va_list ap;

	if (!d || d->set)
		return;
	va_start(ap, fmt);
	vsnprintf(d->text, sizeof(d->text), fmt, ap);
	va_end(ap);
	d->set = true;
}

const char *detail_get(void)
{
	struct detail *d = detail_buf(false);

	return d ? d->text : "";
}

const char *evt_error_detail(void)
{
	return detail_get();
}
