/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * filter/filter_internal.h - the compiled form of a filter (filter.c only,
 * and the tests that look inside it).
 *
 * A program is a flat array of entries, as the kernel's prog_entry: entry i
 * runs its predicate; if the result equals when_to_branch the program jumps
 * to entry target, otherwise it goes on with i + 1. Two entries without a
 * predicate end the array: the first returns target = 1 (TRUE), the second
 * target = 0 (FALSE). Targets always move forward, so a program of N
 * predicates runs at most N of them.
 *
 * A program never changes once filter_compile() returned it: any number of
 * threads may run it at once, with no synchronisation; the event layer
 * publishes and retires programs (RCU).
 */
#ifndef EVT_FILTER_FILTER_INTERNAL_H
#define EVT_FILTER_FILTER_INTERNAL_H

#include <stdint.h>

#include "filter/filter.h"

/* The kernel's filter_op_ids, in its order (its parser depends on it: "<=" before "<"). */
enum filter_op {
	FOP_GLOB,	/* ~ */
	FOP_NE,		/* != */
	FOP_EQ,		/* == */
	FOP_LE,		/* <= */
	FOP_LT,		/* < */
	FOP_GE,		/* >= */
	FOP_GT,		/* > */
	FOP_BAND,	/* & */
	FOP_MAX,
};

/* What a predicate does (the kernel's filter_pred_fn). */
enum filter_fn {
	FFN_NOP,		/* a numeric field of a size other than 1, 2, 4, 8: false */
	FFN_EQ8, FFN_EQ16, FFN_EQ32, FFN_EQ64,			/* == / != (not) */
	FFN_S8, FFN_S16, FFN_S32, FFN_S64,			/* < <= > >= & signed */
	FFN_U8, FFN_U16, FFN_U32, FFN_U64,			/* the same, unsigned */
	FFN_MASK8, FFN_MASK16, FFN_MASK32, FFN_MASK64,		/* field vs CPUS{list} */
	FFN_COMM,		/* COMM / comm: the thread's name */
	FFN_STRING,		/* char name[N] */
	FFN_STRLOC,		/* __data_loc char[] */
	FFN_STRRELLOC,		/* __rel_loc char[] */
	FFN_PCHAR,		/* char * into the program's memory, copied safely */
	FFN_CPU,		/* CPU / cpu / common_cpu vs a number */
	FFN_CPU_MASK,		/* the same vs CPUS{list} */
	FFN_FUNCTION,		/* field.function: start <= value < end */
};

/* How a string operand matches (the kernel's regex_type). */
enum filter_match_type {
	FMT_FULL,
	FMT_FRONT,	/* "abc*" */
	FMT_MIDDLE,	/* "*abc*" */
	FMT_END,	/* "*abc" */
	FMT_GLOB,	/* anything else with * ? [ \ : glob_match() */
};

struct filter_pred {
	uint8_t fn;		/* enum filter_fn */
	uint8_t op;		/* enum filter_op */
	uint8_t not;		/* invert the result (==/!= and string ops) */
	uint8_t match;		/* enum filter_match_type */
	uint16_t offset;	/* field offset in the record */
	uint16_t field_len;	/* static strings: the array's size */
	uint64_t val;		/* numbers; FUNCTION: start */
	uint64_t val2;		/* FUNCTION: end */
	uint64_t *mask;		/* CPUS{} with more than one CPU: nr_mask_bits bits */
	uint32_t nr_mask_bits;
	uint32_t plen;		/* pattern length */
	char *pattern;		/* NUL-terminated */
};

struct filter_entry {
	int target;
	int when_to_branch;
	const struct filter_pred *pred;	/* NULL: the TRUE / FALSE end entries */
};

/*
 * What filter_match() runs: the program above with each predicate's test
 * folded into an opcode (one dispatch per predicate: type, size, operator and
 * not in one), its jump precomputed. OPC_SLOW calls the general predicate.
 */
#define FILTER_OPC_SIZES(X, op) X(op##8) X(op##16) X(op##32) X(op##64)
#define FILTER_OPCODES(X)                                                                     \
	X(TRUE) X(FALSE) X(SLOW)                                                              \
	FILTER_OPC_SIZES(X, EQ) FILTER_OPC_SIZES(X, NE) FILTER_OPC_SIZES(X, BAND)             \
	FILTER_OPC_SIZES(X, LT_U) FILTER_OPC_SIZES(X, LE_U)                                   \
	FILTER_OPC_SIZES(X, GT_U) FILTER_OPC_SIZES(X, GE_U)                                   \
	FILTER_OPC_SIZES(X, LT_S) FILTER_OPC_SIZES(X, LE_S)                                   \
	FILTER_OPC_SIZES(X, GT_S) FILTER_OPC_SIZES(X, GE_S)

#define FILTER_OPC_ENUM(name) OPC_##name,
enum filter_opcode { FILTER_OPCODES(FILTER_OPC_ENUM) OPC_MAX };

struct filter_insn {
	uint8_t opc;			/* enum filter_opcode */
	uint8_t when;			/* jump when the result equals this */
	uint16_t offset;		/* the field's offset */
	uint32_t jump;			/* where to, as an index (always forward) */
	uint64_t val;			/* the value; OPC_SLOW: the index in preds[] */
};	/* 16 bytes, 16-aligned in code[]: four to a cache line, none across two */

struct filter_prog {
	struct filter_insn *insns;	/* while compiling; then NULL, and code[] holds them */
	struct filter_entry *entries;	/* nr_preds + 2 */
	struct filter_pred *preds;
	int nr_preds;
	uint32_t min_len;		/* a record shorter than this matches nothing */
	bool needs_ctx;			/* uses COMM or CPU */
	char *text;
	/* nr_preds + 2: what filter_match() runs, in the same block (one load less) */
	_Alignas(16) struct filter_insn code[];
};

/* The kernel's glob_match() (lib/glob.c semantics): * ? [set] [!set] [a-z], no escapes. */
bool filter_glob_match(const char *pat, const char *str);

#endif /* EVT_FILTER_FILTER_INTERNAL_H */
