// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The functions of tests/unit/probe-unwind.c that throw, catch, rethrow and end their
 * thread (C++: built into unit-probe-unwind by cmake/EvtTests.cmake). extern "C" names, so
 * that the probes name them as they are.
 */
#include <pthread.h>
#include <stdexcept>
#include <unistd.h>

extern "C" {
int uw_leaf(int x);
int uw_middle(int x);
int uw_catcher(int x);
int uw_top(int x);
int uw_rethrow(int x);
int uw_top2(int x);
int uw_exit_through(int x);
int uw_cancel_through(int fd);
extern volatile int uw_guards;
}

volatile int uw_guards; /* destructors run by the unwinds */

namespace {
struct guard {
	~guard() { uw_guards = uw_guards + 1; }
};
} // namespace

/* throws below 0 */
extern "C" __attribute__((noinline)) int uw_leaf(int x)
{
	int r = x * 2;

	asm volatile("" : "+r"(r));
	if (x < 0)
		throw std::runtime_error("negative");
	return r;
}

/* a cleanup (the guard's destructor) on the way: _Unwind_Resume */
extern "C" __attribute__((noinline)) int uw_middle(int x)
{
	guard g;
	int r = uw_leaf(x) + 1;

	asm volatile("" : "+r"(r));
	return r;
}

extern "C" __attribute__((noinline)) int uw_catcher(int x)
{
	try {
		return uw_middle(x);
	} catch (const std::exception &) {
		return -1;
	}
}

/* above the catch: its return must still be recorded */
extern "C" __attribute__((noinline)) int uw_top(int x)
{
	int r = uw_catcher(x) + 100;

	asm volatile("" : "+r"(r));
	return r;
}

/* catches everything and throws it again: _Unwind_Resume_or_Rethrow */
extern "C" __attribute__((noinline)) int uw_rethrow(int x)
{
	try {
		return uw_middle(x);
	} catch (...) {
		uw_guards = uw_guards + 10;
		throw;
	}
}

extern "C" __attribute__((noinline)) int uw_top2(int x)
{
	try {
		return uw_rethrow(x);
	} catch (const std::runtime_error &) {
		return -2;
	}
}

/* pthread_exit() below 0: _Unwind_ForcedUnwind through this frame */
extern "C" __attribute__((noinline)) int uw_exit_through(int x)
{
	guard g;
	int r = x + 1;

	asm volatile("" : "+r"(r));
	if (x < 0)
		pthread_exit(reinterpret_cast<void *>(static_cast<long>(x)));
	return r;
}

/* blocks in read(), a cancellation point: pthread_cancel() unwinds through this frame */
extern "C" __attribute__((noinline)) int uw_cancel_through(int fd)
{
	guard g;
	char c;
	ssize_t n = read(fd, &c, 1);

	asm volatile("" : "+r"(n));
	return static_cast<int>(n);
}
