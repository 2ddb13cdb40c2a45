// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/error.c - text for evtrace return values.
 */
#include <string.h>

#include <evtrace/error.h>

const char *evt_strerror(int err)
{
	const char *s;

	if (err == 0)
		return "Success";
	if (err < 0 && err > -4096) {
		/* glibc's table of descriptions: static strings, thread-safe */
		s = strerrordesc_np(-err);
		if (s)
			return s;
	}
	return "Unknown error";
}
