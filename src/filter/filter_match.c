// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter/filter_match.c - running a compiled filter on a record.
 *
 * The kernel's predicate functions (kernel/trace/trace_events_filter.c),
 * reproduced operator by operator, with one difference: the kernel trusts
 * the record, we do not. Fixed fields are checked once per record against
 * the program's min_len; a __data_loc/__rel_loc whose data lies outside the
 * record makes its predicate false (docs/filters.md). Strings are matched
 * with explicit bounds, never with the C library's unbounded functions.
 *
 * Context: any thread, any number at once on the same program (it is never
 * written after filter_compile()); async-signal-safe unless the program uses
 * COMM without a context (prctl) or a char * field (process_vm_readv), both
 * of which are system calls that are safe in signal handlers anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "compat/compiler.h"
#include "compat/cpu.h"
#include "filter/filter_internal.h"

/*
 * glob_match() of the kernel's lib/glob.c over a string that ends at its
 * first NUL or at @n bytes, whichever comes first. The pattern is ours and
 * NUL-terminated.
 */
static bool glob_match_n(const char *pat, const char *str, size_t n)
{
	const char *back_pat = NULL;
	size_t back_i = 0, i = 0;

	for (;;) {
		unsigned char c = i < n ? (unsigned char)str[i] : 0;
		unsigned char d = (unsigned char)*pat++;

		i++;
		switch (d) {
		case '?':	/* anything but the end */
			if (c == '\0')
				return false;
			break;
		case '*':
			if (*pat == '\0')	/* a trailing * matches the rest */
				return true;
			back_pat = pat;
			back_i = --i;		/* a zero-length match first */
			break;
		case '[': {
			bool match = false, inverted = (*pat == '!');
			const char *class = pat + inverted;
			unsigned char a = (unsigned char)*class++;

			if (c == '\0')		/* nothing left to match a class */
				return false;

			/* Spans: a or a-b; the first span may start with ']'. */
			do {
				unsigned char b = a;

				if (a == '\0')		/* malformed: '[' is a literal */
					goto literal;
				if (class[0] == '-' && class[1] != ']') {
					b = (unsigned char)class[1];
					if (b == '\0')
						goto literal;
					class += 2;
				}
				match |= (a <= c && c <= b);
			} while ((a = (unsigned char)*class++) != ']');

			if (match == inverted)
				goto backtrack;
			pat = class;
			break;
		}
		case '\\':
			d = (unsigned char)*pat++;
			/* fall through */
		default:
literal:
			if (c == d) {
				if (d == '\0')
					return true;
				break;
			}
backtrack:
			if (c == '\0' || !back_pat)
				return false;
			/* Again from the last *, one character further in the string. */
			pat = back_pat;
			i = ++back_i;
			break;
		}
	}
}

bool filter_glob_match(const char *pat, const char *str)
{
	return glob_match_n(pat, str, SIZE_MAX);
}

/* strncmp(str, pat, n) == 0 where @str has @avail readable bytes (past them: a NUL). */
static bool str_eq_n(const char *str, size_t avail, const char *pat, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = i < avail ? str[i] : 0;

		if (c != pat[i])
			return false;
		if (!c)
			return true;
	}
	return true;
}

/* The kernel's strnstr(): @pat (plen bytes) anywhere in the first @len bytes, NULs included. */
static bool strnstr_n(const char *str, size_t len, const char *pat, size_t plen)
{
	if (!plen)
		return true;
	for (; len >= plen; len--, str++)
		if (!memcmp(str, pat, plen))
			return true;
	return false;
}

/*
 * The kernel's regex_match_*(str, r, len): @len is its length argument (0 for
 * "a NUL-terminated string"), @avail how many bytes of @str may be read.
 */
static bool regex_match(const struct filter_pred *p, const char *str, size_t len, size_t avail)
{
	if (len > avail)
		len = avail;
	switch (p->match) {
	case FMT_FULL:
		if (!len)
			return str_eq_n(str, avail, p->pattern, p->plen + 1);
		return str_eq_n(str, avail, p->pattern, len);
	case FMT_FRONT:
		if (len && len < p->plen)
			return false;
		return str_eq_n(str, avail, p->pattern, p->plen);
	case FMT_MIDDLE:
		if (!len)
			len = strnlen(str, avail);
		return strnstr_n(str, len, p->pattern, p->plen);
	case FMT_END:
		/* The kernel takes len - 1 as the string's length, whatever it holds. */
		if (len == 0 || len - 1 < p->plen)
			return false;
		return !memcmp(str + len - 1 - p->plen, p->pattern, p->plen);
	case FMT_GLOB:
	default:
		return glob_match_n(p->pattern, str, avail);
	}
}

/*
 * The fallback of copy_string_safe() where process_vm_readv() is refused (a
 * seccomp policy, an emulator): write(2) of the string's bytes into a pipe of
 * our own copies what is mapped and stops with EFAULT (or a short count) at
 * the first unmapped byte, without a signal; the bytes are then read back.
 * Five system calls, all async-signal-safe, only on this path.
 */
static ssize_t copy_through_pipe(uintptr_t a, size_t first, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
		return -1;
	/*
	 * The pages one at a time: a fault in the second still leaves the first.
	 * The raw system call: the bytes past the string's NUL are read on
	 * purpose (as process_vm_readv() does), which a sanitizer's write()
	 * interceptor would call an overflow.
	 */
	n = syscall(SYS_write, fds[1], (const void *)a, first < len ? first : len);
	if (n == (ssize_t)first && first < len) {
		ssize_t m = syscall(SYS_write, fds[1], (const void *)(a + first), len - first);

		if (m > 0)
			n += m;
	}
	if (n > 0)
		got = read(fds[0], buf, (size_t)n);
	close(fds[0]);
	close(fds[1]);
	return got;
}

/*
 * Copy the string at @addr in this process's memory, at most FILTER_USTRING_MAX
 * bytes, without faulting: process_vm_readv() on ourselves returns what it
 * could read (a pipe where that call is refused). Return the length (the
 * string is NUL-terminated in @buf) or -1. errno is the traced program's: it
 * is kept as it was.
 */
static long copy_string_safe(uint64_t addr, char *buf)
{
	const size_t len = FILTER_USTRING_MAX - 1;
	const uintptr_t page = (uintptr_t)getpagesize();
	struct iovec local = { buf, len };
	struct iovec remote[2];
	uintptr_t a = (uintptr_t)addr;
	int saved_errno = errno;
	size_t first;
	ssize_t n;

	if (!a)
		return -1;
	/* One element per page: a fault in the second still gives us the first. */
	first = page - (a & (page - 1));
	if (first >= len) {
		remote[0] = (struct iovec){ (void *)a, len };
		n = process_vm_readv(getpid(), &local, 1, remote, 1, 0);
	} else {
		remote[0] = (struct iovec){ (void *)a, first };
		remote[1] = (struct iovec){ (void *)(a + first), len - first };
		n = process_vm_readv(getpid(), &local, 1, remote, 2, 0);
	}
	if (n < 0 && (errno == ENOSYS || errno == EPERM))
		n = copy_through_pipe(a, first, buf, len);
	errno = saved_errno;
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return (long)strnlen(buf, (size_t)n);
}

static int ctx_cpu(const struct filter_ctx *ctx)
{
	if (ctx && ctx->cpu >= 0)
		return ctx->cpu;
	return evt_cpu_current();
}

static bool mask_test(const struct filter_pred *p, uint64_t cpu)
{
	if (cpu >= p->nr_mask_bits)
		return false;
	return p->mask[cpu / 64] >> (cpu % 64) & 1;
}

/* do_filter_scalar_cpumask(): the mask has two CPUs or more, so == is never true. */
static bool scalar_in_mask(const struct filter_pred *p, uint64_t cpu)
{
	switch (p->op) {
	case FOP_EQ:
		return false;
	case FOP_NE:
		return true;
	case FOP_BAND:
		return mask_test(p, cpu);
	default:
		return false;
	}
}

#define CMP(type, addr)                                                                       \
	do {                                                                                  \
		type v_, c_ = (type)p->val;                                                   \
		memcpy(&v_, (addr), sizeof(v_));                                              \
		switch (p->op) {                                                              \
		case FOP_LT: return v_ < c_;                                                  \
		case FOP_LE: return v_ <= c_;                                                 \
		case FOP_GT: return v_ > c_;                                                  \
		case FOP_GE: return v_ >= c_;                                                 \
		case FOP_BAND: return !!(v_ & c_);                                            \
		default: return false;                                                        \
		}                                                                             \
	} while (0)

#define EQ(type, addr)                                                                        \
	do {                                                                                  \
		type v_;                                                                      \
		memcpy(&v_, (addr), sizeof(v_));                                              \
		return (v_ == (type)p->val) ^ p->not;                                         \
	} while (0)

#define MASK(type, addr)                                                                      \
	do {                                                                                  \
		type v_;                                                                      \
		memcpy(&v_, (addr), sizeof(v_));                                              \
		if ((unsigned int)v_ >= p->nr_mask_bits)                                      \
			return false;	/* not a CPU: false whatever the operator */          \
		return scalar_in_mask(p, (unsigned int)v_);                                   \
	} while (0)

static bool string_pred(const struct filter_pred *p, const char *rec, size_t len,
			const struct filter_ctx *ctx)
{
	char buf[FILTER_USTRING_MAX];
	uint32_t loc;

	switch (p->fn) {
	case FFN_COMM: {
		char comm[17] = "";

		if (ctx && ctx->comm)
			strncpy(comm, ctx->comm, 16);
		else
			prctl(PR_GET_NAME, comm, 0, 0, 0);
		return regex_match(p, comm, 16, 16) ^ p->not;
	}
	case FFN_STRING:
		/* The kernel's match may read past the array, within the record. */
		return regex_match(p, rec + p->offset, p->field_len, len - p->offset) ^ p->not;
	case FFN_STRLOC:
	case FFN_STRRELLOC: {
		size_t start, n;

		memcpy(&loc, rec + p->offset, 4);
		start = evt_data_loc_offset(loc);
		n = evt_data_loc_len(loc);
		if (p->fn == FFN_STRRELLOC)
			start += p->offset + 4u;
		if (start > len || n > len - start)
			return false;	/* data outside the record: no match, either way */
		return regex_match(p, rec + start, n, len - start) ^ p->not;
	}
	case FFN_PCHAR: {
		uint64_t addr = 0;
		long n;

		memcpy(&addr, rec + p->offset, sizeof(void *));
		n = copy_string_safe(addr, buf);
		if (n < 0)
			return false;	/* unreadable: no match, as the kernel's fault */
		return regex_match(p, buf, (size_t)n + 1, (size_t)n + 1) ^ p->not;
	}
	default:
		return false;
	}
}

static bool run_pred(const struct filter_pred *p, const char *rec, size_t len,
		     const struct filter_ctx *ctx)
{
	const char *a = rec + p->offset;

	switch (p->fn) {
	case FFN_EQ8: EQ(uint8_t, a);
	case FFN_EQ16: EQ(uint16_t, a);
	case FFN_EQ32: EQ(uint32_t, a);
	case FFN_EQ64: EQ(uint64_t, a);
	case FFN_S8: CMP(int8_t, a);
	case FFN_S16: CMP(int16_t, a);
	case FFN_S32: CMP(int32_t, a);
	case FFN_S64: CMP(int64_t, a);
	case FFN_U8: CMP(uint8_t, a);
	case FFN_U16: CMP(uint16_t, a);
	case FFN_U32: CMP(uint32_t, a);
	case FFN_U64: CMP(uint64_t, a);
	case FFN_MASK8: MASK(uint8_t, a);
	case FFN_MASK16: MASK(uint16_t, a);
	case FFN_MASK32: MASK(uint32_t, a);
	case FFN_MASK64: MASK(uint64_t, a);
	case FFN_CPU: {
		int cpu = ctx_cpu(ctx), cmp = (int)p->val;

		switch (p->op) {
		case FOP_EQ: return cpu == cmp;
		case FOP_NE: return cpu != cmp;
		case FOP_LT: return cpu < cmp;
		case FOP_LE: return cpu <= cmp;
		case FOP_GT: return cpu > cmp;
		case FOP_GE: return cpu >= cmp;
		default: return false;
		}
	}
	case FFN_CPU_MASK:
		return scalar_in_mask(p, (unsigned int)ctx_cpu(ctx));
	case FFN_FUNCTION: {
		uint64_t v;

		memcpy(&v, a, 8);
		return (v >= p->val && v < p->val2) == (p->op == FOP_EQ);
	}
	case FFN_NOP:
		return false;
	default:
		return string_pred(p, rec, len, ctx);
	}
}

/* The general predicate, out of the hot loop's way (its registers, its stack). */
__attribute__((noinline)) static bool run_pred_slow(const struct filter_pred *p, const char *rec,
						     size_t len, const struct filter_ctx *ctx)
{
	return run_pred(p, rec, len, ctx);
}

/*
 * The interpreter: threaded code (GNU C labels as values). Each opcode ends
 * with its own dispatch to the next instruction, so each has its own indirect
 * branch for the CPU to predict, instead of one shared by all.
 */
#define LOAD(T) ({ T v_; memcpy(&v_, r + in->offset, sizeof(v_)); v_; })
#define NEXT(expr)                                                                            \
	do {                                                                                  \
		bool res_ = (expr);                                                           \
		/* targets only move forward: the program ends at TRUE or FALSE */            \
		in = res_ == in->when ? base + in->jump : in + 1;                             \
		goto *labels[in->opc];                                                        \
	} while (0)
#define OP4(op, c, U8, U16, U32, U64)                                                         \
	L_##op##8: NEXT(LOAD(U8) c (U8)in->val);                                              \
	L_##op##16: NEXT(LOAD(U16) c (U16)in->val);                                           \
	L_##op##32: NEXT(LOAD(U32) c (U32)in->val);                                           \
	L_##op##64: NEXT(LOAD(U64) c (U64)in->val);
#define FILTER_OPC_LABEL(name) [OPC_##name] = &&L_##name,

bool filter_match_ctx(const struct filter_prog *prog, const void *rec, size_t len,
		      const struct filter_ctx *ctx)
{
	static const void *const labels[OPC_MAX] = { FILTER_OPCODES(FILTER_OPC_LABEL) };
	const struct filter_insn *base, *in;
	const char *r = rec;

	if (!prog)
		return true;	/* no filter: everything passes */
	if (unlikely(len < prog->min_len))
		return false;	/* a truncated record: it cannot hold the fields */
	base = in = prog->code;
	goto *labels[in->opc];

L_TRUE:
	return true;
L_FALSE:
	return false;
L_SLOW:
	NEXT(run_pred_slow(&prog->preds[in->val], r, len, ctx));
	OP4(EQ, ==, uint8_t, uint16_t, uint32_t, uint64_t)
	OP4(NE, !=, uint8_t, uint16_t, uint32_t, uint64_t)
	OP4(BAND, &, uint8_t, uint16_t, uint32_t, uint64_t)
	OP4(LT_U, <, uint8_t, uint16_t, uint32_t, uint64_t)
	OP4(LE_U, <=, uint8_t, uint16_t, uint32_t, uint64_t)
	OP4(GT_U, >, uint8_t, uint16_t, uint32_t, uint64_t)
	OP4(GE_U, >=, uint8_t, uint16_t, uint32_t, uint64_t)
	OP4(LT_S, <, int8_t, int16_t, int32_t, int64_t)
	OP4(LE_S, <=, int8_t, int16_t, int32_t, int64_t)
	OP4(GT_S, >, int8_t, int16_t, int32_t, int64_t)
	OP4(GE_S, >=, int8_t, int16_t, int32_t, int64_t)
}

bool filter_match(const struct filter_prog *prog, const void *rec, size_t len)
{
	return filter_match_ctx(prog, rec, len, NULL);
}
