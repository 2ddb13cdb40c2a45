// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter/filter_compile.c - the filter parser and compiler.
 *
 * The kernel's grammar, error messages, caret positions and errno values
 * (kernel/trace/trace_events_filter.c, checked against the build machine's
 * kernel by tests/unit/filter-diff.c), compiled into the kernel's predicate
 * program: a flat array of predicates with short-circuit jumps, built in the
 * kernel's three passes (filter_internal.h describes the array). The
 * parser works in two sweeps as the kernel's does: calc_stack() counts
 * predicates and parentheses and finds unbalanced ones and open quotes;
 * predicate_parse() then builds the program, calling parse_pred() for each
 * `field op value`.
 *
 * Kernel quirks we keep, because users see them: the errno of some errors
 * (EPERM for unbalanced ')' and trailing junk, ENOENT for unbalanced '(',
 * ESRCH for a missing quote), "Error: (0)" without a caret for a blank
 * expression or a missing field name, a glob starting with a digit compared
 * as a plain string, values truncated to the field's size without a range
 * check, the kernel's ctype (Latin-1 letters are alphanumeric, 0xa0 is space).
 *
 * Context: any thread; allocates; the program it returns is immutable.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "compat/elfsym.h"
#include "filter/filter_internal.h"

static const char *const filter_ops[FOP_MAX + 1] = {
	[FOP_GLOB] = "~", [FOP_NE] = "!=", [FOP_EQ] = "==", [FOP_LE] = "<=", [FOP_LT] = "<",
	[FOP_GE] = ">=", [FOP_GT] = ">", [FOP_BAND] = "&", [FOP_MAX] = NULL,
};

enum filter_err {
	FE_NONE,
	FE_INVALID_OP,
	FE_TOO_MANY_OPEN,
	FE_TOO_MANY_CLOSE,
	FE_MISSING_QUOTE,
	FE_MISSING_BRACE_OPEN,
	FE_MISSING_BRACE_CLOSE,
	FE_OPERAND_TOO_LONG,
	FE_EXPECT_STRING,
	FE_EXPECT_DIGIT,
	FE_ILLEGAL_FIELD_OP,
	FE_FIELD_NOT_FOUND,
	FE_ILLEGAL_INTVAL,
	FE_BAD_SUBSYS_FILTER,
	FE_TOO_MANY_PREDS,
	FE_INVALID_FILTER,
	FE_INVALID_CPULIST,
	FE_IP_FIELD_ONLY,
	FE_INVALID_VALUE,
	FE_NO_FUNCTION,
	FE_ERRNO,
	FE_NO_FILTER,
};

/* The kernel's err_text[], in its order. */
static const char *const err_text[] = {
	[FE_NONE] = "No error",
	[FE_INVALID_OP] = "Invalid operator",
	[FE_TOO_MANY_OPEN] = "Too many '('",
	[FE_TOO_MANY_CLOSE] = "Too few '('",
	[FE_MISSING_QUOTE] = "Missing matching quote",
	[FE_MISSING_BRACE_OPEN] = "Missing '{'",
	[FE_MISSING_BRACE_CLOSE] = "Missing '}'",
	[FE_OPERAND_TOO_LONG] = "Operand too long",
	[FE_EXPECT_STRING] = "Expecting string field",
	[FE_EXPECT_DIGIT] = "Expecting numeric field",
	[FE_ILLEGAL_FIELD_OP] = "Illegal operation for field type",
	[FE_FIELD_NOT_FOUND] = "Field not found",
	[FE_ILLEGAL_INTVAL] = "Illegal integer value",
	[FE_BAD_SUBSYS_FILTER] = "Couldn't find or set field in one of a subsystem's events",
	[FE_TOO_MANY_PREDS] = "Too many terms in predicate expression",
	[FE_INVALID_FILTER] = "Meaningless filter expression",
	[FE_INVALID_CPULIST] = "Invalid cpulist",
	[FE_IP_FIELD_ONLY] = "Only 'ip' field is supported for function trace",
	[FE_INVALID_VALUE] = "Invalid value (did you forget quotes)?",
	[FE_NO_FUNCTION] = "Function not found",
	[FE_ERRNO] = "Error",
	[FE_NO_FILTER] = "No filter found",
};

/* The kernel's filter types (trace_events.h), ours plus its generic fields'. */
enum filter_type {
	FT_OTHER,
	FT_STATIC_STRING,
	FT_DYN_STRING,
	FT_RDYN_STRING,
	FT_PTR_STRING,
	FT_CPU,
	FT_COMM,
	FT_STACKTRACE,
};

/* A field as the parser sees it: one of the event's, or a generic one. */
struct pfield {
	unsigned int offset, size;
	bool is_signed;
	enum filter_type type;
};

struct parse_state {
	const struct evt_field *fields;
	size_t nr_fields;
	const char *str;	/* the whole expression */
	int lasterr;
	int lasterr_pos;
	struct filter_prog *prog;
	int nr_cpus;
};

static void parse_error(struct parse_state *ps, int err, int pos)
{
	ps->lasterr = err;
	ps->lasterr_pos = pos;
}

/* ---- the kernel's ctype: Latin-1 letters are letters, 0xa0 is a space ----------------------- */

static bool k_isspace(char ch)
{
	unsigned char c = (unsigned char)ch;

	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static bool k_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static bool k_isalnum(char ch)
{
	unsigned char c = (unsigned char)ch;

	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return c >= 0xc0 && c != 0xd7 && c != 0xf7;
}

static bool k_isxdigit(char c)
{
	return k_isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* ---- numbers: kstrtoull() / kstrtoll() with base 0 ------------------------------------------- */

static int k_strtoull(const char *s, uint64_t *res)
{
	bool overflow = false;
	unsigned int base = 10;
	uint64_t v = 0;
	size_t n = 0;

	if (s[0] == '+')
		s++;
	if (s[0] == '0') {
		if ((s[1] == 'x' || s[1] == 'X') && k_isxdigit(s[2])) {
			base = 16;
			s += 2;
		} else {
			base = 8;
		}
	}
	for (;; s++, n++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			break;
		if (d >= base)
			break;
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	if (!n)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

static int k_strtoll(const char *s, uint64_t *res)
{
	uint64_t tmp;
	int ret;

	if (s[0] == '-') {
		ret = k_strtoull(s + 1, &tmp);
		if (ret)
			return ret;
		if ((int64_t)(0 - tmp) > 0)
			return -ERANGE;
		*res = 0 - tmp;
		return 0;
	}
	ret = k_strtoull(s, &tmp);
	if (ret)
		return ret;
	if ((int64_t)tmp < 0)
		return -ERANGE;
	*res = tmp;
	return 0;
}

/* ---- CPUS{list}: the kernel's bitmap_parselist() --------------------------------------------- */

static bool end_of_str(char c)
{
	return c == '\0' || c == '\n';
}

static bool end_of_region(char c)
{
	return k_isspace(c) || c == ',' || end_of_str(c);
}

static const char *getnum(const char *s, unsigned int *num, unsigned int lastbit, int *err)
{
	uint64_t n = 0;
	bool overflow = false;
	size_t len = 0;

	if (s[0] == 'N') {
		*num = lastbit;
		return s + 1;
	}
	for (; k_isdigit(s[len]); len++) {
		if (n > (UINT64_MAX - 9) / 10)
			overflow = true;
		n = n * 10 + (uint64_t)(s[len] - '0');
	}
	if (!len) {
		*err = -EINVAL;
		return NULL;
	}
	if (overflow || n > UINT_MAX) {
		*err = -EOVERFLOW;
		return NULL;
	}
	*num = (unsigned int)n;
	return s + len;
}

static int parse_cpulist(const char *buf, uint64_t *mask, unsigned int nbits)
{
	unsigned int lastbit = nbits - 1;

	while (buf) {
		unsigned int start, end, off, group;
		int err = 0;

		while (k_isspace(*buf) || *buf == ',')
			buf++;
		if (end_of_str(*buf))
			return 0;
		if (!strncasecmp(buf, "all", 3)) {
			start = 0;
			end = lastbit;
			buf += 3;
			goto check_pattern;
		}
		buf = getnum(buf, &start, lastbit, &err);
		if (!buf)
			return err;
		if (end_of_region(*buf)) {
			end = start;
			goto no_pattern;
		}
		if (*buf != '-')
			return -EINVAL;
		buf = getnum(buf + 1, &end, lastbit, &err);
		if (!buf)
			return err;
check_pattern:
		if (end_of_region(*buf))
			goto no_pattern;
		if (*buf != ':')
			return -EINVAL;
		buf = getnum(buf + 1, &off, lastbit, &err);
		if (!buf)
			return err;
		if (*buf != '/')
			return -EINVAL;
		buf = getnum(buf + 1, &group, lastbit, &err);
		if (!buf)
			return err;
		goto check;
no_pattern:
		off = end + 1;
		group = end + 1;
		if (end_of_str(*buf))
			buf = NULL;
check:
		if (start > end || group == 0 || off > group)
			return -EINVAL;
		if (end >= nbits)
			return -ERANGE;
		for (uint64_t s = start; s <= end; s += group)
			for (uint64_t b = s; b <= end && b < s + off; b++)
				mask[b / 64] |= 1ull << (b % 64);
	}
	return 0;
}

/* ---- fields ---------------------------------------------------------------------------------- */

/* filter_assign_type() of the kernel, on the type string of the `format` file. */
static enum filter_type assign_type(const struct evt_field *f)
{
	const char *type = f->type ? f->type : "";

	switch (f->kind) {
	case EVT_FIELD_STRING:
		return FT_STATIC_STRING;
	case EVT_FIELD_DYN_STRING:
		return FT_DYN_STRING;
	case EVT_FIELD_REL_STRING:
		return FT_RDYN_STRING;
	case EVT_FIELD_USTRING:
		return FT_PTR_STRING;
	default:
		break;
	}
	if (strstr(type, "__data_loc") && strstr(type, "char"))
		return FT_DYN_STRING;
	if (strstr(type, "__rel_loc") && strstr(type, "char"))
		return FT_RDYN_STRING;
	if (strchr(type, '[') && strstr(type, "char"))
		return FT_STATIC_STRING;
	if (!strcmp(type, "char *") || !strcmp(type, "const char *"))
		return FT_PTR_STRING;
	return FT_OTHER;
}

/* The kernel's trace_find_event_field(): the event's fields, then the generic ones. */
static bool find_field(const struct parse_state *ps, const char *name, size_t len,
		       struct pfield *pf)
{
	static const struct {
		const char *name;
		enum filter_type type;
		unsigned int size;
		bool is_signed;
	} generic[] = {
		{ "CPU", FT_CPU, 4, true },
		{ "cpu", FT_CPU, 4, true },
		{ "common_cpu", FT_CPU, 4, true },
		/* sizes as the kernel has them: not a long, so no .function */
		{ "COMM", FT_COMM, 16, false },
		{ "comm", FT_COMM, 16, false },
		/* the kernel's stacktrace is for hist triggers: as a filter, always false */
		{ "stacktrace", FT_STACKTRACE, 0, false },
		{ "STACKTRACE", FT_STACKTRACE, 0, false },
	};

	for (size_t i = 0; i < ps->nr_fields; i++) {
		const struct evt_field *f = &ps->fields[i];

		if (f->name && strlen(f->name) == len && !memcmp(f->name, name, len)) {
			pf->offset = f->offset;
			pf->size = f->size;
			pf->is_signed = f->is_signed;
			pf->type = assign_type(f);
			return true;
		}
	}
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
		if (strlen(generic[i].name) == len && !memcmp(generic[i].name, name, len)) {
			pf->offset = 0;
			pf->size = generic[i].size;
			pf->is_signed = generic[i].is_signed;
			pf->type = generic[i].type;
			return true;
		}
	}
	return false;
}

static bool is_string_field(const struct pfield *f)
{
	return f->type == FT_DYN_STRING || f->type == FT_RDYN_STRING ||
	       f->type == FT_STATIC_STRING || f->type == FT_PTR_STRING || f->type == FT_COMM;
}

/* select_comparison_fn() */
static uint8_t comparison_fn(int op, unsigned int size, bool is_signed)
{
	int k;

	switch (size) {
	case 1: k = 0; break;
	case 2: k = 1; break;
	case 4: k = 2; break;
	case 8: k = 3; break;
	default: return FFN_NOP;
	}
	if (op == FOP_EQ || op == FOP_NE)
		return (uint8_t)(FFN_EQ8 + k);
	return (uint8_t)((is_signed ? FFN_S8 : FFN_U8) + k);
}

/* filter_parse_regex() + filter_build_regex() on the pattern of @p. */
static void build_regex(struct filter_pred *p)
{
	char *buff = p->pattern;
	size_t len = p->plen;
	int type = FMT_FULL;

	if (p->op != FOP_GLOB) {
		p->match = FMT_FULL;
		return;
	}
	p->not = 0;
	if (buff[0] == '!') {
		p->not = 1;
		buff++;
		len--;
	}
	if (k_isdigit(buff[0]))
		goto out;	/* MATCH_INDEX: the kernel compares it as a plain string */
	for (size_t i = 0; i < len; i++) {
		if (buff[i] == '*') {
			if (!i) {
				type = FMT_END;
			} else if (i == len - 1) {
				type = type == FMT_END ? FMT_MIDDLE : FMT_FRONT;
				buff[i] = 0;
				break;
			} else {
				type = FMT_GLOB;
				goto out;
			}
		} else if (buff[i] == '[' || buff[i] == '?' || buff[i] == '\\') {
			type = FMT_GLOB;
			goto out;
		}
	}
	if (buff[0] == '*')
		buff++;
out:
	p->match = (uint8_t)type;
	p->plen = (uint32_t)strlen(buff);
	memmove(p->pattern, buff, p->plen + 1);
}

/*
 * The number str[s..i) into @buf, NUL-terminated, for k_strtoull()/k_strtoll(); false (the
 * error set at @pos + i) when it is too long for @buf.
 */
static bool copy_number(struct parse_state *ps, const char *str, int s, int i, int pos, char *buf,
			size_t size)
{
	size_t len = (size_t)(i - s);

	if (len >= size) {
		parse_error(ps, FE_OPERAND_TOO_LONG, pos + i);
		return false;
	}
	memcpy(buf, str + s, len);
	buf[len] = 0;
	return true;
}

/* A record shorter than @need bytes cannot be matched: raise the program's min_len to it. */
static void need_len(struct filter_prog *prog, unsigned int need)
{
	if (need > prog->min_len)
		prog->min_len = need;
}

/**
 * pred_function() - the operand of `field.function ==/!= value`
 * @ps:    the parse state (its error, its program's min_len)
 * @str:   the predicate's text
 * @pos:   the position of @str in the expression, one-based as the kernel's
 * @i:     the offset in @str of the operand: an address or the name of a function
 * @field: the field (a word: the address an event recorded)
 * @pred:  the predicate: op set; fn, val and val2 (the function's range) filled here
 *
 * Context: under the filter's parse (no lock of the filter layer).
 * Return: the offset in @str past the operand, or a negative errno (the error set in @ps).
 */
static int pred_function(struct parse_state *ps, const char *str, int pos, int i,
			 const struct pfield *field, struct filter_pred *pred)
{
	uint64_t ip, start, end;
	char num_buf[24];
	int s = i;

	if (field->size != sizeof(long)) {
		parse_error(ps, FE_ILLEGAL_FIELD_OP, pos + i);
		return -EINVAL;
	}
	if (pred->op != FOP_EQ && pred->op != FOP_NE) {
		parse_error(ps, FE_INVALID_OP, pos + i);
		return -EINVAL;
	}
	if (k_isdigit(str[i])) {
		while (k_isalnum(str[i]))
			i++;
		if (!copy_number(ps, str, s, i, pos, num_buf, sizeof(num_buf)))
			return -EINVAL;
		if (k_strtoull(num_buf, &ip)) {
			parse_error(ps, FE_INVALID_VALUE, pos + i);
			return -EINVAL;
		}
	} else {
		char *name;

		while (str[i] && !k_isspace(str[i]))
			i++;
		name = strndup(str + s, (size_t)(i - s));
		if (!name)
			return -ENOMEM;
		ip = elfsym_lookup_name(name);
		free(name);
		if (!ip) {
			parse_error(ps, FE_NO_FUNCTION, pos + i);
			return -EINVAL;
		}
	}
	if (!elfsym_func_range(ip, &start, &end)) {
		parse_error(ps, FE_NO_FUNCTION, pos + i);
		return -EINVAL;
	}
	pred->fn = FFN_FUNCTION;
	pred->val = start;
	pred->val2 = end;
	need_len(ps->prog, field->offset + 8u);
	return i;
}

/**
 * pred_cpus_fn() - the function of a CPUS{} predicate
 * @ps:     the parse state (its program)
 * @field:  the field
 * @weight: how many CPUs the mask has
 * @first:  the first of them
 * @pred:   the predicate, its mask set: fn filled here
 *
 * One CPU is a plain comparison with it (the mask freed), several a mask test of the field
 * (or of the CPU).
 *
 * Context: under the filter's parse (no lock of the filter layer).
 */
static void pred_cpus_fn(struct parse_state *ps, const struct pfield *field, int weight,
			 uint64_t first, struct filter_pred *pred)
{
	if (weight == 1) {
		/* One CPU: a plain comparison with it. */
		pred->val = first;
		free(pred->mask);
		pred->mask = NULL;
		pred->nr_mask_bits = 0;
		if (pred->op == FOP_BAND)
			pred->op = FOP_EQ;
	}
	if (field->type == FT_CPU) {
		pred->fn = weight == 1 ? FFN_CPU : FFN_CPU_MASK;
		ps->prog->needs_ctx = true;
		return;
	}
	if (weight == 1) {
		pred->fn = comparison_fn(pred->op, field->size, false);
		if (pred->op == FOP_NE)
			pred->not = 1;
	} else {
		switch (field->size) {
		case 8: pred->fn = FFN_MASK64; break;
		case 4: pred->fn = FFN_MASK32; break;
		case 2: pred->fn = FFN_MASK16; break;
		case 1: pred->fn = FFN_MASK8; break;
		default: pred->fn = FFN_NOP; break;
		}
	}
	if (pred->fn != FFN_NOP)
		need_len(ps->prog, field->offset + field->size);
}

/**
 * pred_cpus() - the operand `CPUS{list}` of `cpu`-like fields, `==`, `!=` or `&`
 * @ps:    the parse state (its error, its nr_cpus, its program)
 * @str:   the predicate's text
 * @pos:   the position of @str in the expression, one-based as the kernel's
 * @i:     the offset in @str of "CPUS"
 * @field: the field (the generic `cpu`, or a number field)
 * @pred:  the predicate: op set; fn, mask or val filled here
 *
 * Context: under the filter's parse (no lock of the filter layer).
 * Return: the offset in @str past the "}", or a negative errno (the error set in @ps).
 */
static int pred_cpus(struct parse_state *ps, const char *str, int pos, int i,
		     const struct pfield *field, struct filter_pred *pred)
{
	unsigned int nbits = (unsigned int)ps->nr_cpus;
	int maskstart, weight = 0;
	uint64_t first = 0;
	char *tmp;
	int err;

	if (field->type != FT_CPU && field->type != FT_OTHER) {
		parse_error(ps, FE_ILLEGAL_FIELD_OP, pos + i);
		return -EINVAL;
	}
	if (pred->op != FOP_EQ && pred->op != FOP_NE && pred->op != FOP_BAND) {
		parse_error(ps, FE_ILLEGAL_FIELD_OP, pos + i);
		return -EINVAL;
	}
	i += 4;
	if (str[i++] != '{') {
		parse_error(ps, FE_MISSING_BRACE_OPEN, pos + i);
		return -EINVAL;
	}
	maskstart = i;
	while (str[i] && str[i] != '}')
		i++;
	if (str[i] != '}') {
		parse_error(ps, FE_MISSING_BRACE_CLOSE, pos + i);
		return -EINVAL;
	}
	if (maskstart == i) {
		parse_error(ps, FE_INVALID_CPULIST, pos + i);
		return -EINVAL;
	}
	tmp = strndup(str + maskstart, (size_t)(i - maskstart));
	pred->nr_mask_bits = nbits;
	pred->mask = calloc((nbits + 63) / 64, sizeof(uint64_t));
	if (!tmp || !pred->mask) {
		free(tmp);
		return -ENOMEM;
	}
	err = parse_cpulist(tmp, pred->mask, nbits);
	free(tmp);
	if (err) {
		parse_error(ps, FE_INVALID_CPULIST, pos + i);
		return -EINVAL;
	}
	i++;
	for (unsigned int b = 0; b < nbits; b++) {
		if (pred->mask[b / 64] >> (b % 64) & 1) {
			if (!weight++)
				first = b;
		}
	}
	pred_cpus_fn(ps, field, weight, first, pred);
	return i;
}

/**
 * pred_string_fn() - the function that compares a string field
 * @ps:    the parse state (its program: its min_len and needs_ctx)
 * @field: the field, a string of one of the types of is_string_field()
 * @pred:  the predicate: fn (and field_len) filled here
 *
 * Also raises the program's min_len to the bytes the function reads from a record.
 *
 * Context: under the filter's parse (no lock of the filter layer).
 */
static void pred_string_fn(struct parse_state *ps, const struct pfield *field,
			   struct filter_pred *pred)
{
	switch (field->type) {
	case FT_COMM:
		pred->fn = FFN_COMM;
		ps->prog->needs_ctx = true;
		break;
	case FT_STATIC_STRING:
		pred->fn = FFN_STRING;
		pred->field_len = (uint16_t)field->size;
		break;
	case FT_DYN_STRING:
		pred->fn = FFN_STRLOC;
		break;
	case FT_RDYN_STRING:
		pred->fn = FFN_STRRELLOC;
		break;
	default:
		/* char *: .ustring or not, a pointer into this process, copied safely */
		pred->fn = FFN_PCHAR;
		break;
	}
	if (pred->fn == FFN_PCHAR)
		need_len(ps->prog, field->offset + (unsigned int)sizeof(void *));
	else if (pred->fn == FFN_STRING)
		need_len(ps->prog, field->offset + field->size);
	else if (pred->fn != FFN_COMM)
		need_len(ps->prog, field->offset + 4u); /* the data_loc word */
}

/**
 * pred_string() - a quoted operand ('...' or "...") of a string field: `==`, `!=` or `~`
 * @ps:    the parse state (its error, its program)
 * @str:   the predicate's text
 * @pos:   the position of @str in the expression, one-based as the kernel's
 * @i:     the offset in @str of the opening quote
 * @field: the field
 * @pred:  the predicate: op set; fn, not, pattern and its match type filled here
 *
 * Context: under the filter's parse (no lock of the filter layer).
 * Return: the offset in @str past the closing quote, or a negative errno (the error set in @ps).
 */
static int pred_string(struct parse_state *ps, const char *str, int pos, int i,
		       const struct pfield *field, struct filter_pred *pred)
{
	char q = str[i];
	int s = i, len;

	switch (pred->op) {
	case FOP_NE:
		pred->not = 1;
		/* fall through */
	case FOP_GLOB:
	case FOP_EQ:
		break;
	default:
		parse_error(ps, FE_ILLEGAL_FIELD_OP, pos + i);
		return -EINVAL;
	}
	if (!is_string_field(field)) {
		parse_error(ps, FE_EXPECT_DIGIT, pos + i);
		return -EINVAL;
	}
	for (i++; str[i]; i++)
		if (str[i] == q)
			break;
	if (!str[i]) {
		parse_error(ps, FE_MISSING_QUOTE, pos + i);
		return -EINVAL;
	}
	s++;
	len = i - s;
	if (len >= FILTER_MAX_STR_VAL) {
		parse_error(ps, FE_OPERAND_TOO_LONG, pos + i);
		return -EINVAL;
	}
	pred->pattern = strndup(str + s, (size_t)len);
	if (!pred->pattern)
		return -ENOMEM;
	pred->plen = (uint32_t)len;
	build_regex(pred);
	pred_string_fn(ps, field, pred);
	return i + 1;
}

/**
 * pred_number() - a number operand (decimal, 0x hex or 0 octal, signed for a signed field)
 * @ps:    the parse state (its error, its program)
 * @str:   the predicate's text
 * @pos:   the position of @str in the expression, one-based as the kernel's
 * @i:     the offset in @str of the number (a digit or '-')
 * @field: the field (not a string)
 * @pred:  the predicate: op set; fn, not and val filled here
 *
 * Context: under the filter's parse (no lock of the filter layer).
 * Return: the offset in @str past the number, or a negative errno (the error set in @ps).
 */
static int pred_number(struct parse_state *ps, const char *str, int pos, int i,
		       const struct pfield *field, struct filter_pred *pred)
{
	char num_buf[24];
	int s = i, ret;
	uint64_t val;

	if (is_string_field(field)) {
		parse_error(ps, FE_EXPECT_STRING, pos + i);
		return -EINVAL;
	}
	if (pred->op == FOP_GLOB) {
		parse_error(ps, FE_ILLEGAL_FIELD_OP, pos + i);
		return -EINVAL;
	}
	if (str[i] == '-')
		i++;
	while (k_isalnum(str[i]))
		i++;
	if (!copy_number(ps, str, s, i, pos, num_buf, sizeof(num_buf)))
		return -EINVAL;
	ret = field->is_signed ? k_strtoll(num_buf, &val) : k_strtoull(num_buf, &val);
	if (ret) {
		parse_error(ps, FE_ILLEGAL_INTVAL, pos + s);
		return -EINVAL;
	}
	pred->val = val;
	if (field->type == FT_CPU) {
		pred->fn = FFN_CPU;
		ps->prog->needs_ctx = true;
	} else {
		pred->fn = comparison_fn(pred->op, field->size, field->is_signed);
		if (pred->op == FOP_NE)
			pred->not = 1;
		if (pred->fn != FFN_NOP)
			need_len(ps->prog, field->offset + field->size);
	}
	return i;
}

/**
 * parse_pred() - parse_pred() of the kernel: one `field op value`
 * @ps:   the parse state
 * @str:  the predicate's text
 * @pos:  the position of @str's first character in the expression, plus one (the kernel's
 *        positions are one past it, and so are ours)
 * @pred: the predicate, filled here
 *
 * The field and its suffix, the operator, then the operand by its kind (pred_function(),
 * pred_cpus(), pred_string(), pred_number()).
 *
 * Context: under the filter's parse (no lock of the filter layer).
 * Return: the bytes of @str consumed, or < 0 (-1: no field name, the kernel's -EPERM without
 * a message).
 */
static int parse_pred(struct parse_state *ps, const char *str, int pos, struct filter_pred *pred)
{
	bool function = false;
	struct pfield field;
	int i = 0, s, len, op;

	while (k_isspace(str[i]))
		i++;
	s = i;
	while (k_isalnum(str[i]) || str[i] == '_')
		i++;
	len = i - s;
	if (!len)
		return -1;	/* the kernel's -EPERM, without a message */

	if (!find_field(ps, str + s, (size_t)len, &field)) {
		parse_error(ps, FE_FIELD_NOT_FOUND, pos + i);
		return -EINVAL;
	}
	/* .ustring: a char * read as a user-space string, which every char * is here */
	if (!strncmp(str + i, ".ustring", 8))
		i += 8;
	if (!strncmp(str + i, ".function", 9)) {
		function = true;
		i += 9;
	}
	while (k_isspace(str[i]))
		i++;
	for (op = 0; filter_ops[op]; op++)
		if (!strncmp(str + i, filter_ops[op], strlen(filter_ops[op])))
			break;
	if (!filter_ops[op]) {
		parse_error(ps, FE_INVALID_OP, pos + i);
		return -EINVAL;
	}
	i += (int)strlen(filter_ops[op]);
	while (k_isspace(str[i]))
		i++;

	memset(pred, 0, sizeof(*pred));
	pred->offset = (uint16_t)field.offset;
	pred->op = (uint8_t)op;

	if (function)
		return pred_function(ps, str, pos, i, &field, pred);
	if (!strncmp(str + i, "CPUS", 4))
		return pred_cpus(ps, str, pos, i, &field, pred);
	if (str[i] == '\'' || str[i] == '"')
		return pred_string(ps, str, pos, i, &field, pred);
	if (k_isdigit(str[i]) || str[i] == '-')
		return pred_number(ps, str, pos, i, &field, pred);
	parse_error(ps, FE_INVALID_VALUE, pos + i);
	return -EINVAL;
}

/* ---- the two sweeps -------------------------------------------------------------------------- */

enum { TOO_MANY_CLOSE = -1, TOO_MANY_OPEN = -2, MISSING_QUOTE = -3 };

/* calc_stack(): count predicates and parentheses; find unbalanced ones and open quotes. */
static int calc_stack(const char *str, int *parens, int *preds, int *err)
{
	bool is_pred = false;
	int nr_preds = 0, open = 1, last_quote = 0, max_open = 1;
	char quote = 0;
	int i;

	*err = 0;
	for (i = 0; str[i]; i++) {
		if (k_isspace(str[i]))
			continue;
		if (quote) {
			if (str[i] == quote)
				quote = 0;
			continue;
		}
		switch (str[i]) {
		case '\'':
		case '"':
			quote = str[i];
			last_quote = i;
			break;
		case '|':
		case '&':
			if (str[i + 1] != str[i])
				break;
			is_pred = false;
			continue;
		case '(':
			is_pred = false;
			open++;
			if (open > max_open)
				max_open = open;
			continue;
		case ')':
			is_pred = false;
			if (open == 1) {
				*err = i;
				return TOO_MANY_CLOSE;
			}
			open--;
			continue;
		}
		if (!is_pred) {
			nr_preds++;
			is_pred = true;
		}
	}
	if (quote) {
		*err = last_quote;
		return MISSING_QUOTE;
	}
	if (open != 1) {
		int level = open;

		/* Find the '(' left open, backwards; index 0 is never looked at. */
		for (i--; i; i--) {
			if (quote) {
				if (str[i] == quote)
					quote = 0;
				continue;
			}
			switch (str[i]) {
			case '(':
				if (level == open) {
					*err = i;
					return TOO_MANY_OPEN;
				}
				level--;
				break;
			case ')':
				level++;
				break;
			case '\'':
			case '"':
				quote = str[i];
				break;
			}
		}
		*err = 0;
		return TOO_MANY_OPEN;
	}
	*parens = max_open;
	*preds = nr_preds;
	return 0;
}

enum { INVERT = 1, PROCESS_AND = 2, PROCESS_OR = 4 };

static bool is_not(const char *str)
{
	return str[1] != '=' && str[1] != '~';
}

static void update_preds(struct filter_entry *prog, int n, int invert)
{
	int t = prog[n].target, s;

	if (t < 0)
		return;		/* cannot happen: the kernel would read prog[-1] */
	s = prog[t].target;
	prog[t].when_to_branch = invert;
	prog[t].target = n;
	prog[n].target = s;
}

/* The opcode for a predicate that needs no more than a load and a compare, or OPC_SLOW. */
static uint8_t opcode_of(const struct filter_pred *p)
{
	static const uint8_t cmp[][2] = {
		[FOP_LT] = { OPC_LT_U8, OPC_LT_S8 }, [FOP_LE] = { OPC_LE_U8, OPC_LE_S8 },
		[FOP_GT] = { OPC_GT_U8, OPC_GT_S8 }, [FOP_GE] = { OPC_GE_U8, OPC_GE_S8 },
		[FOP_BAND] = { OPC_BAND8, OPC_BAND8 },
	};

	if (p->fn >= FFN_EQ8 && p->fn <= FFN_EQ64)
		return (uint8_t)((p->not ? OPC_NE8 : OPC_EQ8) + (p->fn - FFN_EQ8));
	if (p->fn >= FFN_S8 && p->fn <= FFN_S64 && p->op >= FOP_LE && p->op <= FOP_BAND)
		return (uint8_t)(cmp[p->op][p->op != FOP_BAND] + (p->fn - FFN_S8));
	if (p->fn >= FFN_U8 && p->fn <= FFN_U64 && p->op >= FOP_LE && p->op <= FOP_BAND)
		return (uint8_t)(cmp[p->op][0] + (p->fn - FFN_U8));
	return OPC_SLOW;
}

/* The program filter_match() runs, from the kernel's entries. */
static int build_insns(struct filter_prog *fp)
{
	int n = fp->nr_preds;

	fp->insns = calloc((size_t)n + 2, sizeof(*fp->insns));
	if (!fp->insns)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct filter_pred *p = fp->entries[i].pred;
		struct filter_insn *in = &fp->insns[i];

		in->opc = opcode_of(p);
		in->when = (uint8_t)fp->entries[i].when_to_branch;
		in->offset = p->offset;
		/* the kernel sets i = target, then its loop's i++ */
		in->jump = (uint32_t)fp->entries[i].target + 1;
		in->val = in->opc == OPC_SLOW ? (uint64_t)i : p->val;
	}
	fp->insns[n].opc = OPC_TRUE;
	fp->insns[n + 1].opc = OPC_FALSE;
	return 0;
}

/*
 * link_passes() - the end of the kernel's first pass (the TRUE and FALSE
 * entries after the @n predicates of @prog), then its second and third
 * passes: jumps to a branch on the same condition take that branch's
 * target, and the @inverts fold into the branch conditions.
 * Return: 0, or -EINVAL for a program that would not move forward.
 */
static int link_passes(struct filter_entry *prog, const char *inverts, int n)
{
	int i;

	prog[n].pred = NULL;
	prog[n].target = 1;		/* TRUE */
	prog[n + 1].pred = NULL;
	prog[n + 1].target = 0;		/* FALSE */
	prog[n - 1].target = n;
	prog[n - 1].when_to_branch = false;

	/* Second pass: a jump to a branch on the same condition takes that branch's target. */
	for (i = n - 1; i--;) {
		int target = prog[i].target;

		/*
		 * A trailing && or || leaves a target at -1: the kernel reads prog[-1]
		 * here, then rejects the program in the third pass (EINVAL, no message:
		 * "Error: (0)"). We do not read it and reject the same way.
		 */
		if (target < 0)
			continue;
		if (prog[i].when_to_branch == prog[target].when_to_branch)
			prog[i].target = prog[target].target;
	}
	/* Third pass: fold the inverts into the branch conditions. */
	for (i = 0; i < n; i++) {
		prog[i].when_to_branch = inverts[i] ^ prog[i].when_to_branch;
		if (prog[i].target <= i)
			return -EINVAL;	/* the kernel WARNs: the program must move forward */
	}
	return 0;
}

/* predicate_parse(): the program, in the kernel's three passes. Return 0 or a negative errno. */
static int predicate_parse(struct parse_state *ps, int nr_parens, int nr_preds)
{
	const char *str = ps->str, *ptr = str;
	struct filter_prog *fp = ps->prog;
	struct filter_entry *prog;
	int *op_stack, *top;
	char *inverts;
	int invert = 0, ret = -ENOMEM, n = 0, len;

	nr_preds += 2;	/* TRUE and FALSE */
	/* The kernel's check below lets top reach nr_parens: one more entry than it allocates. */
	op_stack = calloc((size_t)nr_parens + 2, sizeof(*op_stack));
	prog = calloc((size_t)nr_preds, sizeof(*prog));
	inverts = calloc((size_t)nr_preds, 1);
	fp->preds = calloc((size_t)nr_preds, sizeof(*fp->preds));
	fp->entries = prog;
	if (!op_stack || !prog || !inverts || !fp->preds)
		goto out_free;

	top = op_stack;
	*top = 0;
	while (*ptr) {
		const char *next = ptr++;

		if (k_isspace(*next))
			continue;
		switch (*next) {
		case '(':
			if (top - op_stack > nr_parens) {
				ret = -EINVAL;
				goto out_free;
			}
			*(++top) = invert;
			continue;
		case '!':
			if (!is_not(next))
				break;
			invert = !invert;
			continue;
		}
		if (n >= nr_preds) {
			parse_error(ps, FE_TOO_MANY_PREDS, (int)(next - str));
			goto out_free;
		}
		inverts[n] = (char)invert;
		prog[n].target = n - 1;
		len = parse_pred(ps, next, (int)(ptr - str), &fp->preds[n]);
		if (len < 0) {
			ret = len;
			/* a pattern or mask may have been allocated before the error */
			free(fp->preds[n].pattern);
			free(fp->preds[n].mask);
			fp->preds[n].pattern = NULL;
			fp->preds[n].mask = NULL;
			goto out_free;
		}
		prog[n].pred = &fp->preds[n];
		ptr = next + len;
		n++;

		ret = -1;
		for (;;) {
			next = ptr++;
			if (k_isspace(*next))
				continue;
			switch (*next) {
			case ')':
			case '\0':
				break;
			case '&':
			case '|':
				if (next[1] == next[0]) {
					ptr++;
					break;
				}
				/* fall through */
			default:
				parse_error(ps, FE_TOO_MANY_PREDS, (int)(next - str));
				goto out_free;
			}
			invert = *top & INVERT;
			if (*top & PROCESS_AND) {
				update_preds(prog, n - 1, invert);
				*top &= ~PROCESS_AND;
			}
			if (*next == '&') {
				*top |= PROCESS_AND;
				break;
			}
			if (*top & PROCESS_OR) {
				update_preds(prog, n - 1, !invert);
				*top &= ~PROCESS_OR;
			}
			if (*next == '|') {
				*top |= PROCESS_OR;
				break;
			}
			if (!*next)
				goto out;
			if (top == op_stack) {
				ret = -1;
				parse_error(ps, FE_TOO_MANY_CLOSE, (int)(ptr - str));
				goto out_free;
			}
			top--;
		}
	}
out:
	if (top != op_stack) {
		parse_error(ps, FE_TOO_MANY_OPEN, (int)(ptr - str));
		goto out_free;
	}
	if (!n) {
		ret = -EINVAL;
		parse_error(ps, FE_NO_FILTER, (int)(ptr - str));
		goto out_free;
	}
	ret = link_passes(prog, inverts, n);
	if (ret)
		goto out_free;
	fp->nr_preds = n;
	free(op_stack);
	free(inverts);
	return build_insns(fp);

out_free:
	free(op_stack);
	free(inverts);
	fp->nr_preds = n;
	return ret;
}

/* ---- the contract ---------------------------------------------------------------------------- */

void filter_free(struct filter_prog *prog)
{
	if (!prog)
		return;
	if (prog->preds) {
		for (int i = 0; i < prog->nr_preds; i++) {
			free(prog->preds[i].pattern);
			free(prog->preds[i].mask);
		}
	}
	free(prog->preds);
	free(prog->entries);
	free(prog->insns);
	free(prog->text);
	free(prog);
}

bool filter_prog_uses_ctx(const struct filter_prog *prog)
{
	return prog && prog->needs_ctx;
}

const char *filter_prog_text(const struct filter_prog *prog)
{
	return prog ? prog->text : "none";
}

static int nr_cpu_ids(void)
{
	int n = get_nprocs_conf();

	return n > 0 ? n : 1;
}

int filter_compile(const struct evt_field *fields, size_t nr_fields, const char *expr,
		   struct filter_prog **progp, struct filter_error *err)
{
	struct parse_state ps = { .fields = fields, .nr_fields = nr_fields };
	struct filter_error e = { 0 };
	int nr_parens = 0, nr_preds = 0, index, ret;
	struct filter_prog *prog;
	const char *p;
	size_t len;
	char *text;

	if (!expr)
		return -EINVAL;
	/* strstrip(): trailing white space goes; leading white space stays in the text. */
	len = strlen(expr);
	while (len && k_isspace(expr[len - 1]))
		len--;
	text = strndup(expr, len);
	if (!text)
		return -ENOMEM;
	for (p = text; k_isspace(*p); p++)
		;
	if (!strcmp(p, "0")) {
		free(text);
		*progp = NULL;
		return 0;
	}

	prog = calloc(1, sizeof(*prog));
	if (!prog) {
		free(text);
		return -ENOMEM;
	}
	prog->text = text;
	ps.str = text;
	ps.prog = prog;
	ps.nr_cpus = nr_cpu_ids();

	ret = calc_stack(text, &nr_parens, &nr_preds, &index);
	if (ret < 0) {
		parse_error(&ps, ret == MISSING_QUOTE ? FE_MISSING_QUOTE :
				 ret == TOO_MANY_OPEN ? FE_TOO_MANY_OPEN : FE_TOO_MANY_CLOSE,
			    index);
	} else if (!nr_preds) {
		ret = -EINVAL;
	} else {
		ret = predicate_parse(&ps, nr_parens, nr_preds);
	}
	if (!ret) {
		size_t code = ((size_t)prog->nr_preds + 2) * sizeof(struct filter_insn);
		struct filter_prog *final = malloc(sizeof(*prog) + code);

		if (!final) {
			filter_free(prog);
			return -ENOMEM;
		}
		*final = *prog;
		memcpy(final->code, prog->insns, code);
		final->insns = NULL;
		free(prog->insns);
		free(prog);
		*progp = final;
		return 0;
	}

	if (ret == -ENOMEM && !ps.lasterr) {
		filter_free(prog);
		return -ENOMEM;
	}
	e.errnum = -ret;
	if (ps.lasterr > 0) {
		e.msg = err_text[ps.lasterr];
		e.log_msg = e.msg;
		e.log_pos = ps.lasterr_pos;
		e.pos = ps.lasterr_pos > (int)len ? (int)len : ps.lasterr_pos;
	} else {
		e.msg = NULL;
		e.log_msg = err_text[FE_ERRNO];
		e.log_pos = 0;
		e.pos = 0;
	}
	if (err)
		*err = e;
	filter_free(prog);
	return ret;
}

int filter_error_format(const char *expr, const struct filter_error *err, char *buf, size_t size)
{
	size_t len = strlen(expr);

	while (len && k_isspace(expr[len - 1]))
		len--;
	if (!err->msg)
		return snprintf(buf, size, "%.*s\nError: (0)\n", (int)len, expr);
	return snprintf(buf, size, "%.*s\n%*s\nparse_error: %s\n", (int)len, expr, err->pos + 1,
			"^", err->msg);
}

void filter_error_subsystem(struct filter_error *err)
{
	err->pos = 0;
	err->errnum = EINVAL;
	err->msg = err_text[FE_BAD_SUBSYS_FILTER];
	err->log_pos = 0;
	err->log_msg = err->msg;
}
