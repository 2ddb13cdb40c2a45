// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_fetch.c - fetch arguments of probe events (kprobetrace.rst
 * "FETCHARGS"): the grammar and its error messages (the kernel's
 * trace_probe.c, read for its rules), the record layout and format, the
 * fetch at a hit and the printer.
 *
 * Memory is read with process_vm_readv() on our own process: a bad pointer
 * makes the call fail (the kernel's fault value: 0, or "(fault)" for a
 * string), never a signal.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "events/event_internal.h"
#include "probe/probe.h"

enum fetch_base {
	FB_REG,	    /* a saved register (reg: byte offset in struct probe_regs) */
	FB_SP,	    /* %sp, $stack */
	FB_IP,	    /* %ip (x86-64), %pc (aarch64) */
	FB_STACKN,  /* $stackN (imm = N) */
	FB_ARGN,    /* $argN (imm = N) */
	FB_RETVAL,  /* $retval */
	FB_COMM,    /* $comm */
	FB_IMM,	    /* \IMM, @ADDR, @SYM (imm) */
	FB_IMMSTR,  /* \"string" */
};

enum fetch_type {
	FT_U, FT_S, FT_X, FT_CHAR, FT_STRING, FT_SYMBOL, FT_SYMSTR, FT_BITFIELD,
};

struct probe_arg {
	char *name;
	char *text;		/* NAME=BODY[:TYPE] as listed */
	enum fetch_base base;
	unsigned int reg;
	uint64_t imm;
	char *immstr;
	unsigned int nderef;	/* innermost first */
	int64_t deref[PROBE_DEREF_MAX];
	enum fetch_type type;
	unsigned int size;	/* of one element: 1, 2, 4, 8 */
	unsigned int count;	/* array elements; 0: not an array */
	unsigned int bw, bo;	/* bitfield width and offset (size: the container) */
	unsigned int offset;	/* in the record */
};

const char *probe_arg_name(const struct probe_arg *a)
{
	return a->name;
}

const char *probe_arg_text(const struct probe_arg *a)
{
	return a->text;
}

void probe_arg_free(struct probe_arg *a)
{
	if (!a)
		return;
	free(a->name);
	free(a->text);
	free(a->immstr);
	free(a);
}

static bool is_dynamic(const struct probe_arg *a)
{
	return a->type == FT_STRING || a->type == FT_SYMSTR;
}

/* --- parsing --------------------------------------------------------------------------- */

/*
 * The registers by name, as the kernel's regs_query_register_offset() of the architecture
 * knows them (arch/x86/kernel/ptrace.c, arch/arm64/kernel/ptrace.c): another
 * architecture's name is an "Invalid register name". %sp and %ip / %pc are FB_SP, FB_IP.
 */
#define R(n, f) { n, (unsigned int)offsetof(struct probe_regs, f) }
static const struct {
	const char *name;
	unsigned int off;
} regs_arch[] = {
#if defined(__aarch64__)
	R("x0", x[0]), R("x1", x[1]), R("x2", x[2]), R("x3", x[3]), R("x4", x[4]),
	R("x5", x[5]), R("x6", x[6]), R("x7", x[7]), R("x8", x[8]), R("x9", x[9]),
	R("x10", x[10]), R("x11", x[11]), R("x12", x[12]), R("x13", x[13]), R("x14", x[14]),
	R("x15", x[15]), R("x16", x[16]), R("x17", x[17]), R("x18", x[18]), R("x19", x[19]),
	R("x20", x[20]), R("x21", x[21]), R("x22", x[22]), R("x23", x[23]), R("x24", x[24]),
	R("x25", x[25]), R("x26", x[26]), R("x27", x[27]), R("x28", x[28]), R("x29", x[29]),
	R("x30", x[30]), R("pstate", nzcv),
#else
	R("ax", ax), R("bx", bx), R("cx", cx), R("dx", dx), R("si", si), R("di", di),
	R("bp", bp), R("r8", r8), R("r9", r9), R("r10", r10), R("r11", r11), R("r12", r12),
	R("r13", r13), R("r14", r14), R("r15", r15), R("flags", flags),
#endif
};

/* The argument registers of the calling convention: $arg1..$argNR_ARG_REGS. */
#define O(f) (unsigned int)offsetof(struct probe_regs, f)
static const unsigned int arg_regs[] = {
#if defined(__aarch64__)
	/* AAPCS64: x0..x7; the 9th on are on the stack from sp (no return address there) */
	O(x[0]), O(x[1]), O(x[2]), O(x[3]),
	O(x[4]), O(x[5]), O(x[6]), O(x[7]),
#define ARG_STACK_SKIP 0
#else
	/* System V: rdi, rsi, rdx, rcx, r8, r9; the 7th on above the return address */
	O(di), O(si), O(dx), O(cx), O(r8), O(r9),
#define ARG_STACK_SKIP 1
#endif
};
#undef O
#undef R

#define NR_ARG_REGS (sizeof(arg_regs) / sizeof(arg_regs[0]))
#if defined(__aarch64__)
#define REG_IP_NAME "pc"
#else
#define REG_IP_NAME "ip"
#endif

static bool good_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (*++s)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

#define ERR(m, p) (err->msg = (m), err->pos = (unsigned int)(p), -EINVAL)

static int parse_ulong(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return *end || errno ? -EINVAL : 0;
}

/* @s (@len bytes, at @pos of the argument): the fetch body. */
static int parse_body(struct probe_arg *a, char *s, unsigned int pos, unsigned int flags,
		      struct probe_err *err)
{
	uint64_t v;

	if (s[0] == '%') {
		if (!strcmp(s + 1, "sp")) {
			a->base = FB_SP;
			return 0;
		}
		if (!strcmp(s + 1, REG_IP_NAME)) {
			a->base = FB_IP;
			return 0;
		}
		for (size_t i = 0; i < sizeof(regs_arch) / sizeof(regs_arch[0]); i++)
			if (!strcmp(s + 1, regs_arch[i].name)) {
				a->base = FB_REG;
				a->reg = regs_arch[i].off;
				return 0;
			}
		return ERR("Invalid register name", pos);
	}
	if (s[0] == '$') {
		if (!strcmp(s, "$retval")) {
			if (!(flags & PROBE_ARG_RETURN))
				return ERR("$retval is not available on probe", pos);
			a->base = FB_RETVAL;
			return 0;
		}
		if (!strcmp(s, "$stack")) {
			a->base = FB_SP;
			return 0;
		}
		if (!strcmp(s, "$comm") || !strcmp(s, "$COMM")) {
			a->base = FB_COMM;
			return 0;
		}
		if (!strncmp(s, "$stack", 6)) {
			if (parse_ulong(s + 6, &v) || v > 1024 / 8 * 64)
				return ERR("Invalid stack number", pos);
			a->base = FB_STACKN;
			a->imm = v;
			return 0;
		}
		if (!strncmp(s, "$arg", 4)) {
			if (parse_ulong(s + 4, &v) || v == 0 || v > PROBE_ARGS_MAX)
				return ERR("Invalid argument number", pos);
			if (!(flags & PROBE_ARG_ENTRY))
				return ERR("Invalid $-variable specified", pos);
			a->base = FB_ARGN;
			a->imm = v;
			return 0;
		}
		return ERR("Invalid $-variable specified", pos);
	}
	if (s[0] == '@') {
		char *sign = strpbrk(s + 1, "+-");
		int64_t off = 0;

		if (isdigit((unsigned char)s[1])) {
			if (parse_ulong(s + 1, &v))
				return ERR("Invalid memory address", pos);
		} else {
			if (sign) {
				if (parse_ulong(sign + 1, &v))
					return ERR("Invalid memory address", pos);
				off = *sign == '-' ? -(int64_t)v : (int64_t)v;
				*sign = '\0';
			}
			if (!s[1])
				return ERR("Invalid memory address", pos);
			v = 0; /* parse only: no symbol looked up */
			if (!(flags & PROBE_ARG_NOSYMS) && probe_sym_data(s + 1, &v))
				return ERR("Invalid memory address", pos);
			v += (uint64_t)off;
		}
		a->base = FB_IMM;
		a->imm = v;
		a->deref[a->nderef++] = 0;
		return 0;
	}
	if (s[0] == '\\') {
		if (s[1] == '"') {
			size_t n = strlen(s);

			if (n < 3 || s[n - 1] != '"')
				return ERR("String is not closed with '\"'", pos + n);
			a->base = FB_IMMSTR;
			a->immstr = strndup(s + 2, n - 3);
			return a->immstr ? 0 : -ENOMEM;
		}
		if (parse_ulong(s + 1, &v))
			return ERR("Invalid immediate value", pos + 1);
		a->base = FB_IMM;
		a->imm = v;
		return 0;
	}
	if (s[0] == '+' || s[0] == '-') {
		char *open = strchr(s, '('), *end;
		size_t n = strlen(s);
		int64_t off;
		int ret;

		if (!open)
			return ERR("Dereference needs a brace", pos);
		*open = '\0';
		if (s[1] == 'u')
			memmove(s + 1, s + 2, strlen(s + 2) + 1), n--, open--;
		errno = 0;
		off = strtoll(s, &end, 0);
		if (end == s + 1 || *end || errno)
			return ERR("Invalid dereference offset", pos);
		if (s[n - 1] != ')')
			return ERR("Dereference brace is not closed", pos + n);
		s[n - 1] = '\0';
		ret = parse_body(a, open + 1, pos + (unsigned int)(open + 1 - s), flags, err);
		if (ret)
			return ret;
		if (a->base == FB_COMM || a->base == FB_IMMSTR)
			return ERR("$comm can not be dereferenced", pos);
		if (a->nderef == PROBE_DEREF_MAX)
			return ERR("Dereference is too much nested", pos);
		a->deref[a->nderef++] = off;
		return 0;
	}
	return ERR("Invalid fetch argument", pos);
}

/* "u32", "x8[4]", "string", "b4@2/32": into @a. */
static int parse_type(struct probe_arg *a, char *t, unsigned int pos, struct probe_err *err)
{
	char *br = strchr(t, '[');
	uint64_t v;

	if (br) {
		char *close = strchr(br, ']');

		if (!close)
			return ERR("Array is not closed", pos + strlen(t));
		if (close[1])
			return ERR("Array has wrong suffix", pos + (close + 1 - t));
		*close = '\0';
		if (parse_ulong(br + 1, &v) || v == 0)
			return ERR("Invalid array size", pos + (br + 1 - t));
		if (v > PROBE_ARRAY_MAX)
			return ERR("Array number is too big", pos + (br + 1 - t));
		a->count = (unsigned int)v;
		*br = '\0';
	}
	if ((t[0] == 'u' || t[0] == 's' || t[0] == 'x') && isdigit((unsigned char)t[1])) {
		if (parse_ulong(t + 1, &v) || (v != 8 && v != 16 && v != 32 && v != 64))
			return ERR("Unknown type is specified", pos);
		a->type = t[0] == 'u' ? FT_U : t[0] == 's' ? FT_S : FT_X;
		a->size = (unsigned int)v / 8;
	} else if (!strcmp(t, "char")) {
		a->type = FT_CHAR, a->size = 1;
	} else if (!strcmp(t, "string") || !strcmp(t, "ustring")) {
		a->type = FT_STRING, a->size = 4;
	} else if (!strcmp(t, "symbol")) {
		a->type = FT_SYMBOL, a->size = 8;
	} else if (!strcmp(t, "symstr")) {
		a->type = FT_SYMSTR, a->size = 4;
	} else if (t[0] == 'b') {
		unsigned int w, o, c;
		int n = 0;

		if (sscanf(t, "b%u@%u/%u%n", &w, &o, &c, &n) != 3 || t[n] ||
		    (c != 8 && c != 16 && c != 32 && c != 64) || w == 0 || w + o > c)
			return ERR("Invalid bitfield", pos);
		a->type = FT_BITFIELD, a->size = c / 8, a->bw = w, a->bo = o;
	} else {
		return ERR("Unknown type is specified", pos);
	}
	if (a->count && (is_dynamic(a) || a->type == FT_BITFIELD))
		return ERR("Unknown type is specified", pos); /* string arrays: not here */
	return 0;
}

int probe_arg_parse(const char *text, unsigned int idx, unsigned int flags,
		    struct probe_arg **argp, struct probe_err *err)
{
	struct probe_arg *a = calloc(1, sizeof(*a));
	char *copy = strdup(text), *body, *eq, *colon;
	unsigned int bpos = 0;
	int ret;

	err->msg = NULL;
	err->pos = 0;
	if (!a || !copy) {
		ret = -ENOMEM;
		goto out;
	}
	body = copy;
	eq = strchr(copy, '=');
	if (eq && (!strchr(copy, '(') || eq < strchr(copy, '('))) {
		*eq = '\0';
		if (!copy[0]) {
			ret = ERR("Argument name is not specified", 0);
			goto out;
		}
		if (strlen(copy) >= PROBE_NAME_MAX) {
			ret = ERR("Argument name is too long", 0);
			goto out;
		}
		if (!good_name(copy)) {
			ret = ERR("Argument name must follow the same rules as C identifiers", 0);
			goto out;
		}
		a->name = strdup(copy);
		body = eq + 1;
		bpos = (unsigned int)(body - copy);
	} else if (asprintf(&a->name, "arg%u", idx + 1) < 0) {
		a->name = NULL;
	}
	if (!a->name) {
		ret = -ENOMEM;
		goto out;
	}
	if (!body[0]) {
		ret = ERR("No argument expression", bpos);
		goto out;
	}
	a->type = FT_X;
	a->size = 8;
	colon = body[0] == '@' ? strrchr(body, ':') : strchr(body, ':');
	if (colon) {
		*colon = '\0';
		ret = parse_type(a, colon + 1, bpos + (unsigned int)(colon + 1 - body), err);
		if (ret)
			goto out;
	}
	ret = parse_body(a, body, bpos, flags, err);
	if (ret)
		goto out;
	if (a->base == FB_COMM || a->base == FB_IMMSTR) {
		if (colon && a->type != FT_STRING) {
			ret = ERR("Unknown type is specified", bpos + (unsigned int)(colon + 1 - body));
			goto out;
		}
		a->type = FT_STRING, a->size = 4;
	} else if ((a->type == FT_STRING || a->count) && !a->nderef) {
		ret = ERR("String accepts only memory argument", bpos);
		goto out;
	}
	{
		const char *t = strchr(text, '=');

		t = t && t < text + strcspn(text, "(") ? t + 1 : text;
		if (asprintf(&a->text, "%s=%s", a->name, t) < 0) {
			a->text = NULL;
			ret = -ENOMEM;
			goto out;
		}
	}
	*argp = a;
	a = NULL;
out:
	free(copy);
	probe_arg_free(a);
	return ret;
}

/* --- layout and format ------------------------------------------------------------------- */

static const char *type_name(const struct probe_arg *a)
{
	static const char *const u[] = { "u8", "u16", "u32", "u64" };
	static const char *const s[] = { "s8", "s16", "s32", "s64" };
	unsigned int i = a->size == 1 ? 0 : a->size == 2 ? 1 : a->size == 4 ? 2 : 3;

	if (a->type == FT_S)
		return s[i];
	if (a->type == FT_CHAR)
		return "char";
	return u[i];
}

unsigned int probe_args_layout(struct probe_arg **args, unsigned int n, unsigned int off,
			       struct evt_field *fields)
{
	for (unsigned int i = 0; i < n; i++) {
		struct probe_arg *a = args[i];
		struct evt_field *f = &fields[i];

		a->offset = off;
		f->name = a->name;
		f->offset = (uint16_t)off;
		if (is_dynamic(a)) {
			f->type = "__data_loc char[]";
			f->kind = EVT_FIELD_DYN_STRING;
			f->size = 4;
			f->elem_size = 1;
			f->is_signed = 1;
			off += 4;
			continue;
		}
		f->type = type_name(a); /* arrays: the element type; kind and sizes say the rest */
		f->kind = a->count ? EVT_FIELD_ARRAY : EVT_FIELD_INT;
		f->elem_size = (uint16_t)a->size;
		f->size = (uint16_t)(a->size * (a->count ? a->count : 1));
		f->is_signed = a->type == FT_S || a->type == FT_CHAR;
		off += f->size;
	}
	return off;
}

static const char *conv(const struct probe_arg *a)
{
	switch (a->type) {
	case FT_S:
		return a->size == 8 ? "%Ld" : "%d";
	case FT_X:
	case FT_SYMBOL:
		return a->size == 8 ? "0x%Lx" : "0x%x";
	case FT_CHAR:
		return "'%c'";
	case FT_STRING:
	case FT_SYMSTR:
		return "\\\"%s\\\"";
	default:
		return a->size == 8 ? "%Lu" : "%u";
	}
}

int probe_args_print_fmt(struct probe_arg **args, unsigned int n, char *buf, size_t len,
			 const char *refs)
{
	size_t o = strlen(buf);

#define ADD(...) (o += (size_t)snprintf(buf + (o < len ? o : len), o < len ? len - o : 0, __VA_ARGS__))
	for (unsigned int i = 0; i < n; i++) {
		const struct probe_arg *a = args[i];

		ADD(" %s=", a->name);
		if (a->count) {
			ADD("{");
			for (unsigned int j = 0; j < a->count; j++)
				ADD("%s%s", j ? "," : "", conv(a));
			ADD("}");
		} else {
			ADD("%s", conv(a));
		}
	}
	ADD("\"%s", refs);
	for (unsigned int i = 0; i < n; i++) {
		const struct probe_arg *a = args[i];

		if (is_dynamic(a))
			ADD(", __get_str(%s)", a->name);
		else if (a->count)
			for (unsigned int j = 0; j < a->count; j++)
				ADD(", REC->%s[%u]", a->name, j);
		else
			ADD(", REC->%s", a->name);
	}
#undef ADD
	return o < len ? 0 : -ENOSPC;
}

/* --- the fetch (writer context) ----------------------------------------------------------- */

/* Copy @n bytes at @addr of our own memory; 0 or -EFAULT. */
static int mem_read(uint64_t addr, void *dst, size_t n)
{
	struct iovec local = { dst, n }, remote = { (void *)(uintptr_t)addr, n };

	return process_vm_readv(event_current_tgid(), &local, 1, &remote, 1, 0) == (ssize_t)n ?
		       0 : -EFAULT;
}

/* A NUL-terminated string at @addr into @dst (at most @max bytes, NUL included). */
static ssize_t str_read(uint64_t addr, char *dst, size_t max)
{
	size_t done = 0;

	/* page by page: process_vm_readv fails the whole read at the first bad page */
	while (done < max) {
		size_t chunk = 4096 - ((addr + done) & 4095);
		char *nul;

		if (chunk > max - done)
			chunk = max - done;
		if (mem_read(addr + done, dst + done, chunk))
			return done ? (dst[done - 1] = '\0', (ssize_t)done) : -EFAULT;
		nul = memchr(dst + done, '\0', chunk);
		if (nul)
			return nul - dst + 1;
		done += chunk;
	}
	dst[max - 1] = '\0';
	return (ssize_t)max;
}

static uint64_t base_value(const struct probe_arg *a, struct probe_ctx *ctx, bool *fault)
{
	uint64_t v = 0;

	switch (a->base) {
	case FB_REG:
		memcpy(&v, (const char *)ctx->regs + a->reg, 8);
		return v;
	case FB_SP:
		return ctx->sp;
	case FB_IP:
		return ctx->ip;
	case FB_STACKN:
		if (mem_read(ctx->sp + a->imm * 8, &v, 8))
			*fault = true;
		return v;
	case FB_ARGN:
		if (a->imm <= NR_ARG_REGS) {
			memcpy(&v, (const char *)ctx->regs + arg_regs[a->imm - 1], 8);
			return v;
		}
		/* the others: on the stack (above the return address on x86-64) */
		if (mem_read(ctx->sp + (a->imm - NR_ARG_REGS - 1 + ARG_STACK_SKIP) * 8, &v, 8))
			*fault = true;
		return v;
	case FB_RETVAL:
		return ctx->retval;
	default:
		return a->imm;
	}
}

/*
 * One argument: its fixed bytes into @fixed (a->size * count, or the
 * __data_loc word), its dynamic bytes at @dyn (at most @room), their count
 * returned. The __data_loc offset is relative to the dynamic area here;
 * probe_args_store() adds the record's fixed size.
 */
static size_t fetch_one(const struct probe_arg *a, struct probe_ctx *ctx, char *fixed, char *dyn,
			size_t dyn_off, size_t room)
{
	bool fault = false;
	uint64_t v = base_value(a, ctx, &fault);
	size_t n = 0;

	for (unsigned int i = 0; !fault && i + 1 < a->nderef; i++)
		if (mem_read(v + (uint64_t)a->deref[i], &v, 8))
			fault = true;
	if (a->nderef)
		v += (uint64_t)a->deref[a->nderef - 1];
	if (is_dynamic(a)) {
		ssize_t got = -EFAULT;

		if (room) {
			if (a->base == FB_COMM) {
				char comm[17] = "";

				prctl(PR_GET_NAME, comm, 0, 0, 0);
				got = (ssize_t)strnlen(comm, 16) + 1;
				if ((size_t)got > room)
					got = (ssize_t)room;
				memcpy(dyn, comm, (size_t)got);
				dyn[got - 1] = '\0';
			} else if (a->base == FB_IMMSTR) {
				got = (ssize_t)strlen(a->immstr) + 1;
				if ((size_t)got > room)
					got = (ssize_t)room;
				memcpy(dyn, a->immstr, (size_t)got);
				dyn[got - 1] = '\0';
			} else if (a->type == FT_SYMSTR) {
				/* not at a hit: the printer resolves it; store the address as text */
				got = snprintf(dyn, room, "0x%llx", (unsigned long long)v) + 1;
				if ((size_t)got > room)
					got = (ssize_t)room;
			} else if (!fault) {
				got = str_read(v, dyn, room);
			}
		}
		if (got < 0)
			n = 0; /* a fault: no bytes, printed "(fault)" */
		else
			n = (size_t)got;
		{
			uint32_t loc = evt_data_loc_make((uint16_t)dyn_off,
							 (uint16_t)(got < 0 ? 0 : n));

			memcpy(fixed, &loc, 4);
		}
		return n;
	}
	if (a->count || a->nderef) {
		size_t bytes = a->size * (a->count ? a->count : 1);

		if (fault || mem_read(v, fixed, bytes))
			memset(fixed, 0, bytes);
		if (a->type == FT_BITFIELD)
			goto bitfield;
		return 0;
	}
	if (fault)
		v = 0;
	memcpy(fixed, &v, a->size); /* little endian: the low bytes */
	if (a->type != FT_BITFIELD)
		return 0;
bitfield:
	v = 0;
	memcpy(&v, fixed, a->size);
	v = (v >> a->bo) & (a->bw == 64 ? ~0ull : ((1ull << a->bw) - 1));
	memcpy(fixed, &v, a->size);
	return 0;
}

size_t probe_args_fetch(struct probe_arg **args, unsigned int n, struct probe_ctx *ctx,
			void *scratch, size_t scratch_len)
{
	char *buf = scratch;
	size_t fixed = 0, dyn = 0;

	for (unsigned int i = 0; i < n; i++)
		fixed += is_dynamic(args[i]) ? 4 : args[i]->size * (args[i]->count ?: 1);
	if (fixed > scratch_len)
		return 0;
	for (unsigned int i = 0, off = 0; i < n; i++) {
		size_t room = scratch_len - fixed - dyn;

		if (room > PROBE_STR_MAX)
			room = PROBE_STR_MAX;
		dyn += fetch_one(args[i], ctx, buf + off, buf + fixed + dyn, dyn, room);
		off += is_dynamic(args[i]) ? 4 : args[i]->size * (args[i]->count ?: 1);
	}
	return fixed + dyn;
}

void probe_args_store(struct probe_arg **args, unsigned int n, const void *scratch, char *rec,
		      unsigned int fixed)
{
	const char *buf = scratch;
	size_t args_fixed = 0;

	if (!n)
		return;
	for (unsigned int i = 0; i < n; i++)
		args_fixed += is_dynamic(args[i]) ? 4 : args[i]->size * (args[i]->count ?: 1);
	memcpy(rec + args[0]->offset, buf, args_fixed);
	for (unsigned int i = 0; i < n; i++) {
		uint32_t loc;

		if (!is_dynamic(args[i]))
			continue;
		memcpy(&loc, rec + args[i]->offset, 4);
		memcpy(rec + fixed + evt_data_loc_offset(loc),
		       buf + args_fixed + evt_data_loc_offset(loc), evt_data_loc_len(loc));
		loc = evt_data_loc_make((uint16_t)(evt_data_loc_offset(loc) + fixed),
					evt_data_loc_len(loc));
		memcpy(rec + args[i]->offset, &loc, 4);
	}
}

/* --- printing --------------------------------------------------------------------------- */

static uint64_t rd(const unsigned char *rec, size_t len, size_t off, unsigned int size,
		   bool sign)
{
	uint64_t v = 0;

	if (off + size > len)
		return 0;
	memcpy(&v, rec + off, size);
	if (sign && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	return v;
}

static void print_val(const struct probe_arg *a, uint64_t v, struct evt_seq *s)
{
	char sym[256];

	switch (a->type) {
	case FT_S:
		evt_seq_printf(s, "%lld", (long long)v);
		break;
	case FT_X:
		evt_seq_printf(s, "0x%llx", (unsigned long long)v);
		break;
	case FT_CHAR:
		evt_seq_printf(s, "'%c'", (char)v);
		break;
	case FT_SYMBOL:
		probe_sym_format(v, true, sym, sizeof(sym));
		evt_seq_puts(s, sym);
		break;
	default:
		evt_seq_printf(s, "%llu", (unsigned long long)v);
	}
}

void probe_args_print_args(struct probe_arg **args, unsigned int n, const void *recp, size_t len,
			   struct evt_seq *s)
{
	const unsigned char *rec = recp;

	for (unsigned int i = 0; i < n; i++) {
		const struct probe_arg *a = args[i];

		evt_seq_printf(s, " %s=", a->name);
		if (is_dynamic(a)) {
			uint32_t loc = (uint32_t)rd(rec, len, a->offset, 4, false);
			size_t off = evt_data_loc_offset(loc), bytes = evt_data_loc_len(loc);
			char sym[256];

			if (off > len || bytes > len - off || bytes == 0) {
				evt_seq_puts(s, "(fault)");
				continue;
			}
			if (a->type == FT_SYMSTR) {
				uint64_t v = strtoull((const char *)rec + off, NULL, 16);

				probe_sym_format(v, true, sym, sizeof(sym));
				evt_seq_printf(s, "\"%s\"", sym);
				continue;
			}
			evt_seq_printf(s, "\"%.*s\"", (int)strnlen((const char *)rec + off, bytes),
				       (const char *)rec + off);
		} else if (a->count) {
			evt_seq_putc(s, '{');
			for (unsigned int j = 0; j < a->count; j++) {
				if (j)
					evt_seq_putc(s, ',');
				print_val(a, rd(rec, len, a->offset + j * a->size, a->size,
						a->type == FT_S), s);
			}
			evt_seq_putc(s, '}');
		} else {
			print_val(a, rd(rec, len, a->offset, a->size, a->type == FT_S), s);
		}
	}
}
