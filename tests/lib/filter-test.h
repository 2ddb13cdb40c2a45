/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/filter-test.h - a sample event for the filter tests: every kind
 * of field, a record builder, and checks that print the expression on failure.
 */
#ifndef EVT_TESTS_FILTER_TEST_H
#define EVT_TESTS_FILTER_TEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"
#include "helpers.h"

struct ft_rec {
	uint16_t common_type;
	uint8_t common_flags;
	uint8_t common_preempt_count;
	int32_t common_pid;
	uint8_t a8;		/* 8 */
	int8_t b8;		/* 9 */
	uint16_t a16;		/* 10 */
	int16_t b16;		/* 12 */
	uint16_t pad;		/* 14 */
	uint32_t a32;		/* 16 */
	int32_t b32;		/* 20 */
	uint64_t a64;		/* 24 */
	int64_t b64;		/* 32 */
	char name[16];		/* 40 */
	uint32_t dstr;		/* 56: __data_loc char[] */
	uint32_t rstr;		/* 60: __rel_loc char[] */
	const char *pstr;	/* 64: const char * */
	void *ptr;		/* 72 */
	unsigned long call_site;	/* 80 */
	char data[160];		/* 88: dynamic data */
};

#define FT_FIELD(t, n, k, s)                                                                  \
	{ .type = t, .name = #n, .offset = offsetof(struct ft_rec, n),                        \
	  .size = sizeof(((struct ft_rec *)0)->n), .elem_size = sizeof(((struct ft_rec *)0)->n), \
	  .kind = k, .is_signed = s }

/* The fields of struct ft_rec, as an event declares them. */
extern const struct evt_field ft_fields[];
extern const size_t ft_nr_fields;
#define FT_NR_FIELDS ft_nr_fields

/* A record with name, a __data_loc and a __rel_loc string; returns its length. */
size_t ft_rec_init(struct ft_rec *r, const char *name, const char *dstr,
				 const char *rstr);

/* Checks failed so far (ft_done() reports them). */
extern int ft_failures;

/* Does @expr compile, and does @r pass it as @want says? */
void ft_check(const char *expr, const struct ft_rec *r, size_t len, int want);

/* Is @expr rejected with @msg (NULL: "Error: (0)"), the caret at @pos and errno @errnum? */
void ft_check_err(const char *expr, const char *msg, int pos, int errnum);

int ft_done(void);

#endif /* EVT_TESTS_FILTER_TEST_H */
