// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/dso/events-dso.c - a module with its own events, for unit/events-dso.
 * Its constructors register evdso:* when it is dlopen()ed; its destructors
 * unregister them at dlclose().
 */
#define CREATE_TRACE_POINTS
#include "events-dso-tp.h"

void evdso_fire(int n);

void evdso_fire(int n)
{
	trace_evdso_hello(n, "dso");
	trace_evdso_bye(n);
}
