// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the tracing tree takes any write (tracefs-fuzz.h has the
 * input's format), on the fake backend of tests/lib/tracefs-fake.h: five
 * events, real ring buffers and filters, no event layer.
 */
#include "tracefs-fake.h"
#include "fuzz/tracefs-fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fire(int value)
{
	for (int e = 0; e < FAKE_NR_EVENTS; e++)
		fake_fire(fake_top(), e, 1, value, "fuzz");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool installed;

	if (!installed) {
		fake_buf_size = 8 << 10;
		fake_install();
		installed = true;
	}
	fuzz_commands(data, size);
	return 0;
}
