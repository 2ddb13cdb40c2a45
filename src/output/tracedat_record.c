// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_record.c - what a record of a trace.dat holds, for readers
 * (tracedat.h): a fixed-size field's value, and whether the record passes
 * a filter (the kernel's grammar, src/filter compiled against the event's
 * fields). Records come from files: every read is checked against the
 * record's size.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <evtrace/tracedat.h>

#include "core/detail.h"
#include "filter/filter.h"
#include "output/out_field.h"

int evt_tracedat_field_read(const struct evt_tracedat_record *rec, const struct evt_field *f,
			    unsigned long long *val)
{
	unsigned long long v;

	if (!rec || !f || !val || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return -EINVAL;
	if (f->kind != EVT_FIELD_INT && f->kind != EVT_FIELD_PTR && f->kind != EVT_FIELD_USTRING)
		return -EINVAL; /* not one value at a fixed offset */
	if ((size_t)f->offset + f->size > rec->size)
		return -EBADMSG;
	v = out_rd_uint((const unsigned char *)rec->data + f->offset, f->size);
	if (f->is_signed && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	*val = v;
	return 0;
}

/* The compiled program: filter_match() on the record's bytes. */
struct evt_tracedat_filter {
	struct filter_prog *prog;
};

int evt_tracedat_filter_compile(const struct evt_tracedat_event *ev, const char *expr,
				struct evt_tracedat_filter **fp)
{
	struct filter_error ferr = { 0 };
	struct evt_tracedat_filter *f;
	int ret;

	detail_clear();
	if (!ev || !expr || !fp)
		return -EINVAL;
	*fp = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	ret = filter_compile(ev->fields, ev->nr_fields, expr, &f->prog, &ferr);
	if (ret) {
		detail_set("%s (at %d)", ferr.msg ? ferr.msg : "no such fields in this event",
			   ferr.pos);
		filter_free(f->prog);
		free(f);
		return ret;
	}
	*fp = f;
	return 0;
}

bool evt_tracedat_filter_match(const struct evt_tracedat_filter *f,
			       const struct evt_tracedat_record *rec)
{
	return f && rec && filter_match(f->prog, rec->data, rec->size);
}

void evt_tracedat_filter_free(struct evt_tracedat_filter *f)
{
	if (!f)
		return;
	filter_free(f->prog);
	free(f);
}
