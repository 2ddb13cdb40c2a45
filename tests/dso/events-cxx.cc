// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/dso/events-cxx.cc - call sites in C++ (compile/events-cxx): an event
 * header included without CREATE_TRACE_POINTS declares C-linkage symbols and
 * inline trace_<name>() functions a C++ file can call.
 */
#include <cstdint>

#include "events-test-tp.h"
#include "events-class-tp.h"

void cxx_fire(int n);

void cxx_fire(int n)
{
	trace_evtest_seq(1u, static_cast<uint64_t>(n), 0u);
	if (trace_evclass_read_enabled())
		trace_evclass_read(n, 1ul, "cxx");
}
