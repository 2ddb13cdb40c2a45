// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * strerror: evt_strerror() has text for every value a function returns.
 */
#include <errno.h>
#include <string.h>

#include <evtrace/error.h>

#include "helpers.h"

int main(void)
{
	T_ASSERT(!strcmp(evt_strerror(0), "Success"));
	T_ASSERT(!strcmp(evt_strerror(-EINVAL), "Invalid argument"));
	T_ASSERT(!strcmp(evt_strerror(-EBUSY), "Device or resource busy"));
	T_ASSERT(!strcmp(evt_strerror(-ENOBUFS), "No buffer space available"));
	T_ASSERT(!strcmp(evt_strerror(1), "Unknown error"));
	T_ASSERT(!strcmp(evt_strerror(-5000), "Unknown error"));
	T_ASSERT(!strcmp(evt_strerror(EVT_ERRNO__START), "Unknown error"));
	printf("strerror: PASS\n");
	return T_PASS;
}
