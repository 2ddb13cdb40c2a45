// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the print-format interpreter (events/print_fmt.c).
 *
 * Input: a `print fmt:` text, a NUL byte, then a record (the rest). The
 * text is parsed against a fixed table of fields of every kind; if it
 * parses, the record is printed twice (into a large and into a tiny
 * builder). The record is copied into a heap block of exactly its size,
 * so a read past it is caught by AddressSanitizer. The parser must
 * never crash on any text, the printer never on any record.
 *
 * Seeds (tests/fuzz/corpus/events-print/): the formats of tests/unit/
 * events-print.c and the kernel's, with records of a few lengths.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/seq.h>

#include "events/event_internal.h"

static const struct evt_field fields[] = {
	{ "unsigned short", "common_type", 0, 2, 2, EVT_FIELD_INT, 0 },
	{ "unsigned char", "common_flags", 2, 1, 1, EVT_FIELD_INT, 0 },
	{ "int", "common_pid", 4, 4, 4, EVT_FIELD_INT, 1 },
	{ "int", "i", 12, 4, 4, EVT_FIELD_INT, 1 },
	{ "unsigned int", "u", 16, 4, 4, EVT_FIELD_INT, 0 },
	{ "long long", "ll", 20, 8, 8, EVT_FIELD_INT, 1 },
	{ "char", "c", 28, 1, 1, EVT_FIELD_INT, 1 },
	{ "char[8]", "name", 32, 8, 1, EVT_FIELD_STRING, 1 },
	{ "__data_loc char[]", "str", 40, 4, 1, EVT_FIELD_DYN_STRING, 0 },
	{ "__data_loc u8[]", "buf", 44, 4, 1, EVT_FIELD_DYN_ARRAY, 0 },
	{ "void *", "ptr", 48, 8, 8, EVT_FIELD_PTR, 0 },
	{ "int[3]", "arr", 56, 12, 4, EVT_FIELD_ARRAY, 1 },
	{ "__rel_loc char[]", "rel", 68, 4, 1, EVT_FIELD_REL_STRING, 0 },
	{ "char[]", "tail", 72, 0, 1, EVT_FIELD_STRING, 0 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t text_len = nul ? (size_t)(nul - data) : size;
	size_t rec_len = nul ? size - text_len - 1 : 0;
	struct print_fmt *pf;
	char *text, out[4096], tiny[8];
	unsigned char *rec;
	struct evt_seq s;

	text = malloc(text_len + 1);
	rec = malloc(rec_len ? rec_len : 1);
	if (!text || !rec)
		abort();
	memcpy(text, data, text_len);
	text[text_len] = '\0';
	if (rec_len)
		memcpy(rec, nul + 1, rec_len);
	pf = print_fmt_parse(text, fields, sizeof(fields) / sizeof(fields[0]));
	if (pf) {
		evt_seq_init(&s, out, sizeof(out));
		print_fmt_print(pf, rec, rec_len, &s);
		if (s.len >= sizeof(out) || strlen(out) != s.len)
			abort();
		evt_seq_init(&s, tiny, sizeof(tiny));
		print_fmt_print(pf, rec, rec_len, &s);
		if (s.len >= sizeof(tiny))
			abort();
		print_fmt_free(pf);
	}
	free(text);
	free(rec);
	return 0;
}
