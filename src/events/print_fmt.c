// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events/print_fmt.c - the print-format interpreter.
 *
 * A `print fmt:` line is a C format string and C argument expressions
 * over REC (the record): "\"a=%d s=%s\", REC->a, __get_str(s)". Parsed
 * once per event into segments (literal text, conversions) and argument
 * trees; each record is then printed by evaluating the trees against it.
 *
 * The record is untrusted (it may come from another process or a corrupt
 * page): every read is checked against its length; a field out of bounds
 * reads as 0 or "". Parsing is bounded too (nesting depth, sizes), and
 * a text that does not parse gives NULL: the caller prints raw fields.
 *
 * Arguments: integer, char and string literals; REC->field and
 * REC->field[i]; casts; unary - ! ~; binary * / % + - << >> < <= > >=
 * == != & ^ | && ||; ?:; __get_str, __get_rel_str, __get_dynamic_array,
 * __get_dynamic_array_len, __get_bitmask, __get_cpumask (and their __get_rel_
 * forms), __print_flags(_u64), __print_symbolic(_u64), __print_hex,
 * __print_hex_str, __print_array.
 * Conversions: %d %i %u %x %X %o %c %s %p (%ps %pS %pB %pF %pf %px %pK)
 * %% with flags "-+ #0", width, precision (or *) and length hh h l ll z j t.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/seq.h>

#include "events/event_internal.h"

#define PF_MAX_DEPTH	48
#define PF_MAX_ARGS	64
#define PF_MAX_SYMS	256
#define PF_SCRATCH	2048
#define PF_MAX_WIDTH	256

enum node_kind {
	N_INT, N_STR, N_FIELD, N_GET_STR, N_GET_DYN, N_GET_DYN_LEN, N_FLAGS, N_SYMBOLIC,
	N_HEX,
	N_HEX_STR,
	N_ARRAY,
	N_BITMASK,
	N_UNARY,
	N_BINARY,
	N_TERNARY,
	N_CAST,
	N_INDEX,
	N_IDENT,
};

struct sym {
	uint64_t val;
	char *name;
};

struct node {
	uint8_t kind;
	uint8_t cast_size;		/* N_CAST: 1 2 4 8, 0 = pointer/none */
	uint8_t cast_signed;
	int op;				/* N_UNARY/N_BINARY: operator token */
	uint64_t ival;
	char *str;			/* N_STR; N_FLAGS: delimiter */
	size_t slen;
	const struct evt_field *field;
	struct node *a, *b, *c;
	struct sym *syms;
	unsigned int nr_syms;
};

struct seg {
	char *text;			/* literal, or NULL for a conversion */
	size_t len;
	char flags[8];
	int width;			/* -1 none, -2 '*' */
	int prec;			/* -1 none, -2 '*' */
	char lenmod[3];
	char conv;
	char pext;			/* %p extension letter, or 0 */
};

struct print_fmt {
	struct seg *segs;
	unsigned int nr_segs;
	struct node **args;
	unsigned int nr_args;
	void **allocs;			/* everything to free */
	size_t nr_allocs, cap_allocs;
};

/* --- allocation: everything hangs off the print_fmt ----------------------------------- */

static void *pf_alloc(struct print_fmt *pf, size_t size)
{
	void *p;

	if (pf->nr_allocs == pf->cap_allocs) {
		size_t cap = pf->cap_allocs ? pf->cap_allocs * 2 : 32;
		void **n = realloc(pf->allocs, cap * sizeof(*n));

		if (!n)
			return NULL;
		pf->allocs = n;
		pf->cap_allocs = cap;
	}
	p = calloc(1, size ? size : 1);
	if (p)
		pf->allocs[pf->nr_allocs++] = p;
	return p;
}

void print_fmt_free(struct print_fmt *pf)
{
	if (!pf)
		return;
	for (size_t i = 0; i < pf->nr_allocs; i++)
		free(pf->allocs[i]);
	free(pf->allocs);
	free(pf);
}

/* --- tokens ----------------------------------------------------------------------------- */

enum tok_kind { T_END, T_NUM, T_STR, T_CHAR, T_IDENT, T_PUNCT, T_BAD };

/* Two-character operators get codes above 255. */
enum {
	OP_ARROW = 256, OP_LOR, OP_LAND, OP_EQ, OP_NE, OP_LE, OP_GE, OP_SHL, OP_SHR,
};

struct parser {
	struct print_fmt *pf;
	const struct evt_field *fields;
	size_t nr_fields;
	const char *p, *end;
	int depth;
	bool error;
	/* current token */
	int kind;
	int punct;
	uint64_t num;
	char *text;			/* T_STR / T_IDENT (allocated) */
	size_t tlen;
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escaped character of a C literal at *pp (after the backslash). */
static int unescape(const char **pp, const char *end)
{
	const char *p = *pp;
	int c;

	if (p >= end)
		return -1;
	c = *p++;
	switch (c) {
	case 'n': c = '\n'; break;
	case 't': c = '\t'; break;
	case 'r': c = '\r'; break;
	case 'a': c = '\a'; break;
	case 'b': c = '\b'; break;
	case 'f': c = '\f'; break;
	case 'v': c = '\v'; break;
	case 'e': c = 27; break;
	case 'x': {
		int v = 0, n = 0;

		while (p < end && hexval(*p) >= 0 && n < 2) {
			v = v * 16 + hexval(*p++);
			n++;
		}
		c = v;
		break;
	}
	default:
		if (c >= '0' && c <= '7') {
			int v = c - '0', n = 1;

			while (p < end && *p >= '0' && *p <= '7' && n < 3) {
				v = v * 8 + (*p++ - '0');
				n++;
			}
			c = v & 0xff;
		}
		break;
	}
	*pp = p;
	return c;
}

static void next(struct parser *ps)
{
	const char *p = ps->p;

	while (p < ps->end && isspace((unsigned char)*p))
		p++;
	ps->text = NULL;
	if (p >= ps->end) {
		ps->kind = T_END;
		ps->p = p;
		return;
	}
	if (isdigit((unsigned char)*p)) {
		char *e;

		errno = 0;
		ps->num = strtoull(p, &e, 0);
		if (e == p || e > ps->end)
			e = (char *)p + 1;
		p = e;
		while (p < ps->end && (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L'))
			p++;
		ps->kind = T_NUM;
	} else if (*p == '"') {
		/* adjacent literals concatenate */
		size_t cap = (size_t)(ps->end - p) + 1, n = 0;
		char *s = pf_alloc(ps->pf, cap);

		if (!s) {
			ps->kind = T_BAD;
			return;
		}
		while (p < ps->end && *p == '"') {
			p++;
			while (p < ps->end && *p != '"') {
				int c = (unsigned char)*p++;

				if (c == '\\') {
					c = unescape(&p, ps->end);
					if (c < 0)
						break;
				}
				s[n++] = (char)c;
			}
			if (p >= ps->end) {
				ps->kind = T_BAD;
				ps->p = p;
				return;
			}
			p++;
			while (p < ps->end && isspace((unsigned char)*p))
				p++;
		}
		s[n] = '\0';
		ps->text = s;
		ps->tlen = strlen(s);	/* a C string ends at its first NUL ("\0", "\x") */
		ps->kind = T_STR;
	} else if (*p == '\'') {
		int c;

		p++;
		if (p >= ps->end) {
			ps->kind = T_BAD;
			return;
		}
		c = (unsigned char)*p++;
		if (c == '\\')
			c = unescape(&p, ps->end);
		if (c < 0 || p >= ps->end || *p != '\'') {
			ps->kind = T_BAD;
			ps->p = p;
			return;
		}
		p++;
		ps->num = (uint64_t)c;
		ps->kind = T_NUM;
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		const char *s = p;
		char *t;

		while (p < ps->end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		t = pf_alloc(ps->pf, (size_t)(p - s) + 1);
		if (!t) {
			ps->kind = T_BAD;
			return;
		}
		memcpy(t, s, (size_t)(p - s));
		ps->text = t;
		ps->tlen = (size_t)(p - s);
		ps->kind = T_IDENT;
	} else {
		static const struct { const char *s; int op; } two[] = {
			{ "->", OP_ARROW }, { "||", OP_LOR }, { "&&", OP_LAND }, { "==", OP_EQ },
			{ "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE }, { "<<", OP_SHL },
			{ ">>", OP_SHR },
		};

		ps->kind = T_PUNCT;
		ps->punct = (unsigned char)*p;
		for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++)
			if (p + 1 < ps->end && p[0] == two[i].s[0] && p[1] == two[i].s[1]) {
				ps->punct = two[i].op;
				p++;
				break;
			}
		p++;
		if (!strchr("(){}[],?:|^&<>+-*/%!~.", ps->punct) && ps->punct < 256)
			ps->kind = T_BAD;
	}
	ps->p = p;
}

static bool is_punct(struct parser *ps, int c)
{
	return ps->kind == T_PUNCT && ps->punct == c;
}

static bool expect(struct parser *ps, int c)
{
	if (!is_punct(ps, c)) {
		ps->error = true;
		return false;
	}
	next(ps);
	return true;
}

static struct node *node_new(struct parser *ps, int kind)
{
	struct node *n = pf_alloc(ps->pf, sizeof(*n));

	if (!n)
		ps->error = true;
	else
		n->kind = (uint8_t)kind;
	return n;
}

static const struct evt_field *find_field(struct parser *ps, const char *name)
{
	for (size_t i = 0; i < ps->nr_fields; i++)
		if (!strcmp(ps->fields[i].name, name))
			return &ps->fields[i];
	return NULL;
}

/* --- expressions ------------------------------------------------------------------------ */

static struct node *parse_expr(struct parser *ps);
static struct node *parse_ternary(struct parser *ps);
static struct node *parse_unary(struct parser *ps);

static const char *const type_words[] = {
	"void", "char", "short", "int", "long", "unsigned", "signed", "bool", "_Bool", "const",
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "size_t", "ssize_t", "pid_t",
	"uint8_t", "uint16_t", "uint32_t", "uint64_t", "int8_t", "int16_t", "int32_t",
	"int64_t", "uintptr_t", "struct", "enum", "gfp_t", "__u8", "__u16", "__u32", "__u64",
	"__s8", "__s16", "__s32", "__s64", "uint", "ulong", "ushort", "uchar",
};

/* A typedef by its name: "loff_t", "__kernel_rwf_t". */
static bool is_typedef_name(const char *s)
{
	size_t n = strlen(s);

	return n > 2 && s[n - 2] == '_' && s[n - 1] == 't';
}

static bool is_type_word(const char *s)
{
	for (size_t i = 0; i < sizeof(type_words) / sizeof(type_words[0]); i++)
		if (!strcmp(s, type_words[i]))
			return true;
	return is_typedef_name(s);
}

/* After '(' with a type word current: read the type up to ')'; fill size/sign. */
static void parse_cast_type(struct parser *ps, struct node *n)
{
	int longs = 0, size = 4;
	bool uns = false, ptr = false, explicit_size = false, known = false;

	while (ps->kind == T_IDENT || is_punct(ps, '*')) {
		if (ps->kind == T_PUNCT) {
			ptr = true;
		} else {
			const char *w = ps->text;

			if (!is_typedef_name(w) || !strcmp(w, "size_t") || !strcmp(w, "ssize_t") ||
			    strstr(w, "int"))
				known = true;
			if (!strcmp(w, "unsigned"))
				uns = true;
			else if (!strcmp(w, "char") || !strcmp(w, "bool") || !strcmp(w, "_Bool"))
				size = 1;
			else if (!strcmp(w, "short") || !strcmp(w, "ushort"))
				size = 2;
			else if (!strcmp(w, "uchar"))
				size = 1;
			else if (!strcmp(w, "ulong"))
				size = 8, explicit_size = true;
			else if (!strcmp(w, "long"))
				longs++;
			else if (!strcmp(w, "size_t") || !strcmp(w, "uintptr_t"))
				size = 8, uns = true, explicit_size = true;
			else if (!strcmp(w, "ssize_t"))
				size = 8, explicit_size = true;
			else if (w[0] == 'u' || (w[0] == '_' && w[1] == '_' && w[2] == 'u'))
				uns = true;
			if (strstr(w, "8") && !strstr(w, "16") && !strstr(w, "128"))
				size = 1, explicit_size = true;
			else if (strstr(w, "16"))
				size = 2, explicit_size = true;
			else if (strstr(w, "32"))
				size = 4, explicit_size = true;
			else if (strstr(w, "64"))
				size = 8, explicit_size = true;
		}
		next(ps);
	}
	if (longs && !explicit_size)
		size = 8;
	if (ptr)
		size = 8, uns = true;
	if (!known && !ptr && !explicit_size)
		size = 0;	/* a typedef we do not know: the value passes unchanged */
	n->cast_size = (uint8_t)size;
	n->cast_signed = !uns;
	expect(ps, ')');
}

static bool parse_field_arg(struct parser *ps, struct node *n)
{
	if (!expect(ps, '('))
		return false;
	/* __get_str(field) or __get_str(REC->field)? the kernel's text has the bare name */
	if (ps->kind != T_IDENT) {
		ps->error = true;
		return false;
	}
	n->field = find_field(ps, ps->text);
	if (!n->field) {
		ps->error = true;
		return false;
	}
	next(ps);
	return expect(ps, ')');
}

/* Evaluate a constant expression at parse time (symbol tables). */
static uint64_t const_eval(const struct node *n);

static bool parse_syms(struct parser *ps, struct node *n)
{
	struct sym *syms = pf_alloc(ps->pf, PF_MAX_SYMS * sizeof(*syms));

	if (!syms) {
		ps->error = true;
		return false;
	}
	n->syms = syms;
	while (is_punct(ps, ',')) {
		struct node *v;

		next(ps);
		if (!expect(ps, '{'))
			return false;
		if (is_punct(ps, '}')) {	/* "{ }": the kernel's empty table end */
			next(ps);
			continue;
		}
		v = parse_ternary(ps);
		if (!v || ps->error || !expect(ps, ','))
			return false;
		if (ps->kind != T_STR) {
			/* { -1, NULL }: a table's end marker, no name */
			if (!parse_ternary(ps) || !expect(ps, '}'))
				return false;
			continue;
		}
		if (n->nr_syms < PF_MAX_SYMS) {
			syms[n->nr_syms].val = const_eval(v);
			syms[n->nr_syms].name = ps->text;
			n->nr_syms++;
		}
		next(ps);
		if (!expect(ps, '}'))
			return false;
	}
	return expect(ps, ')');
}

static struct node *parse_call(struct parser *ps, const char *name)
{
	struct node *n = NULL;

	if (!strcmp(name, "__get_str") || !strcmp(name, "__get_rel_str")) {
		n = node_new(ps, N_GET_STR);
		if (n)
			parse_field_arg(ps, n);
	} else if (!strcmp(name, "__get_dynamic_array") ||
		   !strcmp(name, "__get_rel_dynamic_array")) {
		n = node_new(ps, N_GET_DYN);
		if (n)
			parse_field_arg(ps, n);
	} else if (!strcmp(name, "__get_dynamic_array_len") ||
		   !strcmp(name, "__get_rel_dynamic_array_len")) {
		n = node_new(ps, N_GET_DYN_LEN);
		if (n)
			parse_field_arg(ps, n);
	} else if (!strcmp(name, "__get_bitmask") || !strcmp(name, "__get_cpumask") ||
		   !strcmp(name, "__get_rel_bitmask") || !strcmp(name, "__get_rel_cpumask")) {
		n = node_new(ps, N_BITMASK);
		if (n)
			parse_field_arg(ps, n);
	} else if (!strcmp(name, "__print_flags") || !strcmp(name, "__print_flags_u64")) {
		n = node_new(ps, N_FLAGS);
		if (!n || !expect(ps, '('))
			return NULL;
		n->a = parse_ternary(ps);
		if (!n->a || !expect(ps, ','))
			return NULL;
		if (ps->kind != T_STR) {
			ps->error = true;
			return NULL;
		}
		n->str = ps->text;
		next(ps);
		parse_syms(ps, n);
	} else if (!strcmp(name, "__print_symbolic") || !strcmp(name, "__print_symbolic_u64")) {
		n = node_new(ps, N_SYMBOLIC);
		if (!n || !expect(ps, '('))
			return NULL;
		n->a = parse_ternary(ps);
		if (!n->a)
			return NULL;
		parse_syms(ps, n);
	} else if (!strcmp(name, "__print_hex") || !strcmp(name, "__print_hex_str") ||
		   !strcmp(name, "__print_array")) {
		n = node_new(ps, name[8] == 'a' ? N_ARRAY :
				 (name[11] == '_' ? N_HEX_STR : N_HEX));
		if (!n || !expect(ps, '('))
			return NULL;
		n->a = parse_ternary(ps);
		if (!n->a || !expect(ps, ','))
			return NULL;
		n->b = parse_ternary(ps);
		if (!n->b)
			return NULL;
		if (n->kind == N_ARRAY) {
			if (!expect(ps, ','))
				return NULL;
			n->c = parse_ternary(ps);
			if (!n->c)
				return NULL;
		}
		expect(ps, ')');
	} else if (!strcmp(name, "sizeof")) {
		/* sizeof(type) of the basic types a format may use */
		n = node_new(ps, N_INT);
		if (!n || !expect(ps, '('))
			return NULL;
		if (ps->kind != T_IDENT || !is_type_word(ps->text)) {
			ps->error = true;
			return NULL;
		}
		{
			struct node t = { 0 };

			parse_cast_type(ps, &t);	/* eats the ')' */
			n->ival = t.cast_size;
		}
	} else if (!strcmp(name, "__builtin_expect")) {
		/* __builtin_expect(x, hint) is x */
		if (!expect(ps, '('))
			return NULL;
		n = parse_ternary(ps);
		if (!n || !expect(ps, ','))
			return NULL;
		if (!parse_ternary(ps))
			return NULL;
		expect(ps, ')');
	} else {
		ps->error = true;
	}
	return ps->error ? NULL : n;
}

static struct node *parse_primary(struct parser *ps)
{
	struct node *n;

	switch (ps->kind) {
	case T_NUM:
		n = node_new(ps, N_INT);
		if (n)
			n->ival = ps->num;
		next(ps);
		return n;
	case T_STR:
		n = node_new(ps, N_STR);
		if (n) {
			n->str = ps->text;
			n->slen = ps->tlen;
		}
		next(ps);
		return n;
	case T_IDENT: {
		const char *name = ps->text;

		next(ps);
		if (!strcmp(name, "REC")) {
			if (!is_punct(ps, OP_ARROW) && !is_punct(ps, '.')) {
				/* "(REC)->field": the arrow comes after the parenthesis */
				n = node_new(ps, N_IDENT);
				if (n)
					n->str = (char *)name;
				return n;
			}
			next(ps);
			if (ps->kind != T_IDENT) {
				ps->error = true;
				return NULL;
			}
			n = node_new(ps, N_FIELD);
			if (!n)
				return NULL;
			n->field = find_field(ps, ps->text);
			if (!n->field) {
				ps->error = true;
				return NULL;
			}
			next(ps);
			return n;
		}
		if (is_punct(ps, '('))
			return parse_call(ps, name);
		/* an enum constant or a macro the text kept: it reads as 0 */
		n = node_new(ps, N_IDENT);
		if (n)
			n->str = (char *)name;
		return n;
	}
	case T_PUNCT:
		if (ps->punct == '(') {
			next(ps);
			if (ps->kind == T_IDENT && is_type_word(ps->text)) {
				n = node_new(ps, N_CAST);
				if (!n)
					return NULL;
				parse_cast_type(ps, n);
				n->a = parse_unary(ps);
				return ps->error ? NULL : n;
			}
			n = parse_expr(ps);
			expect(ps, ')');
			return ps->error ? NULL : n;
		}
		break;
	default:
		break;
	}
	ps->error = true;
	return NULL;
}

static struct node *parse_postfix(struct parser *ps)
{
	struct node *n = parse_primary(ps);

	while (n && !ps->error && n->kind == N_IDENT && !strcmp(n->str, "REC") &&
	       (is_punct(ps, OP_ARROW) || is_punct(ps, '.'))) {
		next(ps);
		if (ps->kind != T_IDENT) {
			ps->error = true;
			return NULL;
		}
		n->kind = N_FIELD;
		n->field = find_field(ps, ps->text);
		if (!n->field) {
			ps->error = true;
			return NULL;
		}
		next(ps);
	}
	while (n && !ps->error && is_punct(ps, '[')) {
		struct node *ix = node_new(ps, N_INDEX);

		next(ps);
		if (!ix)
			return NULL;
		ix->a = n;
		ix->b = parse_expr(ps);
		expect(ps, ']');
		n = ix;
	}
	return ps->error ? NULL : n;
}

static struct node *parse_unary(struct parser *ps)
{
	struct node *n;

	if (++ps->depth > PF_MAX_DEPTH) {
		ps->error = true;
		return NULL;
	}
	if (ps->kind == T_PUNCT && (ps->punct == '-' || ps->punct == '!' || ps->punct == '~' ||
				    ps->punct == '+' || ps->punct == '&' || ps->punct == '*')) {
		n = node_new(ps, N_UNARY);
		if (!n)
			return NULL;
		n->op = ps->punct;
		next(ps);
		n->a = parse_unary(ps);
		if (!n->a)
			n = NULL;
	} else {
		n = parse_postfix(ps);
	}
	ps->depth--;
	return ps->error ? NULL : n;
}

static int binop_prec(int op)
{
	switch (op) {
	case '*': case '/': case '%': return 10;
	case '+': case '-': return 9;
	case OP_SHL: case OP_SHR: return 8;
	case '<': case '>': case OP_LE: case OP_GE: return 7;
	case OP_EQ: case OP_NE: return 6;
	case '&': return 5;
	case '^': return 4;
	case '|': return 3;
	case OP_LAND: return 2;
	case OP_LOR: return 1;
	default: return 0;
	}
}

static struct node *parse_binary(struct parser *ps, int min_prec)
{
	struct node *lhs = parse_unary(ps);

	while (lhs && !ps->error && ps->kind == T_PUNCT) {
		int op = ps->punct, prec = binop_prec(op);
		struct node *n;

		if (!prec || prec < min_prec)
			break;
		if (++ps->depth > PF_MAX_DEPTH) {
			ps->error = true;
			return NULL;
		}
		next(ps);
		n = node_new(ps, N_BINARY);
		if (!n)
			return NULL;
		n->op = op;
		n->a = lhs;
		n->b = parse_binary(ps, prec + 1);
		ps->depth--;
		if (!n->b)
			return NULL;
		lhs = n;
	}
	return ps->error ? NULL : lhs;
}

static struct node *parse_ternary(struct parser *ps)
{
	struct node *cond, *n;

	if (++ps->depth > PF_MAX_DEPTH) {
		ps->error = true;
		return NULL;
	}
	cond = parse_binary(ps, 1);
	if (cond && !ps->error && is_punct(ps, '?')) {
		next(ps);
		n = node_new(ps, N_TERNARY);
		if (!n)
			return NULL;
		n->a = cond;
		n->b = parse_expr(ps);
		if (!n->b || !expect(ps, ':'))
			return NULL;
		n->c = parse_ternary(ps);
		cond = n->c ? n : NULL;
	}
	ps->depth--;
	return ps->error ? NULL : cond;
}

static struct node *parse_expr(struct parser *ps)
{
	return parse_ternary(ps);
}

/* --- the format string ---------------------------------------------------------------- */

static bool parse_format(struct parser *ps, const char *fmt, size_t len)
{
	struct print_fmt *pf = ps->pf;
	size_t i = 0, cap = 8;

	pf->segs = pf_alloc(pf, cap * sizeof(*pf->segs));
	if (!pf->segs)
		return false;
	while (i < len) {
		struct seg *sg;

		if (pf->nr_segs == cap) {
			struct seg *n = pf_alloc(pf, cap * 2 * sizeof(*n));

			if (!n)
				return false;
			memcpy(n, pf->segs, cap * sizeof(*n));
			pf->segs = n;
			cap *= 2;
		}
		sg = &pf->segs[pf->nr_segs++];
		if (fmt[i] != '%' || (i + 1 < len && fmt[i + 1] == '%')) {
			size_t s = i;

			if (fmt[i] == '%') {
				sg->text = (char *)"%";
				sg->len = 1;
				i += 2;
				continue;
			}
			while (i < len && fmt[i] != '%')
				i++;
			sg->text = (char *)fmt + s;
			sg->len = i - s;
			continue;
		}
		i++;
		{
			size_t nf = 0;

			while (i < len && strchr("-+ #0", fmt[i]) && nf < sizeof(sg->flags) - 1)
				sg->flags[nf++] = fmt[i++];
		}
		sg->width = -1;
		sg->prec = -1;
		if (i < len && fmt[i] == '*') {
			sg->width = -2;
			i++;
		} else if (i < len && isdigit((unsigned char)fmt[i])) {
			sg->width = 0;
			while (i < len && isdigit((unsigned char)fmt[i])) {
				if (sg->width < PF_MAX_WIDTH)
					sg->width = sg->width * 10 + (fmt[i] - '0');
				i++;
			}
			if (sg->width > PF_MAX_WIDTH)
				sg->width = PF_MAX_WIDTH;
		}
		if (i < len && fmt[i] == '.') {
			i++;
			sg->prec = 0;
			if (i < len && fmt[i] == '*') {
				sg->prec = -2;
				i++;
			} else {
				while (i < len && isdigit((unsigned char)fmt[i])) {
					if (sg->prec < PF_MAX_WIDTH)
						sg->prec = sg->prec * 10 + (fmt[i] - '0');
					i++;
				}
				if (sg->prec > PF_MAX_WIDTH)
					sg->prec = PF_MAX_WIDTH;
			}
		}
		{
			size_t nl = 0;

			while (i < len && strchr("hlzjtL", fmt[i]) && nl < 2)
				sg->lenmod[nl++] = fmt[i++];
		}
		if (i >= len)
			return false;
		sg->conv = fmt[i++];
		if (!strchr("diuxXocsp", sg->conv))
			return false;
		if (sg->conv == 'p' && i < len && strchr("sSBfFxKh", fmt[i]))
			sg->pext = fmt[i++];
	}
	return true;
}

struct print_fmt *print_fmt_parse(const char *text, const struct evt_field *fields,
				  size_t nr_fields)
{
	struct print_fmt *pf;
	struct parser ps = { 0 };
	unsigned int needed = 0;
	const char *fmt;
	size_t fmt_len;

	if (!text)
		return NULL;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	ps.pf = pf;
	ps.fields = fields;
	ps.nr_fields = nr_fields;
	ps.p = text;
	ps.end = text + strlen(text);
	next(&ps);
	if (ps.kind != T_STR)
		goto fail;
	fmt = ps.text;
	fmt_len = ps.tlen;
	next(&ps);
	if (!parse_format(&ps, fmt, fmt_len))
		goto fail;
	pf->args = pf_alloc(pf, PF_MAX_ARGS * sizeof(*pf->args));
	if (!pf->args)
		goto fail;
	while (is_punct(&ps, ',')) {
		struct node *n;

		next(&ps);
		n = parse_expr(&ps);
		if (!n || ps.error || pf->nr_args >= PF_MAX_ARGS)
			goto fail;
		pf->args[pf->nr_args++] = n;
	}
	if (ps.kind != T_END)
		goto fail;
	for (unsigned int i = 0; i < pf->nr_segs; i++) {
		const struct seg *sg = &pf->segs[i];

		if (sg->text)
			continue;
		needed += 1 + (sg->width == -2) + (sg->prec == -2);
	}
	if (needed != pf->nr_args)
		goto fail;
	return pf;
fail:
	print_fmt_free(pf);
	return NULL;
}

/* --- evaluation ------------------------------------------------------------------------- */

enum { V_INT, V_STR, V_BYTES };

struct val {
	int kind;
	bool is_signed;
	uint64_t i;
	const char *p;		/* V_STR, V_BYTES */
	size_t len;
	unsigned int elem;	/* V_BYTES: element size */
};

struct eval_ctx {
	const unsigned char *rec;
	size_t len;
	char *scratch;
	size_t spos;
};

static uint64_t read_int(const unsigned char *p, unsigned int size, bool is_signed)
{
	switch (size) {
	case 1: {
		uint8_t v = p[0];

		return is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	default:
		return 0;
	}
}

static struct val v_int(uint64_t i, bool is_signed)
{
	struct val v = { .kind = V_INT, .is_signed = is_signed, .i = i };

	return v;
}

static struct val v_str(const char *p, size_t len)
{
	struct val v = { .kind = V_STR, .p = p, .len = len };

	return v;
}

/* A string of at most @max bytes at @p: up to its NUL. */
static struct val v_bounded_str(const char *p, size_t max)
{
	const char *nul = memchr(p, '\0', max);

	return v_str(p, nul ? (size_t)(nul - p) : max);
}

/* The dynamic data of a __data_loc/__rel_loc field, bounds-checked; false if bad. */
static bool dyn_data(const struct eval_ctx *c, const struct evt_field *f, const char **p,
		     size_t *len)
{
	uint32_t loc;
	size_t off, l;

	if ((size_t)f->offset + 4 > c->len)
		return false;
	memcpy(&loc, c->rec + f->offset, 4);
	off = loc & 0xffff;
	l = loc >> 16;
	if (f->kind == EVT_FIELD_REL_STRING)
		off += (size_t)f->offset + 4;
	if (off > c->len || l > c->len - off)
		return false;
	*p = (const char *)c->rec + off;
	*len = l;
	return true;
}

static struct val eval(struct eval_ctx *c, const struct node *n);

static struct val eval_field(const struct eval_ctx *c, const struct evt_field *f)
{
	size_t off = f->offset, size = f->size;

	if (off > c->len)
		return f->kind == EVT_FIELD_STRING ? v_str("", 0) : v_int(0, false);
	if (f->kind == EVT_FIELD_STRING) {
		if (size == 0 || off + size > c->len)	/* char buf[]: to the end of the record */
			size = c->len - off;
		return v_bounded_str((const char *)c->rec + off, size);
	}
	if (size > c->len - off)
		return v_int(0, false);
	if (f->kind == EVT_FIELD_ARRAY) {
		struct val v = { .kind = V_BYTES, .p = (const char *)c->rec + off, .len = size,
				 .elem = f->elem_size ? f->elem_size : 1,
				 .is_signed = f->is_signed };

		return v;
	}
	return v_int(read_int(c->rec + off, f->size, f->is_signed && f->kind == EVT_FIELD_INT),
		      f->is_signed && f->kind == EVT_FIELD_INT);
}

/* Room in the scratch buffer for a string result; NULL when full. */
static struct evt_seq scratch_seq(struct eval_ctx *c)
{
	struct evt_seq s;

	if (c->spos + 2 >= PF_SCRATCH) {
		evt_seq_init(&s, c->scratch + PF_SCRATCH - 1, 1);
		return s;
	}
	evt_seq_init(&s, c->scratch + c->spos, PF_SCRATCH - c->spos);
	return s;
}

static struct val scratch_done(struct eval_ctx *c, struct evt_seq *s)
{
	struct val v = v_str(s->buf, s->len);

	c->spos += s->len + 1;
	return v;
}

static struct val eval_flags(struct eval_ctx *c, const struct node *n)
{
	struct evt_seq s = scratch_seq(c);
	uint64_t flags = eval(c, n->a).i;
	bool first = true;

	/* The kernel's trace_print_flags_seq(). */
	for (unsigned int i = 0; i < n->nr_syms && flags; i++) {
		uint64_t mask = n->syms[i].val;

		if ((flags & mask) != mask)
			continue;
		flags &= ~mask;
		if (!first)
			evt_seq_puts(&s, n->str);
		first = false;
		evt_seq_puts(&s, n->syms[i].name);
	}
	if (flags) {
		if (!first)
			evt_seq_puts(&s, n->str);
		evt_seq_printf(&s, "0x%llx", (unsigned long long)flags);
	}
	return scratch_done(c, &s);
}

static struct val eval_symbolic(struct eval_ctx *c, const struct node *n)
{
	struct evt_seq s = scratch_seq(c);
	uint64_t val = eval(c, n->a).i;

	for (unsigned int i = 0; i < n->nr_syms; i++)
		if (n->syms[i].val == val) {
			evt_seq_puts(&s, n->syms[i].name);
			return scratch_done(c, &s);
		}
	evt_seq_printf(&s, "0x%llx", (unsigned long long)val);
	return scratch_done(c, &s);
}

static struct val eval_hex(struct eval_ctx *c, const struct node *n)
{
	struct evt_seq s = scratch_seq(c);
	struct val buf = eval(c, n->a);
	uint64_t len = eval(c, n->b).i;

	if (buf.kind == V_INT)
		return scratch_done(c, &s);
	if (len > buf.len)
		len = buf.len;
	for (uint64_t i = 0; i < len; i++)
		if (evt_seq_printf(&s, n->kind == N_HEX && i ? " %02x" : "%02x",
				   (unsigned char)buf.p[i]))
			break;
	return scratch_done(c, &s);
}

static struct val eval_array(struct eval_ctx *c, const struct node *n)
{
	struct evt_seq s = scratch_seq(c);
	struct val buf = eval(c, n->a);
	uint64_t count = eval(c, n->b).i, el = eval(c, n->c).i;

	/* The kernel's trace_print_array_seq(): "{0x1,0x2}". */
	if (buf.kind == V_INT || (el != 1 && el != 2 && el != 4 && el != 8))
		return scratch_done(c, &s);
	evt_seq_putc(&s, '{');
	for (uint64_t i = 0; i < count && (i + 1) * el <= buf.len; i++)
		if (evt_seq_printf(&s, "%s0x%llx", i ? "," : "",
				   (unsigned long long)read_int((const unsigned char *)buf.p +
								i * el, (unsigned int)el,
								false)))
			break;
	evt_seq_putc(&s, '}');
	return scratch_done(c, &s);
}

/*
 * The kernel's trace_print_bitmask_seq() ("%*pb" of size * 8 bits): 32-bit
 * chunks in hex from the most significant, zero-padded, comma-separated
 * ("00000000,00000003"). The words are the writer's unsigned longs, read
 * as little-endian bytes (x86-64, arm64): chunk k is bytes 4k..4k+3.
 */
static struct val eval_bitmask(struct eval_ctx *c, const struct node *n)
{
	struct evt_seq s = scratch_seq(c);
	const char *p;
	size_t len;

	if (!dyn_data(c, n->field, &p, &len))
		return scratch_done(c, &s);
	for (size_t i = len; i-- > 0;)
		if (evt_seq_printf(&s, i % 4 == 3 && i + 1 < len ? ",%02x" : "%02x",
				   (unsigned char)p[i]))
			break;
	return scratch_done(c, &s);
}

static uint64_t cast_int(uint64_t v, unsigned int size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
	case 2: return is_signed ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	case 4: return is_signed ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	default: return v;
	}
}

static struct val eval_binary(struct eval_ctx *c, const struct node *n)
{
	struct val a = eval(c, n->a), b;
	bool s;
	uint64_t x, y, r;

	if (n->op == OP_LAND || n->op == OP_LOR) {
		bool ta = a.kind != V_INT || a.i;

		if (n->op == OP_LAND && !ta)
			return v_int(0, true);
		if (n->op == OP_LOR && ta)
			return v_int(1, true);
		b = eval(c, n->b);
		return v_int(b.kind != V_INT || b.i, true);
	}
	b = eval(c, n->b);
	x = a.kind == V_INT ? a.i : (uint64_t)(uintptr_t)a.p;
	y = b.kind == V_INT ? b.i : (uint64_t)(uintptr_t)b.p;
	s = a.is_signed && b.is_signed;
	switch (n->op) {
	case '*': r = x * y; break;
	case '/': r = !y ? 0 : s ? ((int64_t)y == -1 ? -x : (uint64_t)((int64_t)x / (int64_t)y))
				: x / y; break;
	case '%': r = !y ? 0 : s ? ((int64_t)y == -1 ? 0 : (uint64_t)((int64_t)x % (int64_t)y))
				: x % y; break;
	case '+': r = x + y; break;
	case '-': r = x - y; break;
	case OP_SHL: r = x << (y & 63); break;
	case OP_SHR: r = s ? (uint64_t)((int64_t)x >> (y & 63)) : x >> (y & 63); break;
	case '<': return v_int(s ? (int64_t)x < (int64_t)y : x < y, true);
	case '>': return v_int(s ? (int64_t)x > (int64_t)y : x > y, true);
	case OP_LE: return v_int(s ? (int64_t)x <= (int64_t)y : x <= y, true);
	case OP_GE: return v_int(s ? (int64_t)x >= (int64_t)y : x >= y, true);
	case OP_EQ: return v_int(x == y, true);
	case OP_NE: return v_int(x != y, true);
	case '&': r = x & y; break;
	case '^': r = x ^ y; break;
	case '|': r = x | y; break;
	default: r = 0; break;
	}
	return v_int(r, s);
}

static struct val eval(struct eval_ctx *c, const struct node *n)
{
	struct val v;
	const char *p;
	size_t len;

	switch (n->kind) {
	case N_INT:
		return v_int(n->ival, n->ival <= INT64_MAX);
	case N_STR:
		return v_str(n->str, n->slen);
	case N_IDENT:
		return v_int(0, true);
	case N_FIELD:
		return eval_field(c, n->field);
	case N_GET_STR:
		if (!dyn_data(c, n->field, &p, &len))
			return v_str("", 0);
		return v_bounded_str(p, len);
	case N_GET_DYN:
		if (!dyn_data(c, n->field, &p, &len))
			return v_str("", 0);
		v = v_str(p, len);
		v.kind = V_BYTES;
		v.elem = n->field->elem_size ? n->field->elem_size : 1;
		v.is_signed = n->field->is_signed;
		return v;
	case N_GET_DYN_LEN:
		if (!dyn_data(c, n->field, &p, &len))
			return v_int(0, false);
		return v_int(len, false);
	case N_FLAGS:
		return eval_flags(c, n);
	case N_SYMBOLIC:
		return eval_symbolic(c, n);
	case N_HEX:
	case N_HEX_STR:
		return eval_hex(c, n);
	case N_ARRAY:
		return eval_array(c, n);
	case N_BITMASK:
		return eval_bitmask(c, n);
	case N_UNARY:
		v = eval(c, n->a);
		switch (n->op) {
		case '-': return v_int(-(v.kind == V_INT ? v.i : 0), true);
		case '!': return v_int(v.kind == V_INT ? !v.i : 0, true);
		case '~': return v_int(~(v.kind == V_INT ? v.i : 0), v.is_signed);
		case '*':
			if (v.kind != V_INT && v.len)
				return v_int(read_int((const unsigned char *)v.p,
						      v.elem && v.elem <= v.len ? v.elem : 1,
						      v.is_signed), v.is_signed);
			return v_int(0, false);
		default: return v;
		}
	case N_BINARY:
		return eval_binary(c, n);
	case N_TERNARY:
		v = eval(c, n->a);
		return (v.kind != V_INT || v.i) ? eval(c, n->b) : eval(c, n->c);
	case N_CAST:
		v = eval(c, n->a);
		if (v.kind != V_INT)
			return v;
		return v_int(cast_int(v.i, n->cast_size, n->cast_signed), n->cast_signed);
	case N_INDEX: {
		struct val base = eval(c, n->a);
		uint64_t ix = eval(c, n->b).i;
		unsigned int el = base.kind == V_BYTES ? base.elem : 1;

		if (base.kind == V_INT || !el || ix >= base.len / el)
			return v_int(0, false);
		return v_int(read_int((const unsigned char *)base.p + ix * el, el,
				      base.is_signed), base.is_signed);
	}
	default:
		return v_int(0, false);
	}
}

static uint64_t const_eval(const struct node *n)
{
	char scratch[PF_SCRATCH];
	struct eval_ctx c = { NULL, 0, scratch, 0 };
	struct val v = eval(&c, n);

	return v.kind == V_INT ? v.i : 0;
}

/* --- output ------------------------------------------------------------------------------ */

static int clamp_width(uint64_t v)
{
	int64_t w = (int64_t)v;

	if (w > PF_MAX_WIDTH)
		return PF_MAX_WIDTH;
	if (w < -PF_MAX_WIDTH)
		return -PF_MAX_WIDTH;
	return (int)w;
}

/* "%<flags>*.*<conv>" for one conversion, width and precision passed as ints. */
static void build_spec(char *out, const struct seg *sg, const char *lenmod, char conv,
		       bool with_prec)
{
	snprintf(out, 32, "%%%s*%s%s%c", sg->flags, with_prec ? ".*" : "", lenmod, conv);
}

static void print_symbol(struct evt_seq *s, const struct seg *sg, int width, uint64_t addr)
{
	char tmp[320];
	Dl_info info;

	if ((sg->pext == 's' || sg->pext == 'S' || sg->pext == 'B' || sg->pext == 'f' ||
	     sg->pext == 'F') && addr && dladdr((void *)(uintptr_t)addr, &info) &&
	    info.dli_sname) {
		uint64_t off = addr - (uint64_t)(uintptr_t)info.dli_saddr;

		if (sg->pext == 's' || sg->pext == 'f' || !off)
			snprintf(tmp, sizeof(tmp), "%.256s", info.dli_sname);
		else
			snprintf(tmp, sizeof(tmp), "%.256s+0x%llx", info.dli_sname,
				 (unsigned long long)off);
	} else if (sg->pext == 'x' || sg->pext == 'K') {
		snprintf(tmp, sizeof(tmp), "%016llx", (unsigned long long)addr);
	} else {
		snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)addr);
	}
	evt_seq_printf(s, strchr(sg->flags, '-') ? "%-*s" : "%*s", width, tmp);
}

static void print_conv(struct evt_seq *s, const struct seg *sg, int width, int prec,
		       struct val v)
{
	char spec[32];
	bool has_prec = prec >= 0;
	uint64_t x = v.kind == V_INT ? v.i : (uint64_t)(uintptr_t)v.p;

	switch (sg->conv) {
	case 'd':
	case 'i': {
		long long sv;

		if (!strcmp(sg->lenmod, "hh"))
			sv = (signed char)x;
		else if (!strcmp(sg->lenmod, "h"))
			sv = (short)x;
		else if (!sg->lenmod[0])
			sv = (int)x;
		else
			sv = (long long)x;
		build_spec(spec, sg, "ll", 'd', has_prec);
		if (has_prec)
			evt_seq_printf(s, spec, width, prec, sv);
		else
			evt_seq_printf(s, spec, width, sv);
		break;
	}
	case 'u':
	case 'x':
	case 'X':
	case 'o': {
		unsigned long long uv;

		if (!strcmp(sg->lenmod, "hh"))
			uv = (unsigned char)x;
		else if (!strcmp(sg->lenmod, "h"))
			uv = (unsigned short)x;
		else if (!sg->lenmod[0])
			uv = (unsigned int)x;
		else
			uv = x;
		build_spec(spec, sg, "ll", sg->conv, has_prec);
		if (has_prec)
			evt_seq_printf(s, spec, width, prec, uv);
		else
			evt_seq_printf(s, spec, width, uv);
		break;
	}
	case 'c':
		/* A NUL would end the text early: it prints as nothing (padding kept). */
		if (!(unsigned char)x) {
			evt_seq_printf(s, "%*s", width < 0 ? -width : width, "");
			break;
		}
		build_spec(spec, sg, "", 'c', false);
		evt_seq_printf(s, spec, width, (int)(unsigned char)x);
		break;
	case 's': {
		const char *p = v.kind == V_INT ? NULL : v.p;
		size_t len = v.kind == V_INT ? 0 : v.len;
		char num[32];

		if (!p) {
			snprintf(num, sizeof(num), "%llu", (unsigned long long)x);
			p = num;
			len = strlen(num);
		}
		if (has_prec && (size_t)prec < len)
			len = (size_t)prec;
		/* %.*s with the bounded length: the bytes need not be NUL-terminated */
		evt_seq_printf(s, strchr(sg->flags, '-') ? "%-*.*s" : "%*.*s", width, (int)len,
			       p);
		break;
	}
	case 'p':
		print_symbol(s, sg, width, x);
		break;
	default:
		break;
	}
}

int print_fmt_print(const struct print_fmt *pf, const void *rec, size_t len, struct evt_seq *s)
{
	char scratch[PF_SCRATCH];
	struct eval_ctx c = { rec, len, scratch, 0 };
	unsigned int arg = 0;

	if (!pf)
		return -EINVAL;
	for (unsigned int i = 0; i < pf->nr_segs; i++) {
		const struct seg *sg = &pf->segs[i];
		int width = 0, prec = -1;
		struct val v;

		if (sg->text) {
			evt_seq_putmem(s, sg->text, sg->len);
			continue;
		}
		c.spos = 0;
		if (sg->width == -2)
			width = arg < pf->nr_args ? clamp_width(eval(&c, pf->args[arg++]).i) : 0;
		else if (sg->width >= 0)
			width = sg->width;
		if (sg->prec == -2) {
			prec = arg < pf->nr_args ? clamp_width(eval(&c, pf->args[arg++]).i) : 0;
			if (prec < 0)
				prec = -1;
		} else {
			prec = sg->prec;
		}
		v = arg < pf->nr_args ? eval(&c, pf->args[arg++]) : v_int(0, false);
		print_conv(s, sg, width, prec, v);
	}
	return s->full ? -ENOSPC : 0;
}

/* Fields as "name=value" when the print format did not parse. */
static int print_raw_fields(const struct evt_event *ev, const void *rec, size_t len,
			    struct evt_seq *s)
{
	char scratch[PF_SCRATCH];
	struct eval_ctx c = { rec, len, scratch, 0 };

	for (unsigned int i = ev->nr_common; i < ev->nr_fields; i++) {
		const struct evt_field *f = &ev->fields[i];
		struct val v;

		if (i > ev->nr_common)
			evt_seq_putc(s, ' ');
		if (f->kind == EVT_FIELD_DYN_STRING || f->kind == EVT_FIELD_REL_STRING) {
			const char *p;
			size_t l;

			if (!dyn_data(&c, f, &p, &l))
				l = 0, p = "";
			v = v_bounded_str(p, l);
		} else {
			v = eval_field(&c, f);
		}
		if (v.kind == V_STR)
			evt_seq_printf(s, "%s=%.*s", f->name, (int)v.len, v.p);
		else if (v.kind == V_BYTES)
			evt_seq_printf(s, "%s=ARRAY[%zu]", f->name, v.len);
		else if (v.is_signed)
			evt_seq_printf(s, "%s=%lld", f->name, (long long)v.i);
		else
			evt_seq_printf(s, "%s=%llu", f->name, (unsigned long long)v.i);
	}
	return s->full ? -ENOSPC : 0;
}

int event_print_record(const struct evt_event *ev, const void *rec, size_t len,
		       struct evt_seq *s)
{
	if (ev->print)
		return ev->print(ev, rec, len, s);
	if (ev->print_fmt)
		return print_fmt_print(ev->print_fmt, rec, len, s);
	return print_raw_fields(ev, rec, len, s);
}
