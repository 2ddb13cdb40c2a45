// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/dso/tls-heavy.c - a module with a big thread-local block, loaded by
 * unit/dlopen-tls before libevtrace.so (a Python extension, a JNI library, a
 * plugin of the program: whatever was there first). Built twice:
 *
 *   tls-heavy-gd.so   TLS_BYTES of dynamic TLS (the default model of a
 *                     module): glibc allocates it per thread on first use
 *   tls-heavy-ie.so   TLS_BYTES of initial-exec TLS: it takes its bytes from
 *                     the static TLS surplus glibc keeps for modules loaded
 *                     later, the very reserve libevtrace.so must not exhaust
 */
#include <stddef.h>

#ifdef TLS_IE
#define TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define TLS_MODEL
#endif

static __thread unsigned char heavy[TLS_BYTES] TLS_MODEL;

/* Touch the block from the calling thread; return the sum of what it holds. */
unsigned long tls_heavy_touch(unsigned char v);
unsigned long tls_heavy_touch(unsigned char v)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < sizeof(heavy); i += 64) {
		heavy[i] = v;
		sum += heavy[i];
	}
	return sum;
}
