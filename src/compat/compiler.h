/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat/compiler.h - small compiler helpers shared by every layer.
 */
#ifndef EVT_COMPAT_COMPILER_H
#define EVT_COMPAT_COMPILER_H

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define EVT_CACHELINE	64
#define __cacheline_aligned __attribute__((aligned(EVT_CACHELINE)))

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))

#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))

/* A compiler-only barrier: keeps the compiler from moving memory accesses across. */
#define barrier()	__asm__ __volatile__("" ::: "memory")

#if defined(__SANITIZE_THREAD__)
#define EVT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EVT_TSAN 1
#endif
#endif

#endif /* EVT_COMPAT_COMPILER_H */
